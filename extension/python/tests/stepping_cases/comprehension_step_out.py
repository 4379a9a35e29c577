# stepOut of the first sq called by `[sq(x) for x in xs]` stops at the point of return on
# the comprehension's line: in the comprehension's own frame before 3.12, in main (where
# it is inlined) since. The next call of sq is then still to come.
# break: sq_body
# start -> breakpoint@sq:sq_body {x=1}
# [py<3.12] stepOut -> step@<listcomp>:comp
# [py>=3.12] stepOut -> step@main:comp
# next -> breakpoint@sq:sq_body {x=2}
# continue -> breakpoint@sq:sq_body {x=3}
# continue -> exit 0
def sq(x):
    return x * x  # @sq_body


def main():
    xs = [1, 2, 3]
    squares = [sq(x) for x in xs]  # @comp
    return squares


main()
