"""The guard in front of the restart handler (instrumentation/handler_guard.py): on 3.11+
an exception leaves a restartable function without entering its handler (the guard's
entries idle until a restart arms them), and everything the program sees is as it is
plain. Each case is a module and a call that raises through its functions (or closes a
coroutine, whose GeneratorExit goes through the handler and on once it is armed)."""

from __future__ import annotations

import sys
import textwrap
import traceback

import pytest

from dapperdbg.instrumentation.handler_guard import (
    GUARDED,
    _read_table,
    arm,
    disarm,
    guard_handlers,
)
from dapperdbg.instrumentation.restart_contract import install_restart_exception
from dapperdbg.instrumentation.restartable import compile_restartable
from dapperdbg.instrumentation.restarts import is_restartable

MANY_NAMES = "\n".join(f"            name{index} = 1 if ok else global{index}"
                       for index in range(200))

CASES = {
    "an error raised through three frames": ('''
        def inner(n):
            if n > 2:
                raise KeyError(n)
            return n

        def middle(n):
            return inner(n + 1)

        def outer(n):
            return middle(n + 1)

        def run():
            return outer(1)
    ''', 0),
    "an error raised in an inner handler, and one from a with block's exit": ('''
        class Exit:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                raise RuntimeError("exit")

        def handles(n):
            try:
                return {}[n]
            except KeyError:
                raise ValueError(n) from None

        def leaves():
            with Exit():
                return 1

        def run():
            try:
                handles(3)
            except ValueError:
                pass
            return leaves()
    ''', 0),
    "a function with more names than one byte of argument holds": (f'''
        def wide(ok):
{MANY_NAMES}
            raise LookupError("wide")

        def run():
            return wide(True)
    ''', 0),
    "a coroutine closed while it awaits": ('''
        import types

        @types.coroutine
        def pause():
            yield

        async def waits():
            try:
                await pause()
            finally:
                print("cleaned up")

        def run():
            coroutine = waits()
            coroutine.send(None)
            coroutine.close()
            return "closed"
    ''', 0),
}


def _outcome(code, capsys):
    """What calling ``run`` shows: its result or its exception and traceback lines, what
    it printed, and what a trace function sees (each event, with its function and line)."""
    namespace = {"__name__": "guarded_case"}
    exec(code, namespace)
    events = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename == "<case>":
            events.append((event, frame.f_code.co_name, frame.f_lineno,
                           frame.f_lineno == frame.f_code.co_firstlineno))
            return trace
        return None

    sys.settrace(trace)
    try:
        result = ("returned", namespace["run"]())
    except Exception as error:
        lines = [entry.lineno for entry in traceback.extract_tb(error.__traceback__)][1:]
        result = ("raised", type(error).__name__, str(error), lines)
    finally:
        sys.settrace(None)
    return result, capsys.readouterr().out, events


@pytest.mark.parametrize("case", list(CASES))
def test_an_exception_leaves_as_it_does_plain(case, capsys):
    source, handler_events = CASES[case]
    source = textwrap.dedent(source)
    install_restart_exception()
    plain = _outcome(compile(source, "<case>", "exec"), capsys)
    guarded = _outcome(compile_restartable(source, "<case>"), capsys)
    assert guarded[:2] == plain[:2]
    if GUARDED:
        # The handler's line (the def line) has events only where it runs: for a
        # GeneratorExit, once armed. Every other event is the plain function's, a frame
        # that an exception leaves returning on the line that raised it.
        on_def_line = [event for event in guarded[2] if event[0] == "line" and event[3]]
        assert len(on_def_line) == handler_events, guarded[2]
        if not handler_events:
            assert guarded[2] == plain[2]


