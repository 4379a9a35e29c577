"""Shared by the benchmark programs: the lines of timing the harness reads, the
debuggee's own memory figures, and a function that is never called (the target of the
"breakpoint elsewhere" configuration)."""

import sys
import time

try:
    import resource
except ImportError:  # Windows has none: the children's CPU time is left out there.
    resource = None


def _status_kb(field):
    # /proc is Linux only; elsewhere the memory figures are simply left out.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _children_cpu():
    """The CPU time of the child processes waited for so far, theirs included."""
    if resource is None:
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start():
    """The start of the timed work: the wall clock, the CPU time of the whole process
    (every thread of it, the debugger's included) and of its children."""
    return time.perf_counter(), time.process_time(), _children_cpu()


def report(started):
    """Prints the time the work took since ``start()`` (wall clock, and CPU: the
    process's own and its waited-for children's) and memory, the lines the harness
    parses."""
    seconds = time.perf_counter() - started[0]
    cpu_seconds = time.process_time() - started[1]
    lines = [f"BENCH_SECONDS={seconds!r}", f"BENCH_CPU_SECONDS={cpu_seconds!r}"]
    children = _children_cpu()
    if children is not None:
        lines.append(f"BENCH_CHILDREN_CPU_SECONDS={children - started[2]!r}")
    for field in ("VmHWM", "VmRSS"):
        value = _status_kb(field)
        if value is not None:
            lines.append(f"BENCH_{field.upper()}_KB={value}")
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def never_called():
    unused = "a breakpoint here is never hit"  # BENCH:elsewhere
    return unused
