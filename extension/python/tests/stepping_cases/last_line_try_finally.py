# next off the end of a try/finally function called on the module's last line stops on
# that line, in the module.
# break: cleanup
# start -> breakpoint@work:cleanup
# next -> step@work:ret
# next -> step@<module>:last
# next -> exit 0
def work():
    done = []
    try:
        done.append(1)
    finally:
        done.append(2)  # @cleanup
    return done  # @ret


x = 1
work()  # @last
