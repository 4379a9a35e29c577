"""Data breakpoints ("Break When Value Changes"): what a ``dataId`` names, the
breakpoints set on them, and which code objects can change each watched value.

A watch is on a binding, not on an object's contents: it stops when the name (the
local, the global, the attribute, the list or dict item) comes to hold another object,
or an equal value of another built-in scalar type, or is deleted. ``x = x`` does not
stop; ``self.items.append(1)`` does not stop a watch on ``self.items`` (it does one on
``self.items[0]`` when it shifts the item). Comparison never runs the program's code:
identity first, then ``==`` only between two values of the same built-in scalar type.

Who pays (docs/data-breakpoints.md): only code objects that may change a watched value
get line (and return) events, and only while a data breakpoint is set. A code object
may change

- a local: it is the code of the watched frame and stores that name (the comparison
  runs only in that frame);
- a global: it stores or deletes that name (STORE_GLOBAL, STORE_NAME, DELETE_*);
- an attribute: it stores or deletes an attribute of that name (STORE_ATTR,
  DELETE_ATTR);
- an item of a list or dict: it stores or deletes a subscript or slice, runs an
  in-place operator, or loads a mutating method by name (append, update, pop, ...).

Values are compared at the line events right after a line that may change them (the
other lines are disabled with sys.monitoring) and when those frames return, so a stop
comes right after the line that made the change, in the frame that ran it. Not caught
where they happen: changes made through ``setattr``/``globals()``,
``operator.setitem`` and other calls of C functions not looked up by a mutating
method's name, ``exec`` of a string, or ``nonlocal`` cells (a local is watched in its
own frame); such a change is reported at the next compared line, if any runs.
"""

from __future__ import annotations

import _thread
import sys
import types

from ..common.errors import RequestError
from ..common.native import allocate_lock
from ..common.records import Factory, Record
from ..common.stop_imports import import_at_first_stop
from .expressions import ExpressionError, HitCondition, compile_expressions

# What a watched name holds once it is gone (deleted, out of range).
MISSING = type("Missing", (), {"__repr__": lambda self: "<undefined>"})()

# Values equal by ``==`` count as unchanged only between these types: their ``==``
# runs no code of the program's and cannot raise.
_SAFE_EQUALITY = frozenset({int, float, complex, bool, str, bytes, type(None)})

_LOCAL_STORES = frozenset({"STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF",
                           "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST",
                           "STORE_FAST_MAYBE_NULL"})
_GLOBAL_STORES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME", "DELETE_NAME"})
_ATTRIBUTE_STORES = frozenset({"STORE_ATTR", "DELETE_ATTR"})
_ITEM_STORES = frozenset({"STORE_SUBSCR", "DELETE_SUBSCR", "STORE_SLICE", "DELETE_SLICE"})
_METHOD_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
# Methods of list and dict that change their items (a call loads one by name).
_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
    "update", "setdefault", "popitem", "__setitem__", "__delitem__", "__iadd__",
    "__imul__", "__ior__",
})
ACCESS_TYPES = ["write"]
# code_writes runs on the IPC thread, also while threads are stopped.
import_at_first_stop("dis")


def changed(old, new) -> bool:
    """Whether a watched binding changed from ``old`` to ``new`` (runs no user code)."""
    if new is old:
        return False
    kind = type(old)
    return not (kind is type(new) and kind in _SAFE_EQUALITY and old == new)


class CodeWrites(Record, frozen=True):
    """Where a code object's bytecode may store: the lines that store each local,
    global and attribute name, the lines that may change a list or dict item, and for
    each of those lines the lines that can run right after it (where a change it made
    is seen)."""

    locals: dict
    globals: dict
    attributes: dict
    items: frozenset
    after: dict

    def lines_after(self, lines) -> frozenset:
        """The lines where a change made by one of ``lines`` is compared."""
        after = self.after
        return frozenset().union(*(after[line] for line in lines)) if lines else frozenset()


