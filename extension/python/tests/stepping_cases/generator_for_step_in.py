# stepIn at a `for` over a generator enters the generator; next over its `yield` stops in
# the caller at the point of return (the `for` line), and the loop body runs with the
# value; stepIn at the `for` again resumes the generator after its yield.
# break: setup
# start -> breakpoint@main:setup
# next -> step@main:loop
# stepIn -> step@count:first
# next -> step@count:give
# next -> step@main:loop
# next -> step@main:body {v=1}
# next -> step@main:loop
# stepIn -> step@count:after
# continue -> exit 0
def count():
    n = 1  # @first
    yield n  # @give
    n += 1  # @after
    yield n


def main():
    total = 0  # @setup
    for v in count():  # @loop
        total += v  # @body
    return total


main()
