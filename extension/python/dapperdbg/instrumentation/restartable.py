"""Restartable functions: the ``ast`` rewrite that lets a running frame be restarted
with its function's current (reloaded) code.

CPython runs a frame with the code object it started with, and moves it only within
that code (``f_lineno``). So the frame is not moved: each function of the user's code is
compiled with a handler of its own for a private exception (restarts.py's ``RestartFrame``,
a BaseException that the debugger raises from its tracer callback in the stopped thread).
The exception unwinds the frames above the one to restart (their ``finally`` blocks and
``__exit__`` run); that frame's handler asks it whether it is the target and, if so,
calls the function again, with its original arguments, and returns what that call
returns. The new call runs the function's code as it is now. The old frame stays
below it, *parked* on the handler's line, until the call returns; a second restart aims
at the parked frame, so the stack never grows::

    def g(a, b):
        try:                            # the first body line (3.9: the def line)
            __dapper_arg_a__ = a        # only for arguments the body rebinds
            <the original body>
            return None                 # no line of its own (3.9: see _end_line)
        except __import__("dapperdbg").__dapper_restart__ as __dapper_error__:
            __dapper_call__ = __dapper_error__.accept()   # None unless this is the target
            if __dapper_call__ is None:
                raise
        while True:
            try:
                return __dapper_call__()          # ``await`` in a coroutine
            except __import__("dapperdbg").__dapper_restart__ as __dapper_error__:
                ...                               # the same again

The handler and the loop are on the function's first line (``co_firstlineno``, the def
or its first decorator), where the function's own code has no instruction of its own:
a line event there is the restart's, and the tracer ignores it. What runs on every call
adds no line event: on 3.11+ the ``try`` starts on the first body line and costs
nothing (exception tables); on 3.10 it and the final ``return`` have no line at all
(an instruction without one takes the line before it); 3.9 can express neither, so its
``try`` (one block push and pop a call) is on the def line, an event the tracer ignores
too, and its ``return`` on the last statement's line where it can (``_end_line``). The
``try`` must be entered before the first body line's event: an exception raised at that
event would otherwise escape it.

Generators and async generators are left alone: a consumer has seen their values.
Coroutines are restartable. The names added are dunders, so class bodies do not mangle
them, and start with ``__dapper_`` so the Variables view can leave them out.
"""

from __future__ import annotations

import ast
import sys
import types

from .restarts import LOCAL_PREFIX, PACKAGE, RESTART_NAME, snapshot_name

_CALL = f"{LOCAL_PREFIX}call__"
_ERROR = f"{LOCAL_PREFIX}error__"
_TRY_ON_FIRST_BODY_LINE = sys.version_info >= (3, 11)
# Instructions without a line (3.10+: a location of -1) take the line of the instruction
# before them: no line event of their own, as a plain function's implicit return.
_NO_LINE = -1 if sys.version_info >= (3, 10) else None
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def compile_restartable(source: bytes | str, filename: str) -> types.CodeType:
    """A module's code with its functions restartable (raises what ``compile`` raises)."""
    tree = ast.parse(source, filename)
    make_restartable(tree)
    return compile(tree, filename, "exec", dont_inherit=True)


def make_restartable(tree: ast.Module) -> int:
    """Give every function of ``tree`` that is not a generator the restart handler, in
    place. Each function's statements stay in the list object they were parsed in (the
    probes' index inserts into those lists). Returns how many functions got one."""
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    count = 0
    for function in functions:
        if not _suspends_by_yield(function):
            _rewrite(function)
            count += 1
    return count


def _parameters(arguments: ast.arguments) -> list[str]:
    names = [a.arg for a in arguments.posonlyargs + arguments.args]
    if arguments.vararg:
        names.append(arguments.vararg.arg)
    names += [a.arg for a in arguments.kwonlyargs]
    if arguments.kwarg:
        names.append(arguments.kwarg.arg)
    return names


