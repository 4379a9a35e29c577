"""A connection handed over as its descriptor (ipc/dial.py's HandedSocket): what a
Connection asks of its socket, with os alone until more is asked."""

from __future__ import annotations

import os
import socket
import sys
import threading

import pytest

from dapperdbg.ipc.connection import Connection
from dapperdbg.ipc.dial import HandedSocket, connect

pytestmark = pytest.mark.skipif(os.name != "posix", reason="descriptors are handed over on POSIX")


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    os.set_inheritable(theirs.fileno(), True)
    handed = connect(f"fd:{theirs.detach()}")
    yield ours, handed
    ours.close()
    handed.close()


def test_it_is_taken_from_the_programs_this_one_starts(pair):
    _, handed = pair
    assert isinstance(handed, HandedSocket)
    assert not os.get_inheritable(handed.fileno())


def test_reads_and_writes_go_through_the_descriptor(pair):
    ours, handed = pair
    # More than a socket buffer holds: written in parts, as the peer reads.
    writer = threading.Thread(target=handed.sendall, args=(b"x" * 300_000,))
    writer.start()
    received = bytearray()
    while len(received) < 300_000:
        received += ours.recv(65536)
    writer.join()
    assert received == b"x" * 300_000
    ours.sendall(b"hello")
    assert handed.recv(100) == b"hello"
    assert not handed.made_socket


def test_an_unblocked_read_finds_nothing_then_blocks_again(pair):
    ours, handed = pair
    handed.setblocking(False)
    assert handed.gettimeout() == 0.0
    with pytest.raises(BlockingIOError):
        handed.recv(10)
    handed.settimeout(None)
    assert handed.gettimeout() is None
    ours.sendall(b"later")
    assert handed.recv(10) == b"later"
    assert not handed.made_socket


def test_a_timeout_or_a_shutdown_makes_the_socket(pair):
    ours, handed = pair
    handed.settimeout(0.05)
    assert handed.made_socket
    with pytest.raises(TimeoutError if sys.version_info >= (3, 10) else socket.timeout):
        handed.recv(10)
    handed.shutdown(socket.SHUT_WR)
    assert ours.recv(10) == b""


def test_a_closed_one_fails_rather_than_read_another_file(pair):
    _, handed = pair
    fd = handed.fileno()
    handed.close()
    replacement = os.open(os.devnull, os.O_RDONLY)  # May get the same number.
    try:
        with pytest.raises(OSError):
            handed.recv(10)
    finally:
        os.close(replacement)
    assert handed.fileno() == -1 != fd


def test_what_is_no_socket_is_refused():
    read_end, write_end = os.pipe()
    try:
        with pytest.raises(OSError, match="not a socket"):
            connect(f"fd:{read_end}")
        with pytest.raises(OSError):
            connect("fd:987654")
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_connection_on_it_closes_without_the_wait_and_without_socket(pair):
    ours, handed = pair
    connection = Connection(handed)
    connection.send_event("dapper/exiting", {"exitCode": 0})
    connection.close(linger=False)
    assert not handed.made_socket
    data = b""
    while chunk := ours.recv(65536):
        data += chunk
    assert b"dapper/exiting" in data
