"""Stepping, data-driven: each program in stepping_cases/ says in its header which requests
to send and where each should stop (the format: stepping_format.py). Every case runs on
this interpreter with both tracers; a failure shows the expected and seen stops side by
side. stepping_compare.py plays the same cases against debugpy."""

from __future__ import annotations

import queue
import shutil
import sys
import time

import pytest
from stepping_format import Player, case_names, load_case, table


class DebuggeeSession:
    """The debuggee itself, as the engine talks to it (conftest's harness)."""

    def __init__(self, launch, tmp_path, backend):
        self.launch = launch
        self.tmp_path = tmp_path
        self.backend = backend
        self.debuggee = None

    def begin(self, case):
        # The case runs from a copy, so that its __pycache__ stays out of the source tree.
        path = self.tmp_path / case.path.name
        shutil.copyfile(case.path, path)
        self.debuggee = self.launch("--program", path, tracer=self.backend)
        self.debuggee.configure(self.launch_configuration(case))
        self.debuggee.request("setBreakpoints", {
            "source": {"path": str(path)},
            "breakpoints": [{"line": b.line,
                             **({"condition": b.condition} if b.condition else {}),
                             **({"hitCondition": b.hit} if b.hit else {})}
                            for b in case.breakpoints]})
        if case.exception_filters:
            self.debuggee.request("setExceptionBreakpoints",
                                  {"filters": case.exception_filters})

    def launch_configuration(self, case) -> dict:
        return {"justMyCode": True}

    def request(self, command, arguments=None):
        response = self.debuggee.request_raw(command, arguments)
        if response["success"]:
            return True, response.get("body", {})
        return False, response.get("message")

    def next_outcome(self, timeout):
        debuggee = self.debuggee
        deadline = time.monotonic() + timeout
        while True:
            for event in debuggee.events:
                if event.get("event") in ("stopped", "dapper/exiting"):
                    debuggee.events.remove(event)
                    return self._outcome(event)
            try:
                message = debuggee.messages.get(
                    timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if message is None:
                # The connection closed: the program has ended.
                debuggee.messages.put(None)
                return "exit", debuggee.wait_exit()
            if message["type"] == "event":
                debuggee.events.append(message)
            else:
                debuggee.responses[message["request_seq"]] = message

    def _outcome(self, event):
        if event["event"] == "stopped":
            return "stopped", event["body"]
        return "exit", event["body"]["exitCode"]


@pytest.mark.parametrize("name", case_names())
def test_stepping_case(launch, tmp_path, backend, name):
    case = load_case(name, sys.version_info[:2], backend)
    session = DebuggeeSession(launch, tmp_path, backend)
    results = Player(case, session).play()
    failed = not all(ok for _, _, ok in results)
    if failed:
        pytest.fail(f"{name} ({backend}, Python {sys.version.split()[0]}): the stops differ\n"
                    + table(case, results)
                    + f"\nstderr of the program:\n{session.debuggee.stderr()[-2000:]}",
                    pytrace=False)
    if not results[-1][1] or results[-1][1]["kind"] != "exit":
        session.debuggee.kill()
