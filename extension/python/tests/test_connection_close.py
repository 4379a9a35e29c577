"""How a connection closes at the process's end (ipc/connection.py ``close``): what it
sent reaches the engine whole, even when the engine sent something the debuggee never
read; over TCP it waits for the engine to have read it all (a reset would lose it), and
over a Unix socket on Linux it does not wait (the engine reads all of it before the
reset). Each case is a real socket pair, the test being the engine's end."""

from __future__ import annotations

import _socket
import sys
import threading

import pytest

from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.frames import KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE, FrameDecoder, encode_frame

EXITING = {"type": "event", "event": "dapper/exiting", "body": {"exitCode": 0}}
LATE_REQUEST = {"type": "request", "seq": 7, "command": "threads"}
# Longer than anything the test waits for: a close that lingers is still lingering then.
PATIENCE_SECONDS = 1.0

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="Linux's Unix sockets")


def _tcp_pair() -> tuple[_socket.socket, _socket.socket]:
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    debuggee = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    debuggee.connect(listener.getsockname())
    engine, _ = listener._accept()
    listener.close()
    return _socket.socket(fileno=engine), debuggee


def _unix_pair() -> tuple[_socket.socket, _socket.socket]:
    return _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)


def _read_all(engine: _socket.socket) -> tuple[list[dict], str]:
    """What the engine reads until the stream ends, and how it ended."""
    decoder = FrameDecoder()
    messages: list[dict] = []
    engine.settimeout(5)
    while True:
        try:
            data = engine.recv(65536)
        except ConnectionResetError:
            return messages, "reset"
        if not data:
            return messages, "end"
        for kind, message in decoder.feed(data):
            assert kind == KIND_FROM_DEBUGGEE
            messages.append(message)


def _closing(connection: Connection) -> threading.Thread:
    """``connection.close()`` on a thread of its own, as the program's exit runs it,
    with its reader thread running."""
    reader = threading.Thread(target=connection.read_loop, args=(lambda _: None,),
                              daemon=True)
    reader.start()
    closing = threading.Thread(target=connection.close, daemon=True)
    closing.start()
    return closing


@linux_only
def test_a_unix_socket_closes_without_waiting_and_loses_nothing():
    engine, debuggee = _unix_pair()
    connection = Connection(debuggee)
    # Sent by the engine and never read: the close resets the connection.
    engine.sendall(encode_frame(KIND_TO_DEBUGGEE, LATE_REQUEST))
    sent = [{"type": "event", "event": "output", "body": {"output": f"line {n}\n"}}
            for n in range(200)]
    for message in sent:
        connection.send(dict(message))
    connection.send(dict(EXITING))
    closing = _closing(connection)
    closing.join(PATIENCE_SECONDS)
    assert not closing.is_alive(), "the close waited for the engine"
    messages, ended = _read_all(engine)
    assert [message["body"] for message in messages] == [
        *(message["body"] for message in sent), EXITING["body"]]
    assert ended in ("end", "reset")


def test_a_tcp_connection_closes_once_the_engine_has_read_to_its_end():
    engine, debuggee = _tcp_pair()
    connection = Connection(debuggee)
    connection.send(dict(EXITING))
    closing = _closing(connection)
    closing.join(0.2)
    assert closing.is_alive(), "the close did not wait for the engine"
    messages, ended = _read_all(engine)
    engine.close()
    closing.join(PATIENCE_SECONDS)
    assert not closing.is_alive()
    assert [message["event"] for message in messages] == ["dapper/exiting"]
    assert ended == "end"
