first = 1
second = first + 1  # BENCH:stop
print(second)
