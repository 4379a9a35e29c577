"""A program under the launcher sees what it sees when run plain: its
``__main__``, its command line as the interpreter recorded it, its interpreter and flags,
so that a program that restarts itself from them (a development server's reloader)
starts itself again, not the launcher."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_launch import run_to_exit

REPORT = r"""
import builtins, gc, json, sys
main = sys.modules["__main__"]
spec = getattr(main, "__spec__", None)
print(json.dumps({
    "argv": sys.argv,
    "orig_argv": getattr(sys, "orig_argv", None),
    "executable": sys.executable,
    "flags": list(sys.flags),
    "xoptions": sys._xoptions,
    "path": sys.path,
    "warnoptions": sys.warnoptions,
    "name": main.__name__,
    "file": getattr(main, "__file__", "<absent>"),
    "package": getattr(main, "__package__", "<absent>"),
    "spec": None if spec is None else [spec.name, spec.origin, spec.parent],
    "loader": type(getattr(main, "__loader__", None)).__name__,
    "cached": getattr(main, "__cached__", "<absent>"),
    "doc": main.__doc__,
    "collector": [gc.isenabled(), gc.get_threshold()],
    "finders": [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path],
    "builtins": sorted(name for name in vars(builtins) if "dapper" in name),
    # What ran the program: -m imports runpy, a script and -c do not.
    "runpy": "runpy" in sys.modules,
}))
"""


def plain_environment() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("DAPPER_", "PYTHON"))}


def plain_report(argv: list[str], cwd) -> dict:
    result = subprocess.run([sys.executable, *argv], cwd=cwd, env=plain_environment(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def launched_report(launch, target: list[str], options: list[str]) -> dict:
    debuggee = launch(*target, python_options=options)
    run_to_exit(debuggee)
    return json.loads(debuggee.stdout().strip().splitlines()[-1])


TARGETS = {
    # name: (plain words, launcher words)
    "program": (["sub/report.py", "a", "--b"], ["--program", "sub/report.py", "--", "a", "--b"]),
    "module": (["-m", "pkg.tool", "x"], ["--module", "pkg.tool", "x"]),
    "package": (["-m", "pkg", "y"], ["--module", "pkg", "y"]),
    "code": (["-c", REPORT, "p"], ["--code", REPORT, "--", "p"]),
    # A directory or a zip file with a __main__.py: its path is sys.path[0], once.
    "directory": (["app", "d"], ["--program", "app", "--", "d"]),
    "zip": (["app.zip", "z"], ["--program", "app.zip", "--", "z"]),
}


OPTIONS = {"plain": [], "options": ["-X", "dev", "-B", "-Wdefault"], "isolated": ["-I"],
           "no-site-no-env": ["-s", "-E"]}


# -I leaves the working directory out of sys.path: -m finds no module of the test's there.
@pytest.mark.parametrize("target,options", [
    (target, options) for target in sorted(TARGETS) for options in OPTIONS
    if not (options == "isolated" and target in ("module", "package"))])
def test_the_program_sees_what_it_sees_plain(launch, write, tmp_path, target, options):
    import zipfile

    options = OPTIONS[options]

    write("sub/report.py", '"""The report."""\n' + REPORT)
    write("pkg/__init__.py", "")
    write("pkg/tool.py", REPORT)
    write("pkg/__main__.py", REPORT)
    write("app/__main__.py", REPORT)
    with zipfile.ZipFile(tmp_path / "app.zip", "w") as archive:
        archive.writestr("__main__.py", REPORT)
    plain_words, launcher_words = TARGETS[target]
    expected = plain_report([*options, *plain_words], tmp_path)
    assert launched_report(launch, launcher_words, options) == expected


# From 3.14, ``python -c`` dedents its code as textwrap.dedent does (CPython's
# test_threading passes its children indented code). Lines of nothing but spaces and
# tabs become empty, inside a string too; before 3.14 the same code is an
# IndentationError, which the launcher must report as plain does.
INDENTED = {
    "indented": '\n    import sys\n    text = """a\n      \n    \tb"""\n    print(repr(text))\n'
                '    if len(sys.argv) > 1:\n        raise ValueError(sys.argv[1])\n',
    "mixed margins": "\n  \tx = 1\n  \tif x:\n  \t    print(x)\n  y = 2\n",
    "first line flush": "print(1)\n    print(2)\n",
    "blank lines only": "\n   \n\t\n",
}


@pytest.mark.parametrize("name", sorted(INDENTED))
def test_code_runs_dedented_as_plain(launch, tmp_path, name):
    code = INDENTED[name]
    plain = subprocess.run([sys.executable, "-c", code, "boom"], cwd=tmp_path,
                           env=plain_environment(), capture_output=True, text=True, timeout=60)
    debuggee = launch("--code", code, "--", "boom")
    debuggee.configure()
    debuggee.request("configurationDone")
    debuggee.finish(plain.returncode)
    assert (debuggee.stdout(), debuggee.stderr()) == (plain.stdout, plain.stderr)


def test_code_that_is_not_text_fails_as_plain(launch, tmp_path):
    # A byte the locale cannot decode reaches python -c as a lone surrogate, which it
    # cannot encode to compile the code (CPython's test_cmd_line, test_undecodable_code).
    code = 'print(ascii("\udcff"))'
    env = {"LC_ALL": "C"}
    plain = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                           env={**plain_environment(), **env}, capture_output=True, timeout=60)
    assert plain.returncode == 1, plain
    debuggee = launch("--code", code, env=env)
    debuggee.configure()
    debuggee.request("configurationDone")
    debuggee.finish(plain.returncode)
    assert (debuggee.stdout(), debuggee.stderr()) == (plain.stdout.decode(), plain.stderr.decode())


AUDITED = """
import sys


