"""Swapping the code of live functions for instrumented copies, and back.

For a module already loaded, its file's copies are made (copy_cache.py: from the cache,
or compiled, only the definitions holding probes) and its plain code is read (its
``.pyc``, or a cache). Every live function of the file (found with ``gc``: module
functions, methods, nested functions, closures, whatever holds them) must still run
code equal to that plain code, or the file changed since it was loaded and nothing is
swapped.
Functions whose code tree holds a probe get the copy as ``__code__``; the registry keeps
the original, so that removing the probes restores the very code objects the functions
had. Frames already running the old code go on running it: they are reported so the
tracer can cover them.
"""

from __future__ import annotations

import builtins
import gc
import io
import os
import sys

from ..common.code_flags import (
    CO_ASYNC_GENERATOR,
    CO_COROUTINE,
    CO_GENERATOR,
    CO_ITERABLE_COROUTINE,
)
from ..common.greenlet_frames import waiting_greenlet_frames
from ..common.interpreter_types import (
    AsyncGeneratorType,
    CodeType,
    CoroutineType,
    FunctionType,
    GeneratorType,
)
from ..common.module_files import files_that_may_be, is_link, known_not_link
from ..common.native import allocate_lock, get_ident
from ..common.paths import NAMES_AS_WRITTEN, canonical_path, is_debugger_path
from ..common.records import Factory, Record
from ..common.start_freeze import referrers_of, thaw_start_objects
from .copies import same_code, walk_pairs
from .copy_cache import instrument_file, is_kept
from .probes import Probe, install_probe_function
from .registry import CopyInfo, InstrumentationRegistry
from .user_files import compiling

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable, Mapping

    from .copies import InstrumentedModule

_SUSPENDABLE = (GeneratorType, CoroutineType, AsyncGeneratorType)


class SwapResult(Record):
    """What applying a file's probes did."""

    canonical: str
    accepted: dict[int, Probe] = Factory(dict)
    # line -> why that probe is left to the tracer. With ``error`` set, every probe.
    refused: dict[int, str] = Factory(dict)
    # Why nothing in the file could be instrumented (None when something was).
    error: str | None = None
    # How many live functions now run a copy (or, after a removal, their original).
    functions_swapped: int = 0
    # Frames (of running or suspended calls) that keep running code without the probes
    # they should have: the tracer must watch their probe lines itself.
    stale_frames: list[types.FrameType] = Factory(list)
    # Functions left alone, and why (say, they run with a builtins of their own).
    warnings: list[str] = Factory(list)
    # An import of a module of this name is under way: its code may define functions
    # from the plain compile after the swap looked (instrumentation/imports.py), which
    # the tracer must watch.
    import_running: bool = False


def _function_builtins_ok(function: types.FunctionType) -> bool:
    namespace = getattr(function, "__builtins__", None)
    if namespace is None:
        namespace = function.__globals__.get("__builtins__")
    return namespace is builtins or namespace is builtins.__dict__


