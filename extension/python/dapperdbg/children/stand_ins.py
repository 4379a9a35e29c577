"""What the program finds in place of the child-process hooks until it first needs one.

Most debugged processes start no child, yet each of them (and each child of a test
suite) used to import every hook before its first line: some 60 KB of bytecode, about
1 ms of a start. Installed here instead, at the session's start, are stand-ins that
import a hook at its first use:
- ``os.execv`` … ``os.system`` (os_hooks.py's): each function is replaced by a stand-in
  dressed as the function it replaces, which calls the hook;
- ``os.fork`` (fork.py's): the same; the hook is imported before the fork, by the
  thread that forks, so it is whole in both processes;
- ``subprocess`` and ``multiprocessing``: their hooks are imported, and patch them, once
  the program imports them (common/import_hooks.py).
What plans a command is imported before any fork (``os.fork``'s or C code's), in the
parent: in the child, a module that another thread of the parent was importing at the
fork would stay locked for good, and a fork child may start a command at once.
"""

from __future__ import annotations

import os
import sys

from ..common.import_hooks import when_imported
from .state import ACTIVE, ORIGINALS

_installed = False


def _replaced_names() -> list[str]:
    """The os functions of this platform that get a stand-in: every exec* function ends
    in execv or execve, and spawnl*/spawnv* in spawnve or spawnvpe (os.py's own code)."""
    names = []
    if "execv" in ORIGINALS and "execve" in ORIGINALS:
        names += ["execv", "execve"]
    if "spawnve" in ORIGINALS and "spawnvpe" in ORIGINALS:
        names += [name for name in ("spawnv", "spawnve", "spawnvp", "spawnvpe")
                  if name in ORIGINALS]
    names += [name for name in ("posix_spawn", "posix_spawnp") if name in ORIGINALS]
    if "system" in ORIGINALS and os.name != "nt":
        names.append("system")
    if "fork" in ORIGINALS:
        names.append("fork")
    return names


def install() -> None:
    """Put the stand-ins in place (once per process: they read ``ACTIVE`` when called)."""
    global _installed
    if _installed:
        return
    _installed = True
    for name in ("execv", "execve", "spawnv", "spawnve", "spawnvp", "spawnvpe",
                 "posix_spawn", "posix_spawnp", "system", "fork"):
        if hasattr(os, name):
            ORIGINALS[name] = getattr(os, name)
    for name in _replaced_names():
        setattr(os, name, _stand_in(name))
    if "fork" in ORIGINALS:
        os.register_at_fork(before=_load_planning)
    when_imported("subprocess", _hook_subprocess)
    if sys.platform != "win32":
        when_imported("multiprocessing", _hook_multiprocessing)


def _stand_in(name: str):
    """A function that calls the hook of the os function ``name``, dressed as that
    function: its name, module, documentation and text signature, and ``__wrapped__``,
    which ``inspect.signature`` follows, so that the program's introspection finds what
    it finds without the debugger (CPython's test_inspect checks these functions'
    signatures)."""
    if name == "fork":
        def stand_in():
            from .fork import fork

            return fork()
    else:
        def stand_in(*args, **kwargs):
            from .os_hooks import HOOKS

            return HOOKS[name](*args, **kwargs)
    original = ORIGINALS[name]
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__",
                      "__text_signature__"):
        try:
            setattr(stand_in, attribute, getattr(original, attribute))
        except (AttributeError, TypeError):
            continue
    stand_in.__wrapped__ = original
    return stand_in


def _hook_subprocess(subprocess) -> None:
    from .popen_hook import hook_subprocess

    hook_subprocess(subprocess)


def _hook_multiprocessing(multiprocessing) -> None:
    from .multiprocessing_hooks import install as install_multiprocessing_hooks

    install_multiprocessing_hooks()


def _load_planning() -> None:
    """Before any fork, while children are attached (see the module's text)."""
    if ACTIVE.hooks is not None:
        from . import planning  # noqa: F401
