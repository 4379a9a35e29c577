# An expression evaluated at a stop can change the program's state, and the program goes
# on with the change.
# break: before
# start -> breakpoint@main:before
# evaluate items.pop() -> = 3
# evaluate len(items) -> = 2
# next -> step@main:after {n=2}
# continue -> exit 0
def main():
    items = [1, 2, 3]
    n = len(items)  # @before
    return n  # @after


main()
