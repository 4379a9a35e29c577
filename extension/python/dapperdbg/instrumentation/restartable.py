"""Restartable functions: the ``ast`` rewrite that lets a running frame be restarted
with its function's current (reloaded) code.

CPython runs a frame with the code object it started with, and moves it only within
that code (``f_lineno``). So the frame is not moved: each function of the user's code is
compiled with a handler of its own for a private exception (restarts.py's ``RestartFrame``,
a GeneratorExit that the debugger raises from its tracer callback in the stopped thread).
The exception unwinds the frames above the one to restart (their ``finally`` blocks and
``__exit__`` run); that frame's handler asks it whether it is the target and, if so,
calls the function again, with its original arguments, and returns what that call
returns. The new call runs the function's code as it is now, handler included: a second
restart restarts the new call, and the old frame stays below it, *parked* on its def
line (the handler's), until the call returns (call stacks and tracebacks leave parked
frames out)::

    def g(a, b):
        try:                            # the first body line (3.9: the def line)
            __dapper_arg_a__ = a        # only for arguments the body rebinds
            <the original body>
            return None                 # no line of its own (3.9: see _end_line)
        except GeneratorExit:           # 3.11+: ``except:``, the guard matches
            if not __import__("dapperdbg")():   # 3.11+: ``... is None``
                raise                   # Not the frame to restart: unwinding goes on.
        return __import__("dapperdbg")("__dapper_call__")()
                                        # ``return await ...`` in a coroutine

The call is made after the handler, so that what the new code raises has no
``__context__`` of ours. The handler and the call reach the debugger by calling the
package's top module (restarts.py says why; restart_contract.py makes it callable). On
3.9 and 3.10 the ``except`` names a builtin rather than the package's class: every
exception that leaves the function is matched against it, and looking up a builtin is
all but free where ``__import__(...)`` is a call (so the class subclasses
GeneratorExit; a GeneratorExit of the program's, which only a coroutine being closed
meets here, is raised on at once). On 3.11+ the compiled code gets a guard that does
that match before the handler (handler_guard.py), and the handler's own match would be
a second one: the clause catches everything, and is ten code units shorter. The rest
runs only for a restart.

The handler binds no name: a local of its own would make every call of the function
a little slower (the frame has one more slot to set up and clear).

The handler and the call are on the function's first line (``co_firstlineno``, the def
or its first decorator), where the function's own code has no instruction of its own:
a line event there is the restart's, and the tracer ignores it. What runs on every call
adds no line event: on 3.11+ the ``try`` starts on the first body line and costs
nothing (exception tables); on 3.10 it and the final ``return`` have no line at all
(an instruction without one takes the line before it); 3.9 can express neither, so its
``try`` (one block push and pop a call) is on the def line, an event the tracer ignores
too, and its ``return`` on the last statement's line where it can (``_end_line``). The
``try`` must be entered before the first body line's event: an exception raised at that
event would otherwise escape it.

Code compiled from a tree made restartable goes through ``guard_handlers``
(handler_guard.py) on 3.11+, which lets every other exception leave the function without
entering the handler: every compile of such a tree does, so that copies compare equal.

Generators and async generators are left alone: a consumer has seen their values.
So are the functions that another compiler takes from their bytecode (numba's,
jit_compiled.py): it refuses the handler. Coroutines are restartable. The names added
are dunders, so class bodies do not mangle them, and start with ``__dapper_`` so the
Variables view can leave them out.
"""

from __future__ import annotations

# The syntax tree's classes and the parse, from the interpreter's own module: ast.py
# imports re, enum, contextlib and functools (about 20 ms of a process whose program is
# compiled afresh, a test's script just written, say), and none of it is needed here.
import _ast as ast
import sys

from .handler_guard import GUARDED, guard_handlers
from .jit_compiled import compiled_functions
from .restart_contract import CALL_NAME, PACKAGE, may_define_functions
from .restarts import snapshot_name

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

_TRY_ON_FIRST_BODY_LINE = sys.version_info >= (3, 11)
# Instructions without a line (3.10+: a location of -1) take the line of the instruction
# before them: no line event of their own, as a plain function's implicit return.
_NO_LINE = -1 if sys.version_info >= (3, 10) else None

def compile_restartable(source: bytes | str, filename: str) -> types.CodeType:
    """A module's code with its functions restartable (raises what ``compile`` raises)."""
    if not may_define_functions(source):
        # Nothing to rewrite: the plain compile is the same code, without the round trip
        # through the syntax tree's Python objects (for a module of data, two to three
        # times the plain compile).
        return compile(source, filename, "exec", dont_inherit=True)
    tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    make_restartable(tree)
    return guard_handlers(compile(tree, filename, "exec", dont_inherit=True))


def make_restartable(tree: ast.Module) -> int:
    """Give every function of ``tree`` that is not a generator (nor another compiler's)
    the restart handler, in place. Each function's statements stay in the list object
    they were parsed in (the probes' index inserts into those lists). Returns how many
    functions got one."""
    scopes = _Scopes()
    scopes.visit(tree)
    compiled = compiled_functions(tree)
    count = 0
    for function, (suspends, stored) in scopes.functions.items():
        if not suspends and function not in compiled:
            _rewrite(function, stored)
            count += 1
    return count


