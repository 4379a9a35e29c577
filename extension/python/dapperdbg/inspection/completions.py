"""Completions in the debug console: names in scope, and attributes after a dot.

The object before the dot is found by reading names and attributes only (never by
calling anything), so completing ``a.b.`` cannot run the program's functions; an
attribute read may still run a property, under the usual deadline.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import re
import types

from .rendering import guarded

# The dotted name being typed at the end of the text: "a.b.par" -> ("a.b", "par").
_TRAILING_REFERENCE = re.compile(r"((?:[A-Za-z_]\w*\s*\.\s*)*)([A-Za-z_]\w*)?$")


def _kind_of(value) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    if inspect.isroutine(value):
        return "function"
    if isinstance(value, property):
        return "property"
    return "variable"


def split_reference(text: str) -> tuple[list[str], str]:
    """The dotted path before the last dot (as names) and the partial name after it."""
    match = _TRAILING_REFERENCE.search(text)
    if match is None:  # pragma: no cover - the pattern matches the empty string
        return [], ""
    chain = match.group(1)
    partial = match.group(2) or ""
    if chain and match.start() > 0 and text[match.start() - 1] in "0123456789":
        return [], ""  # A float literal such as "1.".
    names = [name.strip() for name in chain.split(".") if name.strip()]
    return names, partial


def _sort_key(label: str):
    # Public names first, then _private, then __dunder__, each alphabetically.
    return (label.startswith("__"), label.startswith("_"), label.lower())


def complete(frame: types.FrameType, text: str) -> list[dict]:
    """Completion targets (``label``, ``type``) for the end of ``text`` in ``frame``."""
    names, partial = split_reference(text)
    candidates: dict[str, str] = {}
    if names:
        target, error = guarded(lambda: _resolve(frame, names), "completion")
        if error is not None or target is _MISSING:
            return []
        attributes, error = guarded(lambda: dir(target), "dir")
        for name in attributes or ():
            if isinstance(name, str) and name.startswith(partial):
                value, read_error = guarded(lambda name=name: getattr(target, name), "getattr")
                candidates[name] = "property" if read_error else _kind_of(value)
    else:
        scopes = (frame.f_locals, frame.f_globals, vars(builtins))
        for scope in scopes:
            for name, value in list(scope.items()):
                if isinstance(name, str) and name.startswith(partial) and name not in candidates:
                    candidates[name] = _kind_of(value)
        for word in keyword.kwlist:
            if word.startswith(partial) and word not in candidates:
                candidates[word] = "keyword"
    return [{"label": label, "type": candidates[label]}
            for label in sorted(candidates, key=_sort_key)]


_MISSING = object()


def _resolve(frame: types.FrameType, names: list[str]):
    first, *rest = names
    for scope in (frame.f_locals, frame.f_globals, vars(builtins)):
        if first in scope:
            value = scope[first]
            break
    else:
        return _MISSING
    for name in rest:
        value = getattr(value, name)
    return value
