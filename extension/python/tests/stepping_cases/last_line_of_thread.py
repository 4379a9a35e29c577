# next off the last line of a thread's function (its caller is threading's own code, not
# the user's) lets the thread end without a stop; the program ends normally.
# break: ret
# start -> breakpoint@work:ret (worker)
# next -> exit 0
import threading


def work():
    value = 42
    return value  # @ret


thread = threading.Thread(target=work, name="worker")
thread.start()
thread.join()
