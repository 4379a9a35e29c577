"""Giving another thread a trace function, or taking it away, on CPython 3.9-3.11.

``sys.settrace`` acts on the calling thread only, and ``threading.settrace`` only on
threads started afterwards. A thread that runs untraced (docs/instrumentation.md: the
settrace backend runs untraced while nothing needs tracing) is made to trace from the
IPC thread through ctypes: its ``PyThreadState`` is found by walking the interpreter's
thread states (``PyInterpreterState_ThreadHead`` / ``PyThreadState_Next``) and matching
``PyThreadState_GetFrame`` against ``sys._current_frames()``, and
``_PyEval_SetTrace(tstate, c_function, NULL)`` gives it a C trace function. That
function runs on the target thread at its next event, with the GIL, and hands over to
the Python tracer (``on_first_event``), so the rest is the ordinary settrace path.
``_PyEval_SetTrace(tstate, NULL, NULL)`` takes tracing away again.

``_PyEval_SetTrace`` is exported by 3.9-3.11 (and audits the call "in the context of the
current thread state, even if tstate is not the current thread state"); 3.12+ use
sys.monitoring and need none of this. ``RemoteTrace.available`` says whether it works
here (not on other implementations, nor when ctypes is missing).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

from ..common.errors import report_internal_error

try:
    import ctypes
except ImportError:  # Some embedded builds have no ctypes.
    ctypes = None  # type: ignore[assignment]


# How many snapshots of the threads' frames a change of tracing tries: each again for the
# threads that moved to another frame while the last was matched.
_ATTEMPTS = 4

# Py_tracefunc's ``what`` (PyTrace_CALL...) -> the settrace event name. C calls have no
# Python counterpart.
_EVENTS = {0: "call", 1: "exception", 2: "line", 3: "return", 7: "opcode"}


class RemoteTrace:
    def __init__(self, on_first_event: Callable[[object, str, object], None]) -> None:
        """``on_first_event(frame, event, arg)`` runs on a thread given tracing, at its
        first event (``frame`` is the frame that runs there, ``event`` its settrace name);
        it must install the Python tracer and deal with that event, which the Python
        tracer does not see."""
        self._on_first_event = on_first_event
        self.available = False
        self._api = None
        self._callback = None
        if ctypes is None or sys.implementation.name != "cpython" or not (
                (3, 9) <= sys.version_info < (3, 12)):
            return
        try:
            api = ctypes.pythonapi
            trace_function = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_int, ctypes.c_void_p)
            api.PyInterpreterState_Get.restype = ctypes.c_void_p
            api.PyInterpreterState_Get.argtypes = []
            api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
            api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
            api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
            api.PyThreadState_Next.restype = ctypes.c_void_p
            # A new reference to the frame (or NULL): read as an address, released
            # with Py_DecRef, so that no frame is kept alive.
            api.PyThreadState_GetFrame.argtypes = [ctypes.c_void_p]
            api.PyThreadState_GetFrame.restype = ctypes.c_void_p
            api.Py_DecRef.argtypes = [ctypes.c_void_p]
            api.Py_DecRef.restype = None
            # The function as a plain pointer, so that NULL (None) removes tracing.
            api._PyEval_SetTrace.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                             ctypes.c_void_p]
            api._PyEval_SetTrace.restype = ctypes.c_int
        except (AttributeError, OSError):
            return
        self._api = api
        # Kept for the life of the tracer: C holds the pointer.
        self._callback = trace_function(self._first_event)
        self._pointer = ctypes.cast(self._callback, ctypes.c_void_p).value
        self.available = True

    def _first_event(self, obj, frame, what, arg) -> int:
        try:
            event = _EVENTS.get(what)
            value = None
            if event == "return" and arg:
                value = ctypes.cast(arg, ctypes.py_object).value
            # A ctypes callback pushes no Python frame: frame 1 is the thread's own.
            self._on_first_event(sys._getframe(1), event, value)
        except Exception:  # Never an exception into the program's thread.
            report_internal_error("giving a thread tracing")
        return 0

    def give(self, idents: Iterable[int]) -> None:
        """Give each thread (by ident) the C trace function that hands over to the
        Python tracer at its next event."""
        self._set(idents, self._pointer)

    def take(self, idents: Iterable[int]) -> None:
        """Remove the trace function of each thread (by ident)."""
        self._set(idents, None)

    def _set(self, idents: Iterable[int], function) -> None:
        wanted = set(idents)
        if not self.available or not wanted:
            return
        api = self._api
        # Thread states are matched by their current frame: id() is a frame's address in
        # CPython, and the frames are held meanwhile, so that no other frame takes one's
        # address. The GIL may pass to another thread between any two calls below (it is
        # not kept from switching: a thread that got it then kept it for as long as the
        # switch interval, forever for one that computes), and a thread that ran may have
        # left the frame it was found in: it is looked for again, in a new snapshot.
        for _ in range(_ATTEMPTS):
            current = sys._current_frames()
            frames = {id(frame): ident for ident, frame in current.items() if ident in wanted}
            state = api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
            while state and frames:
                address = api.PyThreadState_GetFrame(state)
                if address:  # NULL: that thread runs no Python code now.
                    api.Py_DecRef(address)  # The frames dict above keeps it alive.
                    if frames.pop(address, None) is not None:
                        api._PyEval_SetTrace(state, function, None)
                state = api.PyThreadState_Next(state)
            if not frames:
                return
            wanted = set(frames.values())
