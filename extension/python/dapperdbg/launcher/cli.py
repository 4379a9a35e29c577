"""The launcher's command line (docs/ipc.md):

    python -m dapperdbg.launcher --ipc ADDRESS --session-id ID [--no-debug]
           (--program PATH | --module NAME | --code TEXT) [--] [args...]

Launcher options come first. The target option ends them, as a script name ends
Python's own options: everything after it (after an optional ``--``) belongs to the
program, even words that look like options.
"""

from __future__ import annotations

USAGE = (
    "usage: python -m dapperdbg.launcher --ipc unix:PATH|tcp:HOST:PORT --session-id ID "
    "[--no-debug] (--program PATH | --module NAME | --code TEXT) [--] [args...]"
)

TARGET_OPTIONS = {"--program": "program", "--module": "module", "--code": "code"}
VALUE_OPTIONS = {"--ipc", "--session-id"}
FLAG_OPTIONS = {"--no-debug"}


class UsageError(ValueError):
    """The command line is invalid; the message says why."""


class LauncherArguments:
    """The parsed command line. ``target_kind`` is "program", "module" or "code"."""

    __slots__ = ("ipc", "session_id", "target_kind", "target", "args", "no_debug")

    def __init__(self, ipc: str, session_id: str, target_kind: str, target: str,
                 args: list[str] | None = None, no_debug: bool = False) -> None:
        self.ipc = ipc
        self.session_id = session_id
        self.target_kind = target_kind
        self.target = target
        self.args = [] if args is None else args
        self.no_debug = no_debug

    def __repr__(self) -> str:
        return (f"LauncherArguments(ipc={self.ipc!r}, session_id={self.session_id!r}, "
                f"target_kind={self.target_kind!r}, target={self.target!r}, "
                f"args={self.args!r}, no_debug={self.no_debug!r})")


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