def excepthook(kind, value, traceback):
    print("excepthook", kind.__name__, value, file=sys.stderr)


def hook(event, args):
    if event.startswith(("sys.", "ctypes.")) and event != "sys._getframe":
        print(event, *(repr(arg) for arg in args[1:3]), file=sys.stderr)


def never_called():
    return "a breakpoint here makes the debugger watch"  # line 14


sys.addaudithook(hook)
sys.excepthook = excepthook
{ending}
"""


@pytest.mark.parametrize("ending", ["print('ran')", "raise RuntimeError('fatal-error')"],
                         ids=["returns", "raises"])
def test_an_audit_hook_of_the_program_sees_what_it_sees_plain(launch, write, backend, ending):
    # CPython's test_audit: the interpreter audits the excepthook it calls for an
    # uncaught exception, and the debugger's own end (its tracer taken out, threads
    # listed) is no event of the program's.
    program = write("audited.py", AUDITED.format(ending=ending))
    plain = subprocess.run([sys.executable, str(program)], env=plain_environment(),
                           capture_output=True, text=True, timeout=60)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(program, [14])
    debuggee.request("configurationDone")
    debuggee.finish(plain.returncode)
    expected = plain.stderr
    if backend == "settrace" and sys.version_info >= (3, 12):
        # The settrace fallback traces all along there: the thread that ends the process
        # loses its trace function (sys.settrace(None)) before finalization, which must
        # not call into the debugger while modules are torn down.
        expected += "sys.settrace\n"
    assert (debuggee.stdout(), debuggee.stderr()) == (plain.stdout, expected)


# A program that starts itself again as Werkzeug's reloader does (the e2e tests' fixture).
RESTARTER = (Path(__file__).resolve().parents[3] / "test" / "fixtures" / "children"
             / "reloader_parent.py")


@pytest.mark.parametrize("target", ["program", "module"])
def test_a_program_that_restarts_itself_restarts_itself(launch, write, tmp_path, target):
    write("restarter.py", RESTARTER.read_text(encoding="utf-8"))
    launcher_words = {"program": ["--program", "restarter.py", "--", "41"],
                      "module": ["--module", "restarter", "41"]}[target]
    debuggee = launch(*launcher_words)
    run_to_exit(debuggee)
    assert debuggee.stdout() == "serving 42\nreloader saw 3\n"


# What the interpreter's file tokenizer does with a script that compile() reads otherwise:
# bytes that are not UTF-8, and null bytes (3.11+: a SyntaxError naming the line; before:
# the rest of the line is dropped, and the next line joins what is left of it).
UNUSUAL_SOURCES = {
    "first line": b"\x89PNG\n",
    "in a string": b"x = 1\ny = 2\nz = '\xff'\n",
    "in a comment": b"\n\n\n\n# caf\xe9\nprint('ran')\n",
    "declared utf-8": b"# -*- coding: utf-8 -*-\nz = '\xff'\n",
    "with a BOM": b"\xef\xbb\xbfz = '\xff'\n",
    "second line": b"x = 1\n'\xff'\n",
    "declared, in a comment": b"# coding: utf-8\n\n\n# caf\xe9 \nprint('ran')\n",
    "declared latin-1": b"# coding: latin-1\nz = '\xff'\nprint('ran' + z)\n",
    "a null byte": b"x = 1\ny = '\0'\n",
    "a null byte in a multi-line string": b"x = '''\nabc\0\n'''\nprint(len(x))\n",
    "a null byte in a multi-line f-string": b"\nf'''\nmultilinestring\0\n'''",
    "a null byte first": b"\0print(1)\n",
    "a null byte in a comment": b"x = 1 #\0 gone\nprint(x)\nprint(2)\n",
    "a null byte after a syntax error": b"x = (1 +\n\n)]\ny = '\0'\n",
}


@pytest.mark.parametrize("name", sorted(UNUSUAL_SOURCES))
def test_an_unusual_source_runs_or_fails_as_it_does_plain(launch, tmp_path, name):
    # Each version's file tokenizer words these differently (3.14 reworded them all), and
    # some run on one version and fail on another: whatever plain Python does is right.
    import subprocess

    path = tmp_path / "binary.py"
    path.write_bytes(UNUSUAL_SOURCES[name])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    plain = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=30)
    debuggee = launch("--program", path)
    run_to_exit(debuggee, plain.returncode)
    assert (debuggee.stdout(), debuggee.stderr()) == (plain.stdout, plain.stderr)


COMPILED = """
import sys
print("ran", __file__, type(__loader__).__name__, __cached__, __spec__, sys.argv, sys.path[0])
"""


BROKEN_COMPILED = {"bad magic.pyc": lambda data: b"\0\0\r\n" + data[4:],
                   "empty.pyc": lambda data: b"", "half a magic.pyc": lambda data: data[:2],
                   "half a header.pyc": lambda data: data[:9],
                   "no code.pyc": lambda data: data[:16] + b"\xff"}


@pytest.mark.parametrize("name", ["script.pyc", "no suffix", *BROKEN_COMPILED])
def test_a_compiled_script_runs_or_fails_as_it_does_plain(launch, tmp_path, name):
    # python runs a .pyc file (or a file that starts with this version's magic number)
    # as compiled code: the bytes after the header, marshalled.
    import py_compile

    source = tmp_path / "source.py"
    source.write_text(COMPILED)
    compiled = tmp_path / "compiled"
    py_compile.compile(str(source), cfile=str(compiled), doraise=True)
    data = compiled.read_bytes()
    path = tmp_path / name
    path.write_bytes(BROKEN_COMPILED.get(name, lambda data: data)(data))
    plain = subprocess.run([sys.executable, str(path), "x"], cwd=tmp_path,
                           env=plain_environment(), capture_output=True, text=True, timeout=60)
    debuggee = launch("--program", path, "--", "x")
    run_to_exit(debuggee, plain.returncode)
    assert (debuggee.stdout(), debuggee.stderr()) == (plain.stdout, plain.stderr)


BUFFERING = """
import json, os, sys
print(json.dumps({
    "line_buffering": sys.stdout.line_buffering,
    "write_through": sys.stdout.write_through,
    "PYTHONUNBUFFERED": os.environ.get("PYTHONUNBUFFERED"),
}))
"""


def terminal_report(argv: list[str], cwd, env: dict) -> dict:
    """What the program reports when run plain with its output on a terminal."""
    import pty

    controller, terminal = pty.openpty()
    try:
        result = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, stdout=terminal,
                                timeout=60)
        assert result.returncode == 0
        text = os.read(controller, 65536).decode()
    finally:
        os.close(controller)
        os.close(terminal)
    return json.loads(text.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX only")
@pytest.mark.parametrize("case", ["default", "PYTHONUNBUFFERED", "-u"])
def test_captured_output_is_buffered_as_on_a_terminal(launch, write, tmp_path, case):
    # The engine captures the output of an internalConsole program (DAPPER_CAPTURED_OUTPUT):
    # it is line-buffered, as on the terminal the user would run the program in, unless
    # the user asked for unbuffered output; the environment is the user's.
    program = write("buffering.py", BUFFERING)
    options = ["-u"] if case == "-u" else []
    user_env = {"PYTHONUNBUFFERED": "1"} if case == "PYTHONUNBUFFERED" else {}
    expected = terminal_report([*options, str(program)], tmp_path,
                               {**plain_environment(), **user_env})
    if case != "default":
        expected["line_buffering"] = False  # Unbuffered output is never line-buffered.
    debuggee = launch("--program", program, python_options=options,
                      env={"DAPPER_CAPTURED_OUTPUT": "1", **user_env})
    run_to_exit(debuggee)
    assert json.loads(debuggee.stdout().strip().splitlines()[-1]) == expected


def test_output_not_captured_keeps_the_streams_as_they_are(launch, write, tmp_path):
    program = write("buffering.py", BUFFERING)
    expected = plain_report([str(program)], tmp_path)
    debuggee = launch("--program", program, env={"DAPPER_CAPTURED_OUTPUT": None})
    run_to_exit(debuggee)
    assert json.loads(debuggee.stdout().strip().splitlines()[-1]) == expected


@pytest.mark.parametrize("orig_argv,argv", [
    (["py", "-X", "dev", "-m", "dapperdbg.launcher", "--ipc", "i", "--program", "p.py", "a"],
     ["/d/launcher/__main__.py", "--ipc", "i", "--program", "p.py", "a"]),
    (["py", "-I", "-c", "bootstrap", "--ipc", "i", "--program", "p.py", "a"],
     ["-c", "--ipc", "i", "--program", "p.py", "a"]),
    (["py", "-X", "dev", "/d/launcher/__main__.py", "--ipc", "i", "--program", "p.py", "a"],
     ["/d/launcher/__main__.py", "--ipc", "i", "--program", "p.py", "a"]),
    (["py", "-X", "dev", "/bin/dapper-entry", "--listen", "1", "p.py", "a"],
     ["/bin/dapper-entry", "--listen", "1", "p.py", "a"]),
])
def test_orig_argv_is_the_interpreter_and_its_options_then_the_target(monkeypatch, orig_argv,
                                                                        argv):
    from dapperdbg.session import program

    monkeypatch.setattr(sys, "orig_argv", orig_argv, raising=False)
    monkeypatch.setattr(sys, "argv", argv)
    program._set_command_line(["p.py", "a"], ["p.py", "a"])
    assert sys.orig_argv == [*orig_argv[:3 if "-X" in orig_argv else 2], "p.py", "a"]
    assert sys.argv == ["p.py", "a"]


THREADS_SEEN = """
import json, sys, threading
print(json.dumps({
    "current_frames": len(sys._current_frames()),
    "own_frame": sys._current_frames()[threading.get_ident()] is sys._getframe(),
    "active_count": threading.active_count(),
    "enumerate": [t.name for t in threading.enumerate()],
    "only_main": threading.enumerate() == [threading.main_thread()],
}), flush=True)
"""


def test_the_debuggers_threads_are_not_the_programs(launch, write, tmp_path):
    # CPython's test_threading counts threads (active_count, enumerate,
    # sys._current_frames): the debugger's own threads (its connection's reader among
    # them) are not among them.
    program = write("threads_seen.py", THREADS_SEEN)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=60, check=True)
    debuggee = launch("--program", program)
    run_to_exit(debuggee)
    assert json.loads(debuggee.stdout()) == json.loads(plain.stdout)


SIGINT_AS_A_GENERATOR_RESUMES = """
import signal, sys
# As an interactive Python has it, whatever the test runner's worker left to its children
# (a SIGINT ignored or blocked there is ignored or blocked here).
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
try:
    import _testcapi
