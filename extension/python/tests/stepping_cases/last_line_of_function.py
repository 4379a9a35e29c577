# next off a function's last line stops in the caller on the call line (the rest of the
# line still to run), then next goes on from there.
# break: ret
# start -> breakpoint@add:ret {total=3}
# next -> step@main:call
# next -> step@main:after {x=3}
# continue -> exit 0
def add(a, b):
    total = a + b
    return total  # @ret


def main():
    x = add(1, 2)  # @call
    y = x + 1  # @after
    return y


main()
