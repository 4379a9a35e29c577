# stepIn at a comprehension's line: before 3.12 the comprehension is a frame of its own,
# which the step enters first; from 3.12 on it is inlined and stepIn goes into sq.
# break: setup
# start -> breakpoint@main:setup
# next -> step@main:comp
# [py<3.12] stepIn -> step@<listcomp>:comp
# stepIn -> step@sq:sq_body {x=1}
# continue -> exit 0
def sq(x):
    return x * x  # @sq_body


def main():
    xs = [1, 2, 3]  # @setup
    squares = [sq(x) for x in xs]  # @comp
    return squares


main()
