"""The launch configuration's ``rules`` for ``justMyCode`` (common/library_code.py says
what they decide): each names files by a ``path`` glob or by a ``module`` and says
whether they are the user's (``include``) or not, and the first that matches decides.

Loaded only for a configuration that has rules. Matching uses no ``re`` or ``fnmatch``:
the rules are set on the IPC thread, which must not import while a stopped thread may
hold the import lock (stop_imports.py).
"""

from __future__ import annotations

import os
import sys

from .paths import canonical_path

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


class _Rule:
    """One rule: files by the segments of a path glob, or by a module name."""

    __slots__ = ("segments", "module", "include")

    def __init__(self, segments: list[str] | None, module: str | None, include: bool):
        self.segments = segments
        self.module = module
        self.include = include


def rules_verdict(rules: list) -> Callable[[str], bool | None] | None:
    """The verdict of ``rules`` (the launch configuration's, checked by the engine:
    anything else is skipped) on a canonical path: True (library) or False (the user's)
    by the first rule that matches, else None; None where no rule is usable. Each file's
    verdict is kept, so that its module name is worked out once."""
    parsed = []
    for rule in rules:
        if not isinstance(rule, dict) or not isinstance(rule.get("include"), bool):
            continue
        path, module = rule.get("path"), rule.get("module")
        if isinstance(path, str) and path:
            parsed.append(_Rule(_pattern_segments(path), None, rule["include"]))
        elif isinstance(module, str) and module:
            parsed.append(_Rule(None, module, rule["include"]))
    if not parsed:
        return None
    verdicts: dict[str, bool | None] = {}

    def verdict_of(canonical: str) -> bool | None:
        if canonical in verdicts:
            return verdicts[canonical]
        verdict = verdicts[canonical] = _verdict(parsed, canonical)
        return verdict

    return verdict_of


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


def _verdict(rules: list[_Rule], canonical: str) -> bool | None:
    names = [part for part in canonical.split(os.sep) if part]
    module = False  # not worked out yet
    for rule in rules:
        if rule.segments is not None:
            matched = _path_matches(names, rule.segments)
        else:
            if module is False:
                module = _module_name(canonical)
            matched = module is not None and _module_matches(module, rule.module)
        if matched:
            return not rule.include
    return None
