"""The subprocess.Popen hook (and so run, call, check_call, check_output).

``Popen.__init__`` is wrapped: the arguments are bound to its own signature, the
command and environment of a Python child are rewritten, the original runs, and the
child is announced with the pid Popen got. A child that cannot be attached runs as
written and is reported as a candidate. If anything in the hook itself fails, the
command runs exactly as the program gave it.
"""

from __future__ import annotations

import os
import sys

from ..common.import_hooks import when_imported
from .state import ACTIVE, PACKAGE_DIR, ChildHooks

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from .planning import Plan

# Popen.__init__ as subprocess defines it, and its signature; set when the hook goes in,
# which is when the program imports subprocess (importing it for every debuggee, with
# the signature, would cost each ~2 ms before its first line).
_original_init = None
_signature = None


def _words(args) -> list[str] | None:
    """The command as a list of str, or None when it is not something we can read."""
    if isinstance(args, (str, bytes, os.PathLike)):
        return [os.fsdecode(args)]
    try:
        return [os.fsdecode(word) for word in args]
    except TypeError:
        return None


def _path_of(env) -> str | None:
    if env is None:
        return os.environ.get("PATH")
    for key in ("PATH", b"PATH"):
        if key in env:
            return os.fsdecode(env[key])
    return None


def plan_popen(args, executable, shell: bool, cwd, env) -> Plan | None:
    # Planning is imported by the first command a program starts (children/__init__.py).
    from .planning import plan_argv, plan_shell

    cwd_text = os.fsdecode(cwd) if cwd is not None else None
    if shell:
        if isinstance(args, (str, bytes, os.PathLike)):
            line = os.fsdecode(args)
        else:
            words = _words(args)
            if not words:
                return None
            # Extra list items after the command are the shell's $0, $1…: kept as they are.
            line = words[0]
        shell_program = os.fsdecode(executable) if executable else "/bin/sh"
        return plan_shell(line, cwd_text, _path_of(env), shell_program)
    words = _words(args)
    if words is None:
        return None
    return plan_argv(words, os.fsdecode(executable) if executable else None, cwd_text,
                     _path_of(env))


def _popen_init(self, *args, **kwargs):
    hooks = ACTIVE.usable()
    if hooks is None:
        return _original_init(self, *args, **kwargs)
    try:
        bound = _signature.bind(self, *args, **kwargs)
    except TypeError:
        return _original_init(self, *args, **kwargs)  # Let Popen give its own error.
    arguments = bound.arguments
    cwd = arguments.get("cwd")
    try:
        plan = plan_popen(arguments.get("args"), arguments.get("executable"),
                          bool(arguments.get("shell", False)), cwd, arguments.get("env"))
    except Exception as error:  # The program must start its child whatever happens here.
        print(f"dapper: could not examine a child command: {error}", file=sys.stderr)
        plan = None
    session_id = None
    if plan is not None and plan.attachable:
        session_id = _rewrite(hooks, plan, arguments)
    with ACTIVE.busy():
        _original_init(*bound.args, **bound.kwargs)
    if plan is None:
        return None
    cwd_text = os.fsdecode(cwd) if cwd is not None else None
    if session_id is not None:
        hooks.announce(plan, self.pid, session_id, cwd_text)
    else:
        hooks.report_candidate(plan, self.pid, cwd_text)
    return None


def _rewrite(hooks: ChildHooks, plan: Plan, arguments: dict) -> str | None:
    try:
        session_id = hooks.next_session_id()
        new_args = plan.rewritten(hooks.ipc, session_id, PACKAGE_DIR)
        environment = hooks.child_environment(arguments.get("env"))
    except Exception as error:
        plan.python = None
        plan.reason = f"its command could not be rewritten: {error}"
        return None
    original = arguments.get("args")
    if plan.shell_assignments is not None and not isinstance(original, (str, bytes, os.PathLike)):
        # A shell=True list: the first item is the command line, the rest the shell's $0…
        new_args = [new_args, *list(original)[1:]]
    arguments["args"] = new_args
    arguments["env"] = environment
    if plan.replaces_program:
        arguments["executable"] = None
    return session_id


def install() -> None:
    when_imported("subprocess", _hook_subprocess)


def _hook_subprocess(subprocess) -> None:
    global _original_init, _signature
    if getattr(subprocess.Popen.__init__, "_dapper_hook", False):
        return
    import inspect

    _signature = inspect.signature(subprocess.Popen.__init__)
    _original_init = subprocess.Popen.__init__
    _popen_init._dapper_hook = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = _popen_init  # type: ignore[method-assign]
