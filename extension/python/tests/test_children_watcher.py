"""The exit watcher: a tracked child's end is reported once, without reaping it (the
program still gets its exit status), with pidfds and with polling."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from dapperdbg.children.watcher import THREAD_NAME, ExitWatcher
from dapperdbg.common import debugger_threads

MODES = ["polling"] + (["pidfd"] if hasattr(os, "pidfd_open") else [])


def without_pidfds(monkeypatch) -> None:
    """Makes this Python look like a build without ``os.pidfd_open``: subprocess, which
    3.15 has wait with a pidfd when it had one at import, is told so too."""
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    monkeypatch.setattr(subprocess, "_CAN_USE_PIDFD_OPEN", False, raising=False)


@pytest.mark.parametrize("mode", MODES)
def test_a_child_that_ends_is_reported_once_and_left_for_its_parent_to_reap(
        monkeypatch, mode):
    if mode == "polling":
        without_pidfds(monkeypatch)
    reported: list[tuple[int, str]] = []
    done = threading.Event()

    def on_exit(pid: int, name: str) -> None:
        reported.append((pid, name))
        done.set()

    watcher = ExitWatcher(on_exit)
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(7)"])
    watcher.track(child.pid, "seven")
    assert done.wait(10), "the exit was not noticed"
    # Reported, yet still the program's to reap, with its real status.
    assert child.wait(10) == 7
    watcher.exited(child.pid)  # A second notice (the hooks reaping) reports nothing more.
    watcher.flush()
    assert reported == [(child.pid, "seven")]


@pytest.mark.parametrize("mode", MODES)
def test_flush_returns_only_after_a_report_the_watcher_thread_is_making(monkeypatch, mode):
    # The race CI once lost: the watcher thread had taken a child off its table but not yet
    # reported it when flush() looked, so flush() skipped it and returned before the report.
    if mode == "polling":
        without_pidfds(monkeypatch)
    reported: list[int] = []
    reporting = threading.Event()

    def on_exit(pid: int, name: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            reporting.set()
            threading.Event().wait(0.3)  # A slow report on the watcher thread.
        reported.append(pid)

    watcher = ExitWatcher(on_exit)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    watcher.track(child.pid, "quick")
    assert reporting.wait(10), "the watcher thread did not notice the exit"
    watcher.flush()
    assert reported == [child.pid]
    child.wait(10)


def test_flush_reports_ended_children_on_the_calling_thread():
    reported: list[int] = []
    watcher = ExitWatcher(lambda pid, name: reported.append(pid))
    children = [subprocess.Popen([sys.executable, "-c", "pass"]) for _ in range(3)]
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        for child in children:
            watcher.track(child.pid, "quick")
            child.wait(10)
        watcher.track(running.pid, "slow")
        watcher.flush()
        assert sorted(reported) == sorted(child.pid for child in children)
    finally:
        running.kill()
        running.wait()


@pytest.mark.parametrize("mode", MODES)
def test_the_watcher_thread_ends_with_its_last_child_and_comes_back_for_the_next(
        monkeypatch, mode):
    # Test suites count the process's threads around each test (CPython's
    # threading_cleanup reads _thread._count(), which counts the debugger's threads too): a
    # test that started a child must not leave a debugger thread behind.
    if mode == "polling":
        without_pidfds(monkeypatch)
    reported: list[int] = []
    done = threading.Semaphore(0)

    def on_exit(pid: int, name: str) -> None:
        reported.append(pid)
        done.release()

    watcher = ExitWatcher(on_exit)
    for _ in range(2):
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        watcher.track(child.pid, "quick")
        assert done.acquire(timeout=10), "the exit was not noticed"
        child.wait(10)
        deadline = time.monotonic() + 5
        while any(thread.name == THREAD_NAME for thread in debugger_threads.running.values()):
            assert time.monotonic() < deadline, "the watcher thread outlived its children"
            time.sleep(0.01)
    assert len(reported) == 2