def code_writes(code: types.CodeType) -> CodeWrites:
    """Scan ``code``'s bytecode (not its nested code objects)."""
    import dis  # Only once a data breakpoint is set: it costs every process at start.

    jumps = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
    instructions = list(dis.get_instructions(code))
    stores: dict[str, dict] = {"locals": {}, "globals": {}, "attributes": {}}
    items: set[int] = set()
    lines: list[int] = []
    line = code.co_firstlineno
    for instruction in instructions:
        line = _line_of(instruction, line)
        lines.append(line)
        name, argument = instruction.opname, instruction.argval
        kind = ("locals" if name in _LOCAL_STORES else "globals" if name in _GLOBAL_STORES
                else "attributes" if name in _ATTRIBUTE_STORES else None)
        if kind is not None:
            for stored in argument if isinstance(argument, tuple) else (argument,):
                stores[kind].setdefault(stored, set()).add(line)
        elif name in _ITEM_STORES or name.startswith("INPLACE_") or (
                name == "BINARY_OP" and instruction.argrepr.endswith("=")) or (
                name in _METHOD_LOADS and argument in _MUTATORS):
            items.add(line)
    storing = items.union(*(lines_ for names in stores.values() for lines_ in names.values()))
    index_of = {instruction.offset: index for index, instruction in enumerate(instructions)}
    after: dict[int, set[int]] = {line: set() for line in storing}
    for index, instruction in enumerate(instructions):
        here = lines[index]
        if here not in storing:
            continue
        if index + 1 < len(instructions) and lines[index + 1] != here:
            after[here].add(lines[index + 1])
        if instruction.opcode in jumps and instruction.argval in index_of:
            after[here].add(lines[index_of[instruction.argval]])
    return CodeWrites(
        {name: frozenset(found) for name, found in stores["locals"].items()},
        {name: frozenset(found) for name, found in stores["globals"].items()},
        {name: frozenset(found) for name, found in stores["attributes"].items()},
        frozenset(items), {line: frozenset(found) for line, found in after.items()})


def _line_of(instruction, previous: int) -> int:
    """The line a ``dis.Instruction`` belongs to (3.9-3.10 only mark where lines start)."""
    positions = getattr(instruction, "positions", None)
    if positions is not None:
        return positions.lineno if positions.lineno is not None else previous
    start = instruction.starts_line
    return start if start is not None else previous


class Target:
    """What a ``dataId`` names. ``holder`` is what holds the value: the frame (a
    local), the module's globals dict (a global), the object (an attribute) or the list
    or dict (an item); it is kept alive by the target."""

    kind = "abstract"

    def __init__(self, holder, key, description: str) -> None:
        self.holder = holder
        self.key = key
        self.description = description

    def read(self):
        """The value now, or MISSING. Runs no code of the program's."""
        raise NotImplementedError

    def stores_in(self, code: types.CodeType, writes: CodeWrites) -> frozenset:
        """The lines of ``code`` that may change the value."""
        raise NotImplementedError

    def identity(self) -> tuple:
        return (self.kind, id(self.holder), self.key)


class LocalTarget(Target):
    kind = "local"

    def read(self):
        return self.holder.f_locals.get(self.key, MISSING)

    def stores_in(self, code, writes) -> frozenset:
        return writes.locals.get(self.key, frozenset()) if code is self.holder.f_code else (
            frozenset())


class GlobalTarget(Target):
    kind = "global"

    def read(self):
        return self.holder.get(self.key, MISSING)

    def stores_in(self, code, writes) -> frozenset:
        return writes.globals.get(self.key, frozenset())


class AttributeTarget(Target):
    kind = "attribute"

    def read(self):
        holder, name = self.holder, self.key
        try:
            namespace = object.__getattribute__(holder, "__dict__")
        except AttributeError:
            namespace = None
        if type(namespace) is dict and name in namespace:
            return namespace[name]
        slot = _slot_of(type(holder), name)
        if slot is not None:
            try:
                return slot.__get__(holder, type(holder))
            except AttributeError:
                return MISSING
        return namespace.get(name, MISSING) if type(namespace) is dict else MISSING

    def stores_in(self, code, writes) -> frozenset:
        return writes.attributes.get(self.key, frozenset())


class ItemTarget(Target):
    kind = "item"

    def read(self):
        holder = self.holder
        if isinstance(holder, dict):
            return dict.get(holder, self.key, MISSING)
        try:
            return list.__getitem__(holder, self.key)
        except IndexError:
            return MISSING

    def stores_in(self, code, writes) -> frozenset:
        return writes.items


def _slot_of(kind: type, name: str):
    for klass in kind.__mro__:
        member = klass.__dict__.get(name)
        if member is not None:
            return member if isinstance(member, types.MemberDescriptorType) else None
    return None


def attribute_target(owner, name: str, description: str) -> Target:
    """A watch on ``owner.name``; RequestError if it is not an attribute stored on the
    object itself (a property or a class attribute has no binding to watch)."""
    target = AttributeTarget(owner, name, description)
    if target.read() is MISSING:
        raise RequestError(f"{description} is not stored on the object (a property, "
                           f"a class attribute or a computed one cannot be watched)")
    return target


def item_target(container, key, description: str) -> Target:
    if isinstance(container, list):
        if type(key) is not int:
            raise RequestError(f"{description}: a list item needs an integer index")
        if key < 0:
            key += len(container)
    elif not isinstance(container, dict):
        raise RequestError(f"{description}: only items of a list or a dict can be "
                           f"watched, not of a {type(container).__name__}")
    target = ItemTarget(container, key, description)
    if target.read() is MISSING:
        raise RequestError(f"{description} does not exist")
    return target


