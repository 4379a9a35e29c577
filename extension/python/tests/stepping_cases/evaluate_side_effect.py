# An expression evaluated at a stop can change the program's state, and the program goes
# on with the change.
# break: before
# start -> breakpoint@main:before
# evaluate items.append(4) -> = None
# evaluate len(items) -> = 4
# next -> step@main:after {n=4}
# continue -> exit 0
def main():
    items = [1, 2, 3]
    n = len(items)  # @before
    return n  # @after


main()
