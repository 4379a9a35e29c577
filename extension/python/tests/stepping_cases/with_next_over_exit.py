# next from a `with` body's last line runs __exit__ (user code) without stopping in it.
# break: last
# start -> breakpoint@main:last
# [py>=3.10] next -> step@main:with
# next -> step@main:after {n=2}
# continue -> exit 0
class Tracker:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False


def main():
    n = 0
    with Tracker():  # @with
        n += 1
        n += 1  # @last
    print(n)  # @after


main()
