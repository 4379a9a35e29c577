"""Which files are library code for ``justMyCode``: the standard library, site-packages
(system, virtual environment and user), and frozen modules.

The debugger's own files and runpy are handled elsewhere (they are never shown at all);
this module only answers "is this the user's code or somebody else's".
"""

from __future__ import annotations

import os
import site
import sys

from .paths import canonical_path
from .stop_imports import import_at_first_stop


def _library_roots() -> tuple[str, ...]:
    """Canonical directories whose files are library code, computed at the first question
    (sysconfig costs every debugged process a few milliseconds, most never ask)."""
    import sysconfig

    candidates: set[str] = set()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            path = sysconfig.get_path(name)
        except KeyError:
            path = None
        if path:
            candidates.add(path)
    # A virtual environment's sysconfig paths point into the venv; the standard library
    # itself lives under the base installation.
    for prefix in {sys.base_prefix, sys.base_exec_prefix}:
        try:
            candidates.add(sysconfig.get_path("stdlib", vars={"installed_base": prefix,
                                                                "base": prefix}))
        except KeyError:
            continue
    getters = (getattr(site, "getsitepackages", None), getattr(site, "getusersitepackages", None))
    for getter in getters:
        if getter is None:
            continue
        try:
            found = getter()
        except Exception:  # Some embedded interpreters break site's helpers.
            continue
        candidates.update([found] if isinstance(found, str) else found)
    return tuple(sorted({canonical_path(path) + os.sep for path in candidates if path}))


_roots: tuple[str, ...] | None = None
# The inspector asks on the IPC thread, also while threads are stopped.
import_at_first_stop("sysconfig")


def is_library_canonical(canonical: str) -> bool:
    """True for a canonical path (as PathCache gives) of library code. Anything under a
    directory named site-packages or dist-packages counts too, wherever it is, because
    tools such as pip --target or PYTHONPATH entries put installed packages there."""
    if canonical.startswith("<frozen "):
        return True
    if canonical.startswith("<"):
        return False  # exec'd strings and -c code are the user's
    global _roots
    if _roots is None:
        _roots = _library_roots()
    if canonical.startswith(_roots):
        return True
    parts = canonical.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts
