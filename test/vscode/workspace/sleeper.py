"""A program that runs until it is stopped, started outside the debugger: Dapper's
real-VS-Code test attaches to it by picking it from "Dapper: Attach to Process"."""

import time

print("sleeper.py is running", flush=True)
ticks = 0
while True:
    ticks += 1  # the attach test's breakpoint
    time.sleep(0.1)
