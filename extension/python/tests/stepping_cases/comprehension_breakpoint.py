# A breakpoint on a line holding a list comprehension stops once each time the line runs,
# not once per item (the comprehension is a frame of its own before 3.12, inlined since).
# break: comp
# start -> breakpoint@main:comp
# continue -> breakpoint@main:comp
# continue -> exit 0
def sq(x):
    return x * x


def main():
    for xs in ([1, 2, 3], [4, 5]):
        squares = [sq(x) for x in xs]  # @comp
        print(squares)


main()
