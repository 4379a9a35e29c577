# stepIn at a return behaves as next does there: the caller's call line; from there the
# next stepIn enters the next call.
# break: ret
# start -> breakpoint@add:ret
# stepIn -> step@main:call
# stepIn -> step@main:second
# stepIn -> step@add:body {a=3, b=3}
# continue -> breakpoint@add:ret {total=6}
# continue -> exit 0
def add(a, b):
    total = a + b  # @body
    return total  # @ret


def main():
    x = add(1, 2)  # @call
    y = add(x, 3)  # @second
    return y


main()
