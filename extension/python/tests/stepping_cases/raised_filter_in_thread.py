# The raised filter stops in another thread too, in that thread.
# exceptions: raised
# start -> exception@work:raise (worker)
# continue -> exit 0
import threading


def work():
    try:
        raise KeyError("k")  # @raise
    except KeyError:
        pass


thread = threading.Thread(target=work, name="worker")
thread.start()
thread.join()
