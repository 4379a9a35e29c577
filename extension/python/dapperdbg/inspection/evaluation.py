"""Evaluating and assigning in a stopped frame: the ``evaluate``, ``setExpression`` and
``setVariable`` requests.

Code runs in one namespace made of the frame's globals overlaid with its locals, so
comprehensions and lambdas typed in the debug console see the locals (a separate
locals mapping would hide them, as it does in a class body). Afterwards every name the
code bound or deleted is written back: to the frame's locals when the function has such
a local, to its globals when it names an existing global, and a new name to the frame's
locals, beside the function's own (the Locals view shows it, and later evaluations in
that frame see it, as at pdb's prompt).

Writing locals back needs ``PyFrame_LocalsToFast`` before Python 3.13; from 3.13 on
``frame.f_locals`` writes through (PEP 667).

``await`` is allowed, as at ``python -m asyncio``'s prompt: the code compiles to a
coroutine, which runs here, on the stopped thread, until it returns. What it awaits must
finish without the event loop (a coroutine that computes, a future already done): the
loop is stopped with the program, so an await that would give it control (a sleep, I/O,
a pending future or task) cannot go on; the code is abandoned there, its ``finally``
blocks run, and the user is told why (docs/async.md).
"""

from __future__ import annotations

import ast
import contextlib
import sys
import textwrap
import types

from ..common.errors import RequestError, describe_exception
from .rendering import Format

_LOCALS_WRITE_THROUGH = sys.version_info >= (3, 13)
if not _LOCALS_WRITE_THROUGH:
    import ctypes

    _locals_to_fast = ctypes.pythonapi.PyFrame_LocalsToFast
    _locals_to_fast.argtypes = (ctypes.py_object, ctypes.c_int)
    _locals_to_fast.restype = None

# Code may ``await`` (docs/async.md); such code compiles to a coroutine (CO_COROUTINE).
_COMPILE_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_CO_COROUTINE = 0x0080

# The name under which setExpression passes the new value to the assignment it runs.
_VALUE_NAME = "__dapper_new_value__"


class EvaluationError(RequestError):
    """The expression could not be evaluated; the message is shown to the user."""


# Hover evaluates what the mouse points at, often without the user meaning to run
# anything: only reading names, attributes and subscripts (with literal or name keys)
# is allowed there. Attribute reads can still run a property; that is what every
# Python debugger accepts for hover.
_HOVER_NODES = (
    ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load,
    ast.Tuple, ast.Slice, ast.UnaryOp, ast.USub, ast.UAdd,
)


def hover_refusal(expression: str) -> str | None:
    """None when ``expression`` only reads values; otherwise why hover will not run it."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return "not an expression"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            return "hover does not call functions"
        if isinstance(node, ast.NamedExpr):
            return "hover does not assign"
        if not isinstance(node, _HOVER_NODES):
            return f"hover only reads names, attributes and items (found {type(node).__name__})"
    return None


def _is_simple_reference(expression: str) -> bool:
    """Whether ``expression`` is a name/attribute/subscript chain, which can take
    ``.attr`` or ``[i]`` after it without parentheses."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return False
    return isinstance(tree.body, (ast.Name, ast.Attribute, ast.Subscript))


def evaluate_name_for(expression: str) -> str:
    expression = expression.strip()
    return expression if _is_simple_reference(expression) else f"({expression})"


class FrameNamespace:
    """The namespace code runs in for one frame, and the write-back of what it bound."""

    def __init__(self, frame: types.FrameType) -> None:
        self.frame = frame
        # Module-level code has no locals of its own: its f_locals is its globals.
        self.is_module = frame.f_locals is frame.f_globals
        code = frame.f_code
        self._local_names = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
        if self.is_module:
            # Module-level code runs in the module's own globals, so functions defined
            # in the console see the module as it changes later.
            self.namespace = frame.f_globals
        else:
            self.namespace = dict(frame.f_globals)
            self.namespace.update(frame.f_locals)
        self._before = dict(self.namespace)

    def write_back(self, ignore: tuple[str, ...] = ()) -> None:
        """Apply the bindings and deletions the code made to the frame."""
        after = self.namespace
        changed = {
            name: value for name, value in after.items()
            if name not in ignore and (name not in self._before or self._before[name] is not value)
        }
        removed = [name for name in self._before if name not in after and name not in ignore]
        if not changed and not removed:
            return
        frame = self.frame
        if self.is_module:
            frame.f_globals.update(changed)
            for name in removed:
                frame.f_globals.pop(name, None)
            return
        local_map = frame.f_locals
        touched_locals = False
        for name, value in changed.items():
            if name in frame.f_globals and not (name in self._local_names or name in local_map):
                frame.f_globals[name] = value
            else:
                # A new name joins the frame's extra locals: before 3.13 the frame keeps
                # them in its f_locals dict (refreshing it leaves them be), from 3.13 the
                # proxy stores them in the frame.
                local_map[name] = value
                touched_locals = True
        refused = []
        for name in removed:
            if name in self._local_names:
                # No Python version can reliably unbind a running function's local
                # (3.12 sets it to None with a warning, 3.13 refuses), so none does.
                refused.append(name)
            elif name in local_map:
                try:
                    del local_map[name]  # A name the console added.
                except (KeyError, ValueError, TypeError):
                    refused.append(name)
            else:
                frame.f_globals.pop(name, None)
        if touched_locals and not _LOCALS_WRITE_THROUGH:
            # Copies the dict back into the frame's fast locals and cells.
            _locals_to_fast(frame, 0)
        if refused:
            names = ", ".join(sorted(refused))
            raise EvaluationError(
                f"the local variables of a running function cannot be deleted ({names})"
            )


