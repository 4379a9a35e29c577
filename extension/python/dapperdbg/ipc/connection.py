"""The debuggee's end of the IPC connection: send frames, read frames (ipc/dial.py
opens it).

Writes come from several threads (the IPC reader answering requests, user threads
sending ``stopped``), so they are serialised by a lock and each frame goes out in one
``sendall``. Once the connection has failed, sending becomes a silent no-op: a user
thread must never raise or block because the debugger went away.

Log point lines are queued rather than sent (``queue_output``): a hit appends to a
deque, without a lock or a system call, and the lines go out together, as one
``dapper/outputLines`` event (the engine gives the client an ``output`` event per line,
in order: a frame per line cost a program that logs on every call about half a
microsecond a line more), from a debugger thread woken by the first line of a batch, or
ahead of any other message sent, so that nothing overtakes a line written before it: a
stop, captured output, ``dapper/exiting`` at the program's end. The queue is bounded: a
program that logs faster than the engine reads sends the lines itself once the queue
holds ``MAX_QUEUED_LINES`` lines or ``MAX_QUEUED_CHARS`` characters, and so waits on
the socket as a write to a full pipe would (blocking, never dropping or merging lines).
"""

from __future__ import annotations

import time
from _collections import deque

from ..common.debugger_threads import start_debugger_thread
from ..common.native import Event, allocate_lock, get_ident, sleep
from .dial import AddressError, HandedSocket, connect, parse_address
from .frames import (
    KIND_FROM_DEBUGGEE,
    KIND_TO_DEBUGGEE,
    MAX_PAYLOAD,
    FrameDecoder,
    FrameError,
    encode_frame,
    frame_header,
    to_json,
)

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import _socket
    from collections.abc import Callable

__all__ = ["AddressError", "Connection", "connect", "parse_address"]

# shutdown()'s arguments, the same on every system (Windows's SD_SEND and SD_BOTH): the
# connection does not import ``_socket`` for them (ipc/dial.py says why).
_SHUT_WR = 1
_SHUT_RDWR = 2
# How long closing waits for the peer to have read everything sent (see Connection.close).
CLOSE_LINGER_SECONDS = 2.0
# How many queued output lines, or characters of them, make the thread that queues one
# send them itself (a line longer than that is sent at once): the queue's memory stays
# within a few megabytes however fast the program logs.
MAX_QUEUED_LINES = 20000
MAX_QUEUED_CHARS = 1 << 20
# How long the flushing thread, woken by the first line of a batch, lets more lines join
# it before sending: a program that logs in a tight loop then costs one write per batch.
FLUSH_DELAY_SECONDS = 0.002
# Queued lines as a frame's JSON: this, then each run of lines from one place (one log
# point) as ``{"outputs":[<their texts>]<the rest of their body, the caller's>}`` with
# commas between, then the tail with the seq. A run's texts are one list, which the C
# encoder writes in one call.
_LINES_HEAD = '{"type":"event","event":"dapper/outputLines","body":{"category":"console","runs":['
# How many characters of lines one frame holds at most (a longer line is cut to it): a
# character takes at most six bytes in the frame (a control character's or a lone
# surrogate's escape), so a frame stays within MAX_PAYLOAD.
_FRAME_CHARS = MAX_PAYLOAD // 8
FLUSH_THREAD_NAME = "dapper.output"
# How many events for the client a connection holds back at most (``hold_events``).
MOST_HELD_EVENTS = 10_000
# Sent, not held, when a stop is held: the engine may not have asked the client for
# this child's session yet (it waits a little, for children that end with nothing to
# show), and a stop is for the user to see now.
SESSION_WANTED_EVENT = "dapper/sessionWanted"


def _wrong_kind(kind: int) -> FrameError:
    return FrameError(f"unexpected frame kind {kind} sent to the debuggee")


def _run_json(texts: list[str], place: str) -> str:
    return f'{{"outputs":{to_json(texts)}{place}}}'


