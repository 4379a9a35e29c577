"""Frames, scopes and variables of stopped threads, as DAP bodies.

Frame ids and variable references are handles into tables that live while threads are
stopped; every resume clears them, so a stale id gets a clear error rather than a view
of a frame that has moved on.

Methods that render values (``scopes``, ``variables``) run user code and are meant to
run on the stopped thread that owns the frame (see stopped_work and
requests/inspection.py); ``stack_trace`` runs none and is answered on the IPC thread.
"""

from __future__ import annotations

import types
from json.encoder import encode_basestring

from ..common.errors import RequestError
from ..common.library_code import is_library_canonical
from ..common.native import allocate_lock
from ..common.paths import PathCache, is_debugger_path, is_runpy_path
from ..instrumentation.restarts import (
    LOCAL_PREFIX,
    can_restart,
    is_handler_line,
    is_machinery_local,
    is_parked,
)
from ..ipc.frames import EncodedJson, to_json
from .rendering import (
    DEFAULT_FORMAT,
    SPECIAL_GROUP,
    TRUNCATION_MARKER,
    Child,
    Format,
    children_of,
    classify_scope_member,
    format_value,
    grouped,
    shape_of,
    simple_member_types,
    type_name,
)
from .settings import InspectionSettings


class InspectionError(RequestError):
    """A request names a frame or reference that does not exist (any more)."""


class Handles:
    """Small integer ids for objects, valid until ``clear``."""

    def __init__(self) -> None:
        self._lock = allocate_lock()
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

    def find(self, match) -> int | None:
        """The handle of the first item ``match(item)`` accepts, if any."""
        with self._lock:
            return next((handle for handle, item in self._items.items() if match(item)), None)


class FrameEntry:
    """What a frame id points at. ``is_top``: the innermost visible frame of its thread
    (where a return value is shown)."""

    __slots__ = ("thread_id", "frame", "is_top")

    def __init__(self, thread_id: int, frame: types.FrameType, is_top: bool = False) -> None:
        self.thread_id = thread_id
        self.frame = frame
        self.is_top = is_top


class Container:
    """What a variables reference points at. ``kind`` is "locals", "globals", "value"
    or "group" (then ``target`` is a rendering.Group and ``scope`` says whose: "locals",
    "globals" or None for an object's). ``frame`` is the frame whose thread owns it.
    (A plain class with slots: a big scope creates hundreds of these per request.)"""

    __slots__ = ("kind", "target", "evaluate_name", "thread_id", "frame", "scope")

    def __init__(self, kind: str, target: object, evaluate_name: str | None, thread_id: int,
                 frame: types.FrameType, scope: str | None = None) -> None:
        self.kind = kind
        self.target = target
        self.evaluate_name = evaluate_name
        self.thread_id = thread_id
        self.frame = frame
        self.scope = scope


# Name of the Locals entry that shows what the function just stepped out of returned.
RETURN_VALUE_PREFIX = "(return) "


def visible_frames(top: types.FrameType, paths: PathCache,
                   lines: dict[int, int] | None = None) -> list[types.FrameType]:
    """The user's part of a stack, innermost first: everything above the first debugger
    frame, without the runpy frames that started the user's code, nor the frames parked
    under the calls that restarted them (instrumentation/restartable.py): the stack is as
    deep as before the restart. ``lines``: id(frame) -> the line a frame is shown at (an
    exception's traceback), which also tells whether it was parked then."""
    frames = []
    frame: types.FrameType | None = top
    while frame is not None:
        canonical = paths.canonical(frame.f_code.co_filename)
        if is_debugger_path(canonical):
            break
        shown_at = lines.get(id(frame)) if lines else None
        if frame is top or not (is_handler_line(frame.f_code, shown_at) if shown_at
                                else is_parked(frame)):
            frames.append(frame)
        frame = frame.f_back
    while frames:
        canonical = paths.canonical(frames[-1].f_code.co_filename)
        if not (is_runpy_path(canonical) or canonical.startswith("<frozen ")):
            break
        frames.pop()
    return frames


