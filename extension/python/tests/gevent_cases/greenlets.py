# Greenlets are threads, each with its own call stack (a threading.Thread that the
# patching made a greenlet under its own name): a breakpoint in one stops the whole
# thread that runs them (the others stay where they wait, even given time), and a step
# stays in the greenlet that stepped while the others run.
# break: body if n == 1
# start -> breakpoint@worker:body (worker-1)
# threads -> MainThread | Greenlet 'worker-0' (worker) | Greenlet 'worker-1' (worker) |
#            Greenlet 'worker-2' (worker) | patched-thread
# stack -> worker:body
# wait 0.2 -> waited
# stack (worker-2) -> sleep:* | worker:sleep
# stack (MainThread) -> <module>:joinall
# stack (patched-thread) -> sleep:* | background:background | run:* | _bootstrap_inner:*
# evaluate@worker n * 100 -> = 100
# next -> step@worker:switch (worker-1)
# next -> step@worker:after {value=10} (worker-1)
# continue -> exit 0
from gevent import monkey

monkey.patch_all()

import threading  # noqa: E402

import gevent  # noqa: E402


def background():
    gevent.sleep(0.3)  # @background


def worker(n):
    gevent.sleep(0.01 * n)  # @sleep
    value = n * 10  # @body
    gevent.sleep(0.05)  # @switch
    print(value)  # @after
    return value


helper = threading.Thread(target=background, name="patched-thread")
helper.start()
greenlets = [gevent.spawn(worker, n) for n in range(3)]
for number, greenlet in enumerate(greenlets):
    greenlet.name = f"worker-{number}"
gevent.joinall(greenlets)  # @joinall
helper.join()
