# setVariable changes what the program goes on with: x set to 10 makes y 20.
# break: before
# break: after
# start -> breakpoint@main:before {x=1}
# set x = 10 -> = 10
# continue -> breakpoint@main:after {y=20}
# continue -> exit 0
def main():
    x = 1
    y = x * 2  # @before
    return y  # @after


main()
