"""Frames, scopes and variables of stopped threads, as DAP bodies.

Frame ids and variable references are handles into tables that live while threads are
stopped; every resume clears them, so a stale id gets a clear error rather than a view
of a frame that has moved on.
"""

from __future__ import annotations

import os
import threading
import types
from dataclasses import dataclass

from .paths import PathCache, is_debugger_path, is_runpy_path, is_synthetic_filename
from .rendering import Child, children_of, safe_repr, shape_of, type_name


class InspectionError(ValueError):
    """A request names a frame or reference that does not exist (any more)."""


class Handles:
    """Small integer ids for objects, valid until ``clear``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[int, object] = {}
        self._next = 1

    def add(self, item) -> int:
        with self._lock:
            handle = self._next
            self._next += 1
            self._items[handle] = item
            return handle

    def get(self, handle):
        with self._lock:
            return self._items.get(handle)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


@dataclass
class FrameEntry:
    thread_id: int
    frame: types.FrameType


@dataclass
class Container:
    """What a variables reference points at. ``kind`` is "locals", "globals" or "value"."""

    kind: str
    target: object
    evaluate_name: str | None = None


def visible_frames(top: types.FrameType, paths: PathCache) -> list[types.FrameType]:
    """The user's part of a stack, innermost first: everything above the first debugger
    frame, without the runpy frames that started the user's code."""
    frames = []
    frame: types.FrameType | None = top
    while frame is not None:
        canonical = paths.canonical(frame.f_code.co_filename)
        if is_debugger_path(canonical):
            break
        frames.append(frame)
        frame = frame.f_back
    while frames:
        canonical = paths.canonical(frames[-1].f_code.co_filename)
        if not (is_runpy_path(canonical) or canonical.startswith("<frozen ")):
            break
        frames.pop()
    return frames


def source_of(filename: str) -> dict:
    if is_synthetic_filename(filename):
        return {"name": filename, "presentationHint": "deemphasize"}
    path = os.path.abspath(filename)
    return {"name": os.path.basename(path), "path": path}


def frame_name(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


class Inspector:
    """Builds the bodies of stackTrace, scopes and variables."""

    def __init__(self, paths: PathCache) -> None:
        self._paths = paths
        self.frames = Handles()
        self.containers = Handles()
        self.line_offset = 0  # 1 when the client counts lines from 0
        self.column_offset = 0

    def clear(self) -> None:
        self.frames.clear()
        self.containers.clear()

    def stack_trace(self, thread_id: int, top: types.FrameType, start: int, levels: int) -> dict:
        frames = visible_frames(top, self._paths)
        total = len(frames)
        selected = frames[start:start + levels] if levels > 0 else frames[start:]
        stack_frames = []
        for frame in selected:
            line = frame.f_lineno or frame.f_code.co_firstlineno
            stack_frames.append({
                "id": self.frames.add(FrameEntry(thread_id, frame)),
                "name": frame_name(frame.f_code),
                "source": source_of(frame.f_code.co_filename),
                "line": line - self.line_offset,
                "column": 1 - self.column_offset,
            })
        return {"stackFrames": stack_frames, "totalFrames": total}

    def frame(self, frame_id) -> FrameEntry:
        entry = self.frames.get(frame_id) if isinstance(frame_id, int) else None
        if not isinstance(entry, FrameEntry):
            raise InspectionError(f"Unknown or expired frame id {frame_id!r}")
        return entry

    def scopes(self, frame_id) -> dict:
        frame = self.frame(frame_id).frame
        scopes = []
        for name, kind, hint in (("Locals", "locals", "locals"), ("Globals", "globals", None)):
            reference = self.containers.add(Container(kind, frame))
            scope = {"name": name, "variablesReference": reference, "expensive": False}
            if hint:
                scope["presentationHint"] = hint
            mapping = frame.f_locals if kind == "locals" else frame.f_globals
            scope["namedVariables"] = sum(1 for key in mapping if _shown_in_scope(key))
            scopes.append(scope)
        return {"scopes": scopes}

    def variables(self, reference, filter_kind=None, start: int = 0, count: int = 0) -> dict:
        container = self.containers.get(reference) if isinstance(reference, int) else None
        if not isinstance(container, Container):
            raise InspectionError(f"Unknown or expired variables reference {reference!r}")
        if container.kind in ("locals", "globals"):
            frame = container.target
            mapping = frame.f_locals if container.kind == "locals" else frame.f_globals
            if filter_kind == "indexed":
                children = []
            else:
                names = [key for key in mapping if _shown_in_scope(key)]
                end = start + count if count > 0 else None
                children = [Child(key, mapping[key], key) for key in names[start:end]]
        else:
            children = children_of(
                container.target, container.evaluate_name, filter_kind, start, count
            )
        return {"variables": [self._variable(child) for child in children]}

    def _variable(self, child: Child) -> dict:
        if child.note is not None:
            return {"name": child.name, "value": child.note, "variablesReference": 0}
        value = child.value
        variable = {
            "name": child.name,
            "value": safe_repr(value),
            "type": type_name(value),
            "variablesReference": 0,
        }
        if child.evaluate_name:
            variable["evaluateName"] = child.evaluate_name
        shape = shape_of(value)
        if shape.expandable:
            variable["variablesReference"] = self.containers.add(
                Container("value", value, child.evaluate_name)
            )
            if shape.indexed:
                variable["indexedVariables"] = shape.indexed
            if shape.named:
                variable["namedVariables"] = shape.named
        return variable


def _shown_in_scope(name) -> bool:
    # The builtins module hangs off every module's globals; showing it is noise.
    return isinstance(name, str) and name != "__builtins__"
