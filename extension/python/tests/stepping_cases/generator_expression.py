# A generator expression is a frame of its own on every Python: stepIn at `sum(...)`
# enters it, stepOut of sq comes back to it, and next over the line runs it all.
# break: setup
# start -> breakpoint@main:setup
# next -> step@main:line
# stepIn -> step@<genexpr>:line
# stepIn -> step@sq:sq_body {x=1}
# stepOut -> step@<genexpr>:line
# stepOut -> step@main:line
# next -> step@main:after {total=14}
# continue -> exit 0
def sq(x):
    return x * x  # @sq_body


def main():
    xs = [1, 2, 3]  # @setup
    total = sum(sq(x) for x in xs)  # @line
    return total  # @after


main()
