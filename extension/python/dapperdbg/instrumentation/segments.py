"""Compiling only the definitions that hold probes, not the whole file.

A breakpoint in one function of a 3,000-line module needs a copy of that function
(and of the class or function around it), not of the module: parsing and compiling the
whole file costs 40-60 ms, the function's text alone well under a millisecond. So for
each module-level definition (a function or class whose code object is a constant of
the module's code) holding probe lines, its lines are compiled on their own, at their
own line numbers (the lines before it left blank, an ``if 1:`` in front when it is
indented under a module-level ``if`` or ``try``), with the file's ``__future__``
features; the copies replace their plain code objects among the constants of the
file's plain module code, which the caller has cheaply (its ``.pyc``, or the
debugger's cache).

A definition's code depends on little outside its own text: the ``__future__``
features, and on 3.11+ which global names the module binds by ``import`` (a call of an
attribute of such a name is compiled as a function call, not a method call); module
scope gives nested scopes no cells, so their free names are globals either way. So the
part also gets one ``import`` line, in front of it, binding the names that the file's
imports at the left margin bind and the part uses; should that not be enough (an
import under a module-level ``if`` or ``try``), the module's symbol table (``_symtable``,
a parse of the whole file in C, still much cheaper than a compile) tells them all.

Nothing here is trusted to be the same definition: the part's plain compile must give
code objects equal, line tables included, to those the plain module code holds for
those lines, or the part is not used. A part that does not parse or compare equal (a
definition whose text continues at the left margin, say), and a probe that is not
inside a definition (module-level code, a ``def`` line itself, which runs when the
module does) leave the file to the whole compile (``None``).
"""

from __future__ import annotations
import __future__

import ast
import sys
import types
from _bisect import bisect_right  # bisect.py only re-exports its C half.
from collections.abc import Callable, Mapping

from ..common.code_lines import code_tree_lines
from .compiler import InstrumentationError, instrument_tree
from .copies import InstrumentedModule, nested_codes, same_code
from .jit_compiled import may_hand_over
from .probes import Probe
from .restartable import guard_handlers, make_restartable
from .transform import StatementIndex

# Every compiler flag a ``from __future__`` import can set: the module's code carries
# them in its co_flags, and a part of it is compiled with the same.
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_BLANK_OR_COMMENT = (b"", b"#")
# 3.11+ compile ``name.attribute(...)`` as a function call when the module binds ``name``
# by an import, as a method call otherwise.
_IMPORTS_MATTER = sys.version_info >= (3, 11)


class _Part:
    """One definition's lines (``first`` to ``last``, 1-based) and the module code's
    constants they make (their positions in ``co_consts``)."""

    def __init__(self, first: int, last: int, positions: list[int]) -> None:
        self.first = first
        self.last = last
        self.positions = positions
        self.probes: dict[int, Probe] = {}


def instrument_parts(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                     plain_of: Callable[[], types.CodeType], optimize: int = -1,
                     restartable: bool = False) -> InstrumentedModule | None:
    """The file instrumented as ``instrument_source`` would, compiling only the
    definitions that hold ``probes``; ``plain_of()`` gives the file's plain module code
    (restartable if ``restartable``), asked only when the probes may be in definitions
    (none is at the left margin, where only module-level statements start). None when
    this cannot be done for every probe."""
    if not isinstance(source, bytes) or not probes or may_hand_over(source):
        # A function handed to a JIT compiler by a call keeps its plain code, which only
        # the whole module's statements show (jit_compiled.py).
        return None
    lines = source.splitlines(keepends=True)
    if any(not 1 <= line <= len(lines) or not _indent(lines[line - 1]) for line in probes):
        return None
    plain = plain_of()
    parts = _parts_holding(plain, lines, probes)
    if parts is None:
        return None
    flags = plain.co_flags & _FUTURE_FLAGS
    constants = list(plain.co_consts)
    sites = []
    accepted: dict[int, Probe] = {}
    refused: dict[int, str] = {}
    imported = _imported_at_the_margin(lines)
    for part in parts:
        compiled = _instrument_part(lines, imported, filename, part, plain, flags, optimize,
                                    restartable)
        if compiled is None and _IMPORTS_MATTER:
            exact = _imported_names(source, filename)
            if exact is not None and exact != imported:
                imported = exact
                compiled = _instrument_part(lines, imported, filename, part, plain, flags,
                                            optimize, restartable)
        if compiled is None:
            return None
        holding = compiled.copies_holding_probes()
        for position, copy in zip(part.positions, nested_codes(compiled.code)):
            if id(copy) in holding:
                constants[position] = copy
        sites.extend(compiled.sites)
        accepted.update(compiled.accepted)
        refused.update(compiled.refused)
    code = plain.replace(co_consts=tuple(constants)) if accepted else plain
    return InstrumentedModule(filename, code, accepted, refused, tuple(sites), plain_of,
                              plain, restartable)


