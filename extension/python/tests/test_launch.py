"""The launcher end to end: hello, targets, argv and sys.path, environment cleanup,
exit codes, bad input."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from conftest import PACKAGE_DIR, TIMEOUT

REPORT = """
import json, os, sys
print(json.dumps({
    "argv": sys.argv,
    "path0": sys.path[0] if sys.path else None,
    "dapper_vars": sorted(k for k in os.environ if k.startswith("DAPPER_")),
    "pythonpath": os.environ.get("PYTHONPATH"),
    "package_on_path": any(os.path.abspath(p) == PACKAGE for p in sys.path if p),
    "name": __name__,
    "file": globals().get("__file__"),
    "main_is_me": sys.modules["__main__"].__dict__ is globals(),
}))
""".replace("PACKAGE", repr(str(PACKAGE_DIR)))


def run_to_exit(debuggee, expected_exit=0, launch=None):
    debuggee.configure(launch)
    debuggee.request("configurationDone")
    debuggee.finish(expected_exit)
    return debuggee


def report_of(debuggee) -> dict:
    return json.loads(debuggee.stdout().strip().splitlines()[-1])


@pytest.mark.parametrize("transport", ["unix", "tcp"])
def test_hello_carries_the_token_and_process_facts(launch, write, transport):
    program = write("hello.py", "print('hi')\n")
    debuggee = launch("--program", program, transport=transport)
    hello = debuggee.hello
    assert hello["protocol"] == 1
    assert hello["pythonVersion"].startswith(f"{sys.version_info[0]}.{sys.version_info[1]}.")
    assert hello["pythonImplementation"] == "CPython"
    assert os.path.exists(hello["executable"])
    run_to_exit(debuggee)
    assert debuggee.stdout() == "hi\n"
    assert debuggee.wait_event("dapper/exiting") == {"exitCode": 0}


def test_hello_facts_match_what_platform_says():
    # The launcher does not import platform (it costs every debuggee ~5 ms).
    import platform

    from dapperdbg.session.link import python_implementation, python_version

    assert python_version() == platform.python_version()
    assert python_implementation() == platform.python_implementation()


def test_program_target_sees_its_own_argv_path_and_environment(launch, write, tmp_path):
    program = write("sub/report.py", REPORT)
    debuggee = launch("--program", program, "--", "a", "--b")
    run_to_exit(debuggee)
    report = report_of(debuggee)
    assert report["argv"] == [str(program), "a", "--b"]
    assert report["path0"] == str(program.parent.resolve())
    assert report["dapper_vars"] == []
    assert report["pythonpath"] is None
    assert report["package_on_path"] is False
    assert report["name"] == "__main__"
    assert report["file"] == str(program)
    assert report["main_is_me"] is True


def test_users_own_pythonpath_survives(launch, write, tmp_path):
    program = write("report.py", REPORT)
    mine = str(tmp_path / "mine")
    env = {"PYTHONPATH": os.pathsep.join([str(PACKAGE_DIR), mine])}
    debuggee = launch("--program", program, env=env)
    run_to_exit(debuggee)
    assert report_of(debuggee)["pythonpath"] == mine


def test_words_after_the_target_belong_to_the_program(launch, write):
    program = write("report.py", REPORT)
    debuggee = launch("--program", program, "--no-debug", "--ipc", "x")
    run_to_exit(debuggee)
    assert report_of(debuggee)["argv"][1:] == ["--no-debug", "--ipc", "x"]


def test_module_target(launch, write, tmp_path):
    write("pkg/__init__.py", "")
    module = write("pkg/tool.py", REPORT)
    debuggee = launch("--module", "pkg.tool", "x", "y")
    run_to_exit(debuggee)
    report = report_of(debuggee)
    assert report["argv"] == [str(module), "x", "y"]
    assert report["path0"] == str(tmp_path)
    assert report["name"] == "__main__"
    assert report["main_is_me"] is True
    assert report["dapper_vars"] == []


def test_code_target(launch):
    debuggee = launch("--code", REPORT, "--", "p", "q")
    run_to_exit(debuggee)
    report = report_of(debuggee)
    assert report["argv"] == ["-c", "p", "q"]
    assert report["path0"] == ""
    assert report["file"] is None


def test_no_debug_still_runs(launch, write):
    program = write("p.py", "print('ran')\n")
    debuggee = launch("--program", program, launcher_options=["--no-debug"])
    run_to_exit(debuggee)
    assert debuggee.stdout() == "ran\n"


EXIT_CASES = [
    # (name, source, expected exit code, text expected on stderr)
    ("falls off the end", "x = 1\n", 0, None),
    ("sys.exit()", "import sys\nsys.exit()\n", 0, None),
    ("sys.exit(0)", "import sys\nsys.exit(0)\n", 0, None),
    ("sys.exit(3)", "import sys\nsys.exit(3)\n", 3, None),
    ("sys.exit('msg')", "import sys\nsys.exit('bye now')\n", 1, "bye now\n"),
    ("raise SystemExit(True)", "raise SystemExit(True)\n", 1, None),
    ("uncaught exception", "def f():\n    raise ValueError('bad')\nf()\n", 1, "ValueError: bad"),
    ("os._exit", "import os\nos._exit(7)\n", 7, None),
    ("exit from a thread's sys.exit is ignored",
     "import sys, threading\nt = threading.Thread(target=sys.exit, args=(5,))\n"
     "t.start(); t.join()\n", 0, None),
]


@pytest.mark.parametrize("name,source,code,stderr", EXIT_CASES, ids=[c[0] for c in EXIT_CASES])
def test_exit_codes(launch, write, name, source, code, stderr):
    program = write("p.py", source)
    debuggee = launch("--program", program)
    run_to_exit(debuggee, code)
    if stderr is not None:
        assert stderr in debuggee.stderr()
    if name != "os._exit":
        assert debuggee.wait_event("dapper/exiting") == {"exitCode": code}


def plain_python_stderr(tmp_path, argv):
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=30)
    return result.returncode, result.stderr


@pytest.mark.parametrize("kind", ["program", "module", "code", "syntax error"])
def test_uncaught_traceback_matches_plain_python(launch, write, tmp_path, kind):
    source = "def inner():\n    raise KeyError('k')\n\ndef outer():\n    inner()\n\nouter()\n"
    if kind == "syntax error":
        # Not an unclosed bracket: for those 3.9's file parser and compile() disagree
        # on the line, which is the interpreter's quirk, not the launcher's.
        source = "x = 1\ny = = 2\n"
    path = write("crash.py", source)
    argv = {"program": [str(path)], "module": ["-m", "crash"], "code": ["-c", source],
            "syntax error": [str(path)]}[kind]
    expected_code, expected_stderr = plain_python_stderr(tmp_path, argv)
    target = {"program": ["--program", path], "module": ["--module", "crash"],
              "code": ["--code", source], "syntax error": ["--program", path]}[kind]
    debuggee = launch(*target)
    run_to_exit(debuggee, expected_code)
    assert debuggee.stderr() == expected_stderr


def test_atexit_handlers_run_before_exiting_is_sent(launch, write):
    program = write("p.py", """
        import atexit, sys
        atexit.register(lambda: print("user atexit", flush=True))
        sys.exit(4)
    """)
    debuggee = launch("--program", program)
    run_to_exit(debuggee, 4)
    assert debuggee.stdout() == "user atexit\n"
    assert debuggee.wait_event("dapper/exiting") == {"exitCode": 4}


def test_missing_program_exits_2_like_python(launch, tmp_path):
    debuggee = launch("--program", tmp_path / "nope.py")
    run_to_exit(debuggee, 2)
    assert "can't open file" in debuggee.stderr()


def test_missing_module_exits_1_like_python(launch):
    debuggee = launch("--module", "no_such_module_here")
    run_to_exit(debuggee, 1)
    assert "No module named no_such_module_here" in debuggee.stderr()


def test_connection_failure_is_reported_and_exits_1(tmp_path):
    import subprocess

    from conftest import engine_environment

    argv = [sys.executable, "-m", "dapperdbg.launcher", "--ipc", f"unix:{tmp_path}/none.sock",
            "--session-id", "s", "--code", "pass"]
    result = subprocess.run(argv, env=engine_environment(), capture_output=True, text=True,
                            timeout=30, cwd=tmp_path)
    assert result.returncode == 1
    assert "cannot connect to the debugger" in result.stderr


def test_a_child_that_cannot_connect_runs_its_program_untraced(tmp_path):
    # Its engine is gone (or its interpreter cannot load the connection's modules): a
    # program must not break because one of its children could not be debugged.
    import subprocess

    from conftest import engine_environment

    program = tmp_path / "child.py"
    # Nothing of the launcher's start bundle stays in the import system it runs with.
    program.write_text("import sys\nprint('ran', sys.argv[1:], [type(finder).__name__ for finder "
                       "in sys.meta_path if 'Bundle' in type(finder).__name__])\nsys.exit(3)\n")
    argv = [sys.executable, "-m", "dapperdbg.launcher", "--ipc", f"unix:{tmp_path}/none.sock",
            "--session-id", "s1.1", "--program", str(program), "--", "a"]
    result = subprocess.run(argv, env=engine_environment({"DAPPER_PARENT_SESSION_ID": "s1"}),
                            capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (3, "ran ['a'] []\n")
    assert result.stderr.startswith("dapper: this child process runs without the debugger: "
                                    "cannot connect to the debugger at unix:")


@pytest.mark.parametrize("argv,message", [
    (["--session-id", "s", "--code", "pass"], "missing required option --ipc"),
    (["--ipc", "unix:/x", "--session-id", "s"], "missing the target"),
    (["--ipc", "bogus", "--session-id", "s", "--code", "pass"], "bad IPC address"),
])
def test_bad_command_lines_fail_clearly(tmp_path, argv, message):
    import subprocess

    from conftest import engine_environment

    result = subprocess.run([sys.executable, "-m", "dapperdbg.launcher", *argv],
                            env=engine_environment(), capture_output=True, text=True,
                            timeout=30, cwd=tmp_path)
    assert result.returncode in (1, 2)
    assert message in result.stderr


def test_missing_token_fails_clearly(tmp_path):
    import subprocess

    from conftest import engine_environment

    result = subprocess.run(
        [sys.executable, "-m", "dapperdbg.launcher", "--ipc", "tcp:127.0.0.1:9",
         "--session-id", "s", "--code", "pass"],
        env=engine_environment({"DAPPER_SESSION_TOKEN": None}),
        capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 1
    assert "DAPPER_SESSION_TOKEN" in result.stderr


def test_disconnect_before_configuration_done_exits_quietly(launch, write):
    program = write("p.py", "print('should not run')\n")
    debuggee = launch("--program", program)
    debuggee.configure()
    debuggee.disconnect()
    assert debuggee.wait_exit() == 1
    assert debuggee.stdout() == ""
    assert "disconnected before the program started" in debuggee.stderr()


def test_unknown_requests_get_an_error(launch, write):
    program = write("p.py", "pass\n")
    debuggee = launch("--program", program)
    response = debuggee.request_raw("dapper/noSuchRequest", {})
    assert response["success"] is False
    assert "not supported by this debuggee yet" in response["message"]
    response = debuggee.request_raw("stackTrace", {"threadId": "x"})
    assert response["success"] is False and "threadId" in response["message"]
    response = debuggee.request_raw("setBreakpoints", {"source": {"path": "/x.py"},
                                                       "breakpoints": [{"line": "one"}]})
    assert response["success"] is False and "'line' must be an integer" in response["message"]
    response = debuggee.request_raw("setBreakpoints", {"source": {}})
    assert response["success"] is False and "source.path" in response["message"]
    response = debuggee.request_raw("dapper/configure", {"client": [], "launch": {}})
    assert response["success"] is False
    run_to_exit(debuggee)


def test_a_corrupt_stream_ends_the_session_clearly(launch, write):
    program = write("p.py", "print('should not run')\n")
    debuggee = launch("--program", program)
    debuggee.sock.sendall(b"XX\x01\x02\x00\x00\x00\x02{}")
    assert debuggee.wait_exit() == 1
    assert "bad frame magic" in debuggee.stderr()
    assert debuggee.stdout() == ""


def test_exiting_waits_for_non_daemon_threads(launch, write):
    program = write("p.py", """
        import threading, time
        def late():
            time.sleep(0.3)
            print("thread done", flush=True)
        threading.Thread(target=late).start()
        print("main done", flush=True)
    """)
    debuggee = launch("--program", program)
    run_to_exit(debuggee)
    assert debuggee.stdout() == "main done\nthread done\n"
    assert debuggee.wait_event("dapper/exiting") == {"exitCode": 0}


def test_package_module_target_runs_its_main(launch, write, tmp_path):
    write("tool/__init__.py", "")
    main = write("tool/__main__.py", REPORT)
    debuggee = launch("--module", "tool", "arg")
    run_to_exit(debuggee)
    report = report_of(debuggee)
    assert report["argv"] == [str(main), "arg"]
    assert report["name"] == "__main__"


@pytest.mark.parametrize("kind", ["zip application", "directory", "zip without a main"])
def test_program_target_may_be_a_zip_application_or_a_directory(launch, write, tmp_path,
                                                                kind):
    import zipfile

    main = "import sys; print('main of', sys.argv[0])\n"
    if kind == "directory":
        write("app/__main__.py", main)
        target = tmp_path / "app"
    else:
        # No .zip suffix: Python recognises a zip application by its content.
        target = tmp_path / "app.pyz.data"
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("__main__.py" if kind == "zip application" else "other.py", main)
    debuggee = launch("--program", target)
    if kind == "zip without a main":
        run_to_exit(debuggee, 1)
        assert "__main__" in debuggee.stderr()
        return
    run_to_exit(debuggee)
    assert debuggee.stdout() == f"main of {target}\n"


def test_the_package_caches_its_own_bytecode_but_the_program_keeps_its_setting(
        launch, write, tmp_path):
    # A copy of the package, so that its __pycache__ starts empty.
    import shutil

    package_copy = tmp_path / "package"
    shutil.copytree(PACKAGE_DIR / "dapperdbg", package_copy / "dapperdbg",
                    ignore=shutil.ignore_patterns("__pycache__"))
    write("helper.py", "VALUE = 1\n")
    program = write("main.py", """
        import sys
        import helper
        print(sys.dont_write_bytecode, helper.VALUE)
    """)
    debuggee = launch("--program", program, env={
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(package_copy),
        "DAPPER_PYTHONPATH_ENTRY": str(package_copy),
    }, package=package_copy)
    run_to_exit(debuggee)
    assert debuggee.stdout() == "True 1\n"
    root = package_copy / "dapperdbg"
    cached = {
        ".".join([*cache.parent.relative_to(root).parts, name.split(".")[0]])
        for cache in root.rglob("__pycache__") for name in os.listdir(cache)
    }
    # (dapper/__init__.py itself is compiled before it can change the setting.)
    assert {"launcher.launch", "session.debugger", "ipc.connection", "requests.dispatch",
            "breakpoints.store"} <= cached
    assert not (tmp_path / "__pycache__").exists(), "the program's own modules are not cached"


@pytest.mark.skipif(not hasattr(sys, "monitoring"), reason="sys.monitoring is 3.12+")
def test_the_tracer_falls_back_to_settrace_when_another_tool_holds_the_debugger_id(
        launch, write, tmp_path):
    # Another debugger (here a sitecustomize) took sys.monitoring's debugger id first.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\nsys.monitoring.use_tool_id(sys.monitoring.DEBUGGER_ID, 'another')\n")
    program = write("main.py", """
        import sys
        x = 1
        print(sys.monitoring.get_tool(sys.monitoring.DEBUGGER_ID), sys.gettrace() is not None)
    """)
    debuggee = launch("--program", program,
                      env={"PYTHONPATH": os.pathsep.join([str(PACKAGE_DIR), str(site)])})
    debuggee.configure()
    debuggee.set_breakpoints(program, [2])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    notices = [event["body"]["output"] for event in debuggee.events
               if event["event"] == "output" and event["body"]["output"].startswith("Dapper:")]
    assert len(notices) == 1 and "sys.monitoring cannot be used" in notices[0], notices
    assert debuggee.stdout() == "another True\n"


@pytest.mark.parametrize("case", ["plain", "handler", "force"])
def test_dapper_terminate_ends_a_launched_session_as_a_signal_would(launch, write, case):
    # How the engine ends the children of a program the user started: it never signals
    # the pid their hello gave (only their word), it asks them. The SIGTERM way lets the
    # program's own handler run; `force` ends it at once.
    program = write("stays.py", """
        import signal, sys, time
        if sys.argv[1] == "handler":
            def on_term(number, frame):
                print("handled", flush=True)
                sys.exit(7)
            signal.signal(signal.SIGTERM, on_term)
        print("running", flush=True)
        while True:
            time.sleep(0.05)
    """)
    debuggee = launch("--program", program, "--", case)
    debuggee.configure()
    debuggee.request("configurationDone")
    deadline = time.monotonic() + TIMEOUT
    while "running" not in debuggee.stdout() and time.monotonic() < deadline:
        time.sleep(0.02)
    debuggee.request("dapper/terminate", {"force": case == "force"})
    if case == "handler":
        assert debuggee.wait_event("dapper/exiting") == {"exitCode": 7}
        assert debuggee.wait_exit() == 7
        assert debuggee.stdout() == "running\nhandled\n"
        return
    status = 128 + (9 if case == "force" else 15)
    assert debuggee.wait_event("dapper/exiting") == {"exitCode": status}
    assert debuggee.wait_exit() in (status, -(9 if case == "force" else 15))
