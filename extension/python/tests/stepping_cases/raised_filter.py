# The raised filter stops once where the exception is raised, not again in each frame it
# passes through on its way to the handler.
# exceptions: raised
# start -> exception@fail:raise
# continue -> exit 0
def fail():
    raise KeyError("k")  # @raise


def middle():
    return fail()


def main():
    try:
        middle()
    except KeyError:
        return "caught"


main()
