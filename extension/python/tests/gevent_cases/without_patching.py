# With the launch's "gevent" on, greenlets are threads also in a program that does not
# monkey-patch: a step over the main greenlet's join goes on in it while the greenlets
# run (their breakpoint-free lines do not end it); stepping out of a greenlet's function
# runs on (no stop in gevent's hub), to the next breakpoint.
# options: gevent
# break: spawn
# break: last if n == 0
# start -> breakpoint@<module>:spawn (MainThread)
# next -> step@<module>:join (MainThread)
# next -> breakpoint@work:last (work-0)
# threads -> MainThread | Greenlet 'work-0' (work) | Greenlet 'work-1' (work) |
#            Greenlet 'work-2' (work)
# stack (MainThread) -> <module>:join
# stack (work-2) -> sleep:* | work:switch
# stepOut -> exit 0
import gevent


def work(n):
    total = 0
    for step in range(3):
        total += step * n
        gevent.sleep(0)  # @switch
    return total  # @last


def start(n):
    greenlet = gevent.spawn(work, n)
    greenlet.name = f"work-{n}"
    return greenlet


greenlets = list(map(start, range(3)))  # @spawn
gevent.joinall(greenlets)  # @join
print([greenlet.value for greenlet in greenlets])
