"""The launcher's environment switches of the instrumentation."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Mapping

# "0" switches the copies off: every breakpoint is the tracer's.
VARIABLE = "DAPPER_INSTRUMENT"
# "0": the user's functions keep their plain code (no Restart Frame with new code,
# docs/hot-reload.md).
RESTARTABLE_VARIABLE = "DAPPER_RESTARTABLE"


def enabled(variables: Mapping[str, str]) -> bool:
    return variables.get(VARIABLE, "").strip() != "0"


def restartable_enabled(variables: Mapping[str, str]) -> bool:
    return enabled(variables) and variables.get(RESTARTABLE_VARIABLE, "").strip() != "0"
