# next off a closure called on the module's last line stops on that line, in the module.
# break: ret
# start -> breakpoint@inner:ret {a=1}
# next -> step@<module>:last
# next -> exit 0
def make():
    def inner():
        a = 1
        return a  # @ret
    return inner


fn = make()
fn()  # @last
