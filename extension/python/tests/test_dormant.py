"""Whether a child runs dormant (session/dormant.py): ``DormantChild.configure`` reads what
the engine sends before the program, answers what asks for nothing, and says whether the
child runs without its debugger or which messages its debugger is to handle. Each case is
a transcript on a real socket pair, the test writing the engine's end: the messages sent,
the answers expected (command and body), and the outcome."""

from __future__ import annotations

import _socket

import pytest

from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.frames import KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE, FrameDecoder, encode_frame
from dapperdbg.session.dormant import DormantChild
from dapperdbg.session.link import ExitState, SessionLink

SOURCE = {"path": "/project/worker.py"}
LAUNCH = {"request": "attach", "justMyCode": True, "console": "internalConsole"}


def request(command: str, **arguments) -> dict:
    return {"type": "request", "command": command, "arguments": arguments}


CONFIGURE = request("dapper/configure", client={"linesStartAt1": True}, launch=LAUNCH)
NO_BREAKPOINTS = request("setBreakpoints", source=SOURCE, breakpoints=[])
A_BREAKPOINT = request("setBreakpoints", source=SOURCE, breakpoints=[{"line": 3}])
UNCAUGHT = request("setExceptionBreakpoints", filters=["uncaught"])
RAISED = request("setExceptionBreakpoints", filters=["raised", "uncaught"])
DONE = request("configurationDone")


def inherit(*requests: dict) -> dict:
    return request("dapper/inherit", requests=[
        {"command": message["command"], "arguments": message["arguments"]}
        for message in requests])


# name: (messages the engine sends, answers expected (command, body), outcome: "dormant",
# or the commands of the messages left to the debugger)
CASES = {
    "the client's configuration asks for nothing: dormant at configurationDone": (
        [CONFIGURE, NO_BREAKPOINTS, UNCAUGHT, request("setFunctionBreakpoints", breakpoints=[]),
         DONE],
        [("dapper/configure", {}), ("setBreakpoints", {"breakpoints": []}),
         ("setExceptionBreakpoints", {"breakpoints": [{"verified": True}]}),
         ("setFunctionBreakpoints", {"breakpoints": []}), ("configurationDone", {})],
        "dormant"),
    "a breakpoint in the client's configuration: the debugger takes it from there": (
        [CONFIGURE, A_BREAKPOINT, DONE], [("dapper/configure", {})], ["setBreakpoints"]),
    "an exception filter that stops where an exception is raised": (
        [CONFIGURE, RAISED], [("dapper/configure", {})], ["setExceptionBreakpoints"]),
    "stop on entry": (
        [request("dapper/configure", launch={**LAUNCH, "stopOnEntry": True})], [],
        ["dapper/configure"]),
    "an inheritance that asks for nothing: dormant at once, nothing answered": (
        [inherit(CONFIGURE, NO_BREAKPOINTS, UNCAUGHT)], [], "dormant"),
    "an inheritance with a breakpoint": (
        [inherit(CONFIGURE, A_BREAKPOINT)], [], ["dapper/inherit"]),
    "an inheritance with a request it does not know": (
        [inherit(CONFIGURE, request("setDataBreakpoints", breakpoints=[]))], [],
        ["dapper/inherit"]),
    "a request outside the configuration comes first": (
        [CONFIGURE, request("evaluate", expression="1"), DONE], [("dapper/configure", {})],
        ["evaluate"]),
    "a malformed setBreakpoints is the debugger's to refuse": (
        [CONFIGURE, request("setBreakpoints", breakpoints=[])], [("dapper/configure", {})],
        ["setBreakpoints"]),
    "the connection ends before the configuration does": (
        [CONFIGURE], [("dapper/configure", {})], []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_configure(case):
    sent, answers, outcome = CASES[case]
    engine, debuggee = _socket.socketpair()
    link = SessionLink("s1.1", "s1", "token", {}, ExitState())
    dormant = DormantChild(Connection(debuggee), link, ExitState(), None, "monitoring", None)
    for seq, message in enumerate(sent, 1):
        engine.sendall(encode_frame(KIND_TO_DEBUGGEE, {**message, "seq": seq}))
    if outcome == []:
        engine.shutdown(_socket.SHUT_WR)
    left = dormant.configure()
    assert (left if left is None else [message["command"] for message in left]) == (
        None if outcome == "dormant" else outcome)
    engine.settimeout(0.2)
    decoder = FrameDecoder()
    received: list[dict] = []
    try:
        while data := engine.recv(65536):
            received.extend(message for kind, message in decoder.feed(data)
                            if kind == KIND_FROM_DEBUGGEE)
    except _socket.timeout:  # TimeoutError from 3.10 on.
        pass
    assert [(message["command"], message.get("body")) for message in received] == answers
    assert all(message["success"] for message in received)
    # What was answered is what the debugger is given when it is made.
    assert [message["command"] for message in dormant.answered] == (
        [answer for answer, _ in answers] or [message["command"] for message in sent
                                              if outcome == "dormant"])


# Whether a dormant child may end without waiting for the engine to close its end
# (DormantChild._ends_quiet): what configured it, what happened after, and the verdict.
QUIET_CASES = {
    "an inheritance, nothing since, a short run": (
        [inherit(CONFIGURE, NO_BREAKPOINTS)], None, True),
    "its client's own configuration": (
        [CONFIGURE, NO_BREAKPOINTS, DONE], None, False),
    "a message arrived after the configuration": (
        [inherit(CONFIGURE, NO_BREAKPOINTS)], "heard", False),
    "it said something the engine may ask its client for a session for": (
        [inherit(CONFIGURE, NO_BREAKPOINTS)], "said", False),
    "it ran past half the engine's delay before a session": (
        [inherit(CONFIGURE, NO_BREAKPOINTS)], "long", False),
}


@pytest.mark.parametrize("case", list(QUIET_CASES))
def test_ends_quiet(case):
    sent, after, quiet = QUIET_CASES[case]
    engine, debuggee = _socket.socketpair()
    link = SessionLink("s1.1", "s1", "token", {}, ExitState())
    link.hello()
    connection = Connection(debuggee, sent=1)
    dormant = DormantChild(connection, link, ExitState(), None, "monitoring", None)
    for seq, message in enumerate(sent, 1):
        engine.sendall(encode_frame(KIND_TO_DEBUGGEE, {**message, "seq": seq}))
    assert dormant.configure() is None
    dormant._sent_at_start = connection.sent  # What start() notes, without its hooks.
    if after == "heard":
        # A request it answers itself: one that woke it would make a debugger in the
        # test's own process, whose tracer and finders later tests would meet.
        dormant._on_message({"type": "request", "seq": 9, "command": "setBreakpoints",
                             "arguments": {"source": {"path": "/w/a.py"}, "breakpoints": []}})
        assert dormant._session is None
    elif after == "said":
        connection.send_event("dapper/childProcess", {"pid": 1})
    elif after == "long":
        link.hello_at -= 1.0
    connection.send_event("dapper/exiting", {"exitCode": 0})
    assert dormant._ends_quiet() is quiet
