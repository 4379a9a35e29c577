"""Sources as DAP shows them: files by path, and code without a file (``python -c``,
``exec`` of a string, ``<frozen …>``) by a ``sourceReference`` whose text the client
fetches with a ``source`` request. Also the ``modules`` and ``loadedSources`` bodies.

A reference stays the same for the same (name, text) for the whole process, so the
client can keep an editor open on it across stops.
"""

from __future__ import annotations

import os
import sys

from ..common.errors import RequestError
from ..common.interpreter_types import CodeType
from ..common.native import allocate_lock
from ..common.paths import canonical_path, is_debugger_path, is_synthetic_filename
from ..common.stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    import weakref


class SourceError(RequestError):
    """A source request names something that has no text."""


class SourceRegistry:
    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._references: dict[tuple[str, str], int] = {}
        self._texts: dict[int, tuple[str, str]] = {}
        # Texts known without linecache, by filename: the launch's ``code``.
        self._known: dict[str, str] = {}
        # Texts of code compiled from strings, by code object (see capture_exec_sources).
        self._capturing = False
        self._last_compiled: dict[str, str] = {}
        # Made by capture_exec_sources, which imports weakref: nothing else of the
        # debugger's start does on 3.13+, and a process should not pay for it unasked.
        self._code_texts: weakref.WeakKeyDictionary[types.CodeType, str] | None = None

    def remember_text(self, filename: str, text: str) -> None:
        """Keep the text of code compiled from a string under ``filename``."""
        with self._lock:
            self._known[filename] = text

    def _text_of(self, filename: str) -> str | None:
        # linecache holds what Python itself keeps (3.13's -c code, IPython cells,
        # doctest examples); for other names it returns nothing and reads no file. Not
        # imported, it holds nothing.
        linecache = sys.modules.get("linecache")
        lines = linecache.getlines(filename) if linecache is not None else None
        if lines:
            return "".join(lines)
        with self._lock:
            return self._known.get(filename)

    def capture_exec_sources(self) -> None:
        """Keep the text of code the program compiles from strings (``exec``, ``eval``,
        ``compile``), which Python itself forgets, through an audit hook (PEP 578): the
        ``compile`` event carries the text, the ``exec`` event that follows the code
        object. From now on this registry is the one that keeps them (exec_audit.py)."""
        import weakref

        from .exec_audit import observe_compiles

        if self._code_texts is None:
            self._code_texts = weakref.WeakKeyDictionary()
        self._capturing = True
        observe_compiles(self._audited)

    def _audited(self, event: str, arguments: tuple) -> None:
        """A ``compile`` or ``exec`` event (from ``_audit``). Must never raise: an
        exception here would surface in the program's own call."""
        try:
            if event == "compile":
                source, filename = arguments
                if isinstance(filename, str) and is_synthetic_filename(filename):
                    if isinstance(source, bytes):
                        source = source.decode("utf-8", "replace")
                    if isinstance(source, str):
                        self._last_compiled[filename] = source
            else:
                code = arguments[0]
                if isinstance(code, CodeType):
                    text = self._last_compiled.get(code.co_filename)
                    if (text is not None and self._code_texts is not None
                            and code not in self._code_texts):
                        self._remember_code(code, text)
        except Exception:
            pass

    def _remember_code(self, code: types.CodeType, text: str) -> None:
        # Functions defined by the code have code objects of their own, in co_consts.
        pending = [code]
        while pending:
            current = pending.pop()
            self._code_texts[current] = text  # type: ignore[index]
            pending.extend(c for c in current.co_consts if isinstance(c, CodeType))

    def source_for_code(self, code: types.CodeType) -> dict:
        """The DAP ``source`` of ``code``: its file, or the text it was compiled from."""
        texts = self._code_texts
        text = texts.get(code) if self._capturing and texts is not None else None
        if text is not None:
            return {"name": code.co_filename, "presentationHint": "deemphasize",
                    "sourceReference": self._reference(code.co_filename, text)}
        return self.source_for(code.co_filename)

    def source_for(self, filename: str) -> dict:
        """The DAP ``source`` of code whose ``co_filename`` is ``filename``."""
        if not is_synthetic_filename(filename):
            path = os.path.abspath(filename)
            return {"name": os.path.basename(path), "path": path}
        source = {"name": filename, "presentationHint": "deemphasize"}
        text = self._text_of(filename)
        if text is not None:
            source["sourceReference"] = self._reference(filename, text)
        return source

    def _reference(self, filename: str, text: str) -> int:
        key = (filename, text)
        with self._lock:
            reference = self._references.get(key)
            if reference is None:
                reference = len(self._references) + 1
                self._references[key] = reference
                self._texts[reference] = key
            return reference

    def content(self, reference: int) -> str:
        with self._lock:
            entry = self._texts.get(reference)
        if entry is None:
            raise SourceError(f"No source is known for sourceReference {reference}")
        return entry[1]

    def synthetic_sources(self) -> list[dict]:
        with self._lock:
            keys = list(self._references)
        return [{"name": name, "sourceReference": self._references[(name, text)],
                 "presentationHint": "deemphasize"} for name, text in keys]