except ImportError:
    print("no _testcapi")
    sys.exit()


def inner():
    try:
        yield
    except KeyboardInterrupt:
        return "caught in the generator"
    return "not interrupted"


def outer():
    return (yield from inner())


generator = outer()
generator.send(None)
try:
    _testcapi.raise_SIGINT_then_send_None(generator)
except BaseException as error:
    print(type(error).__name__, error, flush=True)
"""


def test_a_signal_pending_as_a_generator_resumes_is_raised_in_the_generator(
        launch, write, backend, request):
    # CPython's test_generators (SignalAndYieldFromTest): a SIGINT pending when a
    # generator resumes is raised inside it, where the program catches it; the debugger's
    # callbacks must not be where it is raised.
    if backend == "settrace" and sys.version_info >= (3, 12):
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "3.12+ call a settrace function at every resume (it is the fallback there, "
            "when another tool holds sys.monitoring's debugger id): the signal is raised "
            "at the start of that function")))
    program = write("sigint_generator.py", SIGINT_AS_A_GENERATOR_RESUMES)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=60, check=True)
    debuggee = launch("--program", program, tracer=backend)
    run_to_exit(debuggee)
    assert debuggee.stdout() == plain.stdout
    assert plain.stdout in ("StopIteration caught in the generator\n", "no _testcapi\n")


FLUSH_AT_FINALIZATION = """
import sys

