"""Log points: every line a log point writes reaches the engine, in the order written,
before whatever the program does next is announced (a stop, captured output, its end),
however fast the program logs and however soon it ends; and a program that logs faster
than the engine reads waits for it rather than piling the lines up in memory."""

from __future__ import annotations

import socket
import sys
import threading
import time

import pytest

from conftest import as_the_engine_sends
from dapperdbg.ipc import connection as connection_module
from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.frames import FrameDecoder

HITS = 5000


def messages_until(debuggee, event_name):
    """Every message up to and including the first ``event_name`` event, in order."""
    seen = []
    while True:
        message = debuggee._next_message()
        assert message is not None, (
            f"the connection closed before {event_name}; stderr: {debuggee.stderr()}")
        seen.append(message)
        if message.get("type") == "event" and message.get("event") == event_name:
            return seen


def outputs(messages, category="console"):
    """The outputs of a category, without the debugger's own notices (on 3.9-3.11, that
    it traces with sys.settrace)."""
    return [m["body"]["output"] for m in messages
            if m.get("event") == "output" and m["body"].get("category") == category
            and not m["body"]["output"].startswith("Dapper: ")]


# How the program ends right after its last log point hit: (name, last lines).
ENDINGS = [
    ("falls off its end", ""),
    ("sys.exit", "sys.exit(0)"),
    ("os._exit", "os._exit(0)"),
    ("an uncaught exception", "raise SystemExit(0)"),
]