class LiveInstrumenter:
    """Applies a file's probes to the live functions of the process."""

    def __init__(self, registry: InstrumentationRegistry) -> None:
        self.registry = registry
        self._lock = allocate_lock()
        self._canonical_by_filename: dict[str, str] = {}

    def _canonical(self, filename: str) -> str:
        canonical = self._canonical_by_filename.get(filename)
        if canonical is None:
            canonical = canonical_path(filename)
            self._canonical_by_filename[filename] = canonical
        return canonical

    def _is_file(self, filename: str, canonical: str) -> bool:
        """Whether ``filename`` names the file ``canonical``. Resolving a path costs a few
        lstat calls (5 ms for the 80 files of a small program's modules and frames): only
        a file of the same name, or a link, can be that file."""
        if filename == canonical:
            return True
        if (os.path.normcase(os.path.basename(filename))
                != os.path.normcase(os.path.basename(canonical))
                and not is_link(filename)):
            return False
        return self._canonical(filename) == canonical

    def _names_file(self, canonical: str) -> Callable[[str], bool]:
        """``_is_file`` for one file, asked of every function a walk finds. A path that
        does not end in the file's name, and is known to be no link, is passed over at
        once."""
        name = os.path.normcase(os.path.basename(canonical))
        is_file = self._is_file

        def names(filename: str) -> bool:
            if NAMES_AS_WRITTEN and not filename.endswith(name) and known_not_link(filename):
                return False
            return is_file(filename, canonical)

        return names

    def _module_files(self, canonical: str) -> list[str]:
        """The ``__file__`` of each loaded module of the file."""
        return [filename for filename in files_that_may_be(canonical)
                if self._is_file(filename, canonical)]

    def apply(self, filename: str, probes: Mapping[int, Probe],
              import_restartable: bool | None = None) -> SwapResult:
        """Make the live functions of ``filename`` run exactly ``probes`` ({line: Probe});
        an empty mapping restores the original code. ``import_restartable``: whether an
        import of the file would compile it restartable (None: it would not take the
        probes)."""
        canonical = canonical_path(filename)
        with self._lock:
            if not probes:
                return self._restore(canonical)
            result = SwapResult(canonical)
            if (import_restartable is not None and not self.registry.infos_for_file(canonical)
                    and not self._module_files(canonical)
                    and is_kept(filename, probes, restartable=import_restartable)):
                # Nothing of the file runs, and the copies its import will take are kept:
                # the finder has the probes and compiles them in from there, and says
                # then which lines it refused. A child process gets every breakpoint of
                # the session, in files it mostly never imports. (Not kept, they are
                # made now: an import that compiled them would need the compiler's
                # modules while one of them may be the module being imported.)
                return result
            problem = self._instrument(filename, canonical, probes, result)
            if problem is not None:
                restored = self._restore(canonical)
                result.error = problem
                result.refused = {line: problem for line in probes}
                result.accepted = {}
                result.functions_swapped = restored.functions_swapped
                result.stale_frames = restored.stale_frames
            return result

    def remove_all(self) -> None:
        with self._lock:
            for canonical in self.registry.files():
                self._restore(canonical)

    def _instrument(self, filename, canonical, probes, result: SwapResult) -> str | None:
        if is_debugger_path(canonical):
            return "the debugger's own code is never instrumented"
        try:
            with io.open_code(canonical) as file:
                source = file.read()
        except OSError as error:
            return f"cannot read {filename}: {error.strerror or error}"
        from .copies import InstrumentationError

        try:
            module = compiling(instrument_file, source, filename, probes,
                               restartable=canonical in self.registry.restartable_files)
        except InstrumentationError as error:
            return str(error)
        result.accepted = dict(module.accepted)
        result.refused = dict(module.refused)
        if not module.accepted:
            restored = self._restore(canonical)
            result.functions_swapped = restored.functions_swapped
            result.stale_frames = restored.stale_frames
            return None
        install_probe_function()
        previous = self.registry.infos_for_file(canonical)
        functions = self._live_functions(canonical, previous)
        # Matching live functions needs the plain compile; a file not loaded yet (a
        # pending breakpoint) has none, and is spared it.
        by_plain = _copies_by_plain(module) if functions else {}
        swaps: list[tuple[types.FunctionType, types.CodeType]] = []
        infos: dict[int, CopyInfo] = {}
        for function in functions:
            original = self.registry.original_of(function.__code__)
            entry = by_plain.get(original)
            if entry is None or not same_code(original, entry[0]):
                return (f"{filename} changed since it was loaded "
                        f"({function.__qualname__} no longer matches it)")
            copy = entry[1]
            if copy is not None and not _function_builtins_ok(function):
                result.warnings.append(f"{function.__qualname__} runs with builtins of its "
                                       "own and keeps its code")
                copy = None
            # A function with no probe left in its code goes back to its original.
            swaps.append((function, copy if copy is not None else original))
            if copy is not None:
                _collect_infos(canonical, original, copy, module, infos)
        new_infos = tuple(infos.values())
        # Published before any function runs a copy, so that the tracer never sees a
        # copy it does not know; the old copies stay known until every function is
        # moved off them.
        self.registry.set_file(canonical, new_infos + previous)
        for function, code in swaps:
            if function.__code__ is not code:
                function.__code__ = code
                result.functions_swapped += 1
        self.registry.set_file(canonical, new_infos)
        # Suspended generators and coroutines that may now lack probes: those running an
        # original that has probe lines now, or any earlier copy (those just replaced
        # are retired now, along with older ones a frame may have been left on).
        old_codes = [info.original for info in new_infos if info.probe_lines]
        old_codes += [info.copy for info in self.registry.retired_of_file(canonical)]
        defined = {self.registry.original_of(function.__code__) for function, _ in swaps}
        result.stale_frames = _stale_frames(canonical, module, self._is_file,
                                            _suspended_running(old_codes), new_infos,
                                            self.registry, defined)
        return None

    def _restore(self, canonical: str) -> SwapResult:
        result = SwapResult(canonical)
        infos = self.registry.infos_for_file(canonical)
        if not infos:
            return result
        by_copy = {id(info.copy): info for info in infos}
        for function in self._live_functions(canonical, infos):
            info = by_copy.get(id(function.__code__))
            if info is not None and info.copy is function.__code__:
                function.__code__ = info.original
                result.functions_swapped += 1
        self.registry.set_file(canonical, ())
        # Frames running a copy go on calling its probes; the probe handler ignores ids
        # it no longer knows. They are reported all the same.
        result.stale_frames = [
            frame for frame in _running_frames(_suspended_running([i.copy for i in infos]))
            if id(frame.f_code) in by_copy
        ]
        return result

    def _live_functions(self, canonical: str, copies: tuple[CopyInfo, ...]):
        """The live functions of the file: those whose globals are a loaded module of
        the file (module functions, methods, closures, decorated functions behind their
        wrappers). ``gc.get_referrers`` walks every object in C, about ten times as fast
        as a loop over ``gc.get_objects()``, but compares each reference with every
        target: so the targets are the module namespaces, and the copies only when no
        module of the file is loaded any more."""
        targets: list = []
        names = self._names_file(canonical)
        filenames = self._module_files(canonical)
        if filenames:
            wanted = set(filenames)
            for module in list(sys.modules.values()):
                namespace = getattr(module, "__dict__", None)
                filename = namespace.get("__file__") if isinstance(namespace, dict) else None
                if isinstance(filename, str) and filename in wanted:
                    targets.append(namespace)
        if not targets:
            targets = [info.copy for info in copies]
            filenames = [info.copy.co_filename for info in copies]
        if not targets:
            return []
        functions = {}
        thaw_start_objects(filenames)  # A module imported before the program is frozen.
        referrers, complete = referrers_of(*targets)
        if not complete:
            # The program froze objects itself, which the walk does not see.
            referrers.extend(_namespace_functions(
                [target for target in targets if isinstance(target, dict)]))
        for obj in referrers:
            if type(obj) is FunctionType and names(obj.__code__.co_filename):
                functions[id(obj)] = obj
        return list(functions.values())


