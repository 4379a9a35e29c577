# next over a call that raises goes to the matching except clause, then its body, then the
# finally clause, all in the same frame.
# break: call
# start -> breakpoint@main:call
# next -> step@main:handler
# next -> step@main:handled
# next -> step@main:cleanup
# next -> step@main:after {state='cleaned'}
# continue -> exit 0
def fail():
    raise ValueError("bad")


def main():
    state = "start"
    try:
        fail()  # @call
        state = "not reached"
    except ValueError:  # @handler
        state = "handled"  # @handled
    finally:
        state = "cleaned"  # @cleanup
    return state  # @after


main()
