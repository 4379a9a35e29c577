"""A thread parked as the debugger parks a stopped thread: inside a function with known
locals, waiting on a ResumeSignal, so tests can hand it work as the IPC thread does."""

from __future__ import annotations

import contextlib
import sys
import threading

from dapperdbg.inspection.stopped_work import ResumeSignal, run_on_stopped_thread

MODULE_CONSTANT = "module level"


class Parked:
    def __init__(self) -> None:
        self.signal = ResumeSignal()
        self.ready = threading.Event()
        self.frame = None
        self.after: dict = {}

    def run(self, function, timeout: float = 5.0):
        return run_on_stopped_thread(self.signal, function, timeout)


def user_function(parked: Parked, argument):
    number = 7
    items = [1, 2, 3]
    text = "hi"
    captured = [number]

    def closure():
        return captured

    parked.frame = sys._getframe()
    parked.ready.set()
    parked.signal.wait()
    parked.after = {"number": number, "items": items, "text": text, "argument": argument,
                    "captured": closure()}


@contextlib.contextmanager
def parked_thread():
    parked = Parked()
    thread = threading.Thread(target=user_function, args=(parked, "arg"), daemon=True)
    thread.start()
    assert parked.ready.wait(5)
    try:
        yield parked
    finally:
        parked.signal.set()
        thread.join(5)
