"""Executable lines and where a requested breakpoint lands."""

from __future__ import annotations

import os
import textwrap

import pytest

from dapperdbg.breakpoints.store import BreakpointStore
from dapperdbg.common.code_lines import (
    MAX_SOURCE_BYTES,
    ExecutableLinesCache,
    SourceError,
    executable_lines_of_source,
    read_source_bytes,
    resolve_line,
)
from dapperdbg.common.paths import canonical_path

SOURCE = textwrap.dedent('''\
    """Docstring."""
    # A comment.
    import os


    def outer(x):
        # Comment inside.
        def inner(y):
            return y + 1

        return [inner(v) for v in range(x)]


    class Thing:
        attribute = 1

        def method(self):
            value = (
                1 +
                2
            )
            return value


    if __name__ == "__main__":
        outer(3)
''')

# (requested line, expected verified line, or None when it cannot be verified)
RESOLUTIONS = [
    (1, 1),     # the docstring assignment
    (2, 3),     # comment -> next statement
    (3, 3),
    (4, 6),     # blank lines -> the def
    (7, 8),     # comment inside a function -> the nested def
    (9, 9),     # a nested function's body
    (10, 11),   # blank line before the return
    (11, 11),   # comprehension line
    (15, 15),   # class body
    (18, 18),   # multi-line statement start
    (22, 22),
    (23, 25),   # blank lines to the if
    (26, 26),   # last line
    (27, None),  # past the end
    (100, None),
    (0, "not a line"),   # before the first line: never moved to line 1
    (-5, "not a line"),
]


@pytest.mark.parametrize("requested,expected", RESOLUTIONS)
def test_resolution(requested, expected):
    lines = executable_lines_of_source(SOURCE, "example.py")
    resolution = resolve_line(lines, requested)
    if expected is None or isinstance(expected, str):
        assert not resolution.verified
        assert (expected or "past the last executable line") in resolution.message
        assert resolution.line == requested
    else:
        assert resolution.verified, resolution
        assert resolution.line == expected


def test_syntax_error_is_a_source_error():
    with pytest.raises(SourceError, match=r"does not compile: .*\(line 1\)"):
        executable_lines_of_source("def (:\n", "bad.py")


