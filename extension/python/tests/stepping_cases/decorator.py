# stepIn at a call of a decorated function enters the decorator's wrapper (user code),
# then the function itself; stepOut climbs back one frame at a time.
# break: call
# start -> breakpoint@main:call
# stepIn -> step@wrapper:wrap_first
# next -> step@wrapper:wrap_call
# stepIn -> step@double:body {x=4}
# stepOut -> step@wrapper:wrap_call
# stepOut -> step@main:call
# next -> step@main:after {y=9}
# continue -> exit 0
import functools


def plus_one(func):
    @functools.wraps(func)
    def wrapper(*args):
        calls = len(args)  # @wrap_first
        return func(*args) + calls  # @wrap_call
    return wrapper


@plus_one
def double(x):
    return x * 2  # @body


def main():
    y = double(4)  # @call
    print(y)  # @after


main()
