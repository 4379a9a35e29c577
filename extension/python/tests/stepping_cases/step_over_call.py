# next runs a whole call and stops on the next line of the same function.
# break: call
# start -> breakpoint@main:call
# next -> step@main:after {x=3}
# next -> step@main:ret {y=6}
# continue -> exit 0
def add(a, b):
    total = a + b
    return total


def main():
    x = add(1, 2)  # @call
    y = add(x, 3)  # @after
    return y  # @ret


main()
