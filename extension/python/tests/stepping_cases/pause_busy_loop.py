# pause stops a thread that runs Python code without end; with `stop` set the loop ends.
# start -> running
# pause -> pause@spin:test|body
# set stop = True -> = True
# continue -> exit 0
import time


def spin():
    stop = False
    n = 0
    deadline = time.monotonic() + 5
    while not stop and time.monotonic() < deadline:  # @test
        n += 1  # @body
    return stop


raise SystemExit(0 if spin() else 3)
