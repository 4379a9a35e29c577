"""asyncio, data-driven: each program in async_cases/ says in its header what to do and
what the call stacks, tasks and stops must be (the format: async_format.py). Every case
runs on this interpreter with both tracers; docs/async.md describes what is checked."""

from __future__ import annotations

import sys

import pytest
from async_format import AsyncPlayer, case_names, load_case, table
from test_stepping_cases import DebuggeeSession


class AsyncSession(DebuggeeSession):
    """The debuggee with the case's launch options, keeping the last stop's
    description."""

    last_description = None

    def launch_configuration(self, case) -> dict:
        return {"justMyCode": True, **case.options}

    def _outcome(self, event):
        if event["event"] == "stopped":
            self.last_description = event["body"].get("description")
        return super()._outcome(event)


@pytest.mark.parametrize("name", case_names())
def test_async_case(launch, tmp_path, backend, name):
    play(launch, tmp_path, backend, load_case(name, sys.version_info[:2], backend))


def play(launch, tmp_path, backend, case) -> None:
    """Play ``case`` (of async_cases/ or a directory in its format) on ``backend``; fail
    with the table of expected and seen outcomes and the program's stderr."""
    if not case.steps:
        pytest.skip(f"{case.name} does not apply to Python {sys.version.split()[0]}")
    session = AsyncSession(launch, tmp_path, backend)
    results = AsyncPlayer(case, session).play()
    if not all(ok for _, _, ok in results):
        pytest.fail(f"{case.name} ({backend}, Python {sys.version.split()[0]}):\n"
                    + table(case, results)
                    + f"\nstderr of the program:\n{session.debuggee.stderr()[-3000:]}",
                    pytrace=False)
    if not results[-1][1] or results[-1][1]["kind"] != "exit":
        session.debuggee.kill()
