"""Line breakpoints run as probes in instrumented copies (docs/instrumentation.md).

``BreakpointProbes`` turns the breakpoint store's armed line breakpoints into each
file's ``{line: Probe}`` and applies them whenever they change: to the live functions,
to later imports (the finder) and to the main program's compile. The tracer reads the
registry to leave the probe lines to the probes; what the copies cannot take (refused
lines, whole files, frames already running old code) stays the tracer's, as before.

Probe ids are not breakpoint ids. Every time a file's probes are applied, its lines
get fresh ids, and the old ones are forgotten once the new copies are in: a frame still
running an old copy (say, a loop at module level) calls ids nobody knows any more, and
the tracer, which sees that copy as plain code again, stops there instead. Ids are
unique in the process, across debuggers: a fork child's session never takes an id its
parent's copies still call.

``DAPPER_INSTRUMENT=0`` in the launcher's environment leaves every breakpoint to the
tracer (``enabled``, switches.py).
"""

from __future__ import annotations

import sys

from ..common.errors import report_internal_error
from ..common.interpreter_types import CodeType
from ..common.native import RLock, allocate_lock
from ..common.records import Record
from . import Instrumentation, Probe, route_probes_to
from .probes import LOG_NAME
from .registry import InstrumentationRegistry

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable, Mapping

    from .importer import InstrumentedCallback
    from .probes import ProbeHandler

_last_probe_id = 0
_probe_ids_lock = allocate_lock()
_shared: Instrumentation | None = None
_shared_lock = allocate_lock()


def _new_probe_ids(lines) -> dict[int, int]:
    """A new probe id for each line, never given before in this process."""
    global _last_probe_id
    with _probe_ids_lock:
        first = _last_probe_id + 1
        _last_probe_id += len(lines)
    return {line: probe_id for probe_id, line in enumerate(lines, first)}


