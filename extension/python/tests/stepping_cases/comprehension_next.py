# next over a line holding a list comprehension (a frame of its own before 3.12, inlined
# into the function since) runs all of it and stops once on the next line.
# break: setup
# start -> breakpoint@main:setup
# next -> step@main:comp
# next -> step@main:after {squares=[1, 4, 9]}
# next -> step@main:ret
# continue -> exit 0
def sq(x):
    return x * x


def main():
    xs = [1, 2, 3]  # @setup
    squares = [sq(x) for x in xs]  # @comp
    total = sum(squares)  # @after
    return total  # @ret


main()
