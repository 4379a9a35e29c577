# Under justMyCode, the stack of a thread that waits in the standard library (the main
# thread, in join) begins at the user's own frame when another thread stopped.
# break: body
# start -> breakpoint@work:body (worker)
# frame (MainThread) -> <module>:join
# continue -> exit 0
import threading
import time


def work():
    time.sleep(0.1)
    value = 42  # @body
    return value


thread = threading.Thread(target=work, name="worker")
thread.start()
thread.join()  # @join