def test_cache_recomputes_when_the_file_changes(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    cache = ExecutableLinesCache()
    assert cache.lines(str(path)) == (1,)
    assert cache.lines(str(path)) is cache.lines(str(path))
    path.write_text("\nx = 1\ny = 2\n")
    os.utime(path, ns=(1, 1))
    assert cache.lines(str(path)) == (2, 3)


def test_a_later_process_takes_a_files_lines_by_its_identity(tmp_path, monkeypatch):
    # As an import reads only a .pyc: the debugger's cache answers by what os.stat says
    # of the file, and reads its text only when that finds nothing (a changed file).
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("dapperdbg.common.code_cache._folders", {})
    monkeypatch.setattr("dapperdbg.common.code_cache._SETTLED_NS", 0)
    path = tmp_path / "m.py"
    path.write_text("x = 1\n\ny = 2\n")
    assert ExecutableLinesCache().lines(str(path)) == (1, 3)
    read = []
    monkeypatch.setattr("dapperdbg.common.code_lines.read_source_bytes",
                        lambda file: read.append(file) or read_source_bytes(file))
    assert ExecutableLinesCache().lines(str(path)) == (1, 3)  # A new process's cache.
    assert read == []
    path.write_text("x = 1\ny = 2\nz = 3\n")
    assert ExecutableLinesCache().lines(str(path)) == (1, 2, 3)
    assert read == [str(path)]


def breakpoint_lines(store, path, lines, **extra):
    """Set breakpoints in ``path`` as if its module were loaded (test_pending_breakpoints.py
    covers files that are not)."""
    store.loaded.note(canonical_path(str(path)))
    created = store.set_file_breakpoints({"path": str(path)},
                                         [{"line": line, **extra} for line in lines])
    return [(bp.id, bp.verified, bp.line, bp.message) for bp in created]


def test_store_ids_are_unique_and_stable(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("x = 1\n\ny = 2\nz = 3\n")
    b = tmp_path / "b.py"
    b.write_text("x = 1\n")
    store = BreakpointStore()
    first = breakpoint_lines(store, a, [1, 2, 4])
    assert [(verified, line) for _, verified, line, _ in first] == [
        (True, 1), (True, 3), (True, 4)]
    ids = [bp_id for bp_id, *_ in first]
    assert len(set(ids)) == 3
    # The same lines again (the moved one by its new line): the same ids.
    again = breakpoint_lines(store, a, [3, 1])
    assert [bp_id for bp_id, *_ in again] == [ids[1], ids[0]]
    # Another file never reuses an id.
    other = breakpoint_lines(store, b, [1])
    assert other[0][0] not in ids
    # Two requests landing on one line get distinct ids.
    twins = breakpoint_lines(store, a, [2, 3])
    assert twins[0][0] != twins[1][0]
    assert set(store.lines_by_file) == {str(a.resolve()), str(b.resolve())}


@pytest.mark.parametrize("content,message", [
    (None, "Cannot read"),
    ("def (:\n", "does not compile"),
])
def test_unreadable_files_give_unverified_breakpoints(tmp_path, content, message):
    path = tmp_path / "f.py"
    if content is not None:
        path.write_text(content)
    store = BreakpointStore()
    [(_, verified, line, text)] = breakpoint_lines(store, path, [1])
    assert (verified, line) == (False, 1)
    assert message in text
    assert store.lines_by_file == {}


@pytest.mark.parametrize("extra,message", [
    ({"condition": "x ==="}, "Invalid condition"),
    ({"hitCondition": "often"}, "Invalid hit condition"),
    ({"logMessage": "value {x"}, "unmatched '{'"),
])
def test_invalid_expressions_give_unverified_breakpoints(tmp_path, extra, message):
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    store = BreakpointStore()
    [(_, verified, _, text)] = breakpoint_lines(store, path, [1], **extra)
    assert not verified and message in text


def test_replacing_a_files_breakpoints_drops_the_old_ones(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("x = 1\ny = 2\n")
    store = BreakpointStore()
    breakpoint_lines(store, path, [1, 2])
    assert set(store.lines_by_file[str(path.resolve())]) == {1, 2}
    breakpoint_lines(store, path, [2])
    assert set(store.lines_by_file[str(path.resolve())]) == {2}
    breakpoint_lines(store, path, [])
    assert store.lines_by_file == {}


def test_only_regular_files_of_a_bounded_size_are_read(tmp_path):
    """A FIFO would block the request for ever and /dev/zero never ends: both are refused
    at once, as is a file past the size cap, each with a message that says why."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))
    small = tmp_path / "small.py"
    small.write_bytes(b"x = 1\n")
    cases = [
        (fifo, "not a regular file"),
        ("/dev/zero", "not a regular file"),
        (tmp_path, "not a regular file"),
        (big, "MiB, and Dapper reads source files of up to 4 MiB"),
        (tmp_path / "missing.py", "No such file"),
    ]
    for path, message in cases:
        with pytest.raises(SourceError, match=message):
            read_source_bytes(str(path))
    assert read_source_bytes(str(small)) == b"x = 1\n"
    cache = ExecutableLinesCache()
    with pytest.raises(SourceError, match="not a regular file"):
        cache.lines(str(fifo))


def test_code_flags_are_inspects():
    import inspect

    from dapperdbg.common import code_flags

    for name in ("CO_VARARGS", "CO_VARKEYWORDS", "CO_GENERATOR", "CO_COROUTINE",
                 "CO_ITERABLE_COROUTINE", "CO_ASYNC_GENERATOR"):
        assert getattr(code_flags, name) == getattr(inspect, name), name


def test_own_lines_are_the_line_starts_dis_finds():
    import dis
    import types

    from dapperdbg.common.code_lines import code_own_lines

    with open(dis.__file__, encoding="utf-8") as source:
        pending = [compile(source.read(), dis.__file__, "exec")]
    while pending:
        code = pending.pop()
        expected = frozenset(line for _, line in dis.findlinestarts(code) if line)
        assert code_own_lines(code) == expected, code.co_name
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
