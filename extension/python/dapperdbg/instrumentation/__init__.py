"""Instrumented code copies for breakpoints: the program runs untraced, and the code
objects that hold breakpoints are replaced by copies in which each breakpoint's line
first runs a probe (with the breakpoint's condition compiled in). docs/instrumentation.md
has the design, its limits and how the tracer, the breakpoint store and the launcher
use it.

``Instrumentation`` (instrumentation.py) ties the parts together: ``set_probes(path,
{line: Probe})`` applies a file's probes to live functions and to later imports of the
file. The compiler (and with it ``ast``) is imported when a file first gets probes, not
with the package; and the names below are imported at their first use, so that what
loads the user's modules restartable (restart_loading.py) comes without the rest, as a
child without its debugger loads it (session/dormant.py).
"""

from __future__ import annotations

from ..common.stop_imports import import_at_first_stop

# The first probes may be applied on the IPC thread while threads are stopped. The live
# swapper, too, comes with a session's first probes: one without breakpoints (every child
# of a test suite) does not import it, nor what it imports.
import_at_first_stop(f"{__name__}.compiler", f"{__name__}.live")

# The package's names, by the module of it that has them.
_HOMES = {
    "Instrumentation": "instrumentation",
    "InstrumentingFinder": "importer", "compile_program": "importer",
    "PROBE_NAME": "probes", "Probe": "probes", "install_probe_function": "probes",
    "route_probes_to": "probes", "set_probe_handler": "probes",
    "CopyInfo": "registry", "InstrumentationRegistry": "registry",
    "InstrumentationError": "compiler", "InstrumentedModule": "compiler",
    "instrument_source": "compiler",
    "LiveInstrumenter": "live", "SwapResult": "live",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = __import__(f"{__name__}.{home}", fromlist=("_",))
    value = getattr(module, name)
    globals()[name] = value
    return value


__all__ = sorted(_HOMES)