calls = []
original = sys.stderr.flush


def flush(*args, **kwargs):
    calls.append("finalizing" if sys.is_finalizing() else "running")
    with open(sys.argv[1], "w") as record:
        record.write(" ".join(calls))
    return original(*args, **kwargs)


sys.stderr.flush = flush
print("done", flush=True)
"""


@pytest.mark.parametrize("console", ["internalConsole", "integratedTerminal"])
def test_a_flush_the_program_put_on_its_stream_is_called_as_plain(
        launch, write, tmp_path, console):
    # CPython's test_threading (test_finalize_daemon_thread_hang) replaces
    # sys.stderr.flush to run code while the interpreter finalizes. The interpreter
    # calls it once the script's code has run, then at finalization; the debugger's own
    # flush at the program's end must not call it too, nor ahead of them.
    program = write("flush_hook.py", FLUSH_AT_FINALIZATION)
    plain_record = tmp_path / "plain.txt"
    subprocess.run([sys.executable, str(program), str(plain_record)], check=True, timeout=60)
    debugged_record = tmp_path / "debugged.txt"
    debuggee = launch("--program", program, "--", str(debugged_record))
    run_to_exit(debuggee, launch={"program": str(program), "console": console})
    assert debugged_record.read_text() == plain_record.read_text() == "running finalizing"


@pytest.mark.parametrize("options", [(), ("-I",)])
def test_a_flush_the_program_put_on_its_stream_is_called_as_plain_after_c(
        launch, tmp_path, options):
    # After -c code (and -m), Python flushes at finalization only; under -I, where the
    # launcher cannot come through PYTHONPATH, the launcher must not be a script either
    # (Python flushes after a script: test_threading's test_finalize_daemon_thread_hang
    # saw it on 3.14).
    plain_record = tmp_path / "plain.txt"
    subprocess.run([sys.executable, *options, "-c", FLUSH_AT_FINALIZATION, str(plain_record)],
                   check=True, timeout=60)
    debugged_record = tmp_path / "debugged.txt"
    debuggee = launch("--code", FLUSH_AT_FINALIZATION, "--", str(debugged_record),
                      python_options=options)
    run_to_exit(debuggee, launch={})
    assert debugged_record.read_text() == plain_record.read_text() == "finalizing"


BLOCKED_SIGNAL = """
import os, signal, sys

