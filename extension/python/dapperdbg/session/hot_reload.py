"""Hot reload in a session: what ``dapper/hotReload`` does around the reload engine
(hotreload/), so that the new code keeps the session's breakpoints and the client
learns what changed.

Around ``reload_file``: the file's live functions are given their original code back
first (the instrumented copies are the breakpoints', and the reload must patch the
code the program wrote, not a copy), and the breakpoints are applied again afterwards,
to the new code: re-verified against the new source's lines, moved when their line no
longer holds code, given new probes. Frames that still run a copy of replaced code are
named as running old code like those that run the original. The result names frames by
the ids the client knows (DAP thread ids, and the frame ids stackTrace gave, for
stopped threads).

Patches deferred by a reload while running are applied at the next stop where no
thread runs their old code (``apply_deferred_at_stop``)."""

from __future__ import annotations

import contextlib
import types
from typing import TYPE_CHECKING

from ..common import program_threading
from ..common.errors import report_internal_error
from ..common.paths import canonical_path
from ..hotreload import (
    ReloadError,
    ReloadResult,
    apply_deferred,
    pending,
    reload_file,
    remember_source,
)
from ..hotreload.stacks import all_frames, record_replacements

if TYPE_CHECKING:
    from .parts import DebuggerParts


def reload(debugger: DebuggerParts, path: str, new_source: str | None,
           while_running: bool) -> dict:
    """Reload ``path`` in the program; returns the result body. Raises the engine's
    ``ReloadError`` (with nothing changed) for a file it cannot reload."""
    stopped = debugger.stops.stopped_threads()
    frames = {thread.ident: thread.frame for thread in stopped}
    canonical = canonical_path(path)
    copies = _copies(debugger, canonical)
    debugger.probes.release_file(canonical)
    try:
        result = reload_file(path, new_source=new_source, frames=frames,
                             while_running=while_running and not stopped,
                             restartable=_restartable(debugger, canonical))
    except BaseException:
        debugger.breakpoints_changed()  # Nothing changed: the same probes again.
        raise
    _apply_breakpoints_again(debugger, canonical)
    if result.deferred:
        _deferred_files.add(canonical)
    replaced = {id(old): (old, new) for old, new in result.replaced_codes}
    replaced.update(_copies_replaced(copies, replaced))
    old_frames = [(ident, frame) for ident, frame in all_frames(frames)
                  if replaced.get(id(frame.f_code), (None,))[0] is frame.f_code]
    return body_of(debugger, result, old_frames)


def _restartable(debugger: DebuggerParts, canonical: str) -> bool:
    """Whether the file was loaded with restartable functions."""
    instrumentation = debugger.probes.instrumentation
    return instrumentation is not None and canonical in instrumentation.registry.restartable_files


# The files with patches deferred by a reload while running.
_deferred_files: set[str] = set()


# The files whose source was looked at for ``remember_source`` (once each).
_seen_files: set[str] = set()


def note_stop(debugger: DebuggerParts, ident: int, frame: types.FrameType) -> None:
    """At a stop (on the stopping thread, inside a tracer callback: never raises).

    The sources of the user's files on the stack are remembered as they are now, before
    the user edits them (once per file: a few file reads at the first stops, nothing on
    the import path), so that a reload names the top-level statements it did not run
    again. Then the patches deferred by a reload while running are applied where no
    thread runs their old code any more."""
    try:
        _remember_sources(debugger, frame)
        if _deferred_files:
            _apply_deferred_at_stop(debugger, ident, frame)
    except Exception:
        report_internal_error("hot reload's work at a stop")


def _remember_sources(debugger: DebuggerParts, frame: types.FrameType | None) -> None:
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename not in _seen_files:
            _seen_files.add(filename)
            if filename.endswith(".py") and debugger.tracer.is_user_frame(frame):
                with contextlib.suppress(ReloadError):
                    remember_source(filename, keep_existing=True)
        frame = frame.f_back


def _apply_deferred_at_stop(debugger: DebuggerParts, ident: int, frame: types.FrameType) -> None:
    """Apply the patches deferred by a reload while running whose old code no thread
    runs any more, and tell the client."""
    canonicals = set(_deferred_files)
    for canonical in canonicals:
        debugger.probes.release_file(canonical)
    try:
        result = apply_deferred({ident: frame})
    finally:
        for canonical in canonicals:
            _apply_breakpoints_again(debugger, canonical)
    if not pending():
        _deferred_files.clear()
    if result is not None and (result.updated or result.added or result.refused):
        debugger.connection.send_event("dapper/hotReloadResult",
                                       body_of(debugger, result, []))


def _copies(debugger: DebuggerParts, canonical: str) -> tuple:
    registry = debugger.probes.registry
    return registry.infos_for_file(canonical) if registry is not None else ()


def _copies_replaced(copies, replaced: dict) -> dict:
    """copy -> new code for the instrumented copies of the code the reload replaced:
    frames running a copy run old code too (and restarting one runs the old code)."""
    out = {}
    for info in copies:
        original = info.original_if_made()
        entry = replaced.get(id(original)) if original is not None else None
        if entry is not None and entry[0] is original:
            out[id(info.copy)] = (info.copy, entry[1])
    record_replacements(out)
    return out


def _apply_breakpoints_again(debugger: DebuggerParts, canonical: str) -> None:
    """The file's breakpoints on its new code: lines re-resolved against the new source
    (a ``breakpoint`` event for each that moved or changed its verdict), then probes."""
    changed = debugger.store.reresolve_file(canonical)
    debugger.breakpoints_changed()
    debugger.announce_verified(changed)


def body_of(debugger: DebuggerParts, result: ReloadResult, old_frames: list) -> dict:
    """The DAP body, frames running old code named by the ids the client knows."""
    body = result.to_body()
    threads = {thread.ident: thread for thread in program_threading.threads()}
    stopped = {thread.ident: thread for thread in debugger.stops.stopped_threads()}
    offset = debugger.line_offset
    named = []
    for ident, frame in old_frames:
        thread = threads.get(ident)
        if thread is None:
            continue
        thread_id = debugger.threads.id_for(thread)
        code = frame.f_code
        entry = {"threadId": thread_id, "thread": thread.name,
                 "name": getattr(code, "co_qualname", code.co_name),
                 "line": frame.f_lineno - offset}
        stop = stopped.get(ident)
        if stop is not None and not stop.running:
            entry["frameId"] = debugger.inspector.frame_id(thread_id, frame, frame is stop.frame)
        named.append(entry)
    body["framesRunningOldCode"] = named
    return body
