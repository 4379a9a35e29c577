"""Loading code instrumented from the start: a ``sys.meta_path`` finder for modules
imported after their file got probes (and, with restartable functions on, for every
source file of the user's code), and the compile of the main program.

The finder sits just in front of ``PathFinder``. For a module whose last name part is
not the name of a file with probes it returns None at once (one set lookup), so the
import system goes on untouched. Otherwise it asks ``PathFinder`` for the spec, and if
the spec is a source file with probes, gives it a loader that compiles the source
instrumented and neither reads nor writes the ``.pyc`` (a cached file would be the
plain code, and the copy must never land in the cache).

With restartable functions on (restartable.py), a file with probes of the user's own code
(not the debugger's, the standard library's or site-packages') is compiled with them too;
the user's other modules are loaded restartable by restart_loading.py.
"""

from __future__ import annotations

import os
import sys

# importlib.machinery's, from the import system's own module: importing the importlib
# package costs every start.
from _frozen_importlib_external import PathFinder, SourceFileLoader

from ..common.paths import canonical_path, is_debugger_path
from .probes import Probe, install_probe_function
from .registry import CopyInfo, InstrumentationRegistry
from .restart_contract import install_restart_exception
from .user_files import compiling, compiling_now, restartable_file

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable, Mapping

    from .copies import InstrumentedModule

    # Called with (canonical path, result) whenever a file is compiled instrumented, so
    # the caller learns which probes went in and which lines the tracer must still watch.
    InstrumentedCallback = Callable[[str, InstrumentedModule], None]


def register_module(registry: InstrumentationRegistry, canonical: str,
                    module: InstrumentedModule) -> None:
    """Register the copies of a freshly compiled module. Their originals are the plain
    compile's code objects, which no function runs but which undoing swaps in: they
    are compiled only then (``CopyInfo.original``), not on the import's path."""
    infos = [CopyInfo.of(canonical, None, copy, module) for copy in module.holding_copies()]
    if infos:
        registry.add_to_file(canonical, tuple(infos))


def compile_program(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                    registry: InstrumentationRegistry,
                    restartable: bool = False) -> InstrumentedModule:
    """Compile the main program instrumented (for the launcher, instead of ``compile``).
    Raises InstrumentationError (a SyntaxError's text) if the source does not compile."""
    from .copy_cache import instrument_file

    canonical = canonical_path(filename)
    restartable = restartable and restartable_file(canonical)
    module = instrument_file(source, filename, probes, restartable=restartable)
    _loaded(registry, canonical, module)
    return module


def _loaded(registry: InstrumentationRegistry, canonical: str,
            module: InstrumentedModule) -> None:
    """What the code of a module compiled for its import (or the program) needs before
    it runs."""
    if module.restartable:
        install_restart_exception()
        registry.add_restartable_file(canonical)
    if module.accepted:
        install_probe_function()
        register_module(registry, canonical, module)


class InstrumentingLoader(SourceFileLoader):
    """A source loader whose code is the instrumented compile, never cached."""

    def __init__(self, fullname: str, path: str, finder: InstrumentingFinder,
                 restartable: bool = False) -> None:
        super().__init__(fullname, path)
        self._finder = finder
        self._restartable = restartable

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        canonical = canonical_path(path)
        probes = self._finder.probes_for(canonical)
        from .copies import InstrumentationError
        from .copy_cache import instrument_file

        try:
            module = compiling(instrument_file, source, path, probes,
                               restartable=self._restartable)
        except InstrumentationError:
            # The import must fail as it would without the debugger: with the
            # SyntaxError the plain compile raises.
            return self.source_to_code(source, path)
        except ImportError:
            # The compiler's own imports need this module (ast imports contextlib and
            # enum): its copies were kept when the session began, and are no longer
            # (another process's writes dropped them). It loads as compiled plain, and
            # the tracer takes its breakpoints, as for code compiled by someone else
            # (session/foreign_code.py).
            return self.source_to_code(source, path)
        _loaded(self._finder.registry, canonical, module)
        callback = self._finder.on_instrumented
        if callback is not None and probes:
            callback(canonical, module)
        return module.code


class InstrumentingFinder:
    """The ``sys.meta_path`` entry. Its probe table is replaced whole on every change,
    so ``find_spec`` reads it without a lock from any importing thread."""

    def __init__(self, registry: InstrumentationRegistry,
                 on_instrumented: InstrumentedCallback | None = None) -> None:
        self.registry = registry
        self.on_instrumented = on_instrumented
        self._probes: dict[str, dict[int, Probe]] = {}
        # Module name parts that may name a file with probes: a file's stem, and a
        # package's directory name for its __init__.py.
        self._names: frozenset[str] = frozenset()
        # Whether the user's files with probes are compiled with restartable functions.
        self.restartable = False

    def files(self) -> tuple[str, ...]:
        return tuple(self._probes)

    def probes_for(self, canonical: str) -> dict[int, Probe]:
        return self._probes.get(canonical, {})

    def set_probes(self, canonical: str, probes: Mapping[int, Probe]) -> None:
        table = dict(self._probes)
        if probes:
            table[canonical] = dict(probes)
        else:
            table.pop(canonical, None)
        names = set()
        for path in table:
            directory, base = os.path.split(path)
            stem = os.path.splitext(base)[0]
            names.add(os.path.basename(directory) if stem == "__init__" else stem)
        self._probes = table
        self._names = frozenset(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.rpartition(".")[2] not in self._names or compiling_now():
            return None
        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        if type(spec.loader) is not SourceFileLoader:
            return None
        canonical = canonical_path(spec.origin)
        if canonical not in self._probes or is_debugger_path(canonical):
            return None
        restartable = self.import_restartable(canonical)
        spec.loader = InstrumentingLoader(fullname, spec.origin, self, restartable)
        return spec

    def import_restartable(self, canonical: str) -> bool | None:
        """Whether an import of the file compiles it with restartable functions; None
        when the finder leaves the file to the import system (the debugger's own)."""
        if is_debugger_path(canonical):
            return None
        return self.restartable and restartable_file(canonical)

    def invalidate_caches(self) -> None:
        """Nothing cached here; importlib.invalidate_caches calls every finder's."""

    def install(self) -> None:
        """Put the finder just in front of PathFinder (idempotent, O(len(meta_path))).

        ``__future__`` is imported first, plain, where nothing has imported it (the start
        bundle's modules do not: common/start_bundle.py): an instrumented import runs the
        debugger's code while its module is half made, and the debugger's modules that
        this code imports say ``from __future__ import annotations``, which a half-made
        ``__future__`` (one with breakpoints) could not answer."""
        if any(entry is self for entry in sys.meta_path):
            return
        import __future__  # noqa: F401
        for position, entry in enumerate(sys.meta_path):
            if entry is PathFinder:
                sys.meta_path.insert(position, self)
                return
        sys.meta_path.append(self)

    def uninstall(self) -> None:
        for position, entry in enumerate(sys.meta_path):
            if entry is self:
                del sys.meta_path[position]
                return