def handler(signum, frame):
    print("handler ran", flush=True)

signal.signal(signal.SIGUSR1, handler)
# The program's only thread blocks the signal: sent to the process, it stays pending
# until taken (a thread that does not block it would be given it instead).
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
os.kill(os.getpid(), signal.SIGUSR1)
info = signal.sigtimedwait([signal.SIGUSR1], 1)
print("taken:", None if info is None else info.si_signo == signal.SIGUSR1, flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_signal_sent_to_the_process_goes_to_the_programs_threads(launch, write):
    # CPython's test_signal (PendingSignalsTests): a signal the program's threads block
    # stays pending for sigwait; the debugger's own threads must not take it.
    program = write("blocked_signal.py", BLOCKED_SIGNAL)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=60, check=True)
    assert plain.stdout == "taken: True\n"
    debuggee = launch("--program", program)
    run_to_exit(debuggee)
    assert debuggee.stdout() == plain.stdout


INTERRUPTED = """
import atexit, sys

atexit.register(lambda: print("exit handler ran", flush=True))
sys.excepthook = lambda kind, value, traceback: print("hook:", kind.__name__, flush=True)
raise KeyboardInterrupt
"""


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix",
                    reason="a process killed by a signal")
def test_an_uncaught_keyboard_interrupt_ends_the_process_as_plain(launch, write):
    # CPython's test_signal (test_keyboard_interrupt_exit_code): a program ended by an
    # uncaught KeyboardInterrupt is finalized, then killed by SIGINT, so that its parent
    # (a shell) knows it was interrupted.
    program = write("interrupted.py", INTERRUPTED)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=60)
    assert plain.returncode == -signal.SIGINT
    debuggee = launch("--program", program)
    debuggee.configure()
    debuggee.request("configurationDone")
    debuggee.process.wait(60)
    assert debuggee.process.returncode == plain.returncode, debuggee.stderr()
    assert debuggee.stdout() == plain.stdout == "hook: KeyboardInterrupt\nexit handler ran\n"


# The program's allocations fail for a while (_testcapi.set_nomemory), as in CPython's
# test_exceptions: it ends with its MemoryError and status 1, as plain. Under the launcher's
# script this crashed 3.9-3.11 (the launcher's __main__ namespace, which Python writes to
# after the script, had been freed with its module).
OUT_OF_MEMORY = """if 1:
    import _testcapi
    class C(): pass
    _testcapi.set_nomemory(0, {failures})
    C()
"""


@pytest.mark.parametrize("failures", range(1, 20))
def test_a_program_that_runs_out_of_memory_ends_as_plain(launch, write, failures):
    pytest.importorskip("_testcapi")
    program = write("memory.py", OUT_OF_MEMORY.format(failures=failures))
    debuggee = launch("--program", program, env={"DAPPER_CAPTURED_OUTPUT": None})
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    assert debuggee.wait_exit() in (1, 120)  # test_exceptions accepts both.
    assert "MemoryError" in debuggee.stderr()
