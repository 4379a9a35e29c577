# A condition that fails when evaluated (a name that does not exist) stops as if it held,
# each time: the user sees the breakpoint and the error, not a silent run.
# break: loop if nope > 1
# start -> breakpoint@<module>:loop {i=0}
# continue -> breakpoint@<module>:loop {i=1}
# continue -> breakpoint@<module>:loop {i=2}
# continue -> exit 0
total = 0
for i in range(3):
    total += i  # @loop
