"""How a connection's end waits for the engine (ipc/connection.py ``close``): by default
until the engine has closed its end too, so that nothing it has not read is reset away;
without ``linger`` (a child the engine sends nothing to as it ends) not at all, the engine
still reading everything sent, then the end. Each case is a real socket pair, the test
playing the engine's end."""

from __future__ import annotations

import _socket
import threading
import time

from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.frames import KIND_FROM_DEBUGGEE, FrameDecoder

EXITING = {"type": "event", "event": "dapper/exiting", "body": {"exitCode": 0}}


def _reading(connection: Connection) -> threading.Thread:
    """The connection's reader, blocked in its read as a running child's is."""
    thread = threading.Thread(target=connection.read_loop, args=(lambda message: None,),
                              daemon=True)
    thread.start()
    time.sleep(0.05)
    return thread


def _engine_reads(engine) -> list[dict]:
    """What the engine's end reads until the child's end of the stream."""
    decoder = FrameDecoder()
    messages = []
    while data := engine.recv(65536):
        for kind, message in decoder.feed(data):
            assert kind == KIND_FROM_DEBUGGEE
            messages.append(message)
    return messages


def test_without_linger_the_end_does_not_wait_and_the_engine_reads_all_then_the_end():
    engine, debuggee = _socket.socketpair()
    connection = Connection(debuggee)
    _reading(connection)
    connection.send(EXITING)
    started = time.monotonic()
    connection.close(linger=False)
    assert time.monotonic() - started < 0.5
    engine.settimeout(5)
    assert _engine_reads(engine) == [{**EXITING, "seq": 1}]


def test_by_default_the_end_waits_until_the_engine_closes_its_end():
    engine, debuggee = _socket.socketpair()
    connection = Connection(debuggee)
    reader = _reading(connection)
    connection.send(EXITING)
    read: list[list[dict]] = []

    def engine_side() -> None:
        engine.settimeout(5)
        read.append(_engine_reads(engine))
        time.sleep(0.3)
        engine.close()

    threading.Thread(target=engine_side, daemon=True).start()
    started = time.monotonic()
    connection.close()
    waited = time.monotonic() - started
    assert 0.25 < waited < 5
    reader.join(5)
    assert read == [[{**EXITING, "seq": 1}]] and not reader.is_alive()
