"""Instrumented code copies for breakpoints: the program runs untraced, and the code
objects that hold breakpoints are replaced by copies in which each breakpoint's line
first runs a probe (with the breakpoint's condition compiled in). docs/instrumentation.md
has the design, its limits and how the tracer, the breakpoint store and the launcher
use it.

``Instrumentation`` ties the parts together: ``set_probes(path, {line: Probe})`` applies
a file's probes to live functions and to later imports of the file. The compiler (and
with it ``ast``) is imported when a file first gets probes, not with the package.
"""

from __future__ import annotations

from ..common.paths import canonical_path
from ..common.stop_imports import import_at_first_stop
from .importer import InstrumentingFinder, compile_program
from .imports import import_under_way
from .probes import (
    PROBE_NAME,
    Probe,
    install_probe_function,
    route_probes_to,
    set_probe_handler,
)
from .registry import CopyInfo, InstrumentationRegistry

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .compiler import InstrumentationError, InstrumentedModule, instrument_source
    from .importer import InstrumentedCallback
    from .live import LiveInstrumenter, SwapResult

_FROM_COMPILER = ("InstrumentationError", "InstrumentedModule", "instrument_source")
_FROM_LIVE = ("LiveInstrumenter", "SwapResult")
# The first probes may be applied on the IPC thread while threads are stopped. The live
# swapper, too, comes with a session's first probes: one without breakpoints (every child
# of a test suite) does not import it, nor what it imports.
import_at_first_stop(f"{__name__}.compiler", f"{__name__}.live")


def __getattr__(name: str):
    if name in _FROM_COMPILER:
        from . import compiler

        return getattr(compiler, name)
    if name in _FROM_LIVE:
        from . import live

        return getattr(live, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        from .importer import restartable_file

        self.finder.restartable = True
        restart_loading.enable(restartable_file, self.registry.add_restartable_file)

    def restartable_program(self, source: bytes, filename: str):
        """The main program's code with restartable functions (no probes), or None when
        it is not the user's code or does not compile."""
        from . import restart_loading
        from .importer import restartable_file

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


__all__ = [
    "PROBE_NAME", "CopyInfo", "Instrumentation", "InstrumentationError",
    "InstrumentationRegistry", "InstrumentedModule", "InstrumentingFinder",
    "LiveInstrumenter", "Probe", "SwapResult", "compile_program",
    "install_probe_function", "instrument_source", "route_probes_to", "set_probe_handler",
]