# read_source_file runs on the IPC thread, also while threads are stopped.
import_at_first_stop("importlib.util")


def read_source_file(path: str) -> str:
    """The text of a file the client asks for by path (a ``source`` request without a
    reference), decoded as Python decodes source files."""
    # What linecache holds was read already (it may be code the program compiled from
    # a string); anything else is read as a request may read a file.
    linecache = sys.modules.get("linecache")
    entry = linecache.cache.get(path) if linecache is not None else None
    if entry is not None and len(entry) == 4 and entry[2]:
        return "".join(entry[2])
    # Imported by the first request that reads a file, or at the first stop (store.py).
    from ..common.code_lines import SourceError as UnreadableSource
    from ..common.code_lines import read_source_bytes

    try:
        source = read_source_bytes(path)
    except UnreadableSource as error:
        raise SourceError(str(error)) from None
    try:
        import importlib.util  # Not at start: on 3.9-3.10 it imports typing.

        return importlib.util.decode_source(source)
    except (SyntaxError, UnicodeDecodeError):
        return source.decode("utf-8", errors="replace")


def _module_file(module) -> str | None:
    filename = getattr(module, "__file__", None)
    if not isinstance(filename, str) or not filename:
        return None
    return os.path.abspath(filename)


def _loaded_modules() -> list[tuple[str, object]]:
    # A copy: imports on other threads change sys.modules while we iterate.
    return [(name, module) for name, module in list(sys.modules.items()) if module is not None]


def modules_body(start: int, count: int) -> dict:
    """The ``modules`` response: every imported module, in import order, paged."""
    modules = []
    for name, module in _loaded_modules():
        path = _module_file(module)
        if path is not None and is_debugger_path(canonical_path(path)):
            continue  # The debugger's own modules are not the user's business.
        entry: dict = {"id": name, "name": name}
        if path is not None:
            entry["path"] = path
        else:
            entry["isOptimized"] = False
        # From the module's own namespace: a module __getattr__ may warn (3.15's stdlib
        # deprecates __version__ so) or import, in the user's program.
        version = (getattr(module, "__dict__", None) or {}).get("__version__")
        if isinstance(version, str):
            entry["version"] = version
        modules.append(entry)
    total = len(modules)
    end = start + count if count > 0 else None
    return {"modules": modules[start:end], "totalModules": total}


def loaded_sources_body(registry: SourceRegistry) -> dict:
    """The ``loadedSources`` response: the Python files of imported modules plus the
    code without a file that has been shown so far."""
    sources = []
    seen = set()
    for _, module in _loaded_modules():
        path = _module_file(module)
        if path is None or not path.endswith(".py") or path in seen:
            continue
        if is_debugger_path(canonical_path(path)):
            continue
        seen.add(path)
        sources.append({"name": os.path.basename(path), "path": path})
    return {"sources": sources + registry.synthetic_sources()}
