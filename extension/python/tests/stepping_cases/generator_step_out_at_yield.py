# stepOut of a generator that yields stops in the consumer at the point of return (the
# `for` line); next goes into the loop's body with the value given.
# break: give
# start -> breakpoint@count:give {n=1}
# stepOut -> step@main:loop
# next -> step@main:body {v=1}
# continue -> breakpoint@count:give {n=2}
# continue -> exit 0
def count():
    n = 0
    while n < 2:
        n += 1
        yield n  # @give


def main():
    total = 0
    for v in count():  # @loop
        total += v  # @body
    return total


main()