class DataBreakpoint(Record, eq=False):
    """One data breakpoint of setDataBreakpoints. ``old`` is the value last seen."""

    id: int
    data_id: str
    target: Target
    old: object = None
    condition: types.CodeType | None = None
    condition_text: str | None = None
    hit_condition: HitCondition | None = None
    hits: int = 0
    condition_error_reported: bool = False
    log_template = None
    # Set when a local's frame returned: it never stops again.
    ended: bool = False
    # A local's frame (the only one where it is compared), else None.
    frame: types.FrameType | None = None

    def __post_init__(self) -> None:
        if self.target.kind == "local":
            self.frame = self.target.holder

    def to_dap(self) -> dict:
        if self.ended:
            return {"id": self.id, "verified": False, "reason": "failed",
                    "message": f"{self.target.description}: its frame has returned"}
        return {"id": self.id, "verified": True}


class DataBreakpoints(Record):
    """The data targets the client was given ids for, and the data breakpoints set.
    ``active`` is replaced, never mutated: the tracer reads it without a lock."""

    active: tuple = ()
    _targets: dict = Factory(dict)
    _ids_by_identity: dict = Factory(dict)
    _breakpoint_ids: dict = Factory(dict)
    _lock: _thread.LockType = Factory(allocate_lock)

    def data_id(self, target: Target) -> str:
        """The ``dataId`` of ``target`` (the same one for the same binding)."""
        with self._lock:
            identity = target.identity()
            data_id = self._ids_by_identity.get(identity)
            if data_id is None:
                data_id = f"{target.kind}:{len(self._targets) + 1}"
                self._ids_by_identity[identity] = data_id
                self._targets[data_id] = target
            return data_id

    def set_breakpoints(self, requested: list, allocate_id, frame_alive) -> list[dict]:
        """Replace every data breakpoint with ``requested`` (DAP DataBreakpoint
        objects); the response's breakpoints."""
        created, answers = [], []
        for spec in requested:
            if not isinstance(spec, dict):
                raise RequestError(f"a data breakpoint must be an object, got {spec!r}")
            data_id = spec.get("dataId")
            target = self._targets.get(data_id) if isinstance(data_id, str) else None
            message = None
            if target is None:
                message = (f"Unknown or expired dataId {data_id!r}: ask dataBreakpointInfo "
                           f"again")
            elif spec.get("accessType", "write") != "write":
                message = f"Only writes can be watched, not {spec.get('accessType')!r}"
            elif target.kind == "local" and not frame_alive(target.holder):
                message = f"{target.description}: its frame has returned"
            bp_id = self._breakpoint_ids.get(data_id) if isinstance(data_id, str) else None
            if bp_id is None:
                bp_id = allocate_id()
                if target is not None:
                    self._breakpoint_ids[data_id] = bp_id
            if message is not None:
                answers.append({"id": bp_id, "verified": False, "reason": "failed",
                                "message": message})
                continue
            breakpoint = DataBreakpoint(bp_id, data_id, target, target.read())
            try:
                compile_expressions(breakpoint, spec)
            except ExpressionError as error:
                answers.append({"id": bp_id, "verified": False, "reason": "failed",
                                "message": str(error)})
                continue
            created.append(breakpoint)
            answers.append(breakpoint.to_dap())
        self.active = tuple(created)
        return answers

    def watching(self, code: types.CodeType) -> tuple | None:
        """The active data breakpoints whose value ``code`` may change, and the lines
        where they are compared (right after a line that may change one); None if
        there are none."""
        active = self.active
        if not active:
            return None
        writes = code_writes(code)
        watching, stores = [], set()
        for breakpoint in active:
            lines = breakpoint.target.stores_in(code, writes)
            if lines:
                watching.append(breakpoint)
                stores |= lines
        if not watching:
            return None
        return tuple(watching), writes.lines_after(stores)

    def frame_ended(self, frame: types.FrameType) -> list[DataBreakpoint]:
        """``frame`` returned: the breakpoints on its locals end (returned for the
        caller to announce)."""
        ended = [bp for bp in self.active
                 if bp.target.kind == "local" and bp.target.holder is frame]
        if ended:
            for breakpoint in ended:
                breakpoint.ended = True
            self.active = tuple(bp for bp in self.active if not bp.ended)
        return ended

    def clear(self) -> None:
        self.active = ()


def describe_change(breakpoint: DataBreakpoint, old, new, render) -> str:
    """The stop's text: ``count: 1 → 2`` (``render`` makes a short repr)."""
    return f"{breakpoint.target.description}: {render(old)} \u2192 {render(new)}"


def frame_on_a_stack(frame: types.FrameType) -> bool:
    """Whether ``frame`` is running (on some thread's stack)."""
    for top in sys._current_frames().values():
        while top is not None:
            if top is frame:
                return True
            top = top.f_back
    return False
