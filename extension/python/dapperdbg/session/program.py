"""Running the user's program as ``python PATH``, ``python -m NAME`` or ``python -c TEXT``
would, and turning how it ended into the exit code Python would give.

The program runs in a fresh ``__main__`` module that replaces the launcher's in
``sys.modules`` for good, as it would in a plain interpreter (pickle, multiprocessing and
``import __main__`` all see the user's module). Modules go through runpy's
``_run_module_as_main``, the function ``python -m`` itself calls; directories and zip
files through ``runpy.run_path``.
"""

from __future__ import annotations

import builtins
import io
import os
import sys
import zipimport

# importlib.machinery's classes, from the import system's own modules: importing the
# importlib package costs every start (it imports warnings).
from _frozen_importlib import BuiltinImporter
from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader, SourcelessFileLoader

from ..common.code_cache import compile_text
from ..common.interpreter_types import CodeType, ModuleType
from ..common.paths import canonical_path, is_debugger_path
from ..common.source_texts import remember_text
from .script_source import as_python_reads

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable
    from typing import NoReturn

PROGRAM, MODULE, CODE = "program", "module", "code"


class CannotOpenProgram(Exception):
    """The program file cannot be read; Python exits with status 2 in this case."""


class ProgramDoesNotStart(Exception):
    """Python would refuse the program before it runs: it prints ``heading``, then
    ``error`` as it prints an uncaught exception, and exits with status 1."""

    def __init__(self, heading: str, error: BaseException) -> None:
        super().__init__(heading)
        self.heading = heading
        self.error = error


# The launcher's own __main__ module, once the program's has replaced it: kept alive. Python
# runs a script (the launcher's) in its __main__ module's namespace and deletes __file__
# from that namespace after it, through a pointer it may not count (3.9-3.11): freed with
# its module, the namespace was written to after its memory had been reused (a crash,
# seen when a program's MemoryError made the allocator hand that memory out again).
_launcher_main: types.ModuleType | None = None


def _fresh_main_module() -> types.ModuleType:
    global _launcher_main
    module = ModuleType("__main__")
    module.__dict__["__builtins__"] = builtins
    if _launcher_main is None:
        _launcher_main = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    return module


def _set_path0(entry: str) -> None:
    # With -P (3.11+) or -I Python puts nothing in front of sys.path, and neither did
    # the launcher's own start, so there is nothing to replace.
    if getattr(sys.flags, "safe_path", False) or sys.flags.isolated:
        return
    if sys.path:
        sys.path[0] = entry
    else:
        sys.path.insert(0, entry)


def _set_command_line(argv: list[str], target_words: list[str]) -> None:
    """Set ``sys.argv`` and make ``sys.orig_argv`` (3.10+) the command line a plain
    interpreter would have recorded: the interpreter and its options, then the target's
    own words, without the launcher's. A program that starts itself again from it (a
    development server's reloader) starts itself, not the launcher. Called while
    ``sys.argv`` is still the launcher's."""
    original = getattr(sys, "orig_argv", None)
    if original:
        launcher_words = len(sys.argv) - 1
        head = list(original[:len(original) - launcher_words] if launcher_words else original)
        # What started the launcher ends ``head``: its script (as the engine and the
        # children's hooks start it), "-m dapperdbg.launcher" (or "-m dapperdbg" for
        # --listen), "-c" with code, or one word ("-mdapper").
        if len(head) >= 2:
            del head[-2 if len(head) >= 3 and head[-2] in ("-m", "-c") else -1:]
        sys.orig_argv = [*head, *target_words]
    sys.argv = argv


# A zip file ends with its end-of-directory record, whose signature is within its last
# 22 bytes and the comment of up to 64 KiB before them: a file without it is no zip
# application, and the zip importer (which opens and seeks the file) is not asked.
_ZIP_END = b"PK\x05\x06"
_ZIP_END_REACH = 22 + 0xFFFF


def _is_zip_file(path: str) -> bool:
    """Whether Python would run the file as a zip application: its zip importer (already
    loaded at every interpreter start, unlike zipfile and its ~10 ms of imports) takes it."""
    try:
        zipimport.zipimporter(path)
    except (zipimport.ZipImportError, OSError, ValueError):
        return False
    return True


