"""A program started without a debugger that a debugger attaches to by its process id:
it says it runs, then goes round a loop until killed."""

import time

print("running", flush=True)
rounds = 0
while True:
    rounds += 1  # BENCH:stop
    time.sleep(0.001)
