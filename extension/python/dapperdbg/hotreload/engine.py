"""``reload_file``: compile the new source, plan every patch, then apply them (or defer
those whose old code is running, when the program runs). Never runs the module's
top-level statements; only the ``def``/``class`` statement of a new definition."""

from __future__ import annotations

import ast
import collections
import gc
import importlib.util
import linecache
import os
import sys
import time
import types

from ..common.native import RLock
from ..common.source_texts import normalize, recorded
from ..common.start_freeze import thaw_start_objects
from .classes import plan_class
from .errors import Refusal, ReloadResult
from .functions import (
    Context,
    Patch,
    Plan,
    is_definition_of,
    latest_definitions,
    plan_function,
    resolve,
)
from .pycache import refresh_bytecode
from .source import (
    Definition,
    body_statements,
    compile_source,
    future_flags,
    index_definitions,
    locate,
    read_source,
)
from .stacks import all_frames, record_replacements, running_old_code

_MISSING = object()
# One reload (or application of deferred patches) at a time.
_lock = RLock()
# Patches waiting for their old code to leave every stack: (normalized path, patch).
_deferred: list[tuple[str, Patch]] = []


def remember_source(path: str, source: str | None = None, *, keep_existing: bool = False) -> None:
    """Record the source a module was loaded from (common/source_texts.py).
    ``keep_existing``: not if something is recorded for the file already (its load, or a
    reload). Raises ``ReloadError`` when ``source`` is None and the file cannot be read."""
    key = normalize(path)
    if keep_existing and key in recorded:
        return
    recorded[key] = read_source(path, None) if source is None else source


def reload_file(
    path: str,
    *,
    new_source: str | bytes | None = None,
    old_source: str | None = None,
    modules=None,
    frames: dict | None = None,
    while_running: bool = False,
    restartable: bool = False,
) -> ReloadResult:
    """Reload the module(s) loaded from ``path`` in place. Raises ``ReloadError`` (with
    nothing changed) when the file is not Python, not loaded, or does not compile.

    ``new_source``: the text to load instead of the file's (an unsaved editor buffer).
    ``old_source``: the text the module was loaded from, when the caller has it (else the
    one kept by ``remember_source`` or the last reload): only used to report changed
    statements that are not re-run. ``modules``: where to look for the module
    (``sys.modules``). ``frames``: thread id -> top frame, added to
    ``sys._current_frames()`` (the tracer passes its stopped frames). ``while_running``:
    the program runs; patches of functions some thread is running wait for
    ``apply_deferred``. ``restartable``: the file was imported with restartable
    functions, and its new code is compiled so too."""
    with _lock:
        return _reload(path, new_source, old_source, modules, frames, while_running,
                       restartable)


def _reload(path, new_source, old_source, modules, frames, while_running,
            restartable=False) -> ReloadResult:
    started = time.perf_counter()
    modules = sys.modules if modules is None else modules
    loaded = locate(path, modules)
    source = read_source(path, new_source)
    key = normalize(path)
    filename = _code_filename(loaded[0][1], path)
    functions = _live_functions(loaded)
    tree, module_code = compile_source(source, filename, path, loaded[0][0], restartable)
    definitions = index_definitions(tree, module_code)

    plan = Plan()
    for name, module in loaded:
        ctx = Context(name, module.__dict__, filename, key, future_flags(tree))
        _plan_module(definitions, ctx, plan, functions[id(module.__dict__)])
    previous = old_source if old_source is not None else _previous_source(key, path)
    statements = body_statements(tree)
    if previous is not None:
        plan.warnings.extend(_changed_statements(previous, statements, filename))

    stack = all_frames(frames)
    on_stack = {id(frame.f_code) for _, frame in stack}
    result = ReloadResult(path=path, reloaded_module=loaded[0][0])
    if len(loaded) > 1:
        others = ", ".join(name for name, _ in loaded[1:])
        result.warnings.append(f"the file is also loaded as {others}: patched there too")
    _deferred[:] = [(p, patch) for p, patch in _deferred if p != key]
    replaced: dict = {}
    for patch in plan.patches:
        replaced.update(patch.replaced)
        if while_running and on_stack.intersection(patch.replaced):
            _deferred.append((key, patch))
            result.deferred.append(patch.qualname)
            continue
        _apply(patch, result)
    result.refused.extend(plan.refused)
    result.removed.extend(plan.removed)
    result.warnings.extend(plan.warnings)
    result.warnings.extend(str(refusal) for refusal in result.refused)
    result.frames_running_old_code = running_old_code(stack, replaced)

    if new_source is None or _same_as_disk(path, source):
        warning = refresh_bytecode(path, module_code)
        if warning:
            result.warnings.append(warning)
    linecache.checkcache(path)
    recorded[key] = _statement_counts(statements)
    result.duration_ms = (time.perf_counter() - started) * 1000
    return result


