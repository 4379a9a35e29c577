"""The threads stopped in the debugger: stopping one (and with it every other user
thread), showing them, and resuming them all.

A thread stops on its own stack (inside a tracer callback) and blocks until the IPC
thread resumes it. All threads stop together: when one thread stops, every other user
thread is asked to park on the next line of user code it runs (quietly: only the first
stop is announced, with ``allThreadsStopped: true``; a thread that reaches a breakpoint of
its own meanwhile stops there quietly too). A thread blocked outside Python code meanwhile
is shown where it is. Any resume (continue or a step) releases them all.
"""

from __future__ import annotations

import sys

from ..breakpoints.exception_stops import ExceptionStop
from ..common import program_threading
from ..common.debugger_threads import start_debugger_thread
from ..common.errors import RequestError
from ..common.native import get_ident, os_ident, sleep
from ..common.paths import is_debugger_path
from ..common.stop_imports import import_for_stops
from ..tracing import StepState
from ..tracing.steps import STEP_ENTRY, STEP_PARK, STEP_PAUSE, step_ends_here
from .threads import DEBUGGER_THREAD_PREFIX, StoppedThread

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import threading
    import types

    from .parts import DebuggerParts

# How long a paused thread may take to reach a line of Python code before it is
# announced stopped where it is (blocked outside Python code).
PAUSE_GRACE_SECONDS = 0.3


