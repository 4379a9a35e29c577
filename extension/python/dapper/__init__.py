"""Dapper's debuggee side: the launcher, the tracer and the IPC client that run inside
the program being debugged. Standard library only."""

__version__ = "0.1.0"

# The version of the IPC conversation this package speaks (docs/ipc.md).
PROTOCOL_VERSION = 1