def pending() -> list[str]:
    """Qualified names of the patches deferred by a reload while running."""
    return [patch.qualname for _, patch in _deferred]


def apply_deferred(frames: dict | None = None) -> ReloadResult | None:
    """Apply the deferred patches whose old code no longer runs on any stack (call at each
    stop, or periodically). None when nothing was pending."""
    with _lock:
        if not _deferred:
            return None
        return _apply_deferred(frames)


def _apply_deferred(frames: dict | None) -> ReloadResult:
    started = time.perf_counter()
    on_stack = {id(frame.f_code) for _, frame in all_frames(frames)}
    result = ReloadResult(path="", reloaded_module="")
    still = []
    for key, patch in _deferred:
        if on_stack.intersection(patch.replaced):
            still.append((key, patch))
            result.deferred.append(patch.qualname)
        else:
            result.path = result.path or key
            _apply(patch, result)
    _deferred[:] = still
    result.warnings.extend(str(refusal) for refusal in result.refused)
    result.duration_ms = (time.perf_counter() - started) * 1000
    return result


def _apply(patch: Patch, result: ReloadResult) -> None:
    try:
        patch.apply()
    except Exception as error:  # noqa: BLE001 (a decorator of a new definition may raise)
        result.refused.append(Refusal(patch.qualname, f"{type(error).__name__}: {error}"))
        return
    result.updated_frame_codes += len(patch.replaced)
    result.replaced_codes.extend(patch.replaced.values())
    record_replacements(patch.replaced)
    names = {"added": result.added, "moved": result.moved}.get(patch.category, result.updated)
    if patch.qualname not in names:
        names.append(patch.qualname)


def _plan_module(definitions: list[Definition], ctx: Context, plan: Plan, functions: dict) -> None:
    namespace = ctx.namespace
    namespaces = (namespace,)
    top = latest_definitions(definitions)
    for definition in top:
        raw = namespace.get(definition.name, _MISSING)
        if raw is _MISSING:
            if definition.direct:
                plan.patches.append(Patch(definition.qualname, "added", _definer(definition, ctx)))
            else:
                plan.warnings.append(f"{definition.qualname} is defined under a condition: not run")
        elif definition.is_class:
            if (
                isinstance(raw, type)
                and raw.__qualname__ == definition.qualname
                and (raw.__module__ == ctx.module_name)
            ):
                plan_class(raw, definition, ctx, plan)
            else:
                plan.refused.append(
                    Refusal(definition.qualname, "the name is bound to another object now")
                )
        else:
            function = resolve(raw, definition.qualname, definition.role, ctx)
            if isinstance(function, str):
                plan.refused.append(Refusal(definition.qualname, function))
            else:
                plan.add(
                    plan_function(function, definition, namespaces), function, definition.qualname
                )
    names = {definition.name for definition in top}
    for name, raw in list(namespace.items()):
        if name not in names and _defined_here(raw, name, ctx):
            plan.removed.append(name)
    _plan_closures(definitions, ctx, plan, functions)


def _defined_here(raw, qualname: str, ctx: Context) -> bool:
    if isinstance(raw, type):
        return raw.__qualname__ == qualname and raw.__module__ == ctx.module_name
    # 3.14+: the compiler's function evaluating the module's own annotations.
    return qualname != "__annotate__" and is_definition_of(raw, qualname, ctx)


def _definer(definition: Definition, ctx: Context):
    """Run only this ``def``/``class`` statement (decorators included) in the module."""
    code = ctx.compile(ast.Module([definition.node], []))

    def apply() -> None:
        exec(code, ctx.namespace)

    return apply


def _live_functions(modules) -> dict:
    """id(module namespace) -> {id(code): [functions]} for every live function whose
    globals are one of these modules. Taken before compiling: the new syntax tree's nodes
    would make the garbage collector's object list many times longer."""
    wanted = {id(module.__dict__): collections.defaultdict(list) for _, module in modules}
    function_type = types.FunctionType
    # A function refers to its globals: ``gc.get_referrers`` finds them all, walking the
    # objects in C (several times faster than a loop over ``gc.get_objects()``).
    thaw_start_objects([getattr(module, "__file__", None) for _, module in modules])
    for obj in gc.get_referrers(*[module.__dict__ for _, module in modules]):
        if type(obj) is not function_type:
            continue
        index = wanted.get(id(obj.__globals__))
        if index is not None:
            index[id(obj.__code__)].append(obj)
    return wanted