def _is_compiled(path: str, data: bytes) -> bool:
    """Whether python runs the file as compiled code (pythonrun.c's maybe_pyc_file): by
    its name, or by the first half of this version's magic number."""
    return path.endswith(".pyc") or data[:2] == MAGIC_NUMBER[:2]


def _load_compiled(data: bytes) -> types.CodeType:
    """The code of a compiled file's bytes, as python takes it (pythonrun.c's
    run_pyc_file): this version's magic number, 12 more bytes of header, then the
    marshalled code object; raises what python raises for a file it cannot run."""
    import marshal

    if len(data) < 4 and sys.version_info >= (3, 13):
        raise EOFError("EOF read where not expected")  # 3.13 no longer hides it.
    if data[:4] != MAGIC_NUMBER:
        raise RuntimeError("Bad magic number in .pyc file")
    if len(data) < 16:
        raise EOFError("EOF read where not expected")
    try:
        code = marshal.loads(data[16:])
    except Exception:
        code = None
    if not isinstance(code, CodeType):
        raise RuntimeError("Bad code object in .pyc file")
    return code


def prepare_program(path: str, args: list[str]) -> Callable[[], None]:
    """Set sys.argv and sys.path[0] for a script and return the function that runs it.
    Reading and compiling happen here, so that an unreadable file or a syntax error is
    reported before any tracing starts."""
    absolute = os.path.abspath(path)
    _set_command_line([path, *args], [path, *args])
    if os.path.isdir(absolute):
        return _prepare_main_of(absolute)
    try:
        with io.open_code(absolute) as file:
            source = file.read()
    except OSError as error:
        raise CannotOpenProgram(
            f"{sys.executable}: can't open file {absolute!r}: "
            f"[Errno {error.errno}] {error.strerror}"
        ) from None
    if source.find(_ZIP_END, max(0, len(source) - _ZIP_END_REACH)) >= 0 and _is_zip_file(absolute):
        return _prepare_main_of(absolute)
    _set_path0(os.path.dirname(os.path.realpath(absolute)))
    if _is_compiled(absolute, source):
        return _prepare_compiled(absolute, source)
    source = as_python_reads(source, absolute)
    hook = compile_program_hook
    if hook is not None:
        code = hook(source, absolute)
    else:
        code = compile(source, absolute, "exec", dont_inherit=True)
    is_current = program_is_current_hook
    # A hot reload then names the top-level statements it did not run again.
    remember_text(absolute, source)
    module = _fresh_main_module()
    module.__file__ = absolute
    if sys.version_info < (3, 15):
        module.__cached__ = None  # 3.15 no longer gives __main__ a __cached__.
    module.__loader__ = SourceFileLoader("__main__", absolute)
    module.__spec__ = None
    module.__package__ = None

    def run() -> None:
        # Breakpoints answered between the compile above and this moment (a setBreakpoints
        # right after configurationDone) changed the probes of code no frame runs yet, so
        # nothing else would give them to it: it is compiled again with them.
        current = code
        if hook is not None and is_current is not None and not is_current(absolute):
            current = hook(source, absolute)
        try:
            exec(current, module.__dict__)
        finally:
            if not interpreter_flushes_at_end:
                _flush_io()

    return run


def prepare_or_exit_status(kind: str, target: str, args: list[str]):
    """The function that runs the program of ``kind``; or, for a program python would
    not start, the status it exits with, once it has said why as python says it."""
    try:
        return PREPARERS[kind](target, args)
    except CannotOpenProgram as error:
        print(error, file=sys.stderr)
        return 2
    except ProgramDoesNotStart as refused:
        print(refused.heading, file=sys.stderr)
        report_uncaught(refused.error)
        return 1
    except SyntaxError as error:
        report_uncaught(error)
        return 1


def _prepare_main_of(absolute: str) -> Callable[[], None]:
    """A directory or a zip file: python puts it first on sys.path (-I and -P too), then
    runs its ``__main__`` module through runpy, as ``python -m __main__`` would run it."""
    if sys.path and not (getattr(sys.flags, "safe_path", False) or sys.flags.isolated):
        sys.path[0] = absolute
    else:
        sys.path.insert(0, absolute)
    _fresh_main_module()
    import runpy  # Not at start: 3.9-3.10 import typing for it.

    return lambda: runpy._run_module_as_main("__main__", alter_argv=False)


