"""Restart-frame scenarios, driven the way the tracer will drive them: from the 'line'
event of the frame (``sys.settrace`` or a ``sys.monitoring`` LINE callback). Prints one
JSON object: scenario name -> what happened. Usage: python restart_program.py BACKEND"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from dapperdbg.hotreload import (  # noqa: E402
    RestartPlan,
    capture_arguments,
    plan_restart,
    reload_file,
)

BACKEND = sys.argv[1]
TOOL = 4  # a sys.monitoring tool id nobody else uses here


def marker_line(function, text):
    lines, start = __import__("inspect").getsourcelines(function)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError(text)


def drive(function, args, marker, *, snapshot=False, before_plan=None, times=1):
    """Call ``function(*args)`` traced; at the first ``times`` passes on ``marker``'s line,
    plan a restart and apply it. Returns (result, plans as text)."""
    code = function.__code__
    line = marker_line(function, marker)
    outcomes = []
    captured = {}

    def on_line(frame):
        if frame.f_code is code and frame.f_lineno == line and len(outcomes) < times:
            if before_plan:
                before_plan()
            plan = plan_restart(
                frame,
                arguments=captured.get(id(frame)) if snapshot else None,
                locals_writable=BACKEND == "settrace" or sys.version_info >= (3, 13),
            )
            if isinstance(plan, RestartPlan):
                try:
                    plan.apply()
                    outcomes.append("restarted" + (" (old code)" if plan.runs_old_code else ""))
                except ValueError as error:
                    outcomes.append(f"jump refused: {error}")
            else:
                outcomes.append("refused: " + plan.reason)

    if BACKEND == "settrace":

        def local(frame, event, arg):
            if event == "line":
                on_line(frame)
            return local

        def global_trace(frame, event, arg):
            if frame.f_code is code:
                if snapshot and id(frame) not in captured:
                    captured[id(frame)] = capture_arguments(frame)
                return local
            return None

        sys.settrace(global_trace)
        try:
            result = function(*args)
        finally:
            sys.settrace(None)
    else:
        monitoring = sys.monitoring
        monitoring.use_tool_id(TOOL, "restart-test")
        events = monitoring.events

        def on_start(code_, offset):
            if code_ is code and snapshot:
                frame = sys._getframe(1)
                captured.setdefault(id(frame), capture_arguments(frame))

        def on_line_event(code_, lineno):
            if code_ is code:
                on_line(sys._getframe(1))

        monitoring.register_callback(TOOL, events.PY_START, on_start)
        monitoring.register_callback(TOOL, events.LINE, on_line_event)
        monitoring.set_local_events(TOOL, code, events.PY_START | events.LINE)
        try:
            result = function(*args)
        finally:
            monitoring.set_local_events(TOOL, code, 0)
            monitoring.free_tool_id(TOOL)
    return result, outcomes


entries = []


def plain(a, b):
    entries.append((a, b))
    total = a + b
    total += 1  # MARK
    return total


def rebinds(a, b):
    entries.append((a, b))
    a = a * 10
    return a + b  # MARK


def in_loop(items):
    entries.append(list(items))
    out = []
    for item in items:
        out.append(item)  # MARK
    return out


def gen(n):
    entries.append(n)
    yield n
    yield n + 1  # MARK


def gen_first(n):
    entries.append(n)
    first = n  # MARK
    yield first


def module_level():
    return None


def scenarios():
    out = {}
    entries.clear()
    out["plain"] = [drive(plain, (1, 2), "# MARK"), list(entries)]
    entries.clear()
    out["rebound_no_snapshot"] = [drive(rebinds, (1, 2), "# MARK"), list(entries)]
    entries.clear()
    out["rebound_snapshot"] = [drive(rebinds, (1, 2), "# MARK", snapshot=True), list(entries)]
    entries.clear()
    out["loop"] = [drive(in_loop, ([1, 2],), "# MARK"), list(entries)]
    entries.clear()
    out["generator_yielded"] = _generator(gen, 5)
    entries.clear()
    out["generator_fresh"] = _generator(gen_first, 5)
    out["generator_fresh"].append(list(entries))
    out["module"] = _module_frame()
    out["reloaded"] = _reloaded()
    return out


def _generator(function, n):
    """Like ``drive``, for a generator consumed by ``list``."""
    code = function.__code__
    line = marker_line(function, "# MARK")
    outcomes = []

    def on_line(frame):
        if frame.f_code is code and frame.f_lineno == line and not outcomes:
            plan = plan_restart(frame)
            if isinstance(plan, RestartPlan):
                plan.apply()
                outcomes.append("restarted")
            else:
                outcomes.append("refused: " + plan.reason)

    def local(frame, event, arg):
        if event == "line":
            on_line(frame)
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code is code else None)
    try:
        result = list(function(n))
    finally:
        sys.settrace(None)
    return [result, outcomes]


def _module_frame():
    plan = plan_restart(sys._getframe().f_back.f_back)  # this file's module frame
    return plan.reason if not isinstance(plan, RestartPlan) else "planned"


def _reloaded():
    """Reload the function from inside its own line event, then restart the frame: the
    frame re-runs the code it started with; the next call runs the new code."""
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "restart_target.py")
    with open(path, "w") as file:
        file.write(
            "calls = []\n\ndef f(x):\n    calls.append(x)\n    y = x + 1  # MARK\n"
            "    return ('old', y)\n"
        )
    sys.path.insert(0, directory)
    import restart_target

    reloaded = []

    def reload_now():
        if not reloaded:
            with open(path) as file:
                text = file.read()
            with open(path, "w") as file:
                file.write(text.replace("('old', y)", "('new', y)"))
            reloaded.append(reload_file(path).to_body())

    result, outcomes = drive(restart_target.f, (1,), "# MARK", before_plan=reload_now)
    return [
        result,
        outcomes,
        restart_target.calls,
        restart_target.f(1),
        reloaded[0]["framesRunningOldCode"],
    ]


if __name__ == "__main__":
    print(json.dumps(scenarios()))
