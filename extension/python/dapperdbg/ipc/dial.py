"""Dialling the engine: the ``--ipc`` address, the socket, and the first message on it.

A launcher says its hello before it imports anything else (launcher/launch.py): the
engine asks the client for the session meanwhile. So this module imports no more than
the socket and the frame codec need; the connection a session then runs on (its writer
lock, its reader loop) is ipc/connection.py's, which imports more.

A child that a debugged parent started with ``subprocess`` is handed its connection
ready-made (``fd:N``, children/popen_hook.py): the parent, which has ``_socket`` loaded,
connects for it, and the child reads and writes the descriptor with ``os`` alone
(``HandedSocket``). Loading ``_socket`` (an extension module that makes some four
hundred constants as it loads) cost every such child 0.3-0.5 ms of its start on 3.12,
the largest single part of it after the package's own code; a dormant child
(session/dormant.py) never needs it.
"""

from __future__ import annotations

import os

from .frames import KIND_FROM_DEBUGGEE, FrameError, encode_frame

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import _socket

CONNECT_TIMEOUT_SECONDS = 10.0
# The file type bits of a socket (stat.S_IFSOCK, without the stat module's import).
_FILE_TYPE_BITS = 0o170000
_SOCKET_TYPE = 0o140000


class AddressError(ValueError):
    """The ``--ipc`` address is malformed."""


def parse_address(text: str) -> tuple[str, object]:
    """Parse ``unix:PATH``, ``tcp:HOST:PORT`` or ``fd:N`` (a connected socket's
    descriptor, inherited from the parent) into (family name, socket address)."""
    scheme, sep, rest = text.partition(":")
    if not sep or not rest:
        raise AddressError(f"bad IPC address {text!r}: expected unix:PATH or tcp:HOST:PORT")
    if scheme == "unix":
        return "unix", rest
    if scheme == "fd":
        if not rest.isdigit():
            raise AddressError(f"bad IPC address {text!r}: the descriptor is not a number")
        return "fd", int(rest)
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


def connect(address_text: str) -> _socket.socket | HandedSocket:
    """Open the connection; raises AddressError or OSError with the reason (ImportError
    where the interpreter has no ``_socket``). A Unix socket is made with ``_socket``
    directly: the socket module would import ``enum`` and ``selectors`` into every
    debugged process before its first line."""
    family, address = parse_address(address_text)
    if family == "fd":
        return HandedSocket.take(address)
    import _socket

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
        sock = connect_tcp(address, CONNECT_TIMEOUT_SECONDS)
    sock.settimeout(None)
    return sock


def connect_tcp(address: tuple[str, int], timeout: float | None) -> _socket.socket:
    """``socket.create_connection`` made with ``_socket`` itself, whose sockets and
    resolver gevent's monkey-patching never replaces (the socket module's then wait in
    gevent's hub, which the debugger's own threads cannot use). Raises OSError."""
    import _socket

    host, port = address
    error: OSError | None = None
    for family, kind, proto, _, socket_address in _socket.getaddrinfo(
            resolvable_host(host), port, 0, _socket.SOCK_STREAM):
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(socket_address)
        except OSError as failure:
            sock.close()
            error = failure
            continue
        except BaseException:
            sock.close()
            raise
        try:
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        except OSError:
            pass  # Slower small messages, nothing worse: the connection is kept.
        return sock
    raise error if error is not None else OSError(f"no address for {host!r}")


def resolvable_host(host: str) -> str | bytes:
    """``host`` as ``getaddrinfo`` resolves it cheapest: as bytes when it is ASCII (an
    address such as 127.0.0.1 always is). Given as text, it goes through the idna codec,
    whose import (re, enum, stringprep, unicodedata) costs a process 8-11 ms of CPU."""
    try:
        return host.encode("ascii")
    except UnicodeEncodeError:  # A name idna has to encode.
        return host


def accept(server: _socket.socket) -> tuple[_socket.socket, object]:
    """``server.accept()``, the connection a ``_socket`` socket too (the socket module's
    accept makes it with the module's class, gevent's once patched)."""
    import _socket

    fd, address = server._accept()
    return _socket.socket(server.family, server.type, server.proto, fileno=fd), address


def send_first(sock: _socket.socket | HandedSocket, message: dict) -> bool:
    """Send the connection's first message (its ``seq`` is 1; a ``Connection`` made on
    ``sock`` afterwards is told of it). Returns False when the peer is gone."""
    message["seq"] = 1
    try:
        sock.sendall(encode_frame(KIND_FROM_DEBUGGEE, message))
    except (OSError, FrameError):
        return False
    return True


class HandedSocket:
    """A connected socket handed over by the parent as its descriptor (``fd:N``), read
    and written with ``os``: what a connection needs of its socket while it only sends,
    reads and may not wait (``sendall``, ``recv``, blocking or not). Anything more (a
    timeout, a shutdown) makes the ``_socket`` object of the descriptor, which serves
    from then on."""

    __slots__ = ("_fd", "_socket", "_blocking")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._socket: _socket.socket | None = None
        self._blocking = True

    @classmethod
    def take(cls, fd: int) -> HandedSocket:
        """The descriptor ``fd`` as this process's connection: kept from the programs it
        starts (the parent's ``subprocess`` made it inheritable), which must not hold
        the connection open past its end. Raises OSError when it is no socket."""
        if os.fstat(fd).st_mode & _FILE_TYPE_BITS != _SOCKET_TYPE:
            raise OSError(f"descriptor {fd} is not a socket")
        os.set_inheritable(fd, False)
        return cls(fd)

    @property
    def made_socket(self) -> bool:
        """Whether the ``_socket`` object serves (a half-close needs it)."""
        return self._socket is not None

    def as_socket(self) -> _socket.socket:
        sock = self._socket
        if sock is None:
            import _socket

            sock = self._socket = _socket.socket(fileno=self._fd)
            sock.setblocking(self._blocking)
        return sock

    def fileno(self) -> int:
        return self._fd

    def sendall(self, data) -> None:
        if self._socket is not None:
            self._socket.sendall(data)
            return
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def recv(self, size: int) -> bytes:
        if self._socket is not None:
            return self._socket.recv(size)
        return os.read(self._fd, size)  # BlockingIOError when none is there, unblocked.

    def gettimeout(self) -> float | None:
        if self._socket is not None:
            return self._socket.gettimeout()
        return None if self._blocking else 0.0

    def setblocking(self, blocking: bool) -> None:
        self.settimeout(None if blocking else 0.0)

    def settimeout(self, timeout: float | None) -> None:
        if self._socket is None and (timeout is None or timeout == 0.0):
            blocking = timeout is None
            if blocking != self._blocking:
                os.set_blocking(self._fd, blocking)
                self._blocking = blocking
            return
        self.as_socket().settimeout(timeout)

    def shutdown(self, how: int) -> None:
        self.as_socket().shutdown(how)

    def close(self) -> None:
        # A reader that comes back to a closed descriptor fails (EBADF) rather than read
        # whatever file the number was given to next, as a closed socket object does.
        fd, self._fd = self._fd, -1
        if self._socket is not None:
            self._socket.close()
        elif fd >= 0:
            os.close(fd)
