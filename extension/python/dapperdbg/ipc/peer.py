"""Who is on the other end of an accepted TCP connection.

Whoever attaches to a listening program controls it, so on Linux it admits only its own
user: the kernel lists every TCP socket of the network namespace with its owner's uid in
/proc/net/tcp and /proc/net/tcp6, and the peer's socket is the one whose local end is
our remote end. Elsewhere the OS does not tell, which docs state as the risk.
"""

from __future__ import annotations

import os
import socket
import sys

CAN_TELL_PEER_UID = sys.platform.startswith("linux")
_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


def refusal(sock: socket.socket) -> str | None:
    """Why ``sock`` must be refused, or None to admit it: a peer on this machine owned
    by another user. A peer no table lists (another host) is admitted: the user chose a
    listening address other hosts can reach."""
    if not CAN_TELL_PEER_UID:
        return None
    try:
        peer = sock.getpeername()
        ours = sock.getsockname()
        uid = peer_uid(peer[:2], ours[:2])
    except OSError as error:
        return f"its owner cannot be read ({error})"
    owner = os.getuid()
    if uid is not None and uid != owner:
        return f"it belongs to uid {uid}, not to the program's user (uid {owner})"
    return None


def peer_uid(peer: tuple, ours: tuple) -> int | None:
    """The uid owning the socket whose local end is ``peer`` and remote end ``ours``."""
    wanted = (_key(*peer), _key(*ours))
    for table in _TABLES:
        try:
            with open(table, encoding="latin-1") as file:
                lines = file.read().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            columns = line.split()
            if len(columns) < 8:
                continue
            if (_proc_key(columns[1]), _proc_key(columns[2])) == wanted:
                return int(columns[7])
    return None


def _key(address: str, port: int) -> tuple[bytes, int]:
    """An address as bytes (IPv4-mapped IPv6 as IPv4) and its port."""
    address = address.split("%", 1)[0]
    if ":" in address:
        packed = socket.inet_pton(socket.AF_INET6, address)
        if packed[:12] == b"\0" * 10 + b"\xff\xff":
            packed = packed[12:]
    else:
        packed = socket.inet_pton(socket.AF_INET, address)
    return packed, port


def _proc_key(field: str) -> tuple[bytes, int] | None:
    """"0100007F:1267": 32-bit words in host byte order, then the port in hex."""
    address, _, port = field.partition(":")
    if len(address) not in (8, 32) or not port:
        return None
    try:
        raw = bytes.fromhex(address)
        number = int(port, 16)
    except ValueError:
        return None
    packed = b"".join(raw[index:index + 4][::-1] if sys.byteorder == "little"
                      else raw[index:index + 4] for index in range(0, len(raw), 4))
    if len(packed) == 16 and packed[:12] == b"\0" * 10 + b"\xff\xff":
        packed = packed[12:]
    return packed, number