def shared_instrumentation() -> Instrumentation:
    """The process's one ``Instrumentation``: live functions and the import finder are
    process-wide, and a fork child's session takes over the copies its parent made."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Instrumentation()
        return _shared


class ProbeTarget(Record, frozen=True):
    """What a probe id stands for: the breakpoints of one line."""

    canonical: str
    line: int
    breakpoints: tuple
    # The one breakpoint's condition is compiled into the copy: the probe runs only
    # when it held (or raised). Otherwise (no condition, or several breakpoints on the
    # line) the handler evaluates the conditions itself.
    condition_compiled: bool
    # For a log point compiled in (``log_call``): the key its copies pass to
    # ``__dapper_log__``. The probe then runs only when rendering the line raised.
    log_key: str | None = None


def _probe_condition(breakpoints: tuple) -> str | None:
    """The condition to compile in: the breakpoint's own when it is alone on its line,
    or the call that writes its line for a log point without a condition."""
    if len(breakpoints) != 1:
        return None
    breakpoint = breakpoints[0]
    if breakpoint.condition is not None:
        return breakpoint.condition_text
    call = log_call(breakpoint)
    return call[1] if call is not None else None


# Log calls checked already: text -> whether it can be compiled in (transform.py's rules
# for conditions: no lambda, comprehension, yield, await or :=).
_log_calls_accepted: dict[str, bool] = {}


def log_call(breakpoint) -> tuple[str, str] | None:
    """(key, condition text) of a log point that can be compiled into copies: the
    condition ``__dapper_log__(key, <line>)`` renders its line in the user's frame and
    is always false. The key names the file, the line and the message, so that a frame
    still running a copy made for an earlier message is told apart (its lines are the
    tracer's, instrumentation/live.py)."""
    template = getattr(breakpoint, "log_template", None)
    if template is None or template.format_text is None:
        return None
    key = f"{breakpoint.canonical}:{breakpoint.line}:{template.format_text}"
    text = f"{LOG_NAME}({key!r}, {template.format_text})"
    accepted = _log_calls_accepted.get(text)
    if accepted is None:
        from .transform import parse_condition

        accepted = _log_calls_accepted[text] = parse_condition(text)[1] is None
    return (key, text) if accepted else None


class BreakpointProbes:
    """One per debugger; inactive (every breakpoint the tracer's) until ``activate``."""

    def __init__(self, store) -> None:
        self._store = store
        self._lock = RLock()
        self.instrumentation: Instrumentation | None = None
        # probe id -> target, read by the probe handler without a lock: replaced whole.
        self.targets: dict[int, ProbeTarget] = {}
        # log key -> target of the log points compiled in (``log_call``), likewise.
        self.log_targets: dict[str, ProbeTarget] = {}
        # canonical -> ({line: compiled condition}, {line: probe id}) as last applied.
        self._applied: dict[str, tuple[dict[int, str | None], dict[int, int]]] = {}
        # canonical -> {line: reason}: probes the copies could not take (the tracer
        # watches those lines itself). For diagnostics and tests.
        self.refused: dict[str, dict[int, str]] = {}
        # (canonical, applied) the main program was compiled with (compile_program).
        self._program: tuple[str, object] | None = None
        # canonical -> whether frames were left running code without the file's current
        # probes when they were last applied (the tracer watches those).
        self._stale: dict[str, bool] = {}
        # Files whose code was run from a compile of someone else's (a loader other
        # than the finder, such as pytest's, or a tool that execs a script, such as
        # cProfile or coverage): that code has no probes, so the tracer watches it.
        self._foreign: set[str] = set()

    @property
    def lines_need_tracing(self) -> bool:
        """Whether some armed breakpoint line is the tracer's alone: not active yet,
        refused by the copies, in frames that run old code, or in code compiled by
        someone else."""
        return self.instrumentation is None or any(self.refused.values()) or any(
            self._stale.values()) or any(
            canonical in self._foreign for canonical in self._store.lines_by_file)

    def foreign_code(self, canonical: str, code: types.CodeType) -> bool:
        """``code``, of ``canonical`` (a file with breakpoints), is about to run: True
        (and from now on the file's lines are the tracer's too) when it is no copy of
        ours, that is when none of its code objects is one."""
        instrumentation = self.instrumentation
        if instrumentation is None or canonical in self._foreign:
            return False
        registry = instrumentation.registry
        pending = [code]
        while pending:
            current = pending.pop()
            if registry.known_copy(current) is not None:
                return False
            pending.extend(c for c in current.co_consts if isinstance(c, CodeType))
        self._foreign.add(canonical)
        return True

    def import_refused(self, canonical: str, refused: Mapping[int, str]) -> bool:
        """The finder's compile of ``canonical`` refused these probe lines (its source
        changed since they were set): True when that makes lines the tracer's that were
        not before."""
        with self._lock:
            before = self.refused.get(canonical, {})
            if refused.keys() <= before.keys():
                return False
            self.refused[canonical] = {**before, **refused}
            return True

    @property
    def registry(self) -> InstrumentationRegistry | None:
        instrumentation = self.instrumentation
        return instrumentation.registry if instrumentation is not None else None

    @property
    def active(self) -> bool:
        return self.instrumentation is not None

    def activate(self, handler: ProbeHandler,
                 on_instrumented: InstrumentedCallback | None,
                 restartable: bool = False,
                 log_handler: Callable[[str, str], None] | None = None
                 ) -> InstrumentationRegistry:
        """Install the probe function, the handlers and the import finder, and apply the
        breakpoints set so far; ``restartable``: the user's functions get restartable
        code from now on. Returns the registry the tracer must read."""
        with self._lock:
            instrumentation = shared_instrumentation()
            instrumentation.finder.on_instrumented = on_instrumented
            instrumentation.install()
            if restartable:
                instrumentation.make_restartable()
            route_probes_to(handler, log_handler)
            self.instrumentation = instrumentation
            self.sync()
            return instrumentation.registry

    def deactivate(self) -> None:
        """Undo ``activate`` once every probe is gone (``sync`` with no breakpoints): the
        import finder leaves, live functions keep their own code."""
        with self._lock:
            instrumentation, self.instrumentation = self.instrumentation, None
            if instrumentation is not None:
                instrumentation.uninstall()
            self._applied.clear()

    def sync(self) -> set[str]:
        """Apply the store's line breakpoints to every file whose probes changed (and
        point unchanged probes at the store's new breakpoint objects). Returns the files
        whose live functions were given copies: their code exists, so they are loaded."""
        found: set[str] = set()
        with self._lock:
            instrumentation = self.instrumentation
            if instrumentation is None:
                return found
            lines_by_file = self._store.lines_by_file
            # Files of an earlier session of this process (a fork child's parent) are
            # cleared too: their copies would call probes nobody knows.
            files = (set(lines_by_file) | set(self._applied)
                     | set(instrumentation.finder.files())
                     | set(instrumentation.registry.files()))
            for canonical in sorted(files):
                try:
                    if self._sync_file(instrumentation, canonical,
                                       lines_by_file.get(canonical) or {}):
                        found.add(canonical)
                except Exception:  # A bug must not fail setBreakpoints: the tracer has them.
                    report_internal_error(f"the breakpoints of {canonical}")
        return found

    def release_file(self, canonical: str) -> None:
        """Give the file's live functions their original code back and forget its
        probes (a hot reload is about to replace that code); the next ``sync`` applies
        the breakpoints afresh to whatever code the functions have then."""
        with self._lock:
            instrumentation = self.instrumentation
            if instrumentation is not None and canonical in instrumentation.registry.files():
                self._sync_file(instrumentation, canonical, {})

    def compile_program(self, source: bytes, filename: str):
        """The main program's code, compiled with its file's probes (for the launcher).
        A source that does not compile raises the plain compile's SyntaxError."""
        instrumentation = self.instrumentation
        if instrumentation is None:
            return compile(source, filename, "exec", dont_inherit=True)
        from ..common.paths import canonical_path

        canonical = canonical_path(filename)
        with self._lock:
            applied = self._applied.get(canonical)
            self._program = (canonical, applied)
            if not applied or not applied[0]:
                # No probe: the plain compile (instrumenting would import ast), or the
                # restartable one (from its cache, when it has been compiled before).
                code = instrumentation.restartable_program(source, filename)
                if code is None:
                    code = compile(source, filename, "exec", dont_inherit=True)
                return code
            probes = {line: Probe(applied[1][line], condition)
                      for line, condition in applied[0].items()}
            from .copies import InstrumentationError

            try:
                module = instrumentation.compile_program(source, filename, probes)
            except InstrumentationError:
                module = None
            if module is None:
                # Outside the except block: the SyntaxError must not be chained to it.
                return compile(source, filename, "exec", dont_inherit=True)
            if module.refused:
                self.refused[canonical] = dict(module.refused)
        return module.code

    def program_is_current(self, filename: str) -> bool:
        """Whether the main program's code from ``compile_program`` still has its file's
        probes (they change when a setBreakpoints comes before the program runs)."""
        from ..common.paths import canonical_path

        with self._lock:
            compiled = self._program
            canonical = canonical_path(filename)
            return (compiled is None or compiled[0] != canonical
                    or self._applied.get(canonical) == compiled[1])

    def _sync_file(self, instrumentation: Instrumentation, canonical: str,
                   per_line: Mapping[int, tuple]) -> bool:
        """Apply one file's probes; True when live functions of it now run copies."""
        wanted = {line: _probe_condition(breakpoints) for line, breakpoints in per_line.items()}
        previous = self._applied.get(canonical)
        if previous is not None and previous[0] == wanted and not self._stale.get(canonical):
            # Same probes: the copies stay; their ids now mean the new breakpoints.
            self._set_targets(canonical, per_line, previous[1], ())
            return False
        if previous is None and not wanted and canonical not in instrumentation.finder.files() \
                and canonical not in instrumentation.registry.files():
            return False
        ids = _new_probe_ids(wanted)
        # The new ids are known before any copy can call them ...
        self._set_targets(canonical, per_line, ids, ())
        result = instrumentation.set_probes(
            canonical, {line: Probe(ids[line], wanted[line]) for line in wanted})
        # ... and the old ones forgotten only once no function runs their copies.
        self._set_targets(canonical, {}, {}, previous[1].values() if previous else ())
        if wanted:
            self._applied[canonical] = (wanted, ids)
        else:
            self._applied.pop(canonical, None)
        if result.refused:
            self.refused[canonical] = dict(result.refused)
        else:
            self.refused.pop(canonical, None)
        # Frames left on old code, and code an import under way may still define from
        # the plain compile, matter only while the file has breakpoints at all. (A file
        # left stale is applied again at the next change, which may heal it.)
        self._stale[canonical] = (bool(result.stale_frames) or result.import_running) \
            and bool(wanted)
        for warning in result.warnings:
            print(f"dapper: {warning}", file=sys.stderr)
        return bool(wanted) and result.functions_swapped > 0

    def _set_targets(self, canonical: str, per_line: Mapping[int, tuple],
                     ids: Mapping[int, int], forget) -> None:
        targets = dict(self.targets)
        for probe_id in forget:
            targets.pop(probe_id, None)
        for line, probe_id in ids.items():
            breakpoints = per_line.get(line)
            if breakpoints:
                call = log_call(breakpoints[0]) if len(breakpoints) == 1 and \
                    breakpoints[0].condition is None else None
                targets[probe_id] = ProbeTarget(
                    canonical, line, breakpoints, _probe_condition(breakpoints) is not None,
                    call[0] if call is not None else None)
        self.targets = targets
        # The newest target of a key wins: later ids are later in the dict.
        self.log_targets = {target.log_key: target for target in targets.values()
                            if target.log_key is not None}
