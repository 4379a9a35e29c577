# Thread a steps over a line that sleeps 1.5 s; thread b, which waits for that line to
# begin, hits a breakpoint meanwhile, and a's sleep ends while b is stopped. After continue
# a's step ends where it would have: on the line after the sleep, not one later.
# break: a_sleep
# break: b_stop
# start -> breakpoint@run_a:a_sleep (a)
# next (a) -> breakpoint@run_b:b_stop (b)
# wait 1.5 -> waited
# continue (b) -> step@run_a:a_next (a)
# continue -> exit 0
import threading
import time

sleeping = threading.Event()


def run_a():
    sleeping.set() or time.sleep(1.5)  # @a_sleep
    x = 1  # @a_next
    x += 1
    return x


def run_b():
    sleeping.wait()
    time.sleep(0.1)
    y = 2  # @b_stop
    return y


a = threading.Thread(target=run_a, name="a")
b = threading.Thread(target=run_b, name="b")
a.start()
b.start()
a.join()
b.join()
