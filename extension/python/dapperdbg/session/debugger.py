"""The debugger's state inside the debuggee: configuration, breakpoints, the tracer
and what it reports (breakpoints reached, steps ended, exceptions), and the detach.

Whether a breakpoint reached stops (its condition, hit count and log message) is
session/breakpoint_hits.py's, the Debugger's base class; the threads stopped in it, and
stopping and resuming them together, are session/stops.py's; the exception filters and
where they stop, session/exception_breakpoints.py's. Whatever happens to the connection,
a stopped thread is released: when the engine goes away, breakpoints are dropped and
every thread runs on.
"""

from __future__ import annotations

import os
import sys

from ..breakpoints.exception_filters import ExceptionFilters
from ..breakpoints.store import BreakpointStore
from ..common import program_threading
from ..common.debugger_threads import hide_from_program, show_to_program
from ..common.errors import RequestError
from ..common.native import Event, allocate_lock, get_ident, made_once
from ..common.paths import PathCache
from ..inspection.settings import InspectionSettings
from ..instrumentation import breakpoint_probes, switches
from ..ipc.connection import Connection
from ..tracing import StepState, choose_backend_name, create_tracer
from ..tracing.fast_paths import copies_notice
from ..tracing.steps import STEP_ENTRY, STEP_PARK, STEP_PAUSE, STEP_RAISE, STEP_RESTART, AfterTask
from . import breakpoint_hook, program
from .breakpoint_hits import BreakpointHits
from .exception_breakpoints import ExceptionBreakpoints
from .foreign_code import ForeignCode
from .inheritance import Inherited
from .log_points import LogPoints
from .threads import (
    DEBUGGER_THREAD_PREFIX,
    ThreadRegistry,
    install_thread_events,
    uninstall_thread_events,
)

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import threading
    import types

    from .stops import Stops

_STOP_REASONS = {STEP_ENTRY: "entry", STEP_PAUSE: "pause", STEP_RESTART: "restart"}


