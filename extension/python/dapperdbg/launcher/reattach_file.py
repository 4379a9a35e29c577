"""The reattach file (reattach.py): where the children of an attached program learn of
its next debugger. Written by the program (listen.py), read by its children.
"""

from __future__ import annotations

import contextlib
import json
import os


def new_reattach_file() -> str:
    """The reattach file's path, in a fresh private directory (0700); not written yet."""
    import tempfile  # Only attached programs need it; launched ones never load it.

    directory = tempfile.mkdtemp(prefix="dapper-reattach-")
    os.chmod(directory, 0o700)
    return os.path.join(directory, "debugger.json")


def write_reattach_file(path: str, content: dict) -> None:
    """Replace the file at once (readers never see half of it), readable by its owner only."""
    temporary = f"{path}.{os.getpid()}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(content, file)
    os.replace(temporary, path)


def read_reattach_file(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as file:
            content = json.load(file)
    except (OSError, ValueError):
        return None
    return content if isinstance(content, dict) else None


def remove_reattach_file(path: str) -> None:
    """The file and its directory, at the program's exit."""
    with contextlib.suppress(OSError):
        os.remove(path)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(path))
