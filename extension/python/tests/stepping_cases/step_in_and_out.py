# stepIn enters the call; stepOut stops in the caller at the point of return, on the call
# line with the assignment still to run; next then finishes that line.
# break: call
# start -> breakpoint@main:call
# stepIn -> step@add:body {a=1, b=2}
# stepOut -> step@main:call
# next -> step@main:after {x=3}
# continue -> exit 0
def add(a, b):
    total = a + b  # @body
    return total


def main():
    x = add(1, 2)  # @call
    y = add(x, 3)  # @after
    return y


main()
