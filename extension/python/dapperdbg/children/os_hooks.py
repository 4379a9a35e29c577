"""Hooks for os.exec*, os.spawn* and os.posix_spawn*.

- ``execv``/``execve`` (every exec* function of the os module ends in one of them):
  the process image is replaced, so the pid stays. The child is announced before the
  exec, with this process's pid, and only once the target is known to be executable.
- ``spawnv``/``spawnve``/``spawnvp``/``spawnvpe`` (the spawnl* forms call them): the
  child is started with P_NOWAIT so that its pid is known and announced; for P_WAIT
  the hook then waits as os.spawn* would and returns the same value.
- ``posix_spawn``/``posix_spawnp``: the environment is an argument; the pid is returned.
- ``system`` (POSIX): a Python command line is started by the hook, see ``_system``.

These functions are called by name from the os module (and by subprocess), so
replacing the module's attributes covers them all: each has a stand-in there
(stand_ins.py), which imports this module at its first call. A hook never rewrites a
call made while another hook is at work (``ACTIVE.busy``).
"""

from __future__ import annotations

import _signal
import os
import sys

from ..common import program_threading
from .state import ACTIVE, ORIGINALS, PACKAGE_DIR


def _prepare(hooks, program: str, argv, env, search: bool):
    """(plan, new argv, new env, session id) for a child; a plan without session id
    when it is not attachable; None when the command cannot be read. Never raises: the
    program's call must go on whatever happens here."""
    try:
        return _prepare_or_raise(hooks, program, argv, env, search)
    except Exception as error:
        print(f"dapper: could not examine a child command: {error}", file=sys.stderr)
        return None


def _prepare_or_raise(hooks, program: str, argv, env, search: bool):
    try:
        words = [os.fsdecode(word) for word in argv]
        program_text = os.fsdecode(program)
    except TypeError:
        return None
    path = None
    if env is not None:
        for key in ("PATH", b"PATH"):
            if key in env:
                path = os.fsdecode(env[key])
    from .planning import plan_argv, which

    resolved = which(program_text, path) if search else program_text
    plan = plan_argv(words, executable=resolved or program_text, path=path)
    if not plan.attachable:
        return plan, None, None, None
    session_id = hooks.next_session_id()
    try:
        new_argv = plan.rewritten(hooks.ipc, session_id, PACKAGE_DIR)
        new_env = hooks.child_environment(env)
    except Exception as error:
        plan.python = None
        plan.reason = f"its command could not be rewritten: {error}"
        return plan, None, None, None
    return plan, new_argv, new_env, session_id


def _program(plan, path):
    """The file to execute: a #! script's interpreter replaces the script itself."""
    if plan.replaces_program:
        from .planning import which

        return which(plan.python.interpreter[0]) or plan.python.interpreter[0]
    return path


def _execv(path, args):
    return _exec(path, args, None)


def _execve(path, args, env):
    return _exec(path, args, env)


def _exec(path, args, env):
    hooks = ACTIVE.usable()
    executable = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else None
    if hooks is None or executable is None or not (
            os.path.isfile(executable) and os.access(executable, os.X_OK)):
        return _call_exec(path, args, env)
    prepared = _prepare(hooks, executable, args, env, search=False)
    if prepared is None:
        return _call_exec(path, args, env)
    plan, new_argv, new_env, session_id = prepared
    if session_id is None:
        hooks.report_candidate(plan, os.getpid(), None)
        return _call_exec(path, args, env)
    # The new image keeps this pid; nothing of this process runs after a successful exec,
    # so the announcement goes first and nobody watches for the exit.
    hooks.announce(plan, os.getpid(), session_id, None, watch=False)
    with ACTIVE.busy():
        return ORIGINALS["execve"](_program(plan, path), new_argv, new_env)


def _call_exec(path, args, env):
    with ACTIVE.busy():
        if env is None:
            return ORIGINALS["execv"](path, args)
        return ORIGINALS["execve"](path, args, env)


def _spawn_hook(name: str, has_env: bool, search: bool):
    original = ORIGINALS[name]

    def hook(mode, file, args, *rest):
        hooks = ACTIVE.usable()
        if hooks is None or mode not in (os.P_WAIT, os.P_NOWAIT):
            with ACTIVE.busy():
                return original(mode, file, args, *rest)
        env = rest[0] if has_env and rest else None
        prepared = _prepare(hooks, file, args, env, search)
        if prepared is None:
            with ACTIVE.busy():
                return original(mode, file, args, *rest)
        plan, new_argv, new_env, session_id = prepared
        if session_id is None:
            with ACTIVE.busy():
                pid = original(os.P_NOWAIT, file, args, *rest)
            hooks.report_candidate(plan, pid, None)
            return _finish(mode, pid, None)
        target = _program(plan, file)
        with ACTIVE.busy():
            pid = ORIGINALS["spawnve" if not search else "spawnvpe"](
                os.P_NOWAIT, target, new_argv, new_env)
        hooks.announce(plan, pid, session_id, None)
        return _finish(mode, pid, hooks)

    return hook


