"""``breakpoint()`` under the debugger stops in the debugger, honouring
PYTHONBREAKPOINT as the interpreter does."""

from __future__ import annotations

import pytest

PROGRAM = """
import threading
def work():
    value = 1
    breakpoint()
    value += 1
    return value
print("worked", work())
thread = threading.Thread(target=work, name="worker")
thread.start()
thread.join()
print("done")
"""
HOOK = """
def mine(*args, **kwargs):
    print("my hook", args, kwargs, flush=True)
"""


def start(launch, write, backend, env=None):
    program = write("main.py", PROGRAM)
    write("hooks.py", HOOK)
    debuggee = launch("--program", program, tracer=backend, env=env)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    return debuggee


def test_breakpoint_stops_in_the_debugger_on_every_thread(launch, write, backend):
    debuggee = start(launch, write, backend)
    stopped = debuggee.stopped()
    assert stopped["threadId"] == 1 and stopped["allThreadsStopped"] is True
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("work", 4), ("<module>", 7)]
    debuggee.request("next", {"threadId": 1})
    assert debuggee.stopped("step")["threadId"] == 1
    assert debuggee.top_frame(1)["line"] == 5
    debuggee.request("continue", {"threadId": 1})
    worker = debuggee.stopped()
    assert worker["threadId"] != 1
    assert debuggee.top_frame(worker["threadId"])["line"] == 4
    debuggee.request("continue", {"threadId": worker["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "worked 2\ndone\n"


@pytest.mark.parametrize("setting,output", [
    ("0", "worked 2\ndone\n"),
    ("hooks.mine", "my hook () {}\nworked 2\nmy hook () {}\ndone\n"),
])
def test_pythonbreakpoint_is_honoured(launch, write, backend, setting, output):
    debuggee = start(launch, write, backend, env={"PYTHONBREAKPOINT": setting})
    debuggee.finish(0)
    assert debuggee.stdout() == output
    assert [e for e in debuggee.events if e["event"] == "stopped"] == []