def _namespace_functions(namespaces: list[dict]) -> list[types.FunctionType]:
    """The functions reachable from module namespaces without the collector's help: the
    module's functions and its classes' methods (nested classes, static and class
    methods, properties and decorated functions behind ``__wrapped__`` included).
    Closures made at run time are not reachable so. Only types are asked: a value's own
    attributes may be the program's code (a lazy object's ``__class__``)."""
    found: list[types.FunctionType] = []
    seen: set[int] = set()
    pending: list = [value for namespace in namespaces for value in list(namespace.values())]
    while pending:
        value = pending.pop()
        kind = type(value)
        if id(value) in seen:
            continue
        seen.add(id(value))
        if kind is FunctionType:
            found.append(value)
            wrapped = value.__dict__.get("__wrapped__")
            if wrapped is not None:
                pending.append(wrapped)
        elif issubclass(kind, type):
            pending.extend(list(type.__dict__["__dict__"].__get__(value).values()))
        elif issubclass(kind, (staticmethod, classmethod)):
            pending.append(value.__func__)
        elif issubclass(kind, property):
            pending.extend((value.fget, value.fset, value.fdel))
    return found


_SUSPENDABLE_FLAGS = (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
                      | CO_ITERABLE_COROUTINE)


def _suspended_running(codes: list[types.CodeType]) -> list:
    """The suspended generators and coroutines running one of ``codes``. Only code of
    generator and coroutine functions is looked for: ``gc.get_referrers`` compares every
    object's references with each target, so fewer targets is faster."""
    codes = [code for code in codes if code.co_flags & _SUSPENDABLE_FLAGS]
    if not codes:
        return []
    wanted = {id(code) for code in codes}
    found = []
    thaw_start_objects([code.co_filename for code in codes])
    for obj in gc.get_referrers(*codes):
        if type(obj) in _SUSPENDABLE:
            frame = _suspended_frame(obj)
            if frame is not None and id(frame.f_code) in wanted:
                found.append(obj)
    return found


