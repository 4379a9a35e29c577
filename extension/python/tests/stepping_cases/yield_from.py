# next over a yield in a generator that outer delegates to with `yield from`: the stop is
# in its caller, outer, on the `yield from` line; next there yields on to the consumer.
# break: inner_give
# start -> breakpoint@inner:inner_give
# next -> step@outer:delegate
# next -> step@main:loop
# next -> step@main:body {v=1}
# continue -> exit 0
def inner():
    yield 1  # @inner_give
    yield 2


def outer():
    yield from inner()  # @delegate
    yield 3


def main():
    seen = []
    for v in outer():  # @loop
        seen.append(v)  # @body
    return seen


main()
