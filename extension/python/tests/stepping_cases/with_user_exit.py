# A `with` block whose __exit__ is user code: stepIn at the body's last line enters
# __exit__ when the block ends; stepOut stops back in main where the block is left, and
# next goes on after it.
# break: last
# start -> breakpoint@main:last
# [py<3.10] stepIn -> step@__exit__:exit_body
# [py>=3.10] stepIn -> step@main:with
# [py>=3.10] stepIn -> step@__exit__:exit_body
# [py<3.10] stepOut -> step@main:last
# [py>=3.10] stepOut -> step@main:with
# next -> step@main:after {n=2}
# continue -> exit 0
class Tracker:
    def __init__(self):
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True  # @exit_body
        return False


def main():
    n = 0
    with Tracker() as t:  # @with
        n += 1
        n += 1  # @last
    print(n, t.closed)  # @after


main()
