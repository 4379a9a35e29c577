"""A child that runs on what it inherited (dapper/inherit) while its client's session
starts (session/inheritance.py): through the launcher, with this file as the engine."""

from __future__ import annotations

import queue

PROGRAM = """\
total = 0
for index in range(3):
    total += index
print("total", total)
"""
LOOP_LINE = 3


def inherit(debuggee, path, lines, launch=None):
    """What the engine sends a child with the request for its session."""
    client = {"linesStartAt1": True, "columnsStartAt1": True}
    requests = [{"command": "dapper/configure",
                 "arguments": {"client": client, "launch": launch or {}}}]
    if lines:
        requests.append({"command": "setBreakpoints", "arguments": {
            "source": {"path": str(path)}, "breakpoints": [{"line": line} for line in lines]}})
    requests.append({"command": "setExceptionBreakpoints", "arguments": {"filters": []}})
    debuggee.send_request("dapper/inherit", {"requests": requests})


def asks_for_its_session(arrived: list[dict]) -> bool:
    """Whether the child sent the engine only the word that it holds a stop, so that the
    client is asked for its session now (ipc/connection.py)."""
    return [(message.get("type"), message.get("event")) for message in arrived] == [
        ("event", "dapper/sessionWanted")]


def nothing_within(debuggee, seconds=0.6) -> list[dict]:
    """The messages that arrive within ``seconds``: none, while events are held."""
    arrived = []
    try:
        while True:
            arrived.append(debuggee.messages.get(timeout=seconds))
    except queue.Empty:
        return arrived


def test_a_stop_before_the_session_is_configured_reaches_the_client_after_it(
        launch, write, backend):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program, tracer=backend)
    inherit(debuggee, program, [LOOP_LINE])
    # The program runs and stops at once, but its client hears nothing yet: the engine
    # hears that there is a stop for it.
    assert asks_for_its_session(nothing_within(debuggee))
    debuggee.configure()
    # The client's own request, the same as the inherited one: answered from what is in
    # place (the breakpoint the child stopped at, with its id).
    [answered] = debuggee.set_breakpoints(program, [LOOP_LINE])
    assert answered["verified"] and answered["line"] == LOOP_LINE
    debuggee.request("setExceptionBreakpoints", {"filters": []})
    debuggee.request("configurationDone")
    stop = debuggee.stopped()
    assert stop["hitBreakpointIds"] == [answered["id"]]
    debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.stopped()  # The next round of the loop: the breakpoint is the client's too.


def test_what_the_client_does_not_send_again_is_dropped(launch, write, backend):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program, tracer=backend)
    inherit(debuggee, program, [LOOP_LINE])
    # Stopped on the loop's first round.
    assert asks_for_its_session(nothing_within(debuggee))
    debuggee.configure()
    # The client has no breakpoint in the file: the inherited one goes at
    # configurationDone, after the one stop it made.
    debuggee.request("configurationDone")
    stop = debuggee.stopped()
    debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.finish(0)
    assert "total 3" in debuggee.stdout()
    assert not any(event["event"] == "stopped" for event in debuggee.events)


def test_a_different_request_from_the_client_is_applied(launch, write, backend):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program, tracer=backend)
    inherit(debuggee, program, [4])  # The print: reached after the loop.
    debuggee.configure()
    [answered] = debuggee.set_breakpoints(program, [LOOP_LINE], condition="index == 2")
    assert answered["line"] == LOOP_LINE
    debuggee.request("configurationDone")
    stop = debuggee.stopped()
    frame = debuggee.top_frame(stop["threadId"])
    # Either the program was at the inherited print already, or the client's breakpoint
    # caught it on the loop's last round; after that, only what the client set holds.
    assert frame["line"] in (LOOP_LINE, 4)
    debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.finish(0)


def test_a_child_that_ends_before_its_session_does_not_wait_for_it(launch, write):
    ending = 'import threading\nthreading.Thread(target=print, args=("total", total)).start()'
    program = write("main.py", PROGRAM.replace('print("total", total)', ending))
    debuggee = launch("--program", program)
    inherit(debuggee, program, [])
    debuggee.finish(0)
    assert "total 3" in debuggee.stdout()
    # What it held for its client (the thread's events) went before its exit, for the
    # engine to give the session when it comes.
    arrived = [message.get("event") for message in nothing_within(debuggee, 0.2) if message]
    assert arrived[-1] == "dapper/exiting", arrived
    assert arrived.count("thread") == 2, arrived


def test_malformed_inheritance_is_refused_and_the_child_waits(launch, write):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program)
    response = debuggee.request_raw("dapper/inherit", {"requests": "all of them"})
    assert not response["success"]
    assert "needs 'requests'" in response["message"]
    assert "total" not in debuggee.stdout()
    debuggee.configure()
    debuggee.request("configurationDone")
    debuggee.finish(0)


def test_the_record_of_what_was_inherited():
    from dapperdbg.session.inheritance import Inherited

    configure = {"client": {"linesStartAt1": True}, "launch": {"justMyCode": True}}
    source = {"source": {"path": "/w/a.py"}, "breakpoints": [{"line": 3}]}
    record = Inherited([
        {"command": "dapper/configure", "arguments": configure},
        {"command": "setBreakpoints", "arguments": source},
        {"command": "setExceptionBreakpoints", "arguments": {"filters": ["uncaught"]}},
        {"command": "setBreakpoints", "arguments": "not an object"},
    ])
    # The configuration a client attaches with, plus its own private keys, is the same.
    with_target = {**configure, "launch": {**configure["launch"], "__configurationTarget": 5}}
    assert record.confirmed("dapper/configure", with_target)
    assert not record.confirmed("dapper/configure", {**configure, "launch": {"justMyCode": False}})
    # A source is the same only with the same breakpoints; either way it is confirmed.
    assert not record.confirmed("setBreakpoints", {**source, "breakpoints": [{"line": 4}]})
    assert record.sources == {}
    record.confirmed("setExceptionBreakpoints", {"filters": []})
    assert record.exceptions is None and record.functions is None
