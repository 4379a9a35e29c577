"""Dialling the engine: the ``--ipc`` address, the socket, and the first message on it.

A launcher says its hello before it imports anything else (launcher/launch.py): the
engine asks the client for the session meanwhile. So this module imports no more than
the socket and the frame codec need; the connection a session then runs on (its writer
lock, its reader loop) is ipc/connection.py's, which imports more.
"""

from __future__ import annotations

import _socket

from .frames import KIND_FROM_DEBUGGEE, FrameError, encode_frame

CONNECT_TIMEOUT_SECONDS = 10.0


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
        sock = connect_tcp(address, CONNECT_TIMEOUT_SECONDS)
    sock.settimeout(None)
    return sock


def connect_tcp(address: tuple[str, int], timeout: float | None) -> _socket.socket:
    """``socket.create_connection`` made with ``_socket`` itself, whose sockets and
    resolver gevent's monkey-patching never replaces (the socket module's then wait in
    gevent's hub, which the debugger's own threads cannot use). Raises OSError."""
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
    fd, address = server._accept()
    return _socket.socket(server.family, server.type, server.proto, fileno=fd), address


def send_first(sock: _socket.socket, message: dict) -> bool:
    """Send the connection's first message (its ``seq`` is 1; a ``Connection`` made on
    ``sock`` afterwards is told of it). Returns False when the peer is gone."""
    message["seq"] = 1
    try:
        sock.sendall(encode_frame(KIND_FROM_DEBUGGEE, message))
    except (OSError, FrameError):
        return False
    return True