def _plan_closures(definitions: list[Definition], ctx: Context, plan: Plan, by_code: dict) -> None:
    """Live functions made by running a ``def`` nested in a function (closures, decorator
    wrappers) are found through the garbage collector, patched when their free variables
    match; other functions sharing a patched code object are copies the program made."""
    nested = [d for d in _walk(definitions) if d.in_function and not d.is_class]
    if not nested:
        by_name = {}
    elif sys.version_info >= (3, 11):
        by_name = collections.defaultdict(list)
        for functions in by_code.values():
            code = functions[0].__code__
            if ctx.is_ours(code):
                by_name[code.co_qualname].extend(functions)
    else:
        by_name = _closures_by_enclosing_code(nested, plan, by_code)
    for definition in latest_definitions(nested):
        for function in by_name.get(definition.qualname, ()):
            if id(function) not in plan.patched:
                plan.add(plan_function(function, definition, None), function)
    for patch in list(plan.patches):
        for old in patch.replaced:
            copies = [f for f in by_code.get(old, ()) if id(f) not in plan.patched]
            if copies:
                plan.warnings.append(
                    f"{patch.qualname}: {len(copies)} copy(ies) of the function made by the "
                    "program left unchanged"
                )


def _closures_by_enclosing_code(nested, plan: Plan, by_code: dict) -> dict:
    """Before 3.11 code objects have no qualified name (and functools.wraps copies
    ``__qualname__`` onto wrappers): a closure is known by its code being a constant of
    the live code of the function enclosing its ``def``."""
    codes: dict = {}

    def old_codes(definition: Definition) -> list:
        if definition.qualname not in codes:
            parent = definition.parent
            if parent.qualname in plan.live:
                enclosing = [plan.live[parent.qualname].__code__]
            elif parent.in_function:
                enclosing = old_codes(parent)
            else:
                enclosing = []
            codes[definition.qualname] = [
                const
                for code in enclosing
                for const in code.co_consts
                if isinstance(const, types.CodeType) and const.co_name == definition.name
            ]
        return codes[definition.qualname]

    return {
        definition.qualname: [
            f for code in old_codes(definition) for f in by_code.get(id(code), ())
        ]
        for definition in nested
    }


def _walk(definitions):
    for definition in definitions:
        yield definition
        yield from _walk(definition.children)


def _code_filename(module: types.ModuleType, path: str) -> str:
    """The file name the module's code objects carry (what tracebacks and the tracer see)."""
    name = getattr(module, "__name__", None)
    for value in list(vars(module).values()):
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            return value.__code__.co_filename
    return getattr(module, "__file__", None) or path


def _previous_source(key: str, path: str):
    if key in recorded:
        previous = recorded[key]
        if isinstance(previous, bytes):  # The main program's file, as the launcher read it.
            try:
                return importlib.util.decode_source(previous)
            except (SyntaxError, UnicodeDecodeError):  # Bad bytes the compiler let pass.
                return None
        return previous
    entry = linecache.cache.get(path)
    if entry and len(entry) == 4 and entry[1] is not None:
        size, mtime, lines, _ = entry
        try:
            stat = os.stat(path)
        except OSError:
            return None
        if (size, mtime) != (stat.st_size, stat.st_mtime):
            return "".join(lines)
    return None


def _statement_counts(statements: dict) -> dict:
    return {scope: collections.Counter(k for _, k in items) for scope, items in statements.items()}


def _changed_statements(previous, new: dict, filename: str) -> list[str]:
    """Warnings for the module and class body statements not in the previous source
    (its text, or the statement counts kept from the last reload)."""
    if isinstance(previous, str):
        try:
            previous = _statement_counts(body_statements(ast.parse(previous, filename)))
        except (SyntaxError, ValueError):
            return []
    out = []
    for scope, statements in new.items():
        if scope not in previous:
            continue  # a new class: its statement runs whole
        old = collections.Counter(previous[scope])
        what = f"statement in class {scope}" if scope else "top-level statement"
        changed = 0
        for statement, key in statements:
            if old[key] > 0:
                old[key] -= 1
                continue
            changed += 1
            text = ast.unparse(statement).splitlines()[0]
            out.append(f"line {statement.lineno}: {what} changed, not re-run: {text}")
        gone = sum(old.values()) - changed
        if gone > 0:
            where = f" from class {scope}" if scope else ""
            out.append(f"{gone} statement(s) removed{where}: their effects are kept")
    return out


def _same_as_disk(path: str, source: str) -> bool:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return False
    return data.decode("utf-8", "replace") == source
