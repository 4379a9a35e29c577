"""Breakpoints in Django templates (the launch configuration's ``django``).

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

Django is never imported by the debugger: the patch waits for the program's own import
of ``django.template.base`` (``children/import_hooks.py``). The patched method costs a
render one dictionary lookup per node while no template has a breakpoint.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading

from ..children.import_hooks import when_imported
from ..common.code_lines import SourceError, read_source_bytes
from ..common.paths import canonical_path

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from .store import BreakpointStore

# The extensions of the files a template breakpoint may be set in (VS Code's django-html
# and jinja-html languages, and plain HTML and text templates).
TEMPLATE_SUFFIXES = (".html", ".htm", ".djhtml", ".jinja", ".jinja2", ".j2", ".txt",
                     ".xml")

TEMPLATE_OPTION_NEEDED = ("A breakpoint in a Django template needs \"django\": true in the "
                          "launch configuration.")


def is_template_path(path: str) -> bool:
    return path.lower().endswith(TEMPLATE_SUFFIXES)


def template_lines(path: str) -> tuple[int, ...]:
    """Every line of a template file: any of them may hold a node that renders."""
    text = read_source_bytes(path)
    count = text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)
    if count == 0:
        raise SourceError(f"{path} is empty.")
    return tuple(range(1, count + 1))


class Templates:
    """The template frameworks a session debugs, and their hooks."""

    def __init__(self, store: BreakpointStore) -> None:
        self._store = store
        self.django = False
        self._lock = threading.Lock()
        # (path, line, raising) -> the code object that stands for that template line.
        self._codes: dict[tuple[str, int, bool], types.CodeType] = {}
        self._canonical: dict[str, str] = {}
        self._patched = False

    def configure(self, launch: dict) -> None:
        self.django = launch.get("django") is True and launch.get("noDebug") is not True
        if self.django and not self._patched:
            self._patched = True
            when_imported("django.template.base", self._patch_django)

    @staticmethod
    def lines(path: str) -> tuple[int, ...]:
        return template_lines(path)

    def accepts(self, canonical: str) -> bool:
        """Whether breakpoints in the file are template breakpoints."""
        return self.django and is_template_path(canonical)

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

    def _run_line(self, path: str, line: int, context, raising: bool) -> None:
        variables = _context_variables(context)
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
    flatten = getattr(context, "flatten", None)
    try:
        variables = dict(flatten()) if flatten is not None else {}
    except Exception:  # A context that cannot be flattened still stops, without values.
        variables = {}
    for name, value in (("True", True), ("False", False), ("None", None)):
        if name in variables and variables[name] is value:
            del variables[name]
    return variables
