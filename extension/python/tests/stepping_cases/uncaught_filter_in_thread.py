# An exception that ends another thread stops there with the uncaught filter; the
# program goes on (a thread's exception does not end the program).
# exceptions: uncaught
# start -> exception@work:raise {items=[1, 2]} (worker)
# continue -> exit 0
import threading


def work():
    items = [1, 2]
    return items[5]  # @raise


thread = threading.Thread(target=work, name="worker")
thread.start()
thread.join()
