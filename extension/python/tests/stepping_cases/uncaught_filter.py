# The uncaught filter stops where an exception nothing catches was raised; a caught one
# does not stop.
# exceptions: uncaught
# start -> exception@fail:raise {n=2}
# continue -> exit 1
def fail(n):
    if n == 2:
        raise ValueError(n)  # @raise
    try:
        raise KeyError(n)
    except KeyError:
        return n


def main():
    for n in range(3):
        fail(n)


main()
