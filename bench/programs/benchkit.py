"""Shared by the benchmark programs: the one line of timing the harness reads, the
debuggee's own memory figures, and a function that is never called (the target of the
"breakpoint elsewhere" configuration)."""

import sys


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


def report(seconds):
    """Prints the program's own work time and memory, the lines the harness parses."""
    lines = [f"BENCH_SECONDS={seconds!r}"]
    for field in ("VmHWM", "VmRSS"):
        value = _status_kb(field)
        if value is not None:
            lines.append(f"BENCH_{field.upper()}_KB={value}")
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def never_called():
    unused = "a breakpoint here is never hit"  # BENCH:elsewhere
    return unused
