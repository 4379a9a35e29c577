"""Which files are library code for ``justMyCode``: the standard library, site-packages
(system, virtual environment and user), and frozen modules, unless the launch
configuration's ``rules`` say otherwise.

The debugger's own files and runpy are handled elsewhere (they are never shown at all);
this module only answers "is this the user's code or somebody else's".

``rules`` are the user's word, so they come before the library folders: each names files
by a ``path`` glob or by a ``module`` and says whether they are the user's (``include``)
or not, and the first that matches decides. That lets a vendored copy of a package in
the project count as library code, or one installed package be debugged as the user's.
Matching uses no ``re`` or ``fnmatch``: the rules are set on the IPC thread, which must
not import while a stopped thread may hold the import lock (stop_imports.py).
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


class _Rule:
    """One rule: files by the segments of a path glob, or by a module name."""

    __slots__ = ("segments", "module", "include")

    def __init__(self, segments: list[str] | None, module: str | None, include: bool):
        self.segments = segments
        self.module = module
        self.include = include


_rules: list[_Rule] = []
# Each file's verdict under the rules (True: library, False: the user's, None: no rule
# matched), so that a file's module name is worked out once.
_verdicts: dict[str, bool | None] = {}


def set_rules(rules) -> None:
    """Take the launch configuration's ``rules`` (checked by the engine; anything else
    is skipped)."""
    parsed = []
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict) or not isinstance(rule.get("include"), bool):
            continue
        path, module = rule.get("path"), rule.get("module")
        if isinstance(path, str) and path:
            parsed.append(_Rule(_pattern_segments(path), None, rule["include"]))
        elif isinstance(module, str) and module:
            parsed.append(_Rule(None, module, rule["include"]))
    _rules[:] = parsed
    _verdicts.clear()


def _pattern_segments(pattern: str) -> list[str]:
    """A path glob as canonical segments: the part before the first wildcard resolved as
    a path is (symlinks, case), and a glob that names a folder also covers what is in
    it."""
    pattern = os.path.expanduser(pattern)
    parts = pattern.replace("/", os.sep).split(os.sep)
    fixed = []
    for part in parts:
        if "*" in part or "?" in part:
            break
        fixed.append(part)
    head = canonical_path(os.sep.join(fixed) or os.sep)
    rest = [os.path.normcase(part) for part in parts[len(fixed):] if part]
    segments = [part for part in head.split(os.sep) if part] + rest
    if not rest or rest[-1] != "**":
        segments.append("**")  # a folder covers its contents; a file matches itself
    return segments


def _segment_matches(name: str, pattern: str) -> bool:
    """``*`` (any characters) and ``?`` (one) within one path segment."""
    if "*" not in pattern and "?" not in pattern:
        return name == pattern
    if not pattern:
        return not name
    head = pattern[0]
    if head == "*":
        return any(_segment_matches(name[start:], pattern[1:]) for start in range(len(name) + 1))
    return (bool(name) and (head == "?" or head == name[0])
            and _segment_matches(name[1:], pattern[1:]))


def _path_matches(names: list[str], segments: list[str]) -> bool:
    if not segments:
        return not names
    if segments[0] == "**":
        return any(_path_matches(names[start:], segments[1:]) for start in range(len(names) + 1))
    return bool(names) and _segment_matches(names[0], segments[0]) and _path_matches(
        names[1:], segments[1:])


def _module_name(canonical: str) -> str | None:
    """The module a file is imported as, from the longest sys.path entry holding it."""
    best = ""
    for entry in sys.path:
        if not isinstance(entry, str):
            continue
        root = canonical_path(entry or os.getcwd())
        if canonical.startswith(root.rstrip(os.sep) + os.sep) and len(root) > len(best):
            best = root
    if not best:
        return None
    relative = canonical[len(best.rstrip(os.sep)) + 1:]
    stem = relative.split(".", 1)[0] if "." in os.path.basename(relative) else relative
    parts = stem.split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or None


def _module_matches(name: str, rule: str) -> bool:
    if name == rule or name.startswith(rule + "."):
        return True
    return ("*" in rule or "?" in rule) and _segment_matches(name, rule)


def _rules_verdict(canonical: str) -> bool | None:
    """True (library) or False (the user's) by the first rule that matches, else None."""
    if canonical in _verdicts:
        return _verdicts[canonical]
    verdict = None
    names = [part for part in canonical.split(os.sep) if part]
    module = False  # not worked out yet
    for rule in _rules:
        if rule.segments is not None:
            matched = _path_matches(names, rule.segments)
        else:
            if module is False:
                module = _module_name(canonical)
            matched = module is not None and _module_matches(module, rule.module)
        if matched:
            verdict = not rule.include
            break
    _verdicts[canonical] = verdict
    return verdict


def has_rules() -> bool:
    """Whether the launch configuration gave ``rules``."""
    return bool(_rules)


def is_library_canonical(canonical: str) -> bool:
    """True for a canonical path (as PathCache gives) of library code. Anything under a
    directory named site-packages or dist-packages counts too, wherever it is, because
    tools such as pip --target or PYTHONPATH entries put installed packages there."""
    if _rules and not canonical.startswith("<"):
        verdict = _rules_verdict(canonical)
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