def _finish(mode, pid, hooks):
    """P_NOWAIT gives the pid; P_WAIT waits as os.spawn* does and gives its result."""
    if mode == os.P_NOWAIT:
        return pid
    while True:
        _, status = os.waitpid(pid, 0)
        if os.WIFSTOPPED(status):
            continue
        if hooks is not None:
            hooks.watcher.exited(pid)
        return os.waitstatus_to_exitcode(status)


def _posix_spawn_hook(name: str):
    original = ORIGINALS[name]

    def hook(path, argv, env, *rest, **kwargs):
        hooks = ACTIVE.usable()
        if hooks is None:
            return original(path, argv, env, *rest, **kwargs)
        prepared = _prepare(hooks, path, argv, env, search=name == "posix_spawnp")
        if prepared is None:
            with ACTIVE.busy():
                return original(path, argv, env, *rest, **kwargs)
        plan, new_argv, new_env, session_id = prepared
        if session_id is None:
            with ACTIVE.busy():
                pid = original(path, argv, env, *rest, **kwargs)
            hooks.report_candidate(plan, pid, None)
            return pid
        target = path
        if plan.replaces_program:
            target = _program(plan, path)
        with ACTIVE.busy():
            pid = original(target, new_argv, new_env, *rest, **kwargs)
        hooks.announce(plan, pid, session_id, None)
        return pid

    return hook


def _system(command):
    """os.system: a Python command line is run by the hook itself (``/bin/sh -c`` through
    posix_spawn) so that the child's pid is known and announced; it then waits as
    system(3) does, ignoring SIGINT and SIGQUIT meanwhile (in the main thread, where
    handlers can be set), and returns the raw wait status as os.system does."""
    hooks = ACTIVE.usable()
    if hooks is None or os.name == "nt" or "posix_spawn" not in ORIGINALS:
        return ORIGINALS["system"](command)
    try:
        from .planning import plan_shell

        line = os.fsdecode(command)
        plan = plan_shell(line)
        session_id = hooks.next_session_id() if plan.attachable else None
        new_line = plan.rewritten(hooks.ipc, session_id, PACKAGE_DIR) if session_id else None
        environment = hooks.child_environment(None) if session_id else None
    except Exception as error:
        print(f"dapper: could not examine a child command: {error}", file=sys.stderr)
        return ORIGINALS["system"](command)
    if session_id is None:
        # os.system gives no pid: the candidate is reported without one.
        hooks.report_candidate(plan, None, None)
        with ACTIVE.busy():
            return ORIGINALS["system"](command)
    ignored = _ignore_interrupts()
    try:
        with ACTIVE.busy():
            pid = ORIGINALS["posix_spawn"](
                "/bin/sh", ["sh", "-c", new_line], environment,
                setsigdef=(_signal.SIGINT, _signal.SIGQUIT))
        hooks.announce(plan, pid, session_id, None)
        while True:
            _, status = os.waitpid(pid, 0)
            if not os.WIFSTOPPED(status):
                break
        hooks.watcher.exited(pid)
        return status
    finally:
        _restore(ignored)


def _ignore_interrupts() -> dict:
    if program_threading.current_thread() is not program_threading.main_thread():
        return {}
    return {number: _signal.signal(number, _signal.SIG_IGN)
            for number in (_signal.SIGINT, _signal.SIGQUIT)}


def _restore(previous: dict) -> None:
    for number, handler in previous.items():
        _signal.signal(number, handler if handler is not None else _signal.SIG_DFL)


def _made_hooks() -> dict:
    hooks = {"execv": _execv, "execve": _execve, "system": _system}
    for name, has_env, search in (("spawnv", False, False), ("spawnve", True, False),
                                  ("spawnvp", False, True), ("spawnvpe", True, True)):
        if name in ORIGINALS:
            hooks[name] = _spawn_hook(name, has_env, search)
    for name in ("posix_spawn", "posix_spawnp"):
        if name in ORIGINALS:
            hooks[name] = _posix_spawn_hook(name)
    return hooks


# The hook of each os function that has a stand-in (stand_ins.py), by name: made when
# the program first calls one of them.
HOOKS = _made_hooks()
