# A pause while greenlets run (once the first is in its loop) stops the thread in the
# greenlet it runs next, with the program monkey-patched: the debugger's own threads
# (the pause's, the connection's) and locks are the interpreter's, not gevent's, and the
# greenlets that wait get line events too. The debug console then ends the loops and
# the program runs to its end.
# break: body hit == 1
# start -> breakpoint@spin:body
# continue -> running
# pause -> pause@spin:test|body|switch
# evaluate done.append(True) or len(done) -> = 1
# continue -> exit 0
from gevent import monkey

monkey.patch_all()

import time  # noqa: E402

import gevent  # noqa: E402

done = []


def spin(deadline):
    while not done and time.monotonic() < deadline:  # @test
        rounds = len(done)  # @body
        gevent.sleep(0.001 + rounds)  # @switch
    return bool(done)


greenlets = [gevent.spawn(spin, time.monotonic() + 5) for _ in range(2)]
gevent.joinall(greenlets, raise_error=True)
raise SystemExit(0 if all(greenlet.value for greenlet in greenlets) else 3)
