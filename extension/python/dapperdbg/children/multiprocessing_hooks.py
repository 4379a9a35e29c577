"""multiprocessing children.

- spawn (and the forkserver's server process): on POSIX, multiprocessing starts the
  interpreter with ``util.spawnv_passfds(executable, args, fds)``, where ``args`` is a
  ``python … -c "from multiprocessing.spawn import spawn_main; …"`` command. That call is
  wrapped: the command is rewritten like any Python child's. It has no environment
  argument (it uses this process's), so the child's variables are put into
  ``os.environ`` for the duration of the call only, under a lock.
- fork: ``popen_fork`` calls ``os.fork()``, which the fork hook handles.
- Every start method's ``Popen._launch`` is wrapped only to name the child after its
  Process (``SpawnProcess-1``, ``ForkPoolWorker-2``…).

The resource tracker, a helper process that runs no user code, is left alone.
"""

from __future__ import annotations

import os
import sys

from ..common.import_hooks import when_imported
from ..common.native import allocate_lock
from .state import ACTIVE, PACKAGE_DIR

_environment_lock = allocate_lock()
_installed = False
_HELPERS = ("resource_tracker",)


def _spawnv_passfds_hook(original):
    def spawnv_passfds(path, args, passfds):
        hooks = ACTIVE.usable()
        try:
            from .planning import plan_argv

            words = [os.fsdecode(word) for word in args]
            plan = plan_argv(words, executable=os.fsdecode(path))
        except Exception as error:  # The child must start whatever happens here.
            print(f"dapper: could not examine a child command: {error}", file=sys.stderr)
            hooks = None
        if hooks is None or any(helper in word for word in words for helper in _HELPERS):
            with ACTIVE.busy():
                return original(path, args, passfds)
        name = getattr(ACTIVE.local, "process_name", None)
        if any("multiprocessing.forkserver" in word for word in words):
            # Started while launching the first forkserver Process, but it is the server.
            plan.name = "multiprocessing forkserver"
        elif name:
            plan.name = name
        if not plan.attachable:
            with ACTIVE.busy():
                pid = original(path, args, passfds)
            hooks.report_candidate(plan, pid, None)
            return pid
        session_id = hooks.next_session_id()
        try:
            new_args = plan.rewritten(hooks.ipc, session_id, PACKAGE_DIR)
            environment = hooks.child_environment(None)
        except Exception as error:
            plan.python = None
            plan.reason = f"its command could not be rewritten: {error}"
            with ACTIVE.busy():
                pid = original(path, args, passfds)
            hooks.report_candidate(plan, pid, None)
            return pid
        added = {key: environment[key] for key in (*hooks.additions(), "PYTHONPATH")}
        with _environment_lock, ACTIVE.busy():
            saved = {key: os.environ.get(key) for key in added}
            os.environ.update(added)
            try:
                pid = original(path, new_args, passfds)
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
        hooks.announce(plan, pid, session_id, None)
        return pid

    spawnv_passfds._dapper_hook = True  # type: ignore[attr-defined]
    return spawnv_passfds


def _launch_hook(original):
    def _launch(self, process_obj):
        previous = getattr(ACTIVE.local, "process_name", None)
        ACTIVE.local.process_name = getattr(process_obj, "name", None)
        try:
            return original(self, process_obj)
        finally:
            ACTIVE.local.process_name = previous

    _launch._dapper_hook = True  # type: ignore[attr-defined]
    return _launch


def _new_lock_after_fork() -> None:
    # A thread of the parent may have held the lock at the fork; it is not here to
    # release it.
    global _environment_lock
    _environment_lock = allocate_lock()


def _hook_util(util) -> None:
    if not getattr(util.spawnv_passfds, "_dapper_hook", False):
        util.spawnv_passfds = _spawnv_passfds_hook(util.spawnv_passfds)


def _hook_popen(module) -> None:
    launch = module.Popen.__dict__.get("_launch")
    if launch is not None and not getattr(launch, "_dapper_hook", False):
        module.Popen._launch = _launch_hook(launch)


def install() -> None:
    """Called once the program imports multiprocessing (stand_ins.py)."""
    global _installed
    if _installed or sys.platform == "win32":
        return
    _installed = True
    os.register_at_fork(after_in_child=_new_lock_after_fork)
    # Patched when the program imports them (import_hooks), as the modules that start
    # processes are not all imported with the package.
    when_imported("multiprocessing.util", _hook_util)
    for name in ("multiprocessing.popen_fork", "multiprocessing.popen_spawn_posix",
                 "multiprocessing.popen_forkserver"):
        when_imported(name, _hook_popen)