@pytest.mark.parametrize("ending", [row[1] for row in ENDINGS], ids=[row[0] for row in ENDINGS])
def test_every_line_arrives_in_order_before_the_program_ends(launch, write, backend, ending):
    path = write("main.py", f"""
        import os, sys

        def handle(i):
            value = i * 2
            return value

        for i in range({HITS}):
            handle(i)
        {ending}
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [4], logMessage="i={i}")
    debuggee.request("configurationDone")
    messages = messages_until(debuggee, "dapper/exiting")
    assert outputs(messages) == [f"i={i}\n" for i in range(HITS)]
    lines = [m for m in messages if m.get("event") == "output"]
    assert all(m["body"]["line"] == 4 and m["body"]["source"]["path"] == str(path)
               for m in lines), lines[:3]
    assert debuggee.wait_exit() == 0


# (log message, the lines of the hits with i = 0, 1, 2), the same whether the copy renders
# the line (instrumented) or the debugger evaluates it (DAPPER_INSTRUMENT=0: the tracer).
MESSAGES = [
    ("i={i}", ["i=0", "i=1", "i=2"]),
    ("plain text", ["plain text"] * 3),
    ("100% {i}%", ["100% 0%", "100% 1%", "100% 2%"]),
    ("'q' \"{i}\" \\n", ["'q' \"0\" \\n", "'q' \"1\" \\n", "'q' \"2\" \\n"]),
    ("{i} {{braces}} { {'k': i}['k'] }", ["0 {braces} 0", "1 {braces} 1", "2 {braces} 2"]),
    ("{(i, i)}", ["(0, 0)", "(1, 1)", "(2, 2)"]),
    ("{i # a comment\n}", ["0", "1", "2"]),
    ("{[i for _ in range(2)]}", ["[0, 0]", "[1, 1]", "[2, 2]"]),
    ("{NAMES[i]}", ["<KeyError: 0>", "one", "two"]),
    ("{i} {NAMES[i]} {i}", ["0 <KeyError: 0> 0", "1 one 1", "2 two 2"]),
    ("{Loud()}", ["<ValueError: no str>"] * 3),
]


@pytest.mark.parametrize("instrument", ["1", "0"])
@pytest.mark.parametrize("message,lines", MESSAGES, ids=[row[0] for row in MESSAGES])
def test_messages_render_alike_in_copies_and_by_the_tracer(launch, write, message, lines,
                                                           instrument):
    path = write("main.py", """
        NAMES = {1: "one", 2: "two"}

        class Loud:
            def __str__(self):
                raise ValueError("no str")

        def handle(i):
            value = i
            return value

        for i in range(3):
            handle(i)
    """)
    debuggee = launch("--program", path, env={"DAPPER_INSTRUMENT": instrument})
    debuggee.configure()
    debuggee.set_breakpoints(path, [8], logMessage=message)
    debuggee.request("configurationDone")
    messages = messages_until(debuggee, "dapper/exiting")
    assert outputs(messages) == [f"{line}\n" for line in lines]
    debuggee.finish(0)


# (what the log point has besides its message, the values of i it logs for i in 0..6)
PICKS = [
    ({"hitCondition": "%3"}, [2, 5]),
    ({"condition": "i % 2 == 0"}, [0, 2, 4, 6]),
    ({"condition": "i > 1", "hitCondition": ">3"}, [5, 6]),
]


@pytest.mark.parametrize("instrument", ["1", "0"])
@pytest.mark.parametrize("extra,logged", PICKS, ids=[str(row[0]) for row in PICKS])
def test_conditions_pick_the_hits_that_log(launch, write, instrument, extra, logged):
    path = write("main.py", """
        for i in range(7):
            value = i
    """)
    debuggee = launch("--program", path, env={"DAPPER_INSTRUMENT": instrument})
    debuggee.configure()
    debuggee.set_breakpoints(path, [2], logMessage="i={i}", **extra)
    debuggee.request("configurationDone")
    messages = messages_until(debuggee, "dapper/exiting")
    assert outputs(messages) == [f"i={i}\n" for i in logged]
    debuggee.finish(0)


def test_lines_of_another_thread_arrive_before_a_stop(launch, write, backend):
    # The logging thread is done before the main thread reaches its breakpoint: the
    # stop must not overtake any of its lines.
    path = write("main.py", f"""
        import threading

        def log_all():
            for i in range({HITS}):
                value = i

        worker = threading.Thread(target=log_all)
        worker.start()
        worker.join()
        done = True
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.request("setBreakpoints", {"source": {"path": str(path)}, "breakpoints": [
        {"line": 5, "logMessage": "w{i}"}, {"line": 10}]})
    debuggee.request("configurationDone")
    messages = messages_until(debuggee, "stopped")
    assert outputs(messages) == [f"w{i}\n" for i in range(HITS)]
    debuggee.request("continue", {"threadId": messages[-1]["body"]["threadId"]})
    debuggee.finish(0)


def test_lines_keep_their_place_among_captured_output(launch, write, backend):
    path = write("main.py", """
        for i in range(300):
            print(f"p{i}")
            value = i
        print("end")
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"console": "integratedTerminal", "redirectOutput": True})
    debuggee.set_breakpoints(path, [3], logMessage="l{i}")
    debuggee.request("configurationDone")
    messages = messages_until(debuggee, "dapper/exiting")
    text = "".join(m["body"]["output"] for m in messages if m.get("event") == "output"
                   and m["body"].get("category") in ("stdout", "console")
                   and not m["body"]["output"].startswith("Dapper: "))
    assert text == "".join(f"p{i}\nl{i}\n" for i in range(300)) + "end\n"
    debuggee.finish(0)


def test_a_slow_hit_is_not_held_back(launch, write, backend):
    # A line written while the program then waits (here, for the engine's answer to come
    # through a file it polls) goes out on its own, without a later write to push it.
    path = write("main.py", """
        import time
        value = 1
        time.sleep(30)
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [2], logMessage="once")
    debuggee.request("configurationDone")
    assert debuggee.wait_event("output", timeout=5)["output"] == "once\n"


def read_frames(sock, count, decoder):
    messages = []
    while len(messages) < count:
        data = sock.recv(1 << 20)
        assert data, "the connection closed early"
        for _, message in decoder.feed(data):
            messages.extend(as_the_engine_sends(message))
    return messages


@pytest.mark.parametrize("bound,value", [("MAX_QUEUED_LINES", 50),
                                         ("MAX_QUEUED_CHARS", 50 * 1000)])
def test_a_writer_faster_than_its_reader_waits_for_it(monkeypatch, bound, value):
    """Lines queued faster than the peer reads block the writer once the queue holds its
    bound (of lines, or of characters): memory stays bounded, and no line is dropped or
    reordered."""
    monkeypatch.setattr(connection_module, bound, value)
    ours, peer = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection = Connection(ours)
    tail = ',"line":1'
    line = "x" * 1000
    total = 2000
    written = []
    longest = [0]

    def write_all():
        for index in range(total):
            connection.queue_output(f"{index} {line}\n", tail)
            written.append(index)
            longest[0] = max(longest[0], connection.queued_lines)
        connection.flush_output()

    writer = threading.Thread(target=write_all, daemon=True)
    writer.start()
    time.sleep(0.5)
    # Nobody reads: the writer is held back long before its last line.
    assert writer.is_alive() and len(written) < total // 2, len(written)
    messages = read_frames(peer, total, FrameDecoder())
    writer.join(10)
    assert not writer.is_alive()
    assert [m["body"]["output"] for m in messages] == [f"{i} {line}\n" for i in range(total)]
    # The lines go in batches, each with the seq of its frame.
    seqs = [m["seq"] for m in messages]
    assert seqs == sorted(seqs) and seqs[0] == 1 and len(set(seqs)) < total
    assert longest[0] <= 50
    connection.close()
    peer.close()


def test_queued_lines_go_out_before_any_other_message():
    ours, peer = socket.socketpair()
    connection = Connection(ours)
    connection.queue_output("first\n", ',"line":1')
    connection.send_event("stopped", {"reason": "breakpoint", "threadId": 1})
    messages = read_frames(peer, 2, FrameDecoder())
    assert [m.get("event") for m in messages] == ["output", "stopped"]
    assert messages[0]["body"] == {"category": "console", "output": "first\n", "line": 1}
    connection.close()
    peer.close()


def read_raw_frames(sock, count):
    decoder = FrameDecoder()
    frames = []
    sock.settimeout(10)
    while len(frames) < count:
        try:
            data = sock.recv(1 << 20)
        except socket.timeout:
            raise AssertionError(f"{len(frames)} frames of {count}: {frames}") from None
        assert data, "the connection closed early"
        frames.extend(message for _, message in decoder.feed(data))
    return frames


def test_queued_lines_go_out_as_one_event_a_batch(monkeypatch):
    """The lines queued before a flush make one dapper/outputLines frame (a frame per
    line cost a busy program more than its lines), in runs of lines from one place, or
    as many frames as keep each within its size, in order; a line past that size is
    cut; text that is not valid Unicode (a lone surrogate) goes as its JSON escape."""
    monkeypatch.setattr(connection_module, "_FRAME_CHARS", 400)
    ours, peer = socket.socketpair()
    connection = Connection(ours)
    connection._flush_asked = True  # No flushing thread: this test flushes.
    here, there = ',"line":7', ',"line":8'
    queued = ([(f"line {index}\n", here) for index in range(10)]
              + [("other\n", there), ("\udcff\n", here)]
              + [(f"line {index}\n", here) for index in range(10, 20)] + [("y" * 1000, here)])
    for text, rest in queued:
        connection.queue_output(text, rest)
    connection.flush_output()
    frames = read_raw_frames(peer, 2)
    assert [frame["event"] for frame in frames] == ["dapper/outputLines"] * 2
    assert [frame["seq"] for frame in frames] == [1, 2]
    assert all(frame["body"]["category"] == "console" for frame in frames)
    runs = [run for frame in frames for run in frame["body"]["runs"]]
    lines = [(text, run["line"]) for run in runs for text in run["outputs"]]
    assert lines[:-1] == [(text, int(rest[-1])) for text, rest in queued[:-1]]
    assert lines[-1] == ("y" * (400 - 64) + "… (cut: the line was too long)\n", 7)
    # Consecutive lines of one place share a run: the ten before "other", "other", the
    # eleven after it; the long line would take the first frame past its size, so it
    # goes in a frame of its own.
    assert [len(run["outputs"]) for run in runs] == [10, 1, 11, 1]
    assert [len(frame["body"]["runs"]) for frame in frames] == [3, 1]
    assert connection.queued_lines == 0 and connection._queued_chars == 0
    connection.close()
    peer.close()


if sys.platform == "win32":  # socketpair buffers differ; the engine-level tests cover it.
    test_a_writer_faster_than_its_reader_waits_for_it = pytest.mark.skip(
        "socket buffer sizes")(test_a_writer_faster_than_its_reader_waits_for_it)
