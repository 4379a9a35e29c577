"""The debuggee's end of the IPC connection: connect, send frames, read frames.

Writes come from several threads (the IPC reader answering requests, user threads
sending ``stopped``), so they are serialised by a lock and each frame goes out in one
``sendall``. Once the connection has failed, sending becomes a silent no-op: a user
thread must never raise or block because the debugger went away.
"""

from __future__ import annotations

import _socket
import contextlib
import threading
import time
from collections.abc import Callable

from .frames import KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE, FrameDecoder, FrameError, encode_frame

CONNECT_TIMEOUT_SECONDS = 10.0
# How long closing waits for the peer to have read everything sent (see Connection.close).
CLOSE_LINGER_SECONDS = 2.0


class AddressError(ValueError):
    """The ``--ipc`` address is malformed."""


def parse_address(text: str) -> tuple[str, object]:
    """Parse ``unix:PATH`` or ``tcp:HOST:PORT`` into (family name, socket address)."""
    scheme, sep, rest = text.partition(":")
    if not sep or not rest:
        raise AddressError(f"bad IPC address {text!r}: expected unix:PATH or tcp:HOST:PORT")
    if scheme == "unix":
        return "unix", rest
    if scheme == "tcp":
        host, sep, port_text = rest.rpartition(":")
        if not sep or not host:
            raise AddressError(f"bad IPC address {text!r}: expected tcp:HOST:PORT")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        try:
            port = int(port_text)
        except ValueError:
            raise AddressError(f"bad IPC address {text!r}: port is not a number") from None
        if not 0 < port < 65536:
            raise AddressError(f"bad IPC address {text!r}: port out of range")
        return "tcp", (host, port)
    raise AddressError(f"bad IPC address {text!r}: unknown transport {scheme!r}")


def connect(address_text: str) -> _socket.socket:
    """Open the connection; raises AddressError or OSError with the reason. A Unix
    socket is made with ``_socket`` directly: the socket module would import ``enum``
    and ``selectors`` into every debugged process before its first line."""
    family, address = parse_address(address_text)
    if family == "unix":
        if not hasattr(_socket, "AF_UNIX"):
            raise OSError("Unix domain sockets are not available on this platform")
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT_SECONDS)
        try:
            sock.connect(address)
        except BaseException:
            sock.close()
            raise
    else:
        import socket

        sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT_SECONDS)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(None)
    return sock


class Connection:
    """A connected socket plus a writer lock and a reader loop."""

    def __init__(self, sock: _socket.socket) -> None:
        self._sock = sock
        self._write_lock = threading.Lock()
        self._seq_lock = threading.Lock()
        self._next_seq = 1
        self._closed = False
        # Whether read_loop ended because the other end closed (or reset) the connection,
        # not because this process closed it (at exit, in os._exit). A failed write marks
        # the connection closed too, but that is the peer's doing.
        self.ended_by_peer = False
        self._closed_here = False
        # The thread in read_loop (its ident: the debugger's threads are not threading's,
        # and must not become so), and whether it has seen the end of the stream.
        self._reader: int | None = None
        self._read_to_end = threading.Event()

    @property
    def closed(self) -> bool:
        return self._closed

    def _take_seq(self) -> int:
        with self._seq_lock:
            seq = self._next_seq
            self._next_seq += 1
            return seq

    def send(self, message: dict) -> bool:
        """Send one message, filling in its ``seq``. Returns False when the connection is
        gone (the message is dropped)."""
        if self._closed:
            return False
        with self._write_lock:
            # The seq is taken under the write lock so that seqs go out in order.
            message["seq"] = self._take_seq()
            try:
                self._sock.sendall(encode_frame(KIND_FROM_DEBUGGEE, message))
            except (OSError, FrameError):
                self._closed = True
                return False
        return True

    def send_event(self, event: str, body: dict | None = None) -> bool:
        message: dict = {"type": "event", "event": event}
        if body is not None:
            message["body"] = body
        return self.send(message)

    def send_response(
        self, request: dict, body: dict | None = None, error: str | None = None
    ) -> bool:
        message: dict = {
            "type": "response",
            "request_seq": request.get("seq", 0),
            "success": error is None,
            "command": request.get("command", ""),
        }
        if error is not None:
            message["message"] = error
        if body is not None:
            message["body"] = body
        return self.send(message)

    def read_loop(self, on_message: Callable[[dict], None]) -> str | None:
        """Read frames until the peer closes or the stream is corrupt; call ``on_message``
        for each request. Returns None on a clean close, else the reason it stopped."""
        decoder = FrameDecoder()
        reason = None
        self._reader = threading.get_ident()
        try:
            while True:
                try:
                    data = self._sock.recv(65536)
                except OSError as error:
                    # After our own close() (at exit) a failing read is expected.
                    reason = None if self._closed else f"read failed: {error}"
                    self.ended_by_peer = not self._closed_here
                    break
                if not data:
                    if decoder.pending_bytes:
                        reason = "the connection closed in the middle of a frame"
                    self.ended_by_peer = not self._closed_here
                    break
                for kind, message in decoder.feed(data):
                    if kind != KIND_TO_DEBUGGEE:
                        raise FrameError(f"unexpected frame kind {kind} sent to the debuggee")
                    # What arrives while this process closes is read only to be dropped.
                    if not self._closed_here:
                        on_message(message)
        except FrameError as error:
            reason = str(error)
        finally:
            self._read_to_end.set()
        self.close()
        return reason

    def abandon_after_fork(self) -> None:
        """In a fork child: stop using the socket copied from the parent. Only this
        process's descriptor is closed; a shutdown would end the parent's connection."""
        self._closed_here = True
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.close()

    def close(self) -> None:
        """Close the connection after the peer has read everything sent.

        A socket closed with bytes still unread (a request on its way in, which a client
        may send right behind ``continue``) is reset, not closed, and a reset may make the
        peer drop what it had not read yet: the last answers and ``dapper/exiting``. So
        this end is half-closed first, and the socket is closed once the peer has closed
        its end too (which it does when it has read to the end), or after
        CLOSE_LINGER_SECONDS."""
        if self._closed_here:
            return
        self._closed_here = True
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(_socket.SHUT_WR)
        if self._reader is None:
            self._drain()
        elif self._reader != threading.get_ident():
            self._read_to_end.wait(CLOSE_LINGER_SECONDS)
        with contextlib.suppress(OSError):
            self._sock.shutdown(_socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()

    def _drain(self) -> None:
        """Read and drop until the peer closes its end (no thread reads this connection)."""
        deadline = time.monotonic() + CLOSE_LINGER_SECONDS
        with contextlib.suppress(OSError):
            while (left := deadline - time.monotonic()) > 0:
                self._sock.settimeout(left)
                if not self._sock.recv(65536):
                    break