_NO_RESULT = object()


def run_code(frame: types.FrameType, text: str, allow_statements: bool,
             echo_none: bool = True):
    """Evaluate ``text`` in ``frame``. An expression gives its value; with
    ``allow_statements``, statements are executed and the value of a trailing
    expression statement is the result (``_NO_RESULT`` when there is none). Without
    ``echo_none``, a call that returns None has no result either: the console shows
    nothing after ``print(...)``, as Python's prompt (a name whose value is None is
    still shown: there the user asked to see it).
    Raises EvaluationError with the user's error."""
    source = text.strip("\n")
    try:
        tree = ast.parse(source.strip(), mode="eval")
        is_expression = True
    except SyntaxError as error:
        if not allow_statements:
            raise EvaluationError(f"SyntaxError: {error.msg}") from None
        try:
            tree = ast.parse(textwrap.dedent(source), mode="exec")
        except SyntaxError as statement_error:
            raise EvaluationError(_syntax_message(statement_error)) from None
        is_expression = False
    namespace = FrameNamespace(frame)
    try:
        if is_expression:
            result = _run(compile(tree, "<debug console>", "eval", _COMPILE_FLAGS),
                          namespace.namespace)
        else:
            result = _exec_statements(tree, namespace.namespace)
    except EvaluationError:  # An await refused (what ran before it stays done).
        namespace.write_back()
        raise
    except Exception as error:
        # What ran before the error stays done, as at the interactive prompt.
        with contextlib.suppress(EvaluationError):
            namespace.write_back()
        raise EvaluationError(describe_exception(error)) from None
    namespace.write_back()
    if result is None and not echo_none and _ends_with_call(tree):
        return _NO_RESULT
    return result


def _ends_with_call(tree: ast.AST) -> bool:
    """Whether the value shown would be that of a call (``print(x)``, ``items.append(4)``):
    the expression, or the last statement, is a call."""
    if isinstance(tree, ast.Expression):
        return isinstance(tree.body, ast.Call)
    last = tree.body[-1] if isinstance(tree, ast.Module) and tree.body else None
    return isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)


def _exec_statements(tree: ast.Module, namespace: dict):
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        # Like the interactive prompt: the value of a final expression is shown.
        body = ast.Module(body=tree.body[:-1], type_ignores=[])
        _run(compile(body, "<debug console>", "exec", _COMPILE_FLAGS), namespace)
        final = ast.Expression(body=last.value)
        return _run(compile(final, "<debug console>", "eval", _COMPILE_FLAGS), namespace)
    _run(compile(tree, "<debug console>", "exec", _COMPILE_FLAGS), namespace)
    return _NO_RESULT


def _run(code: types.CodeType, namespace: dict):
    """Run compiled console code; code that awaits runs as a coroutine, to its end."""
    # eval, not exec, for statements too: exec would drop the coroutine unawaited.
    result = eval(code, namespace)
    if code.co_flags & _CO_COROUTINE:
        return _finish_awaiting(result)
    return result


def _finish_awaiting(coroutine):
    """Run the coroutine of code that awaits to its end, here: its value, or what it
    raised. One that waits for the event loop is closed there and refused."""
    try:
        waited_for = coroutine.send(None)
    except StopIteration as returned:
        return returned.value
    try:
        coroutine.close()  # Its finally blocks run (a sleep cancels its timer).
    except RuntimeError:
        pass  # It ignored the GeneratorExit: nothing more can be done with it.
    raise EvaluationError(_waiting_refusal(waited_for))


def _waiting_refusal(waited_for) -> str:
    if waited_for is None:
        what = "gives control to the event loop (as asyncio.sleep(0) does)"
    elif callable(getattr(waited_for, "get_coro", None)):
        name = getattr(waited_for, "get_name", lambda: "?")()
        what = f"waits for Task '{name}', which has not finished"
    else:
        what = "waits for a future that is not done (a timer, I/O, a lock, a result)"
    return (f"await cannot finish while the program is stopped: it {what}, and only the "
            "event loop, stopped with the program, can resume it. It was abandoned there "
            "(its finally blocks ran). Await here what needs no event loop: a coroutine "
            "that computes, a future or task that is done.")


def _syntax_message(error: SyntaxError) -> str:
    where = f" (line {error.lineno})" if error.lineno else ""
    return f"SyntaxError: {error.msg}{where}"


def assign_expression(frame: types.FrameType, target: str, value_text: str):
    """``target = value`` in ``frame`` (setExpression); returns the new value."""
    try:
        tree = ast.parse(f"{target.strip()} = {_VALUE_NAME}", mode="exec")
    except SyntaxError:
        raise EvaluationError(f"{target!r} cannot be assigned to") from None
    value = run_code(frame, value_text, allow_statements=False)
    namespace = FrameNamespace(frame)
    namespace.namespace[_VALUE_NAME] = value
    try:
        exec(compile(tree, "<debug console>", "exec"), namespace.namespace)
    except Exception as error:
        raise EvaluationError(describe_exception(error)) from None
    finally:
        # At module level the namespace is the module's globals: leave no trace there.
        namespace.namespace.pop(_VALUE_NAME, None)
    namespace.write_back()
    return value


def parse_format(arguments: dict, limit: int | None, own_repr: bool = False) -> Format:
    value_format = arguments.get("format")
    hex_wanted = isinstance(value_format, dict) and value_format.get("hex") is True
    return Format(limit, hex_wanted, own_repr)


NO_RESULT = _NO_RESULT