def _prepare_compiled(absolute: str, data: bytes) -> Callable[[], None]:
    """A compiled file (``python script.pyc``): its code runs as it is, without probes
    (the tracer sees breakpoints in code compiled elsewhere). A file python cannot load
    fails as the program's first statement would, as it does plain."""
    module = _fresh_main_module()
    module.__file__ = absolute
    if sys.version_info < (3, 15):
        module.__cached__ = None
    module.__loader__ = SourcelessFileLoader("__main__", absolute)
    module.__spec__ = None
    module.__package__ = None

    def run() -> None:
        code = _load_compiled(data)
        try:
            exec(code, module.__dict__)
        finally:
            if not interpreter_flushes_at_end:
                _flush_io()

    return run


# Whether the interpreter flushes stdout and stderr itself once the launcher has run: when
# the launcher is a script, Python does after it what it does after the program's.
interpreter_flushes_at_end = False


def _flush_io() -> None:
    """What the interpreter does once a script's code has run, however it ended
    (pythonrun.c's flush_io; not for -m or -c): stderr, then stdout, flushed through
    their own ``flush``, which the program may have replaced."""
    for name in ("stderr", "stdout"):
        stream = getattr(sys, name, None)
        if stream is not None:
            try:
                stream.flush()
            except Exception:
                pass


def prepare_module(name: str, args: list[str]) -> Callable[[], None]:
    # _run_module_as_main replaces argv[0] with the module's file once it is found.
    _set_command_line(["-m", *args], ["-m", name, *args])
    _set_path0(os.getcwd())
    _fresh_main_module()
    import runpy

    run_as_main = getattr(runpy, "_run_module_as_main", None)
    if run_as_main is not None:
        return lambda: run_as_main(name, alter_argv=True)
    return lambda: runpy.run_module(name, run_name="__main__", alter_sys=True)


