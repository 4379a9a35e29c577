"""What a connection reads before its reader thread starts (ipc/connection.py
``read_arrived``): the messages already arrived, up to enough, on the calling thread and
without waiting; the rest, and a corrupt stream, are ``read_loop``'s, in order. Each case
is a real socket pair, the test writing the engine's end."""

from __future__ import annotations

import _socket
import threading
import time

from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.frames import KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE, encode_frame

REQUESTS = [{"type": "request", "seq": seq, "command": f"step{seq}"} for seq in range(1, 5)]


def _pair():
    engine, debuggee = _socket.socketpair()
    return engine, Connection(debuggee)


def _read_loop(connection: Connection) -> tuple[list[dict], threading.Thread, list]:
    """read_loop on a thread of its own, as the session's reader runs it."""
    seen: list[dict] = []
    ended: list = []
    thread = threading.Thread(
        target=lambda: ended.append(connection.read_loop(seen.append)), daemon=True)
    thread.start()
    return seen, thread, ended


def test_what_arrived_is_read_up_to_enough_and_the_rest_is_the_reader_s():
    engine, connection = _pair()
    engine.sendall(b"".join(encode_frame(KIND_TO_DEBUGGEE, message) for message in REQUESTS))
    seen: list[dict] = []
    connection.read_arrived(seen.append, lambda: len(seen) >= 2)
    assert seen == REQUESTS[:2]
    later, thread, ended = _read_loop(connection)
    engine.sendall(encode_frame(KIND_TO_DEBUGGEE, {"type": "request", "seq": 9}))
    engine.close()
    thread.join(5)
    assert later == [*REQUESTS[2:], {"type": "request", "seq": 9}]
    assert ended == [None]


def test_nothing_arrived_returns_at_once_and_the_socket_still_waits():
    engine, connection = _pair()
    seen: list[dict] = []
    started = time.monotonic()
    connection.read_arrived(seen.append, lambda: False)
    assert seen == [] and time.monotonic() - started < 1.0
    # Blocking again: the reader waits for the frame sent later instead of failing.
    later, thread, ended = _read_loop(connection)
    time.sleep(0.1)
    assert thread.is_alive() and ended == []
    engine.sendall(encode_frame(KIND_TO_DEBUGGEE, REQUESTS[0]))
    engine.close()
    thread.join(5)
    assert later == REQUESTS[:1] and ended == [None]


def test_half_a_frame_is_kept_for_the_reader():
    engine, connection = _pair()
    frame = encode_frame(KIND_TO_DEBUGGEE, REQUESTS[0])
    engine.sendall(frame[:5])
    seen: list[dict] = []
    connection.read_arrived(seen.append, lambda: False)
    assert seen == []
    later, thread, _ = _read_loop(connection)
    engine.sendall(frame[5:])
    engine.close()
    thread.join(5)
    assert later == REQUESTS[:1]


def test_a_corrupt_stream_found_early_ends_the_reader_with_the_reason():
    engine, connection = _pair()
    engine.sendall(encode_frame(KIND_TO_DEBUGGEE, REQUESTS[0])
                   + encode_frame(KIND_FROM_DEBUGGEE, REQUESTS[1]))
    seen: list[dict] = []
    connection.read_arrived(seen.append, lambda: False)
    assert seen == REQUESTS[:1]
    later, thread, ended = _read_loop(connection)
    thread.join(5)
    assert later == [] and ended == ["unexpected frame kind 1 sent to the debuggee"]
    engine.close()


def test_a_closed_connection_is_left_to_the_reader():
    engine, connection = _pair()
    engine.close()
    seen: list[dict] = []
    connection.read_arrived(seen.append, lambda: False)
    later, thread, ended = _read_loop(connection)
    thread.join(5)
    assert seen == later == [] and ended == [None] and connection.ended_by_peer
