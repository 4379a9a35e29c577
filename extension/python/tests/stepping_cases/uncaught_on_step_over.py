# next over a call whose exception nothing catches: with the uncaught filter the step ends
# at the raise, stopped for the exception; the program then ends with it.
# exceptions: uncaught
# break: call
# start -> breakpoint@main:call
# next -> exception@fail:raise
# continue -> exit 1
def fail():
    raise ValueError("bad")  # @raise


def main():
    fail()  # @call
    return 0


main()
