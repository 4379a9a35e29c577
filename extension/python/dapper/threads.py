"""Thread ids for DAP and the parking place of stopped threads.

DAP thread ids are small integers handed out in the order threads are first seen, the
main thread first. They are keyed by the ``threading.Thread`` object (weakly), not by
the OS ident, because idents are reused after a thread ends.
"""

from __future__ import annotations

import threading
import types
import weakref
from dataclasses import dataclass, field


class ThreadRegistry:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: weakref.WeakKeyDictionary[threading.Thread, int] = weakref.WeakKeyDictionary()
        self._threads: dict[int, weakref.ref[threading.Thread]] = {}
        self._next = 1
        self.id_for(threading.main_thread())

    def id_for(self, thread: threading.Thread) -> int:
        with self._lock:
            thread_id = self._ids.get(thread)
            if thread_id is None:
                thread_id = self._next
                self._next += 1
                self._ids[thread] = thread_id
                self._threads[thread_id] = weakref.ref(thread)
            return thread_id

    def thread(self, thread_id: int) -> threading.Thread | None:
        with self._lock:
            reference = self._threads.get(thread_id)
        return reference() if reference is not None else None

    def user_threads(self, ignored_idents: set[int]) -> list[tuple[int, threading.Thread]]:
        """(id, thread) for live threads that are not the debugger's, by id."""
        found = [
            (self.id_for(thread), thread)
            for thread in threading.enumerate()
            if thread.ident not in ignored_idents
        ]
        return sorted(found, key=lambda pair: pair[0])


@dataclass
class StoppedThread:
    """A thread blocked in the debugger until ``resume`` is set. A step it should take
    once released is registered with the tracer before ``resume`` is set."""

    thread_id: int
    ident: int
    frame: types.FrameType
    reason: str
    resume: threading.Event = field(default_factory=threading.Event)
