"""A module's code as the start bundle holds it (common/start_bundle.py), and the bundle's
file, made by a start that writes the bundle: only then is this module imported, so the
starts that only read the bundle do not load the writer's code.

The code is compiled from the module's source's syntax tree with two things left out that
every start would pay for and nothing uses. Its ``from __future__ import annotations``,
which, run, is an import of ``__future__`` (through the import system's path finder, about
0.2 ms of a start that nothing else of a child asks for): the feature is the compiler's
flag instead, which makes the same code but for the module's ``annotations`` name. And its
docstrings, the module's and each class's and function's: a quarter of the code's bytes
(unmarshalling the boot's and the start's blocks in a fresh process took 1.50 ms with
them, 1.41 ms without, 3.12, medians of 30), which no code of the package reads
(``help()`` of the in-code API reads the package's ``__init__.py``, which the import system
loads).

The price is paid by the start that writes the bundle, which compiles the modules it adds
where it once read their pyc files: 0.25 s for the whole bundle's 97 modules on 3.12 (2 ms
from the pyc files), the first start of an installation on each Python, and a few
milliseconds a start that adds a module or two.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from types import CodeType


def entry_of(module) -> tuple | None:
    """A module's entry in the bundle (is a package, source mtime in ns, source size,
    marshalled code), its code compiled by ``compiled`` from its source file as it is now
    (the same size and modification time before and after it is read); None where there
    is none to make."""
    spec = getattr(module, "__spec__", None)
    source = getattr(spec, "origin", None)
    if not source or not getattr(spec, "cached", None):
        return None  # Not a module of source files.
    try:
        status = os.stat(source)
        with open(source, "rb") as file:
            text = file.read()
        again = os.stat(source)
    except OSError:
        return None
    stamp = (status.st_mtime_ns, status.st_size)
    if (again.st_mtime_ns, again.st_size) != stamp or len(text) != status.st_size:
        return None  # Written meanwhile: the next start that imports it makes its entry.
    try:
        code = compiled(text, source)
    except (SyntaxError, ValueError, TypeError):
        return None  # The import system says what is wrong with it.
    is_package = os.path.basename(source) == "__init__.py"
    return (is_package, *stamp, marshal.dumps(code))


def compiled(text: bytes, origin: str) -> CodeType:
    """A module's code for the bundle: compiled from its syntax tree without its
    ``from __future__ import annotations``, made the compiler's flag instead, and
    without its docstrings."""
    import _ast  # The builtin, not ast.py (which imports re and enum).

    tree = compile(text, origin, "exec", _ast.PyCF_ONLY_AST, dont_inherit=True)
    flags = 0
    body = []
    for statement in tree.body:
        if (type(statement) is _ast.ImportFrom and statement.module == "__future__"
                and [alias.name for alias in statement.names] == ["annotations"]):
            import __future__

            flags = __future__.annotations.compiler_flag
        else:
            body.append(statement)
    tree.body = body
    _drop_docstrings(tree, _ast)
    return compile(tree, origin, "exec", flags, dont_inherit=True)


def _drop_docstrings(tree, _ast) -> None:
    """Takes the docstring out of the module and out of each class and function in it;
    a body that was its docstring alone gets a ``pass`` on the docstring's line. Only
    statements are walked (a class or function is one; an expression holds none)."""
    scopes = (_ast.Module, _ast.ClassDef, _ast.FunctionDef, _ast.AsyncFunctionDef)
    # What holds statements: statements, and the handlers and cases of try and match.
    holders = tuple(getattr(_ast, name) for name in ("stmt", "excepthandler", "match_case")
                    if hasattr(_ast, name))
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, scopes):
            first = node.body[0] if node.body else None
            if (type(first) is _ast.Expr and type(first.value) is _ast.Constant
                    and type(first.value.value) is str):
                standing_in = _ast.Pass()
                for position in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                    setattr(standing_in, position, getattr(first, position))
                node.body = node.body[1:] or [standing_in]
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                pending.extend(item for item in value if isinstance(item, holders))


def write_file(path: str, entries: dict, orders: list, layout: tuple,
               index_length: int) -> None:
    """Write the bundle's file in the layout common/start_bundle.py reads (described
    there): the index's length in ``index_length`` bytes, the index (``layout``, the
    layout's number and the magic number, first), every entry's code (each read from the
    old file already), then each phase's block. Through a temporary file that replaces the
    old one whole, so a start never reads half a bundle; nothing where it cannot be
    written (a read-only installation, a folder gone)."""
    index = {}
    offset = 0
    for name, (is_package, mtime_ns, size, code) in entries.items():
        index[name] = (is_package, mtime_ns, size, offset, len(code))
        offset += len(code)
    blocks = [_block(entries, order) for order in orders]
    phases = []
    for order, block in zip(orders, blocks):
        phases.append((order, (offset, len(block))))
        offset += len(block)
    head = marshal.dumps((*layout, index, phases))
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "xb") as file:
            file.write(len(head).to_bytes(index_length, "little"))
            file.write(head)
            for entry in entries.values():
                file.write(entry[3])
            for block in blocks:
                file.write(block)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _block(entries: dict, order: list) -> bytes:
    """A phase's block: the code of ``order``'s modules, from their entries (one whose
    code cannot be read is left to its entry, which fails to load as it did)."""
    codes = {}
    for name in order:
        entry = entries.get(name)
        if entry is not None:
            try:
                codes[name] = marshal.loads(entry[3])
            except (EOFError, ValueError, TypeError):
                continue
    return marshal.dumps(codes)
