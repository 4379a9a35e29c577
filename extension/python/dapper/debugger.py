"""The debugger's state inside the debuggee: configuration, breakpoints, the tracer,
and the threads stopped in it.

Threads stop on their own stack (inside a tracer callback) and block until the IPC
thread resumes them. Whatever happens to the connection, a stopped thread is released:
when the engine goes away, breakpoints are dropped and every thread runs on.
"""

from __future__ import annotations

import sys
import threading
import types

from .breakpoints import Breakpoint, BreakpointStore
from .inspection import Inspector
from .ipc import Connection
from .threads import StoppedThread, ThreadRegistry
from .tracing import StepState, choose_backend_name, create_tracer
from .tracing.base import STEP_ENTRY, STEP_PAUSE

_STOP_REASONS = {STEP_ENTRY: "entry", STEP_PAUSE: "pause"}


class Debugger:
    def __init__(self, connection: Connection, tracer_name: str | None = None) -> None:
        self.connection = connection
        self.store = BreakpointStore()
        self.threads = ThreadRegistry()
        self.tracer = create_tracer(choose_backend_name(tracer_name), self.store, self)
        self.inspector = Inspector(self.tracer._paths)
        self.client_arguments: dict = {}
        self.launch_configuration: dict = {}
        # Set by configurationDone, or by the connection dropping (then `detached`).
        self.configuration_done = threading.Event()
        self.no_debug = False
        # The DAPPER_* variables the launcher took out of os.environ, kept for the
        # child-process support to hand on.
        self.environment = None
        self._lock = threading.Lock()
        self._stopped: dict[int, StoppedThread] = {}
        self._detached = False
        # Threads currently inside the debugger (evaluating a condition, stopped): a
        # breakpoint reached from there is ignored rather than re-entered.
        self._busy: set[int] = set()

    # Configuration.

    def configure(self, client: dict, launch: dict) -> None:
        self.client_arguments = client
        self.launch_configuration = launch
        self.inspector.line_offset = 0 if client.get("linesStartAt1", True) else 1
        self.inspector.column_offset = 0 if client.get("columnsStartAt1", True) else 1
        if launch.get("noDebug"):
            self.no_debug = True

    def use_tracer(self, name: str) -> None:
        """Swap the (not yet installed) tracer for another backend."""
        old = self.tracer
        self.tracer = create_tracer(name, self.store, self)
        self.tracer._debugger_threads = old._debugger_threads
        self.inspector._paths = self.tracer._paths

    @property
    def line_offset(self) -> int:
        return self.inspector.line_offset

    @property
    def detached(self) -> bool:
        return self._detached

    def ignore_current_thread(self) -> None:
        self.tracer.ignore_thread(threading.get_ident())

    # Sending.

    def send_output(self, text: str, category: str = "console", **extra) -> None:
        body = {"category": category, "output": text}
        body.update(extra)
        self.connection.send_event("output", body)

    # The tracer's host interface.

    def breakpoints_reached(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        ident = threading.get_ident()
        if ident in self._busy or self.tracer.is_ignored_thread(ident) or self._detached:
            return False
        self._busy.add(ident)
        try:
            hit_ids = [bp.id for bp in breakpoints if self._breakpoint_says_stop(bp, frame)]
        finally:
            self._busy.discard(ident)
        if not hit_ids:
            return False
        self._stop(frame, "breakpoint", hit_ids)
        return True

    def _breakpoint_says_stop(self, breakpoint: Breakpoint, frame: types.FrameType) -> bool:
        if breakpoint.condition is not None:
            try:
                if not eval(breakpoint.condition, frame.f_globals, frame.f_locals):
                    return False
            except Exception as error:
                # Like a failing assertion, a broken condition stops so the user sees it.
                self.send_output(
                    f"Error evaluating the breakpoint condition at line "
                    f"{breakpoint.line - self.line_offset}: {type(error).__name__}: {error}\n",
                    category="important",
                )
                return True
        breakpoint.hits += 1
        if breakpoint.hit_condition is not None and not breakpoint.hit_condition.should_stop(
            breakpoint.hits
        ):
            return False
        if breakpoint.log_template is not None:
            text = breakpoint.log_template.render(frame.f_globals, frame.f_locals)
            self.send_output(
                text + "\n", source=breakpoint.source, line=breakpoint.line - self.line_offset
            )
            return False
        return True

    def step_ended(self, frame: types.FrameType, step: StepState) -> None:
        ident = threading.get_ident()
        if ident in self._busy or self.tracer.is_ignored_thread(ident) or self._detached:
            return
        self._stop(frame, _STOP_REASONS.get(step.kind, "step"))

    # Stopping and resuming.

    def _stop(self, frame: types.FrameType, reason: str, hit_ids: list[int] | None = None):
        ident = threading.get_ident()
        thread_id = self.threads.id_for(threading.current_thread())
        stopped = StoppedThread(thread_id, ident, frame, reason)
        self.tracer.set_step(ident, None)
        body = {"reason": reason, "threadId": thread_id, "allThreadsStopped": False}
        if hit_ids:
            body["hitBreakpointIds"] = hit_ids
        self._busy.add(ident)
        try:
            with self._lock:
                if self._detached:
                    return
                # Registered and announced under the lock that resuming takes, so that a
                # `continue` is never processed between the two (which would leave the
                # client believing a running thread is stopped).
                self._stopped[thread_id] = stopped
                self.connection.send_event("stopped", body)
            stopped.resume.wait()
        finally:
            self._busy.discard(ident)

    def stopped_thread(self, thread_id) -> StoppedThread:
        with self._lock:
            stopped = self._stopped.get(thread_id)
        if stopped is None:
            raise ValueError(f"Thread {thread_id!r} is not stopped")
        return stopped

    def resume_all(self) -> None:
        with self._lock:
            released = list(self._stopped.values())
            self._stopped.clear()
            self.inspector.clear()
        for stopped in released:
            stopped.resume.set()

    def resume_with_step(self, stopped: StoppedThread, kind: str) -> None:
        """Release one stopped thread with a step to do (over, into, out)."""
        with self._lock:
            if self._stopped.get(stopped.thread_id) is not stopped:
                return  # Already released (continue, or the engine went away).
            del self._stopped[stopped.thread_id]
            self.inspector.clear()
        self.tracer.set_step(stopped.ident, StepState(kind, stopped.frame))
        stopped.resume.set()

    def thread_to_pause(self, thread_id) -> int | None:
        """The ident of the running thread ``thread_id``; None if it is already stopped.
        Raises ValueError when there is no such thread."""
        with self._lock:
            if thread_id in self._stopped:
                return None
        thread = self.threads.thread(thread_id)
        if thread is None or not thread.is_alive() or thread.ident is None:
            raise ValueError(f"Thread {thread_id!r} does not exist")
        return thread.ident

    def pause(self, thread_ident: int) -> None:
        """Stop the thread on the next line of user code it runs (reason "pause")."""
        if not self._detached:
            self.tracer.set_step(thread_ident, StepState(STEP_PAUSE))

    def request_entry_stop(self) -> None:
        """stopOnEntry: stop the calling (main) thread on the first line of user code."""
        self.tracer.set_step(threading.get_ident(), StepState(STEP_ENTRY))

    def breakpoints_changed(self) -> None:
        self.tracer.breakpoints_changed()

    def detach(self) -> None:
        """The engine is gone: drop breakpoints and steps, release every thread, never
        stop again. The program runs on."""
        with self._lock:
            self._detached = True
        self.store.clear()
        self.tracer.cancel_steps()
        try:
            self.tracer.breakpoints_changed()
        except Exception as error:  # The program must keep running whatever happens.
            print(f"dapper: could not clear breakpoints: {error}", file=sys.stderr)
        self.resume_all()
        self.configuration_done.set()
