"""Breakpoints in Django and Jinja templates (the launch configuration's ``django`` and
``jinja``).

A template is not Python: no code object of the program has the template's file as its
``co_filename``, so the tracer would never see a line of it. Django's template engine
renders a template node by node through ``Node.render_annotated``, and every node knows
its template (``node.origin.name``) and its line there (``node.token.lineno``). When a
node on a line with a breakpoint renders, a tiny code object compiled with the
template's path as its file name, its one statement on that line, runs with the
template's context as its locals: to the tracer it is one more line of one more file,
so conditions, hit counts, log messages, the stack, the Variables view and stepping on
from there are those of any breakpoint, with nothing template-specific in the tracer.

An exception that a node raises goes on through such a code object on the node's line
(raised there again): the exception filters then see it raised in the template and
leaving it into Django's code (``userUnhandled``), as they would a view's.

Jinja compiles a template into Python whose code objects carry the template's path as
their file name but the generated module's line numbers, which the tracer would take
for the template's lines. Its compile (``Environment._compile``) is wrapped: the
generated module is compiled under a file name inside this package, so the tracer and
the stack leave it alone, with a check before each statement that starts a template
line (Jinja's own ``debug_info`` says which), which runs the same kind of code object as
Django's when that line has a breakpoint. The template keeps its real file name
(``Template._from_namespace`` is given it back). An exception in a Jinja template needs
nothing: Jinja itself raises it again through code compiled with the template's path at
its line (jinja2/debug.py), which the exception filters see as they do Django's. The
checks reach macros too (functions nested in the render functions), and items of the
output a macro collects. A bytecode cache gives no code while the session debugs Jinja
and is never given code with checks, which a run without the debugger could not run.

Neither framework is ever imported by the debugger: each patch waits for the program's
own import (``common/import_hooks.py``, handed in by the request layer). The patched
code costs a render one dictionary lookup per node or template line while its template
has no breakpoint.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys

from ..common.code_lines import SourceError, read_source_bytes
from ..common.native import allocate_lock
from ..common.paths import canonical_path, is_debugger_path
from .template_files import is_template_path

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from .store import BreakpointStore

    # Calls a patch with a module once the program imports it (common/import_hooks.py).
    WhenImported = Callable[[str, Callable[[types.ModuleType], None]], None]

# Where Jinja's generated modules are compiled (a name, no file is written): inside this
# package, so that the tracer never traces them and the stack never shows them.
_JINJA_CODE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "jinja-code")

# The session's templates, for the checks compiled into Jinja's generated modules.
_active: Templates | None = None


def template_lines(path: str) -> tuple[int, ...]:
    """Every line of a template file: any of them may hold a node that renders."""
    text = read_source_bytes(path)
    count = text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)
    if count == 0:
        raise SourceError(f"{path} is empty.")
    return tuple(range(1, count + 1))


class Templates:
    """The template frameworks a session debugs, and their hooks."""

    def __init__(self, store: BreakpointStore, when_imported: WhenImported) -> None:
        self._store = store
        self._when_imported = when_imported
        self.django = False
        self.jinja = False
        self._lock = allocate_lock()
        # (path, line, raising) -> the code object that stands for that template line.
        self._codes: dict[tuple[str, int, bool], types.CodeType] = {}
        self._canonical: dict[str, str] = {}
        self._patched: set[str] = set()
        # Jinja: the compiled module's file name -> the template's.
        self._jinja_files: dict[str, str] = {}

    def configure(self, launch: dict) -> None:
        global _active
        _active = self
        debugging = launch.get("noDebug") is not True
        self.django = launch.get("django") is True and debugging
        self.jinja = launch.get("jinja") is True and debugging
        if self.django and "django" not in self._patched:
            self._patched.add("django")
            self._when_imported("django.template.base", self._patch_django)
        if self.jinja and "jinja" not in self._patched:
            self._patched.add("jinja")
            self._when_imported("jinja2.environment", self._patch_jinja)
            self._when_imported("jinja2.bccache", self._patch_jinja_cache)

    @staticmethod
    def lines(path: str) -> tuple[int, ...]:
        return template_lines(path)

    def accepts(self, canonical: str) -> bool:
        """Whether breakpoints in the file are template breakpoints."""
        return (self.django or self.jinja) and is_template_path(canonical)

    # Django

    def _patch_django(self, module) -> None:
        node_class = module.Node
        original = node_class.render_annotated
        templates = self

        def render_annotated(node, context):
            place = templates._place(node)
            if place is None:
                return original(node, context)
            path, canonical, line = place
            lines = templates._store.lines_by_file.get(canonical)
            if lines is not None and line in lines:
                templates._run_line(path, line, context, False)
            try:
                return original(node, context)
            except Exception:
                templates._raise_in_template(path, line, context)
                raise

        render_annotated.__wrapped__ = original  # type: ignore[attr-defined]
        node_class.render_annotated = render_annotated

    def _place(self, node) -> tuple[str, str, int] | None:
        origin = getattr(node, "origin", None)
        token = getattr(node, "token", None)
        path = getattr(origin, "name", None)
        line = getattr(token, "lineno", None)
        if not isinstance(path, str) or not isinstance(line, int):
            return None
        canonical = self._canonical.get(path)
        if canonical is None:
            # Templates given as strings have no file (their origin is "<unknown source>").
            canonical = canonical_path(path) if os.path.isabs(path) else ""
            self._canonical[path] = canonical
        if not canonical:
            return None
        return path, canonical, line

    # Jinja

    def _patch_jinja(self, module) -> None:
        environment_class = module.Environment
        template_class = module.Template
        original_compile = environment_class._compile
        original_from_namespace = template_class.__dict__["_from_namespace"].__func__
        templates = self

        def _compile(environment, source, filename):
            if templates.jinja and isinstance(filename, str) and os.path.isabs(filename):
                code = templates._compile_jinja(source, filename)
                if code is not None:
                    return code
            return original_compile(environment, source, filename)

        def _from_namespace(cls, environment, namespace, globals):
            real = templates._jinja_files.get(namespace.get("__file__"))
            if real is not None:
                namespace["__file__"] = real
            return original_from_namespace(cls, environment, namespace, globals)

        _compile.__wrapped__ = original_compile  # type: ignore[attr-defined]
        environment_class._compile = _compile
        template_class._from_namespace = classmethod(_from_namespace)

    def _patch_jinja_cache(self, module) -> None:
        """A bytecode cache (``Environment(bytecode_cache=...)``) hands the loader the
        code of a template compiled by an earlier run, and keeps what the loader
        compiles for later runs. While the session debugs Jinja, the loader gets no code
        from it, so that every template is compiled with its checks, and code compiled
        with checks is never stored: a run without the debugger would call into a
        debugger that is not there. The cache keeps the plain code of earlier runs."""
        cache_class = module.BytecodeCache
        original_get = cache_class.get_bucket
        original_set = cache_class.set_bucket
        templates = self

        def get_bucket(cache, environment, name, filename, source):
            bucket = original_get(cache, environment, name, filename, source)
            if templates.jinja and isinstance(filename, str) and os.path.isabs(filename):
                bucket.reset()
            return bucket

        def set_bucket(cache, bucket):
            code = getattr(bucket, "code", None)
            if code is not None and code.co_filename in templates._jinja_files:
                return None
            return original_set(cache, bucket)

        get_bucket.__wrapped__ = original_get  # type: ignore[attr-defined]
        set_bucket.__wrapped__ = original_set  # type: ignore[attr-defined]
        cache_class.get_bucket = get_bucket
        cache_class.set_bucket = set_bucket

    def _compile_jinja(self, source: str, filename: str) -> types.CodeType | None:
        """Jinja's generated module, with a check before each statement that starts a
        template line, compiled under a name inside this package; None when the source
        is not what Jinja generates (then it is compiled as Jinja would)."""
        try:
            tree = ast.parse(source, filename)
        except SyntaxError:
            return None
        starts = _jinja_line_starts(tree)
        if starts is None:
            return None
        canonical = canonical_path(filename)
        checked = _JinjaChecks(starts, canonical, filename, __name__)
        tree = ast.fix_missing_locations(checked.visit(tree))
        name = os.path.join(_JINJA_CODE_DIR, canonical.lstrip(os.sep))
        if not is_debugger_path(canonical_path(name)):
            return None
        with self._lock:
            self._jinja_files[name] = filename
        return compile(tree, name, "exec", dont_inherit=True)

    def jinja_line_wanted(self, canonical: str, line: int) -> bool:
        lines = self._store.lines_by_file.get(canonical)
        return lines is not None and line in lines and self.jinja

    def jinja_line(self, path: str, line: int, context, variables: dict) -> None:
        self._run_line(path, line, context, False, _jinja_locals(variables))

    # Running a template line

    def _code(self, path: str, line: int, raising: bool) -> types.CodeType:
        key = (path, line, raising)
        code = self._codes.get(key)
        if code is None:
            # A raise of its own (not a bare re-raise): the "raised" filter stops at the
            # first raise it sees in the user's code, and it names no variable, so the
            # template's context is all the Variables view shows.
            statement = "raise __import__('sys').exc_info()[1]" if raising else "pass"
            code = compile("\n" * (line - 1) + statement, path, "exec", dont_inherit=True)
            # The stack shows the template's name where a module shows "<module>".
            name = os.path.basename(path)
            names = {"co_name": name}
            if sys.version_info >= (3, 11):
                names["co_qualname"] = name
            code = code.replace(**names)
            with self._lock:
                code = self._codes.setdefault(key, code)
        return code

    def _run_line(self, path: str, line: int, context, raising: bool,
                  inner: dict | None = None) -> None:
        variables = _context_variables(context)
        if inner:
            variables.update(inner)
        scope = {"__name__": os.path.basename(path), "__file__": path,
                 "__builtins__": builtins}
        exec(self._code(path, line, raising), scope, variables)

    def _raise_in_template(self, path: str, line: int, context) -> None:
        """In the handler of a node's exception: raise it again through the template's
        line, unless a node nested in this one did already (the innermost node is
        where it happened)."""
        if not self.django:
            return
        error = sys.exc_info()[1]
        traceback = error.__traceback__ if error is not None else None
        ours = set(self._codes.values())
        while traceback is not None:
            if traceback.tb_frame.f_code in ours:
                return
            traceback = traceback.tb_next
        self._run_line(path, line, context, True)


def _context_variables(context) -> dict:
    """The template context as one dictionary, innermost values winning, without the
    True/False/None every Django context starts with."""
    flatten = getattr(context, "flatten", None) or getattr(context, "get_all", None)
    try:
        variables = dict(flatten()) if flatten is not None else {}
    except Exception:  # A context that cannot be flattened still stops, without values.
        variables = {}
    for name, value in (("True", True), ("False", False), ("None", None)):
        if name in variables and variables[name] is value:
            del variables[name]
    return variables


def jinja_check(canonical: str, line: int) -> bool:
    """Called by Jinja's generated code before a template line: whether it has a
    breakpoint (the one cost a line pays without one)."""
    templates = _active
    return templates is not None and templates.jinja_line_wanted(canonical, line)


def jinja_stop(path: str, line: int, context, variables: dict) -> None:
    templates = _active
    if templates is not None:
        templates.jinja_line(path, line, context, variables)


def _jinja_line_starts(tree: ast.Module) -> dict[int, int] | None:
    """Jinja's ``debug_info`` (``"template=generated&..."``) as generated line ->
    template line; None when the module has none."""
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id == "debug_info"
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)):
            starts = {}
            for pair in filter(None, statement.value.value.split("&")):
                template_line, _, generated_line = pair.partition("=")
                if template_line.isdigit() and generated_line.isdigit():
                    starts.setdefault(int(generated_line), int(template_line))
            return starts
    return None


class _JinjaChecks(ast.NodeTransformer):
    """Puts ``if check(canonical, line): stop(path, line, context, locals())`` before
    each statement of a render function that starts a template line.

    The render functions are those that take the template's ``context`` (the template's
    ``root`` and its blocks) and the functions nested in them (macros, and the bodies of
    ``{% call %}`` blocks), which reach it as a closure. Output collected into a list
    (in a macro, or a ``{% set %}`` or ``{% filter %}`` block) is one
    ``t.extend((item, item, ...))`` statement whose items start template lines: such an
    item becomes ``(check and stop, item)[1]``, which runs the check before the item."""

    def __init__(self, starts: dict[int, int], canonical: str, path: str,
                 module: str) -> None:
        self._starts = dict(starts)
        self._canonical = canonical
        self._path = path
        self._module = module
        self._inside = False  # in a function that reaches the template's context

    def _hooks(self, name: str) -> ast.expr:
        # sys.modules[module].name: the generated module imports nothing of the debugger.
        modules = ast.Attribute(ast.Call(ast.Name("__import__", ast.Load()),
                                         [ast.Constant("sys")], []), "modules", ast.Load())
        owner = ast.Subscript(modules, ast.Constant(self._module), ast.Load())
        return ast.Attribute(owner, name, ast.Load())

    def _test_and_stop(self, line: int) -> tuple[ast.expr, ast.expr]:
        test = ast.Call(self._hooks("jinja_check"),
                        [ast.Constant(self._canonical), ast.Constant(line)], [])
        stop = ast.Call(self._hooks("jinja_stop"),
                        [ast.Constant(self._path), ast.Constant(line),
                         ast.Name("context", ast.Load()),
                         ast.Call(ast.Name("locals", ast.Load()), [], [])], [])
        return test, stop

    def _check(self, statement: ast.stmt, line: int) -> ast.stmt:
        test, stop = self._test_and_stop(line)
        check = ast.If(test, [ast.Expr(stop)], [])
        return ast.copy_location(check, statement)

    def _checked_item(self, item: ast.expr, line: int) -> ast.expr:
        test, stop = self._test_and_stop(line)
        checked = ast.Subscript(
            ast.Tuple([ast.BoolOp(ast.And(), [test, stop]), item], ast.Load()),
            ast.Constant(1), ast.Load())
        return ast.copy_location(checked, item)

    def _check_items(self, statement: ast.stmt) -> None:
        """The items of the output tuples of an expression statement that start a
        template line (a buffered frame's ``t.extend((...))``)."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load):
                for index, item in enumerate(node.elts):
                    line = self._starts.pop(item.lineno, None)
                    if line is not None:
                        node.elts[index] = self._checked_item(item, line)

    def _body(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for statement in statements:
            line = self._starts.pop(statement.lineno, None)
            if line is not None:
                result.append(self._check(statement, line))
            if isinstance(statement, ast.Expr):
                self._check_items(statement)
            result.append(self.visit(statement))
        return result

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        arguments = [argument.arg for argument in node.args.args]
        if self._inside or "context" in arguments:
            inside, self._inside = self._inside, True
            node.body = self._body(node.body)
            self._inside = inside
        return node

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements and isinstance(statements[0],
                                                                           ast.stmt):
                setattr(node, field, self._body(statements))
        handlers = getattr(node, "handlers", None)
        if handlers:
            for handler in handlers:
                handler.body = self._body(handler.body)
        return node


def _jinja_locals(variables: dict) -> dict:
    """The template's own variables among a generated render function's locals: Jinja
    names them ``l_<depth>_<name>``; the deepest wins, unset ones are left out."""
    found: dict[str, tuple[int, object]] = {}
    for name, value in variables.items():
        if not name.startswith("l_"):
            continue
        depth, _, own = name[2:].partition("_")
        if not depth.isdigit() or not own or type(value).__name__ == "_MissingType":
            continue
        if own not in found or found[own][0] <= int(depth):
            found[own] = (int(depth), value)
    return {name: value for name, (_, value) in found.items()}
