import time

reached = time.time()  # BENCH:stop
print("child reached its breakpoint line at", reached)
