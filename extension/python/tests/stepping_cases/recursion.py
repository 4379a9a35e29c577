# In a recursion each stepOut climbs one level, to the call line of the level above
# (a breakpoint with a condition stops at the deepest level only).
# break: base if n == 1
# start -> breakpoint@fact:base {n=1}
# stepOut -> step@fact:recurse {n=2}
# stepOut -> step@fact:recurse {n=3}
# stepOut -> step@main:call
# next -> step@main:after {r=6}
# continue -> exit 0
def fact(n):
    if n <= 1:
        return 1  # @base
    return n * fact(n - 1)  # @recurse


def main():
    r = fact(3)  # @call
    return r  # @after


main()
