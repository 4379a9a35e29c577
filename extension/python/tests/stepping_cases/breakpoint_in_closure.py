# A breakpoint in a closure stops there, with the closure's own variables, each call.
# break: body
# start -> breakpoint@add:body {x=1, step=10}
# continue -> breakpoint@add:body {x=2, step=10}
# continue -> exit 0
def make_adder(step):
    def add(x):
        return x + step  # @body
    return add


adder = make_adder(10)
print(adder(1), adder(2))