class _Scopes:
    """One pass over the tree: for every function, whether its own scope yields and the
    names it binds (a nested scope's ``nonlocal`` included)."""

    def __init__(self) -> None:
        self.functions: dict[ast.AST, tuple[bool, set[str]]] = {}

    def visit(self, tree: ast.AST) -> None:
        # (node, the innermost function around it or None); functions are entered with
        # their own entry, their headers' parts stay with the scope around them.
        pending: list = [(tree, None)]
        functions = self.functions
        enclosing: dict[ast.AST, ast.AST | None] = {}
        while pending:
            node, scope = pending.pop()
            if scope is None and isinstance(node, ast.expr):
                # Outside functions only the statements can hold one: a module's tables
                # of data are not walked.
                continue
            kind = type(node)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                functions[node] = (False, set())
                enclosing[node] = scope
                if scope is not None:
                    functions[scope][1].add(node.name)
                arguments = node.args
                pending.extend((d, scope) for d in node.decorator_list)
                pending.extend((d, scope) for d in arguments.defaults + arguments.kw_defaults
                               if d is not None)
                pending.extend((statement, node) for statement in node.body)
                continue
            if scope is not None:
                own = functions[scope]
                if kind is ast.Name:
                    if type(node.ctx) is not ast.Load:
                        own[1].add(node.id)
                elif kind is ast.Yield or kind is ast.YieldFrom:
                    functions[scope] = (True, own[1])
                elif kind is ast.ExceptHandler:
                    if node.name:
                        own[1].add(node.name)
                elif kind is ast.alias:
                    own[1].add((node.asname or node.name).split(".")[0])
                elif kind is ast.ClassDef:
                    own[1].add(node.name)
                elif kind is ast.Nonlocal:
                    # Rebinds the name in the function that owns it, further out.
                    outer = enclosing.get(scope)
                    while outer is not None:
                        functions[outer][1].update(node.names)
                        outer = enclosing.get(outer)
                elif kind in _MATCH_NAMES and getattr(node, _MATCH_NAMES[kind], None):
                    own[1].add(getattr(node, _MATCH_NAMES[kind]))
            if kind is ast.Lambda:
                # Its defaults run here; its body is a scope of its own, which only a
                # nonlocal could make matter (a lambda has none).
                arguments = node.args
                pending.extend((d, scope) for d in arguments.defaults + arguments.kw_defaults
                               if d is not None)
                continue
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    pending.extend((item, scope) for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    pending.append((value, scope))


_MATCH_NAMES = {kind: field for kind, field in (
    (getattr(ast, "MatchAs", None), "name"), (getattr(ast, "MatchStar", None), "name"),
    (getattr(ast, "MatchMapping", None), "rest")) if kind is not None}


def _parameters(arguments: ast.arguments) -> list[str]:
    names = [a.arg for a in arguments.posonlyargs + arguments.args]
    if arguments.vararg:
        names.append(arguments.vararg.arg)
    names += [a.arg for a in arguments.kwonlyargs]
    if arguments.kwarg:
        names.append(arguments.kwarg.arg)
    return names


def _at(line: int) -> dict:
    """The location of an added node: ``line`` (-1: none), no columns."""
    return {"lineno": line, "end_lineno": line, "col_offset": 0, "end_col_offset": 0}


def _package_call(arguments: list, at: dict) -> ast.expr:
    """``__import__(PACKAGE)(*arguments)`` (restarts.py says why)."""
    package = ast.Call(ast.Name("__import__", ast.Load(), **at),
                       [ast.Constant(PACKAGE, **at)], [], **at)
    return ast.Call(package, arguments, [], **at)


def _handler(line: int) -> ast.ExceptHandler:
    # 3.9, 3.10:  except GeneratorExit:
    #                 if not __import__(PACKAGE)(): raise
    # 3.11+:      except:  (the guard has matched GeneratorExit)
    #                 if __import__(PACKAGE)() is None: raise
    # A test for None is 8 bytes shorter than ``not`` on 3.13+, 4 longer on 3.9 and 3.10.
    at = _at(line)
    accepted = _package_call([], at)
    if GUARDED:
        not_ours = ast.Compare(accepted, [ast.Is()], [ast.Constant(None, **at)], **at)
        caught = None
    else:
        not_ours = ast.UnaryOp(ast.Not(), accepted, **at)
        caught = ast.Name("GeneratorExit", ast.Load(), **at)
    return ast.ExceptHandler(caught, None, [ast.If(not_ours, [ast.Raise(None, None, **at)],
                                                   [], **at)], **at)


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


def _rewrite(function: ast.FunctionDef | ast.AsyncFunctionDef, stored: set[str]) -> None:
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
    at = _at(entry)
    body[:0] = [ast.Assign([ast.Name(snapshot_name(name), ast.Store(), **at)],
                           ast.Name(name, ast.Load(), **at), **at)
                for name in _parameters(function.args) if name in stored]
    end = _at(_end_line(body, hatch))
    body.append(ast.Return(ast.Constant(None, **end), **end))
    guarded = ast.Try(body, [_handler(hatch)], [], [], **at)
    at = _at(hatch)
    call = ast.Call(_package_call([ast.Constant(CALL_NAME, **at)], at), [], [], **at)
    result = ast.Await(call, **at) if isinstance(function, ast.AsyncFunctionDef) else call
    function.body = head + [guarded, ast.Return(result, **at)]