class Connection:
    """A connected socket plus a writer lock and a reader loop."""

    def __init__(self, sock: _socket.socket | HandedSocket, sent: int = 0) -> None:
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
        # Output lines queued by ``queue_output``: (text, rest of the body's JSON).
        self._queued: deque = deque()
        # About how many characters the queued lines hold (updated without a lock, so
        # a race may miscount a line; it is set right whenever the queue is emptied).
        self._queued_chars = 0
        # Whether the flushing thread was woken for the lines queued since it last
        # looked (read and written without a lock: a stale False only wakes it once more).
        self._flush_asked = False
        self._flush_wanted = Event()
        self._flusher = None
        self._flusher_lock = allocate_lock()
        # The events for the client held back (``hold_events``), or None.
        self._held: list[dict] | None = None
        # The frames read so far, and the messages ``read_arrived`` read but left to
        # ``read_loop`` (what it read and failed on too).
        self._decoder = FrameDecoder()
        self._arrived: list[dict] = []
        self._arrival_failure: FrameError | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def sent(self) -> int:
        """How many messages went out on the connection so far."""
        return self._next_seq - 1

    def _take_seq(self) -> int:
        with self._seq_lock:
            seq = self._next_seq
            self._next_seq += 1
            return seq

    def send(self, message: dict) -> bool:
        """Send one message, filling in its ``seq``, after the output lines queued before
        it. Returns False when the connection is gone (the message is dropped). An event
        for the client is kept instead while events are held (``hold_events``)."""
        if self._closed:
            return False
        with self._write_lock:
            held = self._held
            if held is None or message.get("type") != "event" or str(
                    message.get("event")).startswith("dapper/"):
                return self._write((message,))
            if len(held) < MOST_HELD_EVENTS:
                if message.get("event") == "stopped":
                    self._write(({"type": "event", "event": SESSION_WANTED_EVENT},))
                held.append(message)
                return True
            # Past the bound the client hears them before its configuration is done,
            # rather than the process keeping ever more of them.
            self._held = None
            held.append(message)
            return self._write(held)

    def _write(self, messages) -> bool:
        """With the write lock held: the queued output lines, then ``messages``."""
        queued = self._queued_frames() if self._queued else b""
        try:
            # The seqs are taken under the write lock so that they go out in order.
            frames = []
            for message in messages:
                message["seq"] = self._take_seq()
                frames.append(encode_frame(KIND_FROM_DEBUGGEE, message))
            self._sock.sendall(queued + b"".join(frames))
        except (OSError, FrameError):
            self._closed = True
            return False
        return True

    def hold_events(self) -> None:
        """Keep the events meant for the client (not the engine's ``dapper/`` ones), in
        order, until ``release_events``: a session that runs before its client has
        configured it (session/inheritance.py)."""
        with self._write_lock:
            if self._held is None:
                self._held = []

    def release_events(self) -> None:
        """Send the held events, and the events from now on as they come."""
        if self._held is None:
            return
        with self._write_lock:
            held, self._held = self._held, None
            if held and not self._closed:
                self._write(held)

    @property
    def queued_lines(self) -> int:
        return len(self._queued)

    def queue_output(self, text: str, body_rest: str) -> None:
        """Queue a ``console`` output event for ``text`` (a log point's line) whose body
        goes on with ``body_rest``: JSON members after ``output``, each after a comma
        (``,"line":3``). It is sent before any later message; see the module docstring.
        Called on the program's threads: no lock is taken unless the queue is full."""
        if self._closed:
            return
        queued = self._queued
        queued.append((text, body_rest))
        chars = self._queued_chars = self._queued_chars + len(text)
        if chars >= MAX_QUEUED_CHARS or len(queued) >= MAX_QUEUED_LINES:
            self.flush_output()
        elif not self._flush_asked:
            self._flush_asked = True
            self._wake_flusher()

    def flush_output(self) -> None:
        """Send the queued output lines now (waiting for the socket if it is full)."""
        if not self._queued:
            return
        with self._write_lock:
            if self._closed:
                self._queued.clear()
                return
            try:
                self._sock.sendall(self._queued_frames())
            except OSError:
                self._closed = True

    def _queued_frames(self) -> bytes:
        """The frames of the lines queued so far, taken off the queue (under the write
        lock): a ``dapper/outputLines`` event per _FRAME_CHARS characters of them.
        Lines queued meanwhile wait for the next call."""
        queued = self._queued
        take = queued.popleft
        frames = []
        runs: list[str] = []
        texts: list[str] = []
        place = None
        chars = framed = 0
        for _ in range(len(queued)):
            text, rest = take()
            size = len(text)
            chars += size
            if size > _FRAME_CHARS:
                # At 8 MiB, nobody reads the rest of it.
                text = text[:_FRAME_CHARS - 64] + "… (cut: the line was too long)\n"
                size = len(text)
            if framed + size > _FRAME_CHARS and framed:
                runs.append(_run_json(texts, place))
                frames.append(self._lines_frame(runs))
                runs, texts, framed = [], [], 0
            elif rest is not place and texts:
                runs.append(_run_json(texts, place))
                texts = []
            place = rest
            texts.append(text)
            framed += size
        if texts:
            runs.append(_run_json(texts, place))
            frames.append(self._lines_frame(runs))
        left = self._queued_chars - chars
        self._queued_chars = left if queued and left > 0 else 0
        return b"".join(frames)

    def _lines_frame(self, runs: list[str]) -> bytes:
        # A lone surrogate (text decoded with surrogateescape) goes as its JSON escape.
        payload = f'{_LINES_HEAD}{",".join(runs)}]}},"seq":{self._take_seq()}}}'.encode(
            "utf-8", "backslashreplace")
        return frame_header(KIND_FROM_DEBUGGEE, len(payload)) + payload

    def _wake_flusher(self) -> None:
        if self._flusher is None:
            with self._flusher_lock:
                if self._flusher is None:
                    try:
                        self._flusher = start_debugger_thread(FLUSH_THREAD_NAME,
                                                              self._flush_loop)
                    except RuntimeError:
                        # No new thread at interpreter shutdown: this thread sends the
                        # lines itself (from then on, whenever the queue is woken).
                        self._flush_asked = False
                        self.flush_output()
                        return
        self._flush_wanted.set()

    def _flush_loop(self) -> None:
        """The flushing thread: woken by the first line queued after its last look, it
        waits FLUSH_DELAY_SECONDS for more and sends them all."""
        wanted = self._flush_wanted
        while not self._closed:
            wanted.wait()
            wanted.clear()
            sleep(FLUSH_DELAY_SECONDS)
            # Cleared before the queue is read: a line queued from here on wakes it again.
            self._flush_asked = False
            self.flush_output()

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
        decoder = self._decoder
        reason = None
        self._reader = get_ident()
        try:
            arrived, self._arrived = self._arrived, []
            for message in arrived:
                if not self._closed_here:
                    on_message(message)
            if self._arrival_failure is not None:
                raise self._arrival_failure
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
                        raise _wrong_kind(kind)
                    # What arrives while this process closes is read only to be dropped.
                    if not self._closed_here:
                        on_message(message)
        except FrameError as error:
            reason = str(error)
        finally:
            self._read_to_end.set()
        self.close()
        return reason

    def read_arrived(self, on_message: Callable[[dict], None],
                     enough: Callable[[], bool]) -> None:
        """Before ``read_loop`` runs: call ``on_message`` for each message that has
        arrived already, without waiting for more, until ``enough()`` says so. What was
        read past that, and a stream found corrupt, are left to ``read_loop``."""
        while not enough():
            message = self.next_arrived(wait=False)
            if message is None:
                return
            on_message(message)

    def next_arrived(self, wait: bool) -> dict | None:
        """Before ``read_loop`` runs: the next message, read now if none is waiting (and
        waited for if ``wait``). None when none has arrived (without ``wait``), or the
        stream ended or is corrupt: ``read_loop`` meets both, after the messages that
        came before them."""
        arrived = self._arrived
        sock = self._sock
        while not arrived and self._arrival_failure is None:
            timeout = sock.gettimeout()
            if not wait:
                sock.setblocking(False)
            try:
                data = sock.recv(65536)
            except OSError:  # Nothing yet, or a failure that read_loop will meet too.
                return None
            finally:
                sock.settimeout(timeout)
            if not data:
                return None  # Closed: read_loop sees it too.
            try:
                frames = self._decoder.feed(data)
            except FrameError as error:
                self._arrival_failure = error
                return None
            for kind, message in frames:
                if kind != KIND_TO_DEBUGGEE:
                    self._arrival_failure = _wrong_kind(kind)
                    break
                arrived.append(message)
        return arrived.pop(0) if arrived else None

    def abandon_after_fork(self) -> None:
        """In a fork child: stop using the socket copied from the parent. Only this
        process's descriptor is closed; a shutdown would end the parent's connection."""
        self._closed_here = True
        self._closed = True
        try:
            self._sock.close()
        except OSError:
            return

    def close(self, linger: bool = True) -> None:
        """Close the connection after the peer has read everything sent.

        A socket closed with bytes still unread (a request on its way in, which a client
        may send right behind ``continue``) is reset, not closed, and a reset may make the
        peer drop what it had not read yet: the last answers and ``dapper/exiting``. So
        this end is half-closed first, and the socket is closed once the peer has closed
        its end too (which it does when it has read to the end), or after
        CLOSE_LINGER_SECONDS. A Unix socket needs the wait as much as TCP: the engine
        (Node) drops such a connection with what it had not read when its write into the
        closed socket fails, or its read meets the reset.

        Without ``linger`` (a process about to end, whose peer sends it nothing), this end
        is half-closed and closed at once, without the wait: a reader blocked in the
        socket keeps it open until the peer's end or the process's (the close does not
        wake it, where a shutdown of the reading side would make the peer's next write
        fail); with nothing unread its end is no reset, and the peer reads all that was
        sent, then the end."""
        if self._closed_here:
            return
        # Output lines queued before the close go out before it.
        self.flush_output()
        self._closed_here = True
        self._closed = True
        self._flush_wanted.set()
        sock = self._sock
        # A socket handed over as its descriptor (ipc/dial.py) is not half-closed on a
        # close without the wait: that would load ``_socket`` for it as the process ends,
        # which then closes it as soon (its blocked reader holding it open until then).
        if linger or not isinstance(sock, HandedSocket) or sock.made_socket:
            try:
                sock.shutdown(_SHUT_WR)
            except OSError:
                pass
        if linger:
            if self._reader is None:
                self._drain()
            elif self._reader != get_ident():
                self._read_to_end.wait(CLOSE_LINGER_SECONDS)
            try:
                self._sock.shutdown(_SHUT_RDWR)
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