def _parts_holding(plain: types.CodeType, lines: list[bytes],
                   probes: Mapping[int, Probe]) -> list[_Part] | None:
    """The definitions holding the probe lines, each with its probes; None when a probe
    line is in none of them."""
    children = [(position, const) for position, const in enumerate(plain.co_consts)
                if type(const) is types.CodeType]
    children.sort(key=lambda item: item[1].co_firstlineno)
    firsts = [child.co_firstlineno for _, child in children]
    spans: dict[int, tuple[int, int]] = {}  # position -> (first, last line of its code)
    parts: dict[int, _Part] = {}  # first line -> part
    for line, probe in probes.items():
        # The widest definition starting at or before the line that reaches it (a
        # lambda of a default value starts on the def's line too).
        owner = None
        for position, child in children[:bisect_right(firsts, line)]:
            span = spans.get(position)
            if span is None:
                span = spans[position] = (child.co_firstlineno,
                                          max(code_tree_lines(child) | {child.co_firstlineno}))
            if span[0] <= line <= span[1] and (owner is None or span[0] < owner[0]):
                owner = span
        if owner is None:
            return None
        part = parts.get(owner[0])
        if part is None:
            last = _last_line(lines, owner[0], owner[1])
            part = parts[owner[0]] = _Part(owner[0], last, [
                position for position, child in enumerate(plain.co_consts)
                if type(child) is types.CodeType and owner[0] <= child.co_firstlineno <= last])
        part.probes[line] = probe
    ordered = sorted(parts.values(), key=lambda part: part.first)
    for before, after in zip(ordered, ordered[1:]):
        if before.last >= after.first:
            return None  # Overlapping parts: the whole compile sorts that out.
    return ordered


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _last_line(lines: list[bytes], first: int, last_code: int) -> int:
    """The definition's last line: before the first line after its code's last line that
    is indented no deeper than the definition (blank and comment lines aside)."""
    indent = _indent(lines[first - 1]) if first <= len(lines) else 0
    for number in range(last_code + 1, len(lines) + 1):
        text = lines[number - 1]
        if text.strip()[:1] in _BLANK_OR_COMMENT:
            continue
        if _indent(text) <= indent:
            return number - 1
    return len(lines)


def _imported_at_the_margin(lines: list[bytes]) -> frozenset[str]:
    """The names bound by the file's ``import`` statements at the left margin (so at
    module level), each statement parsed alone."""
    names: set[str] = set()
    if not _IMPORTS_MATTER:
        return frozenset()
    for number, line in enumerate(lines):
        if not line.startswith((b"import ", b"from ")):
            continue
        text = line
        while (text.count(b"(") > text.count(b")") or text.rstrip().endswith(b"\\")) \
                and number + 1 < len(lines):
            number += 1
            text += lines[number]
        try:
            statements = ast.parse(text).body
        except (SyntaxError, ValueError):
            continue
        for statement in statements:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                names.update(alias.asname or alias.name.partition(".")[0]
                             for alias in statement.names if alias.name != "*")
    return frozenset(names)


def _imported_names(source: bytes, filename: str) -> frozenset[str] | None:
    """Every name the module binds by an ``import``, from its symbol table."""
    try:
        import _symtable

        top = _symtable.symtable(source, filename, "exec")
        return frozenset(name for name, flags in top.symbols.items()
                         if flags & _symtable.DEF_IMPORT)
    except Exception:  # No _symtable, or a layout this does not know: no part then.
        return None


def _part_text(lines: list[bytes], part: _Part, imported: frozenset[str]) -> bytes | None:
    """The part's lines at their own numbers: the lines before it blank, save a coding
    declaration (it decides how the part's text is read), ``if 1:`` just before it
    when it is indented, and before that an ``import`` of the names of ``imported`` the
    part's text has."""
    head = [b"\n"] * (part.first - 1)
    for number in (0, 1):
        if number < part.first - 1 and b"coding" in lines[number] and \
                lines[number].lstrip().startswith(b"#"):
            head[number] = lines[number]
    free = part.first - 2  # The index of the line before the part.
    if _indent(lines[part.first - 1]):
        if free < 0 or head[free] != b"\n":
            return None
        head[free] = b"if 1:\n"
        free -= 1
    body = lines[part.first - 1:part.last]
    if body and not body[-1].endswith((b"\n", b"\r")):
        body[-1] += b"\n"
    text = b"".join(body)
    used = sorted(name for name in imported if name.encode() in text)
    if used:
        if free < 0 or head[free] != b"\n":
            return None
        head[free] = f"import {', '.join(used)}\n".encode()
    return b"".join(head) + text


def _instrument_part(lines: list[bytes], imported: frozenset[str], filename: str,
                     part: _Part, plain: types.CodeType, flags: int, optimize: int,
                     restartable: bool) -> InstrumentedModule | None:
    text = _part_text(lines, part, imported)
    if text is None:
        return None
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    index = StatementIndex(tree)
    if restartable:
        make_restartable(tree)
    try:
        part_plain = guard_handlers(compile(tree, filename, "exec", flags=flags,
                                            dont_inherit=True, optimize=optimize))
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    made = nested_codes(part_plain)
    expected = [plain.co_consts[position] for position in part.positions]
    if len(made) != len(expected) or not all(map(same_code, made, expected)):
        return None
    try:
        compiled = instrument_tree(tree, index, text, filename, part.probes, optimize,
                                   restartable, flags, part_plain)
    except InstrumentationError:
        return None
    if compiled.sites_of(compiled.code) is not None:
        return None  # A probe at module level (a def line): the module's code needs it.
    return compiled
