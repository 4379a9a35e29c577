"""The functions of a module that a compiler of Python functions takes from their
bytecode: numba's ``njit``, ``vectorize``, ``jitclass``, ``overload`` and the rest.

Such a compiler reads the function's code object and turns it into machine code. It
refuses what the debugger adds to a function: the restart handler's re-raise and its
call (restartable.py), a probe's call (compiler.py). And what it compiles runs with no
Python frame: no line of it runs for the tracer, and there is no frame to restart. So
these functions keep their plain code; a breakpoint in one is left to the tracer, which
stops there when the function does run as Python (numba's ``NUMBA_DISABLE_JIT=1``).

They are told by name, as the program hands them over, statement by statement (no
expression outside a statement's own value is looked at, so a module of data costs
one step):
- a decorator of the function, or of its class (``jitclass``), called or not, reached
  through a module or not: ``@njit``, ``@numba.njit(cache=True)``, ``@numba.cuda.jit``;
- a statement whose value is a call of a compiler with the function's name:
  ``fast = njit(slow)``, ``numba.jit(nopython=True)(slow)``, ``return njit(inner)``;
- ``numba.jit_module()``, which compiles every function of its module.
Functions defined inside such a function (an overload's implementation) are the
compiler's too. A decorator of another library that has one of these names
(``typing.overload``, ``numpy.vectorize``) only costs its functions the restart and
their breakpoints' probes.

``torch.compile`` reads the bytecode of every function it compiles or inlines too (an
``nn.Module``'s ``forward`` and what it calls, named nowhere), and follows the restart
handler: probes.py keeps the probes out of its way.
"""

from __future__ import annotations

# The interpreter's own module, as in restartable.py: ast.py's imports cost a process.
import _ast as ast

# The names under which numba takes a function; ``jit`` covers ``numba.cuda.jit`` too.
_COMPILERS = frozenset({
    "jit", "njit", "generated_jit", "vectorize", "guvectorize", "cfunc", "stencil",
    "jitclass", "register_jitable", "overload", "overload_method", "overload_attribute",
    "overload_classmethod", "intrinsic", "jit_module"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# The statements whose value may hand a function to a compiler.
_VALUED = (ast.Assign, ast.Expr, ast.Return)
# The fields of each compound statement (and handler, and case) that hold statements;
# the walk looks at nothing else.
_BODIES = {kind: fields for kind, fields in (
    (ast.FunctionDef, ("body",)), (ast.AsyncFunctionDef, ("body",)), (ast.ClassDef, ("body",)),
    (ast.If, ("body", "orelse")), (ast.For, ("body", "orelse")),
    (ast.AsyncFor, ("body", "orelse")), (ast.While, ("body", "orelse")),
    (ast.With, ("body",)), (ast.AsyncWith, ("body",)),
    (ast.Try, ("body", "handlers", "orelse", "finalbody")),
    (getattr(ast, "TryStar", None), ("body", "handlers", "orelse", "finalbody")),
    (ast.ExceptHandler, ("body",)), (getattr(ast, "Match", None), ("cases",)),
    (getattr(ast, "match_case", None), ("body",))) if kind is not None}

_NAMES = frozenset(name.encode() for name in _COMPILERS)
# Parts of the names that every name holds one of: the text is searched for these.
_NEEDLES = (b"jit", b"vectorize", b"overload", b"cfunc", b"stencil", b"intrinsic")
# What starts a line on which a compiler's name hands nothing over by a call.
_NOT_A_CALL = (b"@", b"from ", b"import ", b"#")


def may_hand_over(source: bytes) -> bool:
    """Whether the text may hand a function to a compiler other than by a decorator:
    a compiler's name, as a whole word, on a line that is not a decorator, an import or
    a comment (a call such as ``fast = njit(slow)``, or ``jit_module()``, which only the
    whole module shows). Words are looked for, not parsed: a string or a comment after
    code may say yes. The search is the C one, once per part of a name."""
    for needle in _NEEDLES:
        at = source.find(needle)
        while at >= 0:
            first, end = at, at + len(needle)
            while first > 0 and _is_name_byte(source[first - 1]):
                first -= 1
            while end < len(source) and _is_name_byte(source[end]):
                end += 1
            if source[first:end] in _NAMES:
                line = source.rfind(b"\n", 0, first) + 1
                while source[line:line + 1] in (b" ", b"\t"):
                    line += 1
                if not source.startswith(_NOT_A_CALL, line):
                    return True
            at = source.find(needle, end)
    return False


def _is_name_byte(byte: int) -> bool:
    return byte == 95 or 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122 or byte > 127


def _compiler_name(node) -> str | None:
    """The compiler ``node`` (a decorator, a callee) names, if any."""
    while type(node) is ast.Call:
        node = node.func
    kind = type(node)
    name = node.id if kind is ast.Name else node.attr if kind is ast.Attribute else None
    return name if name in _COMPILERS else None


def _by_compiler(decorators: list) -> bool:
    return any(_compiler_name(decorator) is not None for decorator in decorators)


def compiled_functions(tree: ast.Module) -> set:
    """The function nodes of ``tree`` that a compiler takes (this module's docstring)."""
    # (statement, whether a compiler takes the functions it defines)
    pending: list = [(statement, False) for statement in tree.body]
    # Every function with whether it is taken for sure, in the order met.
    functions: list = []
    handed: set[str] = set()
    whole_module = False
    while pending:
        node, taken = pending.pop()
        kind = type(node)
        if kind in _FUNCTIONS or kind is ast.ClassDef:
            taken = taken or bool(node.decorator_list) and _by_compiler(node.decorator_list)
            if kind is not ast.ClassDef:
                functions.append((node, taken))
        elif kind in _VALUED:
            call = node.value
            if type(call) is ast.Call:
                name = _compiler_name(call.func)
                if name == "jit_module":
                    whole_module = True
                elif name is not None:
                    handed.update(a.id for a in call.args if type(a) is ast.Name)
        for field in _BODIES.get(kind, ()):
            pending.extend((item, taken) for item in getattr(node, field))
    if whole_module:
        return {function for function, _ in functions}
    found = {function for function, taken in functions if taken or function.name in handed}
    if handed:
        # A function handed over by name takes what it defines with it.
        for function in list(found):
            found.update(_nested_functions(function))
    return found


def _nested_functions(function) -> list:
    found = []
    pending = list(function.body)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind in _FUNCTIONS:
            found.append(node)
        for field in _BODIES.get(kind, ()):
            pending.extend(getattr(node, field))
    return found
