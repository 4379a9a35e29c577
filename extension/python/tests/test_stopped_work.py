"""Work on a stopped thread: results, errors, deadlines that interrupt Python code, and
native code that cannot be interrupted (the IPC side still answers in time)."""

from __future__ import annotations

import threading
import time

import pytest
from parked import parked_thread

from dapperdbg.common import debugger_threads
from dapperdbg.inspection import rendering, values
from dapperdbg.inspection.stopped_work import InspectionWorker, WorkRefused, WorkTimedOut


def test_work_runs_on_the_parked_thread():
    with parked_thread() as parked:
        ident = parked.run(threading.get_ident)
        assert ident != threading.get_ident()
        assert parked.run(lambda: parked.frame.f_locals["number"]) == 7


def test_errors_come_back_to_the_caller():
    with parked_thread() as parked, pytest.raises(ZeroDivisionError):
        parked.run(lambda: 1 / 0)


def spin():
    while True:
        pass


def test_a_python_loop_is_interrupted_and_the_thread_serves_again():
    with parked_thread() as parked:
        started = time.monotonic()
        with pytest.raises(WorkTimedOut, match="interrupted"):
            parked.run(spin, timeout=0.2)
        assert time.monotonic() - started < 2
        assert parked.run(lambda: "still serving") == "still serving"


def test_native_blocking_times_out_and_the_thread_refuses_work_until_free():
    with parked_thread() as parked:
        started = time.monotonic()
        with pytest.raises(WorkTimedOut, match="could not be interrupted"):
            parked.run(lambda: time.sleep(1.5), timeout=0.1)
        assert time.monotonic() - started < 1.2
        with pytest.raises(WorkRefused, match="busy"):
            parked.run(lambda: None)
        deadline = time.monotonic() + 5
        while True:
            try:
                assert parked.run(lambda: "free") == "free"
                break
            except WorkRefused:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def test_resumed_thread_refuses_work():
    with parked_thread() as parked:
        parked.signal.set()
        with pytest.raises(WorkRefused, match="no longer stopped"):
            parked.run(lambda: None)


class HangingRepr:
    def __repr__(self):
        spin()


class SlowLen(list):
    def __len__(self):
        spin()


def test_a_hanging_repr_is_shown_as_timed_out(monkeypatch):
    monkeypatch.setattr(values, "USER_CODE_SECONDS", 0.1)
    with parked_thread() as parked:
        texts = parked.run(lambda: [rendering.safe_repr(HangingRepr()),
                                    rendering.safe_repr([1, HangingRepr()]),
                                    rendering.safe_repr("fine")])
        assert texts == ["<repr timed out after 0.1 s>",
                         "[1, <repr timed out after 0.1 s>]", "'fine'"]


def test_without_a_work_item_rendering_runs_directly():
    assert rendering.safe_repr([1, 2]) == "[1, 2]"


def _debugger_thread_name() -> str | None:
    thread = debugger_threads.running.get(threading.get_ident())
    return thread.name if thread is not None else None


def test_the_inspection_worker_runs_work_and_replaces_itself_when_stuck():
    worker = InspectionWorker()
    # A debugger thread: hidden from the program, never stopped.
    first = worker.run(lambda: (_debugger_thread_name(), threading.get_ident()), 5)
    assert first[0] == "dapper.inspect"
    with pytest.raises(WorkTimedOut):
        worker.run(lambda: time.sleep(1.5), 0.1)
    # The stuck worker is abandoned: a fresh one answers at once.
    began = time.monotonic()
    second = worker.run(lambda: (_debugger_thread_name(), threading.get_ident()), 5)
    assert time.monotonic() - began < 1
    assert second[0] == "dapper.inspect" and second[1] != first[1]
    assert all(thread.name != "dapper.inspect" for thread in threading.enumerate())