class Debugger(BreakpointHits):
    def __init__(self, connection: Connection, tracer_name: str | None = None) -> None:
        self.connection = connection
        self.store = BreakpointStore()
        self.threads = ThreadRegistry()
        # One path cache for the tracer and the inspector.
        self.paths = PathCache()
        self.tracer = create_tracer(choose_backend_name(tracer_name), self.store, self,
                                    self.paths)
        # Line breakpoints as probes in instrumented copies, from
        # ``activate_instrumentation`` on (docs/instrumentation.md).
        self.probes = breakpoint_probes.BreakpointProbes(self.store)
        # Frames, scopes and variables: made at first use (``inspector``), since what
        # it imports costs every process that never stops (common/stop_imports.py).
        self._inspector = None
        # The stopped threads: made at the first stop or request about one (``stops``),
        # for the same reason. Stopping and resuming take ``stop_lock``, and so does a
        # detach, whether or not a thread ever stopped.
        self._stops: Stops | None = None
        self.stop_lock = allocate_lock()
        self._parts_lock = allocate_lock()
        # What dapper/configure says of showing frames and values, shared with it.
        self.inspection = InspectionSettings()
        self.client_arguments: dict = {}
        self.launch_configuration: dict = {}
        # Set by configurationDone, or by the connection dropping (then `detached`).
        self.configuration_done = Event()
        # Where the program runs already (an attach by process id), configurationDone is
        # answered once this is set: tracing has started, so the breakpoints and the
        # child processes apply from the moment the client hears the answer.
        self.tracing_ready: Event | None = None
        self.no_debug = False
        # Set by dapper/detach: the engine closes the connection on purpose next, and the
        # program runs on. A launched program whose connection closes without it takes
        # the engine for dead (session/lifecycle.py).
        self.detach_requested = False
        # The DAPPER_* variables the launcher took out of os.environ, kept for the
        # child-process support to hand on.
        self.environment = None
        self._detached = False
        self._main_thread_ended = False
        # Threads currently inside the debugger (evaluating a condition, stopped): a
        # breakpoint reached from there is ignored rather than re-entered.
        self.busy: set[int] = set()
        self.exceptions = ExceptionBreakpoints(self)
        self.log_points = LogPoints(self)
        self.foreign_code = ForeignCode(self)
        # stepInTargets ids -> (thread id, frame, callee name), valid until a resume.
        self.step_in_targets: dict[int, tuple[int, types.FrameType, str]] = {}
        # A child that runs on what it inherited, until its client's session is
        # configured (session/inheritance.py): what it inherited that the client has not
        # sent again.
        self.inherited: Inherited | None = None

    # Configuration.

    def configure(self, client: dict, launch: dict) -> None:
        self.client_arguments = client
        self.launch_configuration = launch
        self.inspection.line_offset = 0 if client.get("linesStartAt1", True) else 1
        self.inspection.column_offset = 0 if client.get("columnsStartAt1", True) else 1
        if launch.get("noDebug"):
            self.no_debug = True
        program_path = launch.get("program")
        if isinstance(program_path, str) and program_path:
            # The launch's own program runs at configurationDone: its breakpoints are
            # verified at once (breakpoints/loaded_files.py). An attach configuration has none; the
            # host that starts a program itself may call store.loaded.set_program.
            self.store.loaded.set_program(program_path)

        self.tracer.set_just_my_code(bool(launch.get("justMyCode", True)))
        self.tracer.watch_returns = launch.get("showReturnValue") is True

    def run_on_inheritance(self, requests: list[dict]) -> None:
        """dapper/inherit's ``requests`` are applied: the program runs, and the events
        for the client wait for its session's configurationDone."""
        self.inherited = Inherited(requests)
        self.connection.hold_events()
        self.configuration_done.set()

    def client_configured(self) -> None:
        """The client's session configured this child (its configurationDone is
        answered): the events held for it go out, and from now on as they come."""
        self.inherited = None
        self.connection.release_events()

    def use_tracer(self, name: str) -> None:
        """Swap the (not yet installed) tracer for another backend."""
        tracer = create_tracer(name, self.store, self, self.paths)
        tracer.adopt_settings(self.tracer)
        self.tracer = tracer

    def activate_instrumentation(self) -> bool:
        """Run line breakpoints as probes in instrumented copies from now on (called
        before the program is compiled and the tracer installed), unless
        DAPPER_INSTRUMENT=0. The main program's compile then goes through
        ``self.probes.compile_program``. Returns whether the copies are on."""
        variables = self.environment.variables if self.environment is not None else {}
        if not switches.enabled(variables):
            return False
        if self.store.lines_by_file and not self._copies_work():
            return False
        self.tracer.copies = self.probes.activate(
            self.probe_hit, self._file_instrumented,
            switches.restartable_enabled(variables), self.log_points.hit)
        program.compile_program_hook = self._compile_program
        program.program_is_current_hook = self.probes.program_is_current
        # The new copies' lines are the probes', and what they could not take is the
        # tracer's again.
        self.tracer.lines_need_tracing = self.probes.lines_need_tracing
        self.tracer.breakpoints_changed()
        self.foreign_code.watch()
        return True

    def _compile_program(self, source: bytes, filename: str) -> types.CodeType:
        """The main program's code, with its probes: its file is accounted for now."""
        code = self.probes.compile_program(source, filename)
        self.file_accounted_for()
        return code

    def _copies_work(self) -> bool:
        """Whether instrumented copies work on this Python (instrumentation/self_check.py),
        asked once line breakpoints need them: the check compiles a sample through ast,
        which a process without line breakpoints never imports. When they do not, the
        debug console says so (the caller turns them off for the session)."""
        from ..instrumentation.self_check import copies_unavailable

        unavailable = copies_unavailable()
        if unavailable is None:
            return True
        self.send_output(copies_notice(unavailable))
        return False

    def _stop_copies(self) -> None:
        """Leave every line breakpoint to the tracer from now on (no copy exists yet)."""
        self.probes.deactivate()
        self.tracer.copies = None
        program.compile_program_hook = None
        program.program_is_current_hook = None

    def module_compiled_elsewhere(self, canonical: str, code: types.CodeType) -> None:
        self.foreign_code.compiled_elsewhere(canonical, code)

    def set_exception_filters(self, filters: ExceptionFilters) -> None:
        self.exceptions.set_filters(filters)

    def tracing_started(self) -> None:
        """The tracer is installed and the program about to run: hook thread starts and
        exits, and the places where uncaught exceptions end up."""
        install_thread_events(self._thread_started, self._thread_exited)
        hide_from_program()
        self.exceptions.install_hooks()
        breakpoint_hook.install(self)

    def _thread_started(self, thread: threading.Thread) -> None:
        if not self._detached:
            self.connection.send_event(
                "thread", {"reason": "started", "threadId": self.threads.id_for(thread)})

    def _thread_exited(self, thread: threading.Thread) -> None:
        if not self._detached:
            self.connection.send_event(
                "thread", {"reason": "exited", "threadId": self.threads.id_for(thread)})
        if thread is program_threading.main_thread():
            # Only in a child forked by a thread other than the main one, where that
            # thread is the main thread: its end is the process's once no other thread
            # runs.
            self._main_thread_ended = True
        if self._main_thread_ended and not any(
                other.is_alive() and not other.name.startswith(DEBUGGER_THREAD_PREFIX)
                for other in program_threading.threads() if other is not thread):
            # Plain, the process ends now, with status 0 and no exit handlers (the last
            # thread ended): the debugger's own threads must not keep it alive.
            os._exit(0)

    @property
    def stops(self) -> Stops:
        """The stopped threads (session/stops.py), made at their first use."""
        stops = self._stops
        if stops is None:
            stops = made_once(self, "_stops", self._parts_lock, self._make_stops)
        return stops

    def _make_stops(self) -> Stops:
        from .stops import Stops

        return Stops(self, self.stop_lock)

    @property
    def inspector(self):
        """The inspector (inspection/inspector.py), made at its first use."""
        inspector = self._inspector
        if inspector is None:
            inspector = made_once(self, "_inspector", self._parts_lock, self._make_inspector)
        return inspector

    def _make_inspector(self):
        from ..inspection.inspector import Inspector

        return Inspector(self.paths, self.inspection)

    def forget_inspection(self) -> None:
        """Frame ids and variable references end with a resume (when the inspector was
        never made, there are none: it is not made for this)."""
        if self._inspector is not None:
            self._inspector.clear()

    @property
    def line_offset(self) -> int:
        return self.inspection.line_offset

    @property
    def detached(self) -> bool:
        return self._detached

    def user_threads(self) -> list[tuple[int, threading.Thread]]:
        """(DAP id, thread) for the live threads that are not the debugger's, by id."""
        return self.threads.user_threads(self.tracer.is_ignored_thread)

    # Sending.

    def send_output(self, text: str, category: str = "console", **extra) -> None:
        body = {"category": category, "output": text}
        body.update(extra)
        self.connection.send_event("output", body)

    # The tracer's host interface (breakpoints reached: session/breakpoint_hits.py).

    def step_left_function(self, frame: types.FrameType, value) -> None:
        """A step left ``frame``'s function, which returned ``value``: the stop the step
        ends in shows it as ``(return) name`` when showReturnValue is on."""
        thread_id = self.stops.thread_here()[0]
        self.inspector.record_return_value(thread_id, frame.f_code, value)

    def task_coroutine_left(self, frame: types.FrameType) -> AfterTask | None:
        if "asyncio.tasks" not in sys.modules:
            return None
        from ..inspection.async_snapshot import awaiting_frame
        from ..inspection.async_tasks import awaited_by_loop, task_of_returning_coroutine

        task = task_of_returning_coroutine(frame)
        if task is None or awaited_by_loop(task):
            return None
        return AfterTask(awaiting_frame(task, self.tracer.is_user_frame))

    def step_ended(self, frame: types.FrameType, step: StepState,
                   mid_line: bool = False) -> None:
        ident = get_ident()
        if ident in self.busy or self.tracer.is_ignored_thread(ident) or self._detached:
            return
        if step.kind == STEP_PARK:
            self.stops.stop(frame, "pause", announce=False)
            return
        if step.kind == STEP_RAISE:
            raise step.raises()  # Out of the tracer's callback, into the program.
        self.stops.stop(frame, _STOP_REASONS.get(step.kind, "step"), mid_line=mid_line)

    # Exception breakpoints (the tracer's host: session/exception_breakpoints.py).

    def exception_raised(self, frame: types.FrameType, exception: BaseException) -> None:
        self.exceptions.raised(frame, exception)

    def exception_unwound(self, frame: types.FrameType, exception: BaseException) -> None:
        self.exceptions.unwound(frame, exception)

    def post_mortem(self, exception: BaseException, traceback) -> None:
        self.exceptions.post_mortem(exception, traceback)

    def restart_frame(self, stopped, frame: types.FrameType):
        """Plan restarting ``frame`` of the stopped thread with its function's current
        code (session/frame_restart.py): the notes to tell the user, and what to call
        once the response is out. Raises RequestError."""
        from . import frame_restart

        name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
        try:
            plan = frame_restart.restart(self, stopped, frame)
        except frame_restart.Refusal as refusal:
            raise RequestError(f"Cannot restart {name}: {refusal}") from None
        return plan.notes, plan.go

    def restart_refusal(self, frame: types.FrameType) -> str | None:
        """Why ``frame`` cannot be restarted with its function's current code."""
        from . import frame_restart

        return frame_restart.refusal_reason(frame)

    def hot_reload(self, path: str, new_source: str | None, while_running: bool) -> dict:
        """Reload a loaded file in place; the result body (session/hot_reload.py)."""
        from . import hot_reload

        return hot_reload.reload(self, path, new_source, while_running)

    def breakpoints_changed(self) -> None:
        if self.probes.active and self.store.lines_by_file and not self._copies_work():
            self._stop_copies()
        # Probes first: the tracer's verdicts read which lines the new copies handle.
        swapped = self.probes.sync()
        # A file imported while its breakpoints were being set is verified now: the
        # swap gave its functions probes, which may run before any announcement.
        self.store.verify_loaded(swapped, self.announce_verified)
        self.tracer.lines_need_tracing = self.probes.lines_need_tracing
        self.tracer.breakpoints_changed()
        self.foreign_code.watch()
        self.settle_tracing()

    def settle_tracing(self) -> None:
        """Let the tracer stop tracing if nothing needs it: never while a thread is
        stopped, since it sits in a trace event, where a goto may still jump."""
        with self.stop_lock:  # A thread registers its stop under this lock.
            stops = self._stops
            if stops is None or not stops.holds_threads():
                self.tracer.settle_tracing()

    def _end_stops(self) -> None:
        """Never stop again (the lock makes a thread that is stopping see it), and let go
        of every thread that is stopped or parking."""
        with self.stop_lock:
            self._detached = True
            if self._stops is not None:
                self._stops.forget_parking()

    def _resume_stopped(self) -> None:
        if self._stops is not None:
            self._stops.resume_all()

    def detach(self) -> None:
        """The engine is gone: drop breakpoints and steps, release every thread, never
        stop again. The program runs on."""
        self._end_stops()
        self.store.clear()
        self.tracer.cancel_steps()
        try:
            self.probes.sync()  # No breakpoints left: live functions get their code back.
            self.tracer.lines_need_tracing = self.probes.lines_need_tracing
            self.tracer.breakpoints_changed()
            self.foreign_code.watch()  # Nothing left to watch for: its audit hook goes.
        except Exception as error:  # The program must keep running whatever happens.
            print(f"dapper: could not clear breakpoints: {error}", file=sys.stderr)
        self._resume_stopped()
        self.configuration_done.set()

    def end_of_process(self) -> None:
        """The process ends (its last exit handler): as ``detach``, but without listing
        the threads or taking the tracer out, which an audit hook of the program's would
        see: the tracer is silenced, and live functions keep their probes, which do
        nothing once detached."""
        self._end_stops()
        self.tracer.silence()
        self.store.clear()
        self.tracer.cancel_steps()
        self._resume_stopped()
        self.configuration_done.set()

    def remove_from_process(self) -> None:
        """Detach and take out of the process everything the session put in (a detach
        from a process attached to by its id, which runs on exactly as before): the
        tracer, the instrumented copies and their import finder, the thread, exception
        and ``breakpoint()`` hooks, and the output tees."""
        self.detach()
        for step in (self.tracer.uninstall, self.probes.deactivate, uninstall_thread_events,
                     program_threading.forget, show_to_program, breakpoint_hook.uninstall,
                     self._remove_hooks):
            try:
                step()
            except Exception as error:  # The program must keep running whatever happens.
                print(f"dapper: could not remove the debugger: {error!r}", file=sys.stderr)
        output = self.inspection.output
        if output is not None:
            output.uninstall()

    def _remove_hooks(self) -> None:
        self.exceptions.remove_hooks()
        program.compile_program_hook = None
        program.program_is_current_hook = None

    def attach(self) -> None:
        """A debugger attached to a listening program (python -m dapperdbg --listen) and
        finished configuring: stops are allowed again until the next ``detach``."""
        with self.stop_lock:
            self._detached = False
            self.detach_requested = False

    @property
    def tracer_name(self) -> str:
        return self.tracer.name

    def leave_fork_child(self) -> None:
        """In a fork child that becomes a session of its own (children/fork.py): the
        tracer copied from the parent goes. Its locks may be held by a thread of the
        parent that is not here, so they are made anew first."""
        self.tracer.after_fork_in_child()
        try:
            self.tracer.uninstall()
        except Exception as error:
            print(f"dapper: fork child could not stop the parent's tracer: {error}",
                  file=sys.stderr)

    def abandon_after_fork(self) -> None:
        """In a fork child: this is the parent's debugger, copied. It never stops again
        nor writes on the parent's connection (only this process's descriptor closes).
        Without the debugger's lock: another thread of the parent may have held it at
        the fork, and that thread does not exist here to release it."""
        self._detached = True
        self.connection.abandon_after_fork()

