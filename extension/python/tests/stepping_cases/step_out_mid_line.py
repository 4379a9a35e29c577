# stepOut of g in `v = f(g(1))` stops on that line with f still to run, and stepIn then
# enters f; stepOut of f comes back to the same line again.
# break: g_body
# start -> breakpoint@g:g_body {n=1}
# stepOut -> step@main:call
# stepIn -> step@f:f_body {n=2}
# stepOut -> step@main:call
# next -> step@main:after {v=4}
# continue -> exit 0
def g(n):
    return n + 1  # @g_body


def f(n):
    return n * 2  # @f_body


def main():
    v = f(g(1))  # @call
    print(v)  # @after


main()
