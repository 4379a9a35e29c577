"""The debuggee's end of the IPC connection: send frames, read frames (ipc/dial.py
opens it).

Writes come from several threads (the IPC reader answering requests, user threads
sending ``stopped``), so they are serialised by a lock and each frame goes out in one
``sendall``. Once the connection has failed, sending becomes a silent no-op: a user
thread must never raise or block because the debugger went away.
"""

from __future__ import annotations

import _socket
import time

from ..common.native import Event, allocate_lock, get_ident
from .dial import AddressError, connect, parse_address
from .frames import KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE, FrameDecoder, FrameError, encode_frame

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["AddressError", "Connection", "connect", "parse_address"]

# How long closing waits for the peer to have read everything sent (see Connection.close).
CLOSE_LINGER_SECONDS = 2.0


class Connection:
    """A connected socket plus a writer lock and a reader loop."""

    def __init__(self, sock: _socket.socket, sent: int = 0) -> None:
        """``sent``: how many messages went out on ``sock`` before (dial.send_first)."""
        self._sock = sock
        self._write_lock = allocate_lock()
        self._seq_lock = allocate_lock()
        self._next_seq = sent + 1
        self._closed = False
        # Whether read_loop ended because the other end closed (or reset) the connection,
        # not because this process closed it (at exit, in os._exit). A failed write marks
        # the connection closed too, but that is the peer's doing.
        self.ended_by_peer = False
        self._closed_here = False
        # The thread in read_loop (its ident: the debugger's threads are not threading's,
        # and must not become so), and whether it has seen the end of the stream.
        self._reader: int | None = None
        self._read_to_end = Event()

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
        self._reader = get_ident()
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
        try:
            self._sock.close()
        except OSError:
            return

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
        try:
            self._sock.shutdown(_socket.SHUT_WR)
        except OSError:
            pass
        if self._reader is None:
            self._drain()
        elif self._reader != get_ident():
            self._read_to_end.wait(CLOSE_LINGER_SECONDS)
        try:
            self._sock.shutdown(_socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._sock.close()
        except OSError:
            return

    def _drain(self) -> None:
        """Read and drop until the peer closes its end (no thread reads this connection)."""
        deadline = time.monotonic() + CLOSE_LINGER_SECONDS
        try:
            while (left := deadline - time.monotonic()) > 0:
                self._sock.settimeout(left)
                if not self._sock.recv(65536):
                    break
        except OSError:
            return