def frame_name(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


def scope_mapping(frame: types.FrameType, kind: str):
    return frame.f_locals if kind == "locals" else frame.f_globals


_SIMPLE_TYPE_NAMES = {kind: kind.__name__ for kind in
                      (int, float, complex, bool, str, bytes, type(None))}
# Built-in types whose name needs no lookup (what rendering.type_name gives them).
_BUILTIN_TYPE_NAMES = {kind: kind.__name__ for kind in
                       (list, tuple, dict, set, frozenset, bytearray, range)}
_BUILTIN_TYPE_NAMES.update(_SIMPLE_TYPE_NAMES)


class Inspector:
    """Builds the bodies of stackTrace, scopes and variables."""

    def __init__(self, paths: PathCache, settings: InspectionSettings | None = None) -> None:
        self._paths = paths
        self.settings = InspectionSettings() if settings is None else settings
        self.frames = Handles()
        self.containers = Handles()
        # The debugger thread that inspects threads that cannot run work themselves
        # (stopped_work.InspectionWorker), started on first use.
        self.worker = None
        # The hook for stepping: DAP thread id -> {function name: returned value} of the
        # functions the thread's last step saw return (the one it stepped out of, the
        # calls of the line it stepped over), in the order they returned; one entry a
        # name, so a line calling a function a million times keeps one. Stepping records
        # them (when ``show_return_value`` is on) before the thread stops; every resume
        # clears them.
        self.last_return_values: dict[int, dict[str, object]] = {}
        # What the program's asyncio event loops were doing at this stop
        # (async_snapshot.AsyncSnapshot), read at the first question about them.
        self.async_snapshot = None
        # The program's live greenlets at this stop (gevent: requests/greenlets.py), found
        # at the first threads request: finding them scans every object of the process.
        self.greenlets: list | None = None

    @property
    def paths(self) -> PathCache:
        return self._paths

    def record_return_value(self, thread_id: int, code: types.CodeType, value) -> None:
        """Stepping's hook: the function ``code`` returned ``value`` on ``thread_id``
        during a step (call it before the thread stops). Shown as ``(return) name`` in
        the Locals of the frame the thread stops in when showReturnValue is on."""
        if self.settings.show_return_value:
            # "outer.<locals>.helper" reads as "helper"; "Class.method" stays.
            name = frame_name(code).rsplit("<locals>.", 1)[-1]
            returned = self.last_return_values.setdefault(thread_id, {})
            returned.pop(name, None)  # The latest call of a name comes last.
            returned[name] = value

    def clear(self) -> None:
        self.frames.clear()
        self.containers.clear()
        self.last_return_values.clear()
        self.async_snapshot = None
        self.greenlets = None

    # Stack.

    def stack_trace(self, thread_id: int, top: types.FrameType, start: int, levels: int,
                    lines: dict[int, int] | None = None) -> dict:
        """``lines``: id(frame) -> the line to show it at, where that is not where the
        frame is now (an exception's traceback: where it passed through each frame)."""
        frames = visible_frames(top, self._paths, lines)
        total = len(frames)
        selected = frames[start:start + levels] if levels > 0 else frames[start:]
        stack_frames = [
            self.frame_body(thread_id, frame, lines.get(id(frame)) if lines else None,
                            index == 0)
            for index, frame in enumerate(selected, start)]
        return {"stackFrames": stack_frames, "totalFrames": total}

    def frame_body(self, thread_id: int, frame: types.FrameType, line: int | None = None,
                   is_top: bool = False, on_stack: bool = True) -> dict:
        """The DAP stack frame of ``frame`` (shown at ``line`` when that is not where the
        frame is now), with a new id. ``on_stack``: the frame is on its thread's stack
        (not a waiting asyncio task's), so it could be restarted."""
        line = line or frame.f_lineno or frame.f_code.co_firstlineno
        stack_frame = {
            "id": self.frames.add(FrameEntry(thread_id, frame, is_top)),
            "name": frame_name(frame.f_code),
            "source": self.settings.sources.source_for_code(frame.f_code),
            "line": line - self.settings.line_offset,
            "column": 1 - self.settings.column_offset,
        }
        if self.is_library_frame(frame):
            stack_frame["presentationHint"] = "subtle"
        if not (on_stack and can_restart(frame)):
            stack_frame["canRestart"] = False
        return stack_frame

    def label_body(self, thread_id: int, text: str, frame: types.FrameType) -> dict:
        """A label in a call stack (what follows it: a chained exception, the task that
        awaits the frames above); ``frame`` is what selecting it shows."""
        return {"id": self.frames.add(FrameEntry(thread_id, frame)), "name": text,
                "line": 0, "column": 0, "presentationHint": "label"}

    def is_library_frame(self, frame: types.FrameType) -> bool:
        """Whether justMyCode is on and ``frame`` is library code (shown subtle)."""
        return self.settings.just_my_code and is_library_canonical(
            self._paths.canonical(frame.f_code.co_filename))

    def frame_id(self, thread_id: int, frame: types.FrameType, is_top: bool) -> int:
        """The id stackTrace gave ``frame`` of the stopped thread ``thread_id`` (a new
        one, valid until the thread resumes, if it was not listed yet)."""
        found = self.frames.find(lambda entry: isinstance(entry, FrameEntry)
                                 and entry.frame is frame and entry.thread_id == thread_id)
        return found if found is not None else self.frames.add(
            FrameEntry(thread_id, frame, is_top))

    def frame(self, frame_id) -> FrameEntry:
        entry = self.frames.get(frame_id) if isinstance(frame_id, int) else None
        if not isinstance(entry, FrameEntry):
            raise InspectionError(f"Unknown or expired frame id {frame_id!r}")
        return entry

    def container(self, reference) -> Container:
        container = self.containers.get(reference) if isinstance(reference, int) else None
        if not isinstance(container, Container):
            raise InspectionError(f"Unknown or expired variables reference {reference!r}")
        return container

    # Scopes and variables (run user code: call them on the stopped thread).

    def scopes(self, frame_id) -> dict:
        entry = self.frame(frame_id)
        scopes = []
        for name, kind, hint in (("Locals", "locals", "locals"), ("Globals", "globals", None)):
            container = Container(kind, entry.frame, None, entry.thread_id, entry.frame)
            scope = {"name": name, "variablesReference": self.containers.add(container),
                     "expensive": False}
            if hint:
                scope["presentationHint"] = hint
            scopes.append(scope)
        return {"scopes": scopes}

    def _scope_children(self, container: Container) -> list:
        """The scope's entries: ``(name, value)`` pairs for plain variables (no Child
        objects: a scope of 1,000 locals must render in a few milliseconds), then a
        Child per group."""
        frame = container.frame
        mapping = scope_mapping(frame, container.kind)
        plain: list = []
        if container.kind == "locals":
            for function, value in self._return_values(container):
                plain.append(Child(RETURN_VALUE_PREFIX + function, value, None))
        append = plain.append
        simple_types = simple_member_types
        groups: dict[str, list] = {}
        for key, value in list(mapping.items()):
            if type(key) is str and key[:9] == LOCAL_PREFIX and is_machinery_local(key):
                continue  # The restart handler's (instrumentation/restartable.py).
            if type(key) is str and type(value) in simple_types:
                # The common case, decided without a call: a plain value of a built-in
                # type is shown directly unless its name is a dunder.
                if key[:2] == "__" and key[-2:] == "__":
                    if key != "__builtins__":
                        groups.setdefault(SPECIAL_GROUP, []).append((key, value, key))
                else:
                    append((key, value))
                continue
            if key == "__builtins__" or not isinstance(key, str):
                continue  # The builtins module hangs off every module's globals: noise.
            group = classify_scope_member(key, value)
            if group is None:
                append((key, value))
            else:
                groups.setdefault(group, []).append((key, value, key))
        return grouped(plain, groups)

    def _return_values(self, container: Container) -> list[tuple[str, object]]:
        if not self.settings.show_return_value:
            return []
        returned = self.last_return_values.get(container.thread_id)
        if not returned:
            return []
        # Only the frame the thread stopped in shows them: where the step ended.
        for entry_frame in self._top_frames(container.thread_id):
            if entry_frame is container.frame:
                return list(returned.items())
        return []

    def _top_frames(self, thread_id: int) -> list[types.FrameType]:
        with self.frames._lock:
            entries = list(self.frames._items.values())
        return [e.frame for e in entries
                if isinstance(e, FrameEntry) and e.thread_id == thread_id and e.is_top]

    def variables(self, reference, filter_kind=None, start: int = 0, count: int = 0,
                  fmt: Format = DEFAULT_FORMAT, encoded: bool = False):
        """The body of a variables response: a dict, or with ``encoded`` the same as
        frames.EncodedJson (what the request handler sends: faster for big scopes)."""
        container = self.container(reference)
        if container.kind in ("locals", "globals"):
            if filter_kind == "indexed":
                children = []
            else:
                children = self._scope_children(container)
                end = start + count if count > 0 else None
                children = children[start:end]
        else:
            children = children_of(container.target, container.evaluate_name,
                                   filter_kind, start, count)
        describe = self.describe
        thread_id, frame = container.thread_id, container.frame
        variables: list = []
        append = variables.append
        # Scalars of a scope are rendered inline: no user code runs, nothing expands, and
        # a scope of 1,000 locals must stay a matter of a millisecond or two.
        simple_names = {} if fmt.hex else _SIMPLE_TYPE_NAMES
        limit = fmt.limit
        for child in children:
            if type(child) is not tuple:
                append(self.variable(child, container, fmt))
                continue
            name, value = child
            kind = type(value)
            simple_name = simple_names.get(kind)
            if simple_name is None or not name or (
                limit is not None and (kind is str or kind is bytes) and len(value) > limit
            ):
                append(describe(name, value, name, thread_id, frame, fmt))
                continue
            try:
                text = repr(value)
            except ValueError:
                # An int too long for decimal: the general path says so.
                append(describe(name, value, name, thread_id, frame, fmt))
                continue
            if limit is not None and len(text) > limit:
                text = text[:limit] + TRUNCATION_MARKER
            if encoded:
                # The JSON the encoder would write for the dict below, written directly.
                quoted = encode_basestring(name)
                append(f'{{"name":{quoted},"value":{encode_basestring(text)},'
                       f'"type":"{simple_name}","variablesReference":0,'
                       f'"evaluateName":{quoted}}}')
                continue
            append({"name": name, "value": text, "type": simple_name, "variablesReference": 0,
                    "evaluateName": name})
        if encoded:
            items = ",".join(item if type(item) is str else to_json(item)
                             for item in variables)
            return EncodedJson(f'{{"variables":[{items}]}}')
        return {"variables": variables}

    def variable(self, child: Child, parent: Container, fmt: Format = DEFAULT_FORMAT) -> dict:
        if child.note is not None:
            return {"name": child.name, "value": child.note, "variablesReference": 0}
        if child.group is not None:
            scope = parent.kind if parent.kind in ("locals", "globals") else parent.scope
            group_container = Container("group", child.group, None, parent.thread_id,
                                        parent.frame, scope)
            return {
                "name": child.name,
                "value": "",
                "variablesReference": self.containers.add(group_container),
                "namedVariables": len(child.group.members),
                "presentationHint": {"kind": "virtual"},
            }
        return self.describe(child.name, child.value, child.evaluate_name, parent.thread_id,
                             parent.frame, fmt)

    def describe(self, name: str, value, evaluate_name: str | None, thread_id: int,
                 frame: types.FrameType, fmt: Format = DEFAULT_FORMAT,
                 value_key: str = "value") -> dict:
        """A DAP variable (or, with ``value_key="result"``, an evaluate body) for a value."""
        simple_type = _SIMPLE_TYPE_NAMES.get(type(value))
        if simple_type is not None and not fmt.hex:
            # Scalars: nothing to expand, no user code.
            body = {"name": name, value_key: format_value(value, fmt), "type": simple_type,
                    "variablesReference": 0}
            if evaluate_name:
                body["evaluateName"] = evaluate_name
            return body
        body = {
            "name": name,
            value_key: format_value(value, fmt),
            "type": _BUILTIN_TYPE_NAMES.get(type(value)) or type_name(value),
            "variablesReference": 0,
        }
        if evaluate_name:
            body["evaluateName"] = evaluate_name
        shape = shape_of(value)
        if shape.expandable:
            body["variablesReference"] = self.containers.add(
                Container("value", value, evaluate_name, thread_id, frame)
            )
            if shape.indexed:
                body["indexedVariables"] = shape.indexed
            if shape.named:
                body["namedVariables"] = shape.named
        return body