class Stops:
    """The stopped threads of one debugger, under the lock that stopping and resuming
    take (the debugger's, which its detach takes too)."""

    def __init__(self, debugger: DebuggerParts, lock) -> None:
        self._debugger = debugger
        self.lock = lock
        self._stopped: dict[int, StoppedThread] = {}
        # True from the first stop until the next resume: every thread is stopped.
        self._all_stopped = False
        # Thread ident -> the step it had when it was asked to park (restored on resume).
        self._parked_steps: dict[int, StepState | None] = {}

    def holds_threads(self) -> bool:
        """Whether a thread is stopped or every thread is to stop (with the lock held)."""
        return bool(self._stopped) or self._all_stopped

    def forget_parking(self) -> None:
        """Called with the lock held when the debugger detaches: nothing stays stopped
        and no thread is asked to park any more."""
        self._all_stopped = False
        self._parked_steps = {}

    def stop(self, frame: types.FrameType, reason: str, hit_ids: list[int] | None = None,
             exception: ExceptionStop | None = None, announce: bool = True,
             description: str | None = None, text: str | None = None,
             mid_line: bool = False) -> None:
        """Stop the calling thread in ``frame`` until a resume (and every other user
        thread with it, if it is the first); ``announce``: tell the client, unless it
        is a thread parking quietly; ``mid_line``: ``frame`` is where a call returned,
        its line not finished."""
        debugger = self._debugger
        ident = get_ident()
        # Busy first: what runs below (even constructors of library classes) must never
        # reach a breakpoint and stop this thread a second time.
        debugger.busy.add(ident)
        try:
            thread_id, greenlet = self.thread_here()
            stopped = StoppedThread(thread_id, ident, frame, reason, exception,
                                    mid_line=mid_line)
            stopped.greenlet = greenlet
            debugger.tracer.set_step(ident, None)
            body = {"reason": reason, "threadId": thread_id, "allThreadsStopped": True}
            if hit_ids:
                body["hitBreakpointIds"] = hit_ids
            if description is not None:
                body["description"] = description
            if text is not None:
                body["text"] = text
            if exception is not None:
                body.update(exception.stopped_fields())
            # A thread parking on the very line its own interrupted step was going to
            # end on: that step ends here once the threads run again.
            interrupted = None if announce else self._parked_steps.get(ident)
            if interrupted is not None and not step_ends_here(interrupted, frame):
                interrupted = None
            if announce:
                # What only a stopped session uses is imported by this thread, before
                # the stop is announced (common/stop_imports.py says why).
                import_for_stops()
                from . import hot_reload

                # Before the client hears of the stop (and the user edits a file).
                hot_reload.note_stop(debugger, ident, frame)
            if "asyncio.events" in sys.modules:
                # Which task stopped: only this thread can ask for its event loop.
                self._note_task(stopped, body)
            with self.lock:
                if debugger.detached or (not announce and not self._all_stopped):
                    # Detached, or a thread parking after everything was resumed.
                    return
                # Registered and announced under the lock that resuming takes, so that a
                # `continue` is never processed between the two (which would leave the
                # client believing a running thread is stopped).
                self._stopped[thread_id] = stopped
                if not self._all_stopped:
                    self._all_stopped = True
                    self._park_other_threads(ident)
                    # Only the stop that stops every thread is announced: a thread that
                    # reaches its own breakpoint meanwhile is shown stopped there.
                    if announce:
                        debugger.connection.send_event("stopped", body)
            stopped.resume.wait()
        finally:
            debugger.busy.discard(ident)
        if stopped.raise_on_resume is not None:
            # Out of the tracer's callback, into the program's frames. Not held in a local
            # of this frame, which the exception's traceback keeps: that would be a cycle,
            # and the exception must die as soon as the program lets go of it.
            raise _take_pending(stopped)
        if interrupted is not None and debugger.tracer.step_of(ident) is interrupted:
            # Resumed with its step given back (not a new one of its own): it ends now,
            # before the line runs, as it would have without the other thread's stop.
            self.stop(frame, "step")

    def _note_task(self, stopped: StoppedThread, body: dict) -> None:
        """A thread that stops while its asyncio event loop runs a task says which task
        in the stopped event (and is that task, when tasks are shown as threads)."""
        from ..inspection.async_tasks import current_task, running_loop, task_name

        stopped.loop = running_loop()
        task = current_task(stopped.loop)
        if task is None:
            return
        where = f"Task '{task_name(task)}'"
        description = body.get("description") or f"Paused on {body['reason']}"
        body["description"] = f"{description} in {where}"
        body.setdefault("text", where)
        if self._debugger.inspection.tasks_as_threads:
            body["threadId"] = self._debugger.threads.id_for_task(task)

    def _park_other_threads(self, stopping_ident: int) -> None:
        """Ask every other user thread to stop at its next line of user code. Called with
        the lock held, by the thread that stops first."""
        tracer = self._debugger.tracer
        running = sys._current_frames()
        for thread in program_threading.threads():
            # gevent's patching makes threads greenlets (parked with the thread that
            # runs them) and gives the main thread its main greenlet's ident.
            ident = os_ident(thread, running)
            if (ident is None or ident == stopping_ident or tracer.is_ignored_thread(ident)
                    or thread.name.startswith(DEBUGGER_THREAD_PREFIX)):
                continue
            previous = tracer.step_of(ident)
            # A pending pause is fulfilled by this stop; other steps go on after it.
            self._parked_steps[ident] = (
                None if previous is None or previous.kind in (STEP_PAUSE, STEP_PARK)
                else previous)
            tracer.set_step(ident, StepState(STEP_PARK))

    def _end_all_stopped(self) -> None:
        """Called with the lock held when every thread resumes: parking requests that
        were not reached yet are withdrawn and earlier steps restored."""
        self._all_stopped = False
        parked, self._parked_steps = self._parked_steps, {}
        for ident, previous in parked.items():
            current = self._debugger.tracer.step_of(ident)
            if current is None or current.kind == STEP_PARK:
                self._debugger.tracer.set_step(ident, previous)

    def stopped_thread(self, thread_id) -> StoppedThread:
        """The stopped thread ``thread_id``. While all threads are stopped, a thread that
        has not parked yet (it is blocked outside Python code) is given as it is now."""
        with self.lock:
            stopped = self._stopped.get(thread_id)
            all_stopped = self._all_stopped
        if stopped is not None:
            return stopped
        task = self._debugger.threads.task(thread_id)
        if task is not None:
            return self._running_task_thread(task)
        if "greenlet" in sys.modules:
            from .greenlet_threads import refuse_suspended

            refuse_suspended(self._debugger, thread_id)
        if all_stopped:
            thread = self._debugger.threads.thread(thread_id)
            ident = os_ident(thread) if thread is not None else None
            frame = sys._current_frames().get(ident) if ident is not None else None
            frame = self._outside_debugger(frame)
            if frame is not None and not self._debugger.tracer.is_ignored_thread(ident):
                running = StoppedThread(thread_id, ident, frame, "pause", running=True)
                running.resume.set()  # It cannot run work: it is not waiting.
                return running
        raise RequestError(f"Thread {thread_id!r} is not stopped")

    def suspended_greenlet(self, thread_id: int
                           ) -> tuple[types.FrameType, StoppedThread] | None:
        """gevent: for a greenlet that waits (or a thread whose main greenlet waits while
        another of its greenlets stopped), its innermost frame and the stopped thread
        that holds it; None for any other thread (session/greenlet_threads.py)."""
        if "greenlet" not in sys.modules:
            return None
        from .greenlet_threads import suspended_top

        return suspended_top(self._debugger, thread_id)

    def _running_task_thread(self, task) -> StoppedThread:
        """The stopped thread whose event loop runs ``task``: what a request naming a
        task as a thread acts on. A task that waits has no thread to act on."""
        from ..inspection.async_snapshot import AsyncSnapshot
        from ..inspection.async_tasks import current_task, task_name

        for stopped in self.stopped_threads():
            if stopped.loop is not None and current_task(stopped.loop) is task:
                return stopped
        state = AsyncSnapshot([]).state(task)[1]
        raise RequestError(
            f"Task '{task_name(task)}' is not running ({state}): only the task its event "
            f"loop runs can step; set a breakpoint in this one, or continue")

    def stopped_threads(self) -> list[StoppedThread]:
        """The threads stopped in the debugger now (none while the program runs)."""
        with self.lock:
            return list(self._stopped.values())

    def announce_stop(self, stopped: StoppedThread, reason: str) -> None:
        """Tell the client again that a thread that stays stopped is stopped (after a
        goto moved it): its frames and variables are fetched anew."""
        with self.lock:
            if self._stopped.get(stopped.thread_id) is not stopped:
                return
            self._debugger.forget_inspection()
            stopped.reason = reason
            self._debugger.connection.send_event("stopped", {
                "reason": reason, "threadId": stopped.thread_id, "allThreadsStopped": True})

    def _outside_debugger(self, frame):
        """Where a running thread is shown: caught inside the debugger (a tracer callback
        on its way to park), at the user's frame that called into it; under justMyCode,
        blocked in library code (a join, a lock, a queue), at the innermost user frame,
        as a thread stopped in user code is shown. A thread with no user frame at all is
        shown where it is."""
        tracer = self._debugger.tracer
        caller = frame
        while caller is not None and is_debugger_path(tracer.canonical(caller.f_code.co_filename)):
            caller = caller.f_back
        if caller is None:
            return frame
        if tracer.just_my_code:
            user = caller
            while user is not None and not tracer.is_user_frame(user):
                user = user.f_back
            if user is not None:
                return user
        return caller

    def _release_all(self) -> list[StoppedThread]:
        """Called with the lock held: every thread is to run again; the stopped ones,
        for the caller to wake once the lock is let go."""
        released = list(self._stopped.values())
        self._stopped.clear()
        self._debugger.forget_inspection()
        self._debugger.step_in_targets.clear()
        self._end_all_stopped()
        return released

    def resume_all(self) -> None:
        with self.lock:
            released = self._release_all()
        for stopped in released:
            stopped.resume.set()
        self._debugger.settle_tracing()

    def resume_with_step(self, stopped: StoppedThread, kind: str,
                         target: str | None = None) -> None:
        """Release every thread, ``stopped`` with a step to do (over, into, out; into
        one call of the line when ``target`` names it)."""
        with self.lock:
            if not stopped.running and self._stopped.get(stopped.thread_id) is not stopped:
                return  # Already released (continue, or the engine went away).
            released = self._release_all()
            step = StepState(kind, stopped.frame, target, stopped.frame.f_lineno,
                             greenlet=stopped.greenlet)
            self._debugger.tracer.set_step(stopped.ident, step)
        for thread in released:
            thread.resume.set()

    def thread_here(self) -> tuple[int, object]:
        """The DAP id of the calling thread, and the greenlet it runs when greenlets are
        threads (gevent: that greenlet is the thread the client sees stop), else None."""
        debugger = self._debugger
        if "greenlet" in sys.modules:
            from .greenlet_threads import greenlet_here, thread_id_here

            greenlet = greenlet_here(debugger)
            return thread_id_here(debugger, greenlet), greenlet
        return debugger.threads.id_for(program_threading.current_thread()), None

    def resume_raising(self, stopped: StoppedThread, exception: BaseException) -> bool:
        """Release every thread, ``stopped`` raising ``exception`` from where it stopped.
        False if it was released already."""
        with self.lock:
            if self._stopped.get(stopped.thread_id) is not stopped:
                return False
            released = self._release_all()
            stopped.raise_on_resume = exception
        for thread in released:
            thread.resume.set()
        return True

    def thread_to_pause(self, thread_id) -> int | None:
        """The ident of the running thread ``thread_id``; None if it is already stopped.
        Raises RequestError when there is no such thread."""
        with self.lock:
            if thread_id in self._stopped or self._all_stopped:
                return None
        if "greenlet" in sys.modules:
            from .greenlet_threads import pause_ident

            ident = pause_ident(self._debugger, thread_id)
            if ident is not None:
                return ident  # A greenlet: the thread that runs it.
        thread = self._debugger.threads.thread(thread_id)
        task = self._debugger.threads.task(thread_id) if thread is None else None
        if task is not None:
            thread = _thread_running_loop_of(task)
        ident = os_ident(thread) if thread is not None and thread.is_alive() else None
        if ident is None:
            raise RequestError(f"Thread {thread_id!r} does not exist")
        return ident

    def pause(self, thread_ident: int) -> None:
        """Stop the thread on the next line of user code it runs (reason "pause"). A
        thread that runs no Python code for a moment (blocked in a sleep, a read, a
        lock) is announced stopped where it is instead, so that pause always answers."""
        if self._debugger.detached:
            return
        self._debugger.tracer.set_step(thread_ident, StepState(STEP_PAUSE))
        start_debugger_thread("dapper.pause", self._pause_if_blocked, thread_ident)

    def _pause_if_blocked(self, thread_ident: int) -> None:
        debugger = self._debugger
        import_for_stops()
        sleep(PAUSE_GRACE_SECONDS)
        with self.lock:
            step = debugger.tracer.step_of(thread_ident)
            if debugger.detached or self._all_stopped or step is None or step.kind != STEP_PAUSE:
                return  # It stopped (or something else did) meanwhile.
            thread = next((t for t in program_threading.threads() if os_ident(t) == thread_ident),
                          None)
            if thread is None:
                return
            self._all_stopped = True
            # The paused thread itself parks, quietly, once it runs Python code again.
            self._park_other_threads(-1)
            debugger.connection.send_event("stopped", {
                "reason": "pause", "threadId": debugger.threads.id_for(thread),
                "allThreadsStopped": True})

    def request_entry_stop(self) -> None:
        """stopOnEntry: stop the calling (main) thread on the first line of user code."""
        self._debugger.tracer.set_step(get_ident(), StepState(STEP_ENTRY))


def _thread_running_loop_of(task) -> threading.Thread | None:
    """The thread that runs ``task``'s event loop (to pause a task shown as a thread)."""
    from ..inspection.async_tasks import loop_of_frames

    loop = getattr(task, "get_loop", lambda: None)()
    frames = sys._current_frames()
    return next((thread for thread in program_threading.threads()
                 if loop is not None and loop_of_frames(frames.get(thread.ident)) is loop),
                None)


def _take_pending(stopped: StoppedThread) -> BaseException:
    exception, stopped.raise_on_resume = stopped.raise_on_resume, None
    return exception  # type: ignore[return-value]
