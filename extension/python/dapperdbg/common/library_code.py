"""Which files are library code for ``justMyCode``: the standard library, site-packages
(system, virtual environment and user), and frozen modules, unless the launch
configuration's ``rules`` say otherwise.

The debugger's own files and runpy are handled elsewhere (they are never shown at all);
this module only answers "is this the user's code or somebody else's".

``rules`` are the user's word, so they come before the library folders: each names files
by a ``path`` glob or by a ``module`` and says whether they are the user's (``include``)
or not, and the first that matches decides. That lets a vendored copy of a package in
the project count as library code, or one installed package be debugged as the user's.
They are read and matched by library_rules.py, which a process without rules never
loads.
"""

from __future__ import annotations

import os
import site
import sys

from .paths import canonical_path
from .stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


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
# The inspector asks on the IPC thread, also while threads are stopped; and rules may be
# set there too (a configuration sent again while a thread is stopped).
import_at_first_stop("sysconfig", f"{__package__}.library_rules")


# The verdict of the launch configuration's rules on a canonical path (True: library,
# False: the user's, None: no rule matched), or None without rules. The module that
# reads and matches them is loaded only for a configuration that has some.
_rules_verdict: Callable[[str], bool | None] | None = None


def set_rules(rules) -> None:
    """Take the launch configuration's ``rules`` (checked by the engine; anything else
    is skipped)."""
    global _rules_verdict
    verdict = None
    if isinstance(rules, list) and rules:
        from .library_rules import rules_verdict

        verdict = rules_verdict(rules)
    _rules_verdict = verdict


def has_rules() -> bool:
    """Whether the launch configuration gave ``rules``."""
    return _rules_verdict is not None


def is_library_canonical(canonical: str) -> bool:
    """True for a canonical path (as PathCache gives) of library code. Anything under a
    directory named site-packages or dist-packages counts too, wherever it is, because
    tools such as pip --target or PYTHONPATH entries put installed packages there."""
    rules_verdict = _rules_verdict
    if rules_verdict is not None and not canonical.startswith("<"):
        verdict = rules_verdict(canonical)
        if verdict is not None:
            return verdict
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