def _suspended_frame(obj):
    return getattr(obj, "gi_frame", None) or getattr(obj, "cr_frame", None) or getattr(
        obj, "ag_frame", None)


def _copies_by_plain(module: InstrumentedModule):
    """plain code -> (plain, copy), the copy being None where no probe is in its tree.
    Keys compare by value, which is how live code is matched to the fresh compile."""
    holding = module.copies_holding_probes()
    result: dict[types.CodeType, tuple] = {}
    for plain, copy in module.pairs:
        entry = (plain, copy if id(copy) in holding else None)
        previous = result.get(plain)
        if previous is not None and previous[1] is not entry[1]:
            # Two equal code objects (say, lambdas on one line) with different copies:
            # no way to tell which live function is which, so neither is swapped.
            result[plain] = (plain, None)
            continue
        result[plain] = entry
    return result


def _collect_infos(canonical, original, copy, module, infos: dict[int, CopyInfo]) -> None:
    """Register ``copy`` and its nested copies against the live originals they replace."""
    for live, instrumented in walk_pairs(original, copy):
        if id(instrumented) not in infos:
            infos[id(instrumented)] = CopyInfo.of(canonical, live, instrumented, module)


def _running_frames(suspended) -> list[types.FrameType]:
    frames = []
    current = get_ident()
    for ident, frame in sys._current_frames().items():
        if ident == current:
            frame = frame.f_back  # Not this function's own frame.
        while frame is not None:
            frames.append(frame)
            frame = frame.f_back
    for obj in suspended:
        frame = _suspended_frame(obj)
        if frame is not None:
            frames.append(frame)
    # gevent: a greenlet that waits keeps its frames on no thread's stack.
    for frame in waiting_greenlet_frames():
        while frame is not None:
            frames.append(frame)
            frame = frame.f_back
    return frames


def _stale_frames(canonical, module: InstrumentedModule, is_file, suspended,
                  current: tuple[CopyInfo, ...], registry: InstrumentationRegistry,
                  defined: set[types.CodeType]) -> list[types.FrameType]:
    """Frames of the file that run code without probes it should have: code whose copy
    now has probe lines of its own (the original, or a copy made for other probes), or
    code that may still define a function with probe lines that no live function runs
    yet (a module body that has not reached the ``def``: the function it makes would
    run the plain code). ``defined``: the original code of the file's live functions.
    A frame's code is read as its original through the registry, which knows every
    copy replaced since (retired), not only those this change replaced: a frame left
    on a copy two changes ago is as stale as one left on the last."""
    current_ids = {id(info.copy) for info in current}
    plain_with_lines = undefined_with_lines = None
    stale = []
    for frame in _running_frames(suspended):
        code = frame.f_code
        if id(code) in current_ids or not is_file(code.co_filename, canonical):
            continue
        if plain_with_lines is None:
            # Only now, with a frame of the file running: it needs the plain compile.
            with_lines = {id(copy) for copy, _ in module.sites}
            plain_with_lines = {plain: plain for plain, copy in module.pairs
                                if id(copy) in with_lines}
            undefined_with_lines = {plain: plain for plain in plain_with_lines
                                    if plain not in defined}
        original = registry.original_of(code)
        plain = plain_with_lines.get(original)
        if (plain is not None and same_code(original, plain)) or _defines_one_of(
                original, undefined_with_lines):
            stale.append(frame)
    return stale


def _defines_one_of(code: types.CodeType, wanted: dict) -> bool:
    """Whether code nested in ``code`` (at any depth) is one of ``wanted``."""
    if not wanted:
        return False
    pending = [const for const in code.co_consts if isinstance(const, CodeType)]
    while pending:
        nested = pending.pop()
        match = wanted.get(nested)
        if match is not None and same_code(nested, match):
            return True
        pending.extend(const for const in nested.co_consts if isinstance(const, CodeType))
    return False
