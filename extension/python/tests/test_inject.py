"""Attach by process id, the debuggee's half (launcher/inject.py): a running program calls
``inject.attach`` as the host's bootstrap does, from its own thread in the middle of its
loop; the test plays the engine. The breakpoint in the loop that was running before the
attach stops, and once the engine goes the process is as it was before: no trace
function, no sys.monitoring tool, its own streams and hooks back."""

from __future__ import annotations

import json
import sys

from conftest import PACKAGE_DIR, TOKEN, Debuggee, engine_environment

PROGRAM = """
import _thread, builtins, os, sys, threading, time, json

def snapshot():
    main = sys._current_frames()[threading.main_thread().ident]
    monitoring = getattr(sys, "monitoring", None)
    return {
        "trace": repr(sys.gettrace()),
        "threading_trace": repr(getattr(threading, "_trace_hook", None)),
        "tool": monitoring.get_tool(monitoring.DEBUGGER_ID) if monitoring else None,
        "stdout": id(sys.stdout),
        "stderr": id(sys.stderr),
        "breakpointhook": repr(sys.breakpointhook),
        "excepthook": repr(threading.excepthook),
        "bootstrap_inner": repr(threading.Thread._bootstrap_inner),
        "meta_path": [repr(entry) for entry in sys.meta_path],
        "frame_trace": repr(main.f_trace),
        "dont_write_bytecode": sys.dont_write_bytecode,
        "os_exit": repr(os._exit),
        "current_frames": repr(sys._current_frames),
    }

before = snapshot()
sys.path.insert(0, PACKAGE)
from dapperdbg.launcher import inject
sys.path.remove(PACKAGE)
inject.attach(ADDRESS, TOKEN, "s7")
seen_session = False
ticks = 0
while True:
    ticks += 1  # the loop line
    time.sleep(0.01)
    # The debugger's threads are hidden from threading; _thread counts them.
    debugger_threads = _thread._count()
    seen_session = seen_session or bool(debugger_threads)
    if seen_session and not debugger_threads:
        break
after = snapshot()
print(json.dumps({"before": before, "after": after, "ticks": ticks}), flush=True)
"""
def running(program, tmp_path) -> Debuggee:
    """``program`` started as a program the user started: no Dapper variables, no
    PYTHONPATH; the test plays the engine it attaches to."""
    environment = {name: value for name, value in engine_environment().items()
                   if not name.startswith("DAPPER_") and name != "PYTHONPATH"}
    return Debuggee([sys.executable, str(program), "{ipc}"], environment, tmp_path, "unix",
                    tmp_path)


LOOP_LINE = next(number for number, line in enumerate(PROGRAM.splitlines(), 0)
                 if "# the loop line" in line)


def test_an_injected_session_stops_in_running_code_and_leaves_no_trace(tmp_path, write):
    program = write("running.py", PROGRAM.replace("PACKAGE", repr(str(PACKAGE_DIR)))
                    .replace("ADDRESS", "sys.argv[1]").replace("TOKEN", repr(TOKEN)))
    debuggee = running(program, tmp_path)
    try:
        hello = debuggee.accept()
        assert (hello["token"], hello["sessionId"], hello["pid"], hello["name"]) == (
            TOKEN, "s7", debuggee.process.pid, str(program))
        debuggee.configure({"console": "externalTerminal", "redirectOutput": True,
                            "processId": debuggee.process.pid})
        debuggee.set_breakpoints(program, [LOOP_LINE])
        debuggee.request("configurationDone")
        stopped = debuggee.stopped()
        frame = debuggee.top_frame(stopped["threadId"])
        assert (frame["name"], frame["line"]) == ("<module>", LOOP_LINE)
        assert int(debuggee.locals_of(frame["id"])["ticks"]["value"]) >= 1
        debuggee.request("continue", {"threadId": stopped["threadId"]})
        debuggee.stopped()
        debuggee.disconnect()
        assert debuggee.wait_exit() == 0, debuggee.stderr()
        report = json.loads(debuggee.stdout().strip().splitlines()[-1])
        assert report["after"] == report["before"]
        assert debuggee.stderr() == ""
    finally:
        debuggee.close()


def test_the_end_of_a_program_attached_to_is_reported_without_a_status(tmp_path, write):
    # Python code never sees the exit status, so none is made up.
    program = write("ends.py", f"""
        import sys, time
        sys.path.insert(0, {str(PACKAGE_DIR)!r})
        from dapperdbg.launcher import inject
        inject.attach(sys.argv[1], {TOKEN!r}, "s8")
        time.sleep(1.0)
        sys.exit(3)
        """)
    debuggee = running(program, tmp_path)
    try:
        debuggee.accept()
        debuggee.configure({"console": "externalTerminal", "redirectOutput": True})
        debuggee.request("configurationDone")
        assert debuggee.wait_event("dapper/exiting") == {"exitCode": None}
        assert debuggee.wait_exit() == 3
    finally:
        debuggee.close()


def test_breakpoints_apply_as_soon_as_configuration_done_is_answered(tmp_path, write):
    # The client takes the answer to configurationDone for "attached": code the program
    # runs right after it (here, within a millisecond of a file the test writes then)
    # must stop at its breakpoint. The session thread starts tracing after the
    # configuration, so the answer waits for it.
    flag = tmp_path / "go"
    program = write("prompt.py", f"""
        import os, sys, time
        sys.path.insert(0, {str(PACKAGE_DIR)!r})
        from dapperdbg.launcher import inject
        inject.attach(sys.argv[1], {TOKEN!r}, "s9")

        def hit():
            return "hit"  # the breakpoint


        while not os.path.exists({str(flag)!r}):
            time.sleep(0.001)
        print(hit(), flush=True)
        """)
    line = next(number for number, text in enumerate(program.read_text().splitlines(), 1)
                if "# the breakpoint" in text)
    debuggee = running(program, tmp_path)
    try:
        debuggee.accept()
        debuggee.configure({"console": "externalTerminal", "redirectOutput": True})
        debuggee.set_breakpoints(program, [line])
        debuggee.request("configurationDone")
        flag.write_text("")
        stopped = debuggee.stopped()
        frame = debuggee.top_frame(stopped["threadId"])
        assert (frame["name"], frame["line"]) == ("hit", line)
        debuggee.request("continue", {"threadId": stopped["threadId"]})
        assert debuggee.wait_exit() == 0, debuggee.stderr()
    finally:
        debuggee.close()