def _own_scope(function: ast.AST):
    """The nodes of ``function``'s own scope (not those of nested functions, lambdas or
    classes, whose headers' defaults and decorators do run in it)."""
    pending = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                pending.extend(d for d in node.args.defaults + node.args.kw_defaults if d)
            continue
        if isinstance(node, ast.Lambda):
            pending.extend(d for d in node.args.defaults + node.args.kw_defaults if d)
            continue
        pending.extend(ast.iter_child_nodes(node))


def _suspends_by_yield(function: ast.AST) -> bool:
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in _own_scope(function))


def _rebound(function: ast.AST, parameters: list[str]) -> list[str]:
    """The parameters the body may rebind or delete (conservatively)."""
    wanted = set(parameters)
    found: set[str] = set()
    for node in _own_scope(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (getattr(ast, "MatchAs", ()), getattr(ast, "MatchStar", ()))):
            if node.name:
                found.add(node.name)
        elif isinstance(node, getattr(ast, "MatchMapping", ())) and node.rest:
            found.add(node.rest)
    # A nested scope's ``nonlocal`` rebinds the parameter from there.
    for node in ast.walk(function):
        if isinstance(node, ast.Nonlocal):
            found.update(node.names)
    return [name for name in parameters if name in found and name in wanted]


def _placed(node: ast.AST, line: int) -> ast.AST:
    for child in ast.walk(node):
        if isinstance(child, (ast.stmt, ast.expr, ast.excepthandler)):
            child.lineno = child.end_lineno = line
            child.col_offset = child.end_col_offset = 0
    return node


def _handler(line: int) -> ast.ExceptHandler:
    accept = ast.Call(ast.Attribute(ast.Name(_ERROR, ast.Load()), "accept", ast.Load()), [], [])
    not_ours = ast.If(ast.Compare(ast.Name(_CALL, ast.Load()), [ast.Is()], [ast.Constant(None)]),
                      [ast.Raise(None, None)], [])
    # __import__(PACKAGE).__dapper_restart__ (restarts.py says why there).
    exception = ast.Attribute(ast.Call(ast.Name("__import__", ast.Load()),
                                       [ast.Constant(PACKAGE)], []), RESTART_NAME, ast.Load())
    return _placed(ast.ExceptHandler(exception, _ERROR,
                                     [ast.Assign([ast.Name(_CALL, ast.Store())], accept),
                                      not_ours]), line)


def _end_line(body: list, hatch: int) -> int:
    """The line of the ``return None`` that ends the body: none (3.10+); on 3.9, that of
    a simple last statement, whose own instructions it then continues (no line event, and
    the frame returns on that line, as a plain function does), else the def line."""
    if _NO_LINE is not None:
        return _NO_LINE
    last = body[-1] if body else None
    if last is not None and not hasattr(last, "body"):
        return last.lineno
    return hatch


def _rewrite(function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    hatch = min([function.lineno] + [d.lineno for d in function.decorator_list])
    body = function.body
    head = []
    first = body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        head.append(body.pop(0))  # The docstring stays the docstring.
    if _TRY_ON_FIRST_BODY_LINE and body:
        entry = body[0].lineno
    else:
        entry = hatch if _NO_LINE is None else _NO_LINE
    parameters = _parameters(function.args)
    snapshots = [_placed(ast.Assign([ast.Name(snapshot_name(name), ast.Store())],
                                    ast.Name(name, ast.Load())), entry)
                 for name in _rebound(function, parameters)]
    body[:0] = snapshots
    body.append(_placed(ast.Return(ast.Constant(None)), _end_line(body, hatch)))
    guarded = ast.Try(body, [_handler(hatch)], [], [])
    guarded.lineno = guarded.end_lineno = entry
    guarded.col_offset = guarded.end_col_offset = 0
    call = ast.Call(ast.Name(_CALL, ast.Load()), [], [])
    result = ast.Await(call) if isinstance(function, ast.AsyncFunctionDef) else call
    again = _placed(ast.While(ast.Constant(True), [
        ast.Try([ast.Return(result)], [_handler(hatch)], [], [])], []), hatch)
    function.body = head + [guarded, again]
