"""The launcher's command line (docs/ipc.md):

    python -m dapper.launcher --ipc ADDRESS --session-id ID [--no-debug]
           (--program PATH | --module NAME | --code TEXT) [--] [args...]

Launcher options come first. The target option ends them, as a script name ends
Python's own options: everything after it (after an optional ``--``) belongs to the
program, even words that look like options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

USAGE = (
    "usage: python -m dapper.launcher --ipc unix:PATH|tcp:HOST:PORT --session-id ID "
    "[--no-debug] (--program PATH | --module NAME | --code TEXT) [--] [args...]"
)

TARGET_OPTIONS = {"--program": "program", "--module": "module", "--code": "code"}
VALUE_OPTIONS = {"--ipc", "--session-id"}
FLAG_OPTIONS = {"--no-debug"}


class UsageError(ValueError):
    """The command line is invalid; the message says why."""


@dataclass
class LauncherArguments:
    ipc: str
    session_id: str
    target_kind: str  # "program", "module" or "code"
    target: str
    args: list[str] = field(default_factory=list)
    no_debug: bool = False


def parse_arguments(argv: list[str]) -> LauncherArguments:
    values: dict[str, str] = {}
    no_debug = False
    index = 0
    while index < len(argv):
        word = argv[index]
        name, has_inline_value, inline_value = word.partition("=")
        if not word.startswith("--"):
            raise UsageError(f"unexpected argument {word!r} before the target option")
        if name in FLAG_OPTIONS and not has_inline_value:
            no_debug = True
            index += 1
            continue
        if name not in VALUE_OPTIONS and name not in TARGET_OPTIONS:
            raise UsageError(f"unknown option {name!r}")
        if has_inline_value:
            value = inline_value
            index += 1
        else:
            if index + 1 >= len(argv):
                raise UsageError(f"option {name} needs a value")
            value = argv[index + 1]
            index += 2
        if name in TARGET_OPTIONS:
            rest = argv[index:]
            if rest and rest[0] == "--":
                rest = rest[1:]
            return _finish(values, no_debug, TARGET_OPTIONS[name], value, rest)
        if name in values:
            raise UsageError(f"option {name} given twice")
        values[name] = value
    raise UsageError("missing the target: one of --program, --module or --code")


def _finish(
    values: dict[str, str], no_debug: bool, kind: str, target: str, rest: list[str]
) -> LauncherArguments:
    for required in ("--ipc", "--session-id"):
        if not values.get(required):
            raise UsageError(f"missing required option {required}")
    if kind != "code" and not target:
        raise UsageError(f"the --{kind} value is empty")
    return LauncherArguments(
        ipc=values["--ipc"],
        session_id=values["--session-id"],
        target_kind=kind,
        target=target,
        args=list(rest),
        no_debug=no_debug,
    )
