"""``Instrumentation``: the registry the tracer reads, the live swapper and the import
finder of one debugger, kept in step (the package's docstring says what they do)."""

from __future__ import annotations

from ..common.paths import canonical_path
from .importer import InstrumentingFinder, compile_program
from .imports import import_under_way
from .registry import InstrumentationRegistry
from .user_files import restartable_file, restartable_source

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .copies import InstrumentedModule
    from .importer import InstrumentedCallback
    from .live import LiveInstrumenter, SwapResult
    from .probes import Probe


class Instrumentation:
    """One per debugger: the registry the tracer reads, the live swapper and the import
    finder, kept in step."""

    def __init__(self, on_instrumented: InstrumentedCallback | None = None) -> None:
        self.registry = InstrumentationRegistry()
        self._live: LiveInstrumenter | None = None
        self.finder = InstrumentingFinder(self.registry, on_instrumented)
        self._installed = False

    @property
    def live(self) -> LiveInstrumenter:
        """The swapper of live functions' code, made with the first probes."""
        if self._live is None:
            from .live import LiveInstrumenter

            self._live = LiveInstrumenter(self.registry)
        return self._live

    def install(self) -> None:
        """From now on, the finder is in ``sys.meta_path`` while any file has probes
        (from the first one on): a program that never gets a line breakpoint sees
        ``sys.meta_path`` as it is without the debugger (and builtins too: copies put
        the probe function there)."""
        self._installed = True
        self._place_finder(self.finder.files())

    def _place_finder(self, probes) -> None:
        if probes and self._installed:
            self.finder.install()

    def set_probes(self, path: str, probes: Mapping[int, Probe]) -> SwapResult:
        """Make ``path`` run exactly ``probes`` from now on: in live functions, and in
        the module if it is imported later. An empty mapping removes them all."""
        canonical = canonical_path(path)
        # The finder first: an import that looks the file up from now on compiles the
        # copy. One that looked it up before runs the plain code, unless the live swap
        # below finds its functions: ``import_running`` says when that may happen.
        self._place_finder(probes)
        self.finder.set_probes(canonical, probes)
        result = self.live.apply(path, probes, self.finder.import_restartable(canonical))
        if result.error:
            # Probes refused for the whole file (say, it changed since it was loaded)
            # are not compiled into a later import either: the tracer has them.
            self.finder.set_probes(canonical, {})
        elif probes:
            result.import_running = import_under_way(canonical)
        return result

    def compile_program(self, source: bytes | str, filename: str,
                        probes: Mapping[int, Probe]) -> InstrumentedModule:
        self._place_finder(probes)
        self.finder.set_probes(canonical_path(filename), probes)
        return compile_program(source, filename, probes, self.registry,
                               self.finder.restartable)

    def make_restartable(self) -> None:
        """From now on, the user's source files are compiled with restartable functions
        when imported (and the main program when compiled)."""
        from . import restart_loading

        self.finder.restartable = True
        restart_loading.enable(restartable_source, self.registry.add_restartable_file)

    def restartable_program(self, source: bytes, filename: str):
        """The main program's code with restartable functions (no probes), or None when
        it is not the user's code or does not compile."""
        from . import restart_loading

        canonical = canonical_path(filename)
        if not (self.finder.restartable and restartable_file(canonical)):
            return None
        return restart_loading.restartable_code(source, filename, canonical)

    def uninstall(self) -> None:
        """Restore every live function's original code and leave imports alone. The
        probe function stays in builtins: frames may still run copies."""
        from .probes import stop_hiding_from_dynamo

        stop_hiding_from_dynamo()
        self._installed = False
        if self.finder.restartable:
            from . import restart_loading

            self.finder.restartable = False
            restart_loading.disable()
        self.finder.uninstall()
        for canonical in self.finder.files():
            self.finder.set_probes(canonical, {})
        if self._live is not None:
            self._live.remove_all()