@pytest.mark.skipif(not GUARDED, reason="3.9 and 3.10 keep their handlers as compiled")
def test_an_armed_handler_is_entered_and_a_disarmed_one_is_not(capsys):
    """Armed, the closed coroutine's GeneratorExit goes through the handler (its def line
    runs) and on, as a restart's would; disarmed again, the code is what its compile
    made, equal to a fresh one and with the hash it had."""
    source = textwrap.dedent(CASES["a coroutine closed while it awaits"][0])
    install_restart_exception()
    plain = _outcome(compile(source, "<case>", "exec"), capsys)
    code = compile_restartable(source, "<case>")
    waits = next(const for const in code.co_consts
                 if type(const) is type(code) and const.co_name == "waits")
    fresh = next(const for const in compile_restartable(source, "<case>").co_consts
                 if type(const) is type(code) and const.co_name == "waits")
    idle, hashed = waits.co_exceptiontable, hash(waits)
    assert arm(waits)
    assert waits.co_exceptiontable is idle and waits.co_exceptiontable != fresh.co_exceptiontable
    assert len(waits.co_exceptiontable) == len(fresh.co_exceptiontable)
    armed = _outcome(code, capsys)
    assert armed[:2] == plain[:2]
    on_def_line = [event for event in armed[2] if event[0] == "line" and event[3]]
    assert [event[1] for event in on_def_line] == ["waits"], armed[2]
    disarm(waits)
    assert waits == fresh and hash(waits) == hashed
    assert _outcome(code, capsys)[2] == plain[2]


@pytest.mark.skipif(not GUARDED, reason="3.9 and 3.10 keep their handlers as compiled")
@pytest.mark.parametrize("case", list(CASES))
def test_the_idle_table_is_well_formed(case):
    """As tools that rewrite bytecode read a table (torch.compile's refuses a function
    whose table is not): every entry covers a unit at least, the entries in order and
    apart; idle or armed, the same size."""
    code = compile_restartable(textwrap.dedent(CASES[case][0]), "<case>")
    functions = [const for const in code.co_consts
                 if type(const) is type(code) and is_restartable(const)]
    for function in functions:
        armed = function.co_consts[-1][1]
        assert len(armed) == len(function.co_exceptiontable)
        for table in (function.co_exceptiontable, armed):
            entries = _read_table(table)
            assert all(start < end for start, end, _, _ in entries), entries
            assert all(before[1] <= after[0] for before, after in zip(entries, entries[1:]))


def test_code_without_idle_entries_is_not_armed():
    code = compile("def f():\n    return 1\n", "<case>", "exec").co_consts[0]
    table = code.co_exceptiontable if hasattr(code, "co_exceptiontable") else None
    assert not arm(code)
    disarm(code)
    assert getattr(code, "co_exceptiontable", None) == table


@pytest.mark.skipif(not GUARDED, reason="3.9 and 3.10 keep their handlers as compiled")
@pytest.mark.parametrize("case", list(CASES))
def test_every_restartable_function_is_guarded_once(case):
    code = compile_restartable(textwrap.dedent(CASES[case][0]), "<case>")
    functions = [const for const in code.co_consts
                 if type(const) is type(code) and is_restartable(const)]
    assert functions
    for function in functions:
        # The body's exceptions go to the guard, appended after the compiler's code and
        # without a line of its own.
        last = list(function.co_lines())[-1]
        assert last[2] is None and last[1] == len(function.co_code)
    assert guard_handlers(code) is code  # Guarded already: left as it is.


def test_other_code_is_left_as_compiled():
    code = compile("def f():\n    try:\n        pass\n    except GeneratorExit:\n        raise\n",
                   "<case>", "exec")
    assert guard_handlers(code) is code


# Bytes the restart handler (guard included) may add to a function's code. It is in every
# function of the user's code, and what a module's import costs over plain is mostly
# unmarshalling the larger code: 3.11's calls take a PRECALL and longer caches; 3.9 and
# 3.10 have no inline caches and no guard. Measured when these were set: 48, 150, 114
# (3.12), 120 (3.13), 122 (3.14, 3.15); before the handler called the package's module,
# 164 on 3.12 and 184 on 3.15.
HANDLER_BYTES = 48 if not GUARDED else 150 if sys.version_info < (3, 12) else 124


def test_the_handler_adds_little_code():
    source = "def f(a, b):\n    total = a + b\n    return total\n"
    plain = compile(source, "<case>", "exec").co_consts[0]
    restartable = compile_restartable(source, "<case>").co_consts[0]
    assert is_restartable(restartable)
    assert len(restartable.co_code) - len(plain.co_code) <= HANDLER_BYTES