def prepare_code(text: str, args: list[str]) -> Callable[[], None]:
    _set_command_line(["-c", *args], ["-c", text, *args])
    _set_path0("")
    if DEDENTS_CODE:
        text = dedent_code(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        # A byte the locale could not decode came as a lone surrogate (Modules/main.c's
        # pymain_run_command).
        raise ProgramDoesNotStart("Unable to decode the command from the command line:",
                                  error) from None
    code = compile_text(text, "<string>", "exec")
    if sys.version_info >= (3, 13):
        # Python 3.13 shows the source lines of -c code in tracebacks; so do we. (Older
        # versions show no lines for <string>, and neither do we there.)
        import linecache

        linecache.cache["<string>"] = (len(text), None, text.splitlines(True), "<string>")
    module = _fresh_main_module()
    module.__spec__ = None
    # The interpreter's own __main__ module, which -c runs in, is the built-in importer's.
    module.__loader__ = BuiltinImporter
    module.__package__ = None
    return lambda: exec(code, module.__dict__)


# From 3.14, ``python -c`` runs its code dedented (Modules/main.c, _PyUnicode_Dedent).
DEDENTS_CODE = sys.version_info >= (3, 14)


def dedent_code(text: str) -> str:
    """``text`` without the longest margin of spaces and tabs that all its lines with
    something else share, as ``python -c`` takes it from 3.14: unchanged when some such
    line has no margin; otherwise lines of nothing but spaces and tabs become empty
    (the last one, with no newline after it, only loses the margin)."""
    lines = text.split("\n")
    margin = None
    for line in lines:
        body = line.lstrip(" \t")
        if not body:
            continue
        indent = line[:len(line) - len(body)]
        if margin is None:
            margin = indent
        else:
            common = 0
            for mine, theirs in zip(margin, indent):
                if mine != theirs:
                    break
                common += 1
            margin = margin[:common]
        if not margin:
            return text
    if not margin:
        return text
    width = len(margin)
    last = len(lines) - 1
    return "\n".join("" if index < last and not line.lstrip(" \t") else line[width:]
                     for index, line in enumerate(lines))


PREPARERS = {PROGRAM: prepare_program, MODULE: prepare_module, CODE: prepare_code}

# Compiles the program file (source, absolute path) instead of ``compile``: set by the
# debugger so that the program's breakpoints are compiled into it as probes. It raises
# the plain compile's SyntaxError for a source that does not compile.
compile_program_hook: Callable[[bytes, str], types.CodeType] | None = None
# Set with it: whether the code it gave for a path still has that file's probes.
program_is_current_hook: Callable[[str], bool] | None = None

# Called with an exception that ends the program, before its traceback is printed (the
# debugger stops there when the uncaught exception filter is on). Set by the debugger
# once tracing starts; a module-level hook because the launcher runs the program here.
uncaught_exception_hook: Callable[[BaseException], None] | None = None


def _notify_uncaught(error: BaseException) -> None:
    hook = uncaught_exception_hook
    if hook is None:
        return
    # The exit path must go on whatever the debugger does.
    try:
        hook(error)
    except Exception:
        return


def exit_code_of(exit: SystemExit) -> int:
    """The status Python exits with for an uncaught SystemExit, printing a non-integer
    code to stderr as Python does."""
    code = exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def _without_debugger_frames(traceback: types.TracebackType | None):
    while traceback is not None and is_debugger_path(
        canonical_path(traceback.tb_frame.f_code.co_filename)
    ):
        traceback = traceback.tb_next
    # Frames parked under a restarted call exist only where restartable code was loaded
    # (this module also runs programs without a session, whose interpreter may not have
    # what the instrumentation package imports).
    restarts = sys.modules.get(_RESTARTS)
    return restarts.without_parked_entries(traceback) if restarts is not None else traceback


_RESTARTS = f"{__package__.rpartition('.')[0]}.instrumentation.restarts"


def report_uncaught(error: BaseException) -> None:
    """Print an uncaught exception through sys.excepthook (a user's hook included), as
    the interpreter would, without the launcher's own frames."""
    traceback = _without_debugger_frames(error.__traceback__)
    # The interpreter's excepthook prints the exception's own __traceback__ when it has
    # one, whatever traceback it is given, so the trimmed one must go on the exception.
    error.__traceback__ = traceback
    # As pythonrun.c's _PyErr_PrintEx: audited first; a RuntimeError from an audit hook
    # means the exception is not to be shown.
    try:
        sys.audit("sys.excepthook", getattr(sys, "excepthook", None), type(error), error,
                  traceback)
    except RuntimeError:
        return
    except Exception:
        pass
    try:
        sys.excepthook(type(error), error, traceback)
    except Exception:
        sys.__excepthook__(type(error), error, traceback)


# Set when the program ended with an uncaught KeyboardInterrupt (``end_as_python_would``).
_interrupted = False


def run_prepared(run: Callable[[], None]) -> int:
    """Run the user's code and return the exit status Python would give."""
    global _interrupted
    try:
        run()
    except SystemExit as exit:
        return exit_code_of(exit)
    except KeyboardInterrupt as error:
        _notify_uncaught(error)
        report_uncaught(error)
        _interrupted = True
        # Python kills itself with SIGINT (end_as_python_would); a shell says 128 + 2.
        return 130
    except BaseException as error:
        _notify_uncaught(error)
        report_uncaught(error)
        return 1
    return 0


def end_as_python_would(code: int) -> NoReturn:
    """End an entry point's ``__main__`` (``python -m dapperdbg.launcher``, ``python -m
    dapperdbg``) with the program's exit status ``code``, as ``python`` ends the program:
    after an uncaught KeyboardInterrupt (printed already), by letting one escape
    ``__main__`` silently: the interpreter then finalizes and kills itself with SIGINT, as
    it does for the program run plain (Py_RunMain's exit_sigint), so that a shell or a
    parent process sees it interrupted."""
    global launcher_end
    if _interrupted:
        sys.excepthook = _print_nothing
        launcher_end = KeyboardInterrupt()
    else:
        launcher_end = SystemExit(code)
    raise launcher_end


# The exception ``end_as_python_would`` ends the entry point with: the debugger's own, not
# the program's, even where it crosses a frame of no file of this package (the ``-c``
# bootstrap's ``<string>``, children/commands.py).
launcher_end: BaseException | None = None


def _print_nothing(*exception) -> None:
    """The excepthook while the program's KeyboardInterrupt, printed already, leaves."""
