"""Patching a module when the program first imports it, not before.

The multiprocessing hooks patch modules (``multiprocessing.popen_fork`` and its
siblings) whose import costs every debuggee ~15 ms, most of which never use
multiprocessing. ``when_imported`` patches a module at once if it is loaded, else right
after the program's own import of it has executed it, through a finder placed first in
``sys.meta_path`` that wraps the module's loader for that one import. The module ends up
with its ordinary loader and spec, as if nothing had been in the way. The template
breakpoints (breakpoints/templates.py) hook Django and Jinja the same way.
"""

from __future__ import annotations

import sys

from .native import allocate_lock

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    Patch = Callable[[types.ModuleType], None]


class _PatchingLoader:
    """Wraps the real loader of a module whose patches wait for its import."""

    def __init__(self, loader, name: str) -> None:
        self._loader = loader
        self._name = name

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: types.ModuleType) -> None:
        # The module's own code sees its real loader, as it would without the hook.
        module.__loader__ = self._loader
        spec = getattr(module, "__spec__", None)
        if spec is not None:
            spec.loader = self._loader
        self._loader.exec_module(module)
        # Taken only now: a spec that is found but never executed (importlib.util.
        # find_spec) or a module whose code raised leaves the patches waiting.
        with _lock:
            patches = _pending.pop(self._name, [])
            if not _pending:
                _remove_finder()
        for patch in patches:
            _apply(patch, module)


class _Finder:
    """First in ``sys.meta_path`` while patches wait: for a waited-for name it asks the
    other finders for the spec and wraps its loader; every other name passes at once."""

    def find_spec(self, name: str, path=None, target=None):
        if name not in _pending:
            return None
        spec = None
        for finder in list(sys.meta_path):
            find_spec = getattr(finder, "find_spec", None)
            if finder is self or find_spec is None:
                continue
            spec = find_spec(name, path, target)
            if spec is not None:
                break
        if spec is not None and spec.loader is not None and hasattr(spec.loader,
                                                                     "exec_module"):
            spec.loader = _PatchingLoader(spec.loader, name)
        # Otherwise the import fails or goes on as it would have; the patches wait.
        return spec


_lock = allocate_lock()
_pending: dict[str, list[Patch]] = {}
_FINDER = _Finder()


def _insert_finder() -> None:
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def _remove_finder() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def _apply(patch: Patch, module: types.ModuleType) -> None:
    try:
        patch(module)
    except Exception as error:  # A failed patch must never fail the program's import.
        print(f"dapper: could not hook {module.__name__}: {error}", file=sys.stderr)


def when_imported(name: str, patch: Patch) -> None:
    """Call ``patch(module)`` once the module ``name`` is imported: now if it is."""
    module = sys.modules.get(name)
    if module is not None:
        _apply(patch, module)
        return
    with _lock:
        _pending.setdefault(name, []).append(patch)
        _insert_finder()


def forget(name: str, patch: Patch) -> None:
    """Take back ``patch`` if it still waits for the import of ``name`` (the finder
    leaves ``sys.meta_path`` with the last one)."""
    with _lock:
        patches = _pending.get(name)
        if patches is None or patch not in patches:
            return
        patches.remove(patch)
        if not patches:
            del _pending[name]
        if not _pending:
            _remove_finder()


def pending_names() -> list[str]:
    """The modules whose patches wait for an import (for tests)."""
    with _lock:
        return sorted(_pending)
