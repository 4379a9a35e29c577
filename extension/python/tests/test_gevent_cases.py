"""gevent, data-driven: each program in gevent_cases/ says in its header what to do and
what the threads, stacks and stops must be, in the asyncio cases' format
(async_format.py). Every case runs on this interpreter with both tracers, where gevent
is installed (requirements-test.txt installs its wheels where PyPI has them)."""

from __future__ import annotations

import importlib.util
import queue
import signal
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from async_format import case_names, load_case
from stepping_format import read_markers
from test_async_cases import play
from test_children_hooks import ChildListener, configure_child

from conftest import TIMEOUT

CASES_DIR = Path(__file__).resolve().parent / "gevent_cases"
GEVENT_MISSING = (
    None if importlib.util.find_spec("gevent") is not None
    else f"gevent is not installed for Python {sys.version.split()[0]}: requirements-test.txt "
         "installs gevent 26.9.0 only where PyPI has a wheel of it (Python 3.10 and later)")


@pytest.mark.skipif(GEVENT_MISSING is not None, reason=GEVENT_MISSING or "")
@pytest.mark.parametrize("name", case_names(CASES_DIR))
def test_gevent_case(launch, tmp_path, backend, name):
    play(launch, tmp_path, backend, load_case(name, sys.version_info[:2], backend, CASES_DIR))


def test_gunicorn_gevent_workers_are_child_sessions_whose_greenlets_stop(launch, backend):
    """``gunicorn -k gevent``: each worker (a fork of the arbiter, which monkey-patches
    itself) is a child session; a request's greenlet stops at a breakpoint in the view,
    where the worker's threads are its greenlets, and the response is what it is plain."""
    if GEVENT_MISSING is not None:
        pytest.skip(GEVENT_MISSING)
    app = CASES_DIR / "_gunicorn_app.py"
    view = read_markers(app.stem, app.read_text(encoding="utf-8").splitlines())["view"]
    port = free_port()
    listener = ChildListener()
    root = launch("--module", "gunicorn", "--worker-class", "gevent", "--workers", "2",
                  "--no-control-socket",
                  "--bind", f"127.0.0.1:{port}", f"{app.stem}:app", tracer=backend,
                  cwd=CASES_DIR)
    try:
        root.request("dapper/configure", {
            "client": {"linesStartAt1": True},
            "launch": {"subprocessAutoAttach": True, "justMyCode": True},
            "childListener": listener.address})
        root.request("configurationDone")
        workers = []
        for _ in range(2):
            worker = listener.accept()
            assert worker.next()["event"] == "dapper/sessionHello"
            configure_child(worker, {app: [view]})
            workers.append(worker)
        answer: dict = {}
        asking = threading.Thread(target=_get, args=(port, answer), daemon=True)
        asking.start()
        worker, stopped = _first_stop(workers)
        assert stopped["reason"] == "breakpoint"
        names = [thread["name"] for thread in worker.request("threads")["threads"]]
        assert names[0] == "MainThread", names
        thread = next(t for t in worker.request("threads")["threads"]
                      if t["id"] == stopped["threadId"])
        assert thread["name"].startswith("Greenlet '"), names
        top = worker.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"][0]
        assert (top["name"], top["line"]) == ("app", view)
        worker.request("continue", {"threadId": stopped["threadId"]})
        asking.join(TIMEOUT)
        assert answer == {"status": 200, "body": b"hello from a greenlet"}
        deadline = time.monotonic() + TIMEOUT
        while root.stdout().count("serving in") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        root.process.send_signal(signal.SIGTERM)
        assert root.wait_exit() == 0, root.stderr()
        assert root.stderr().count("Worker exiting") == 2, root.stderr()
    finally:
        listener.close()


def _get(port: int, answer: dict) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=TIMEOUT) as response:
        answer.update(status=response.status, body=response.read())


def _first_stop(workers: list) -> tuple:
    """The worker that stops first, and its stopped event's body."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for worker in workers:
            try:
                message = worker.messages.get(timeout=0.05)
            except queue.Empty:
                continue
            assert message is not None, "a worker closed its connection"
            if message.get("type") == "event" and message["event"] == "stopped":
                return worker, message["body"]
    raise AssertionError("no worker stopped at the breakpoint")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


LISTENING_PROGRAM = """\
from gevent import monkey
monkey.patch_all()
import sys, time, gevent; print("patched", flush=True)  # noqa: E401, E702
def tick(deadline):
    while time.monotonic() < deadline:  # the breakpoint's line, 5
        gevent.sleep(0.01)
gevent.joinall([gevent.spawn(tick, time.monotonic() + float(sys.argv[1]))])
"""


def test_a_monkey_patched_program_that_listens_takes_a_debugger_again_after_a_detach(
        tmp_path, backend, monkeypatch):
    """``python -m dapperdbg --listen``: the debugger's listener, started before the
    program monkey-patched, its readers and the stops work once it has (a debugger
    attaches, stops a greenlet, detaches; another attaches, and its breakpoint reaches
    the greenlet that waits)."""
    if GEVENT_MISSING is not None:
        pytest.skip(GEVENT_MISSING)
    from test_listen import Client, finish, start

    monkeypatch.setenv("DAPPER_TRACER", backend)
    process, port, program = start(tmp_path, seconds="30", text=LISTENING_PROGRAM)
    try:
        # Attached once the program has patched: gevent replaces ``_thread.get_ident``,
        # which the import system's locks ask, so a debugger thread importing while it
        # does may fail (gevent's rule: patch before any other thread runs).
        assert process.stdout.readline() == "patched\n"
        first = Client(port, process=process)
        first.attach(program)
        stopped = first.until(lambda m: m.get("event") == "stopped")["body"]
        names = {t["id"]: t["name"] for t in first.request("threads")["body"]["threads"]}
        assert names[stopped["threadId"]].startswith("Greenlet '"), names
        first.close()  # Detach: the stopped greenlet is released and the program runs on.
        time.sleep(0.3)
        assert process.poll() is None
        second = Client(port, process=process)
        second.attach(program)
        assert second.until(lambda m: m.get("event") == "stopped")["body"]["reason"] == "breakpoint"
        assert second.request("dapper/terminate", {"force": False})["success"]
        process.wait(timeout=TIMEOUT)
    finally:
        finish(process)
