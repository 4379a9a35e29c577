# stepIn enters a lambda; stepOut returns to the call line.
# break: call
# start -> breakpoint@main:call
# stepIn -> step@<lambda>:define
# stepOut -> step@main:call
# next -> step@main:after {y=3}
# continue -> exit 0
def main():
    inc = lambda x: x + 1  # @define  # noqa: E731
    y = inc(2)  # @call
    return y  # @after


main()
