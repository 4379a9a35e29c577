"""Exception breakpoints of a session: the filters the client set, where each one stops
(``raised`` once per exception in the first user frame that sees it, ``userUnhandled``
where it leaves the user's code into a library, ``uncaught`` where an exception that
ends a thread or the program was raised, ``dapperdbg.post_mortem`` on request), and the
hooks through which uncaught exceptions reach it. The tracer reports raised and
unwinding exceptions through the ``Debugger`` (its host), which hands them here."""

from __future__ import annotations

from ..breakpoints.exception_filters import (
    DEFAULT_FILTERS,
    POST_MORTEM,
    RAISED,
    UNCAUGHT,
    USER_UNHANDLED,
    ExceptionFilters,
)
from ..breakpoints.exception_stops import ExceptionStop, innermost_frame
from ..common import program_threading
from ..common.library_code import is_library_canonical
from ..common.native import get_ident
from ..common.paths import is_debugger_path, is_runpy_path
from ..instrumentation.restarts import RestartFrame
from . import program

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from .parts import DebuggerParts


class ExceptionBreakpoints:
    def __init__(self, debugger: DebuggerParts) -> None:
        self._debugger = debugger
        self.filters: ExceptionFilters = DEFAULT_FILTERS
        # (thread ident, filter) -> the exception last stopped on for raised /
        # userUnhandled, so that one exception stops once however many frames it passes.
        self._reported: dict[tuple[int, str], BaseException] = {}
        # threading.excepthook before install_hooks, and the one it installed (once the
        # program imported threading); whether the hooks are wanted.
        self._hooks: tuple | None = None
        self._hooking = False

    def set_filters(self, filters: ExceptionFilters) -> None:
        self.filters = filters
        debugger = self._debugger
        debugger.tracer.set_watch_exceptions(filters.watches_raising)
        debugger.settle_tracing()

    def install_hooks(self) -> None:
        """Where uncaught exceptions end up: a thread's (threading.excepthook) and the
        program's (session/program.py). A thread's, once the program imports threading."""
        self._hooking = True
        program_threading.when_imported(self._hook_threads)
        program.uncaught_exception_hook = lambda error: self.uncaught(
            error, error.__traceback__)

    def _hook_threads(self, threading: types.ModuleType) -> None:
        if not self._hooking or self._hooks is not None:
            return
        original_hook = threading.excepthook

        def thread_excepthook(arguments) -> None:
            if arguments.exc_value is not None:
                self.uncaught(arguments.exc_value, arguments.exc_traceback)
            original_hook(arguments)

        threading.excepthook = thread_excepthook
        self._hooks = (threading, original_hook, thread_excepthook)

    def remove_hooks(self) -> None:
        self._hooking = False
        if self._hooks is not None:
            threading, original, installed = self._hooks
            if threading.excepthook is installed:
                threading.excepthook = original
            self._hooks = None
        program.uncaught_exception_hook = None

    def _may_stop(self, ident: int) -> bool:
        debugger = self._debugger
        return not (ident in debugger.busy or debugger.tracer.is_ignored_thread(ident)
                    or debugger.detached)

    def raised(self, frame: types.FrameType, exception: BaseException) -> None:
        """The ``raised`` filter: stop once per exception, in the first user frame that
        sees it (where it is raised, or where it comes back into the user's code)."""
        ident = get_ident()
        if (exception is program.launcher_end or type(exception) is RestartFrame
                or not self.filters.applies(RAISED, exception)
                or not self._may_stop(ident)
                or not self._debugger.tracer.is_user_frame(frame)
                or self._reported.get((ident, RAISED)) is exception):
            return
        self._reported[(ident, RAISED)] = exception
        self._debugger.stops.stop(
            frame, "exception",
            exception=ExceptionStop(exception, exception.__traceback__, RAISED))

    def unwound(self, frame: types.FrameType, exception: BaseException) -> None:
        """The ``userUnhandled`` filter: the exception leaves a frame of the user's code
        into library code."""
        ident = get_ident()
        caller = frame.f_back
        if (caller is None
                or exception is program.launcher_end or type(exception) is RestartFrame
                or not self.filters.applies(USER_UNHANDLED, exception)
                or not self._may_stop(ident)
                or self._reported.get((ident, USER_UNHANDLED)) is exception):
            return
        tracer = self._debugger.tracer
        canonical = tracer.canonical(frame.f_code.co_filename)
        if is_library_canonical(canonical) or not tracer.is_user_frame(frame):
            return
        # The debugger's own frames in between do not count: a template's line
        # (breakpoints/templates.py) is run by the debugger on behalf of the library
        # that renders it.
        while caller is not None and is_debugger_path(tracer.canonical(
                caller.f_code.co_filename)):
            caller = caller.f_back
        if caller is None or not is_library_canonical(
                tracer.canonical(caller.f_code.co_filename)):
            return
        self._reported[(ident, USER_UNHANDLED)] = exception
        self._debugger.stops.stop(
            frame, "exception",
            exception=ExceptionStop(exception, exception.__traceback__, USER_UNHANDLED))

    def uncaught(self, exception: BaseException, traceback) -> None:
        """An exception ends a thread or the program (called on that thread, before the
        traceback is printed): with the uncaught filter on, stop where it was raised."""
        if (isinstance(exception, SystemExit)
                or not self.filters.applies(UNCAUGHT, exception)
                or not self._may_stop(get_ident())
                or not self._debugger.tracer.installed):
            return
        self._stop_in_traceback(exception, traceback, UNCAUGHT)

    def post_mortem(self, exception: BaseException, traceback) -> None:
        """``dapperdbg.post_mortem``: stop the calling thread where ``exception`` was
        raised, with the stack of its traceback (and the callers of the frame that caught
        it) to inspect, whatever the filters say."""
        if (self._may_stop(get_ident()) and self._debugger.tracer.installed
                and type(exception) is not RestartFrame):
            self._stop_in_traceback(exception, traceback, POST_MORTEM)

    def _stop_in_traceback(self, exception: BaseException, traceback, kind: str) -> None:
        tracer = self._debugger.tracer
        paths = tracer.canonical

        def shown(frame) -> bool:
            canonical = paths(frame.f_code.co_filename)
            return not (is_debugger_path(canonical) or is_runpy_path(canonical))

        frame = innermost_frame(traceback, tracer.is_user_frame, shown)
        if frame is not None:
            self._debugger.stops.stop(frame, "exception",
                                      exception=ExceptionStop(exception, traceback, kind))
