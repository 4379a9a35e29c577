"""The debugged process's one audit hook (PEP 578: Python has no call to remove one;
audit_hook_slot.py takes it out where it can once nobody observes), shared by
the two parts that watch what the program compiles and runs from strings: the source
registry that keeps their texts (sources.py, when the launch asks for it) and the
watcher of the code ``exec`` runs (session/foreign_code.py, on the settrace backend with
line breakpoints). Apart from both, so that the watcher does not load the registry,
which a process that never stops does not otherwise need."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

# The observer of every ``compile`` and ``exec`` event (the registry that keeps the texts
# of code compiled from strings), the observer of code run by ``exec``, and whether the
# hook is installed (once per process: a later session of the same process, in listening
# mode, reuses it through these).
_compile_observer: Callable[[str, tuple], None] | None = None
_exec_observer: Callable[[types.CodeType], None] | None = None
_hook_installed = False


def observe_compiles(observer: Callable[[str, tuple], None]) -> None:
    """Call ``observer(event, arguments)`` for every ``compile`` and ``exec`` audit event
    from now on. ``observer`` must not raise."""
    global _compile_observer
    _compile_observer = observer
    _install()


def observe_exec(observer: Callable[[types.CodeType], None] | None) -> None:
    """Call ``observer`` with every code object the program runs through ``exec`` (a
    module body run by any loader, a script run by a tool such as cProfile), before it
    runs, on the thread that runs it; None: no longer. ``observer`` must not raise."""
    global _exec_observer, _hook_installed
    _exec_observer = observer
    if observer is not None:
        _install()
    elif _hook_installed and _compile_observer is None:
        # Nobody observes any more: the hook goes where it can (audit_hook_slot.py), and
        # the program's audited calls cost what they do plain.
        from .audit_hook_slot import take_out

        if take_out(_audit):
            _hook_installed = False


def _install() -> None:
    global _hook_installed
    if not _hook_installed:
        _hook_installed = True
        sys.addaudithook(_audit)


def _audit(event: str, arguments: tuple) -> None:
    # Called on every audited event of the whole program (``id()``, ``sys._getframe``,
    # ``open``, setting a class attribute, …), so it rejects the others first thing. A
    # plain function on purpose: with a bound method as the hook, ``id()`` took 0.9-1.05
    # us on 3.9-3.13; with this function 0.26-0.42 us, against 0.23-0.29 us with a hook
    # written in C and 0.04-0.1 us with none (copy.deepcopy calls id() on every object).
    if event != "compile" and event != "exec":
        return
    compile_observer = _compile_observer
    if compile_observer is not None:
        compile_observer(event, arguments)
    if event == "exec":
        observer = _exec_observer
        if observer is not None:
            observer(arguments[0])
