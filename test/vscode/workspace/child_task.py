import time

started = time.time()
import sys  # noqa: E402

index = int(sys.argv[1])
square = index * index
print(started, square)
