"""Terminal auto-attach's bootstrap (extension/python/autoattach/sitecustomize.py): real
Pythons started with the terminal's environment, and a real broker socket standing in
for the VS Code window. Which programs it asks to attach in each mode; that it chains to
the user's own sitecustomize; that without a window the program runs exactly as without
it; and that a program told where its session listens connects there before its code
runs."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import PACKAGE_DIR, TIMEOUT
from dapperdbg.ipc.frames import FrameDecoder

BOOTSTRAP = PACKAGE_DIR / "autoattach"
SECRET = "0f" * 32


class Broker:
    """The window's broker: records each request and answers it with ``answer``."""

    def __init__(self, answer=None) -> None:
        self.answer = {"attach": False} if answer is None else answer
        self.requests: list[dict] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            with sock:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.requests.append(json.loads(data))
                sock.sendall(json.dumps(self.answer).encode() + b"\n")

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def broker():
    made = Broker()
    yield made
    made.close()


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "workspace"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "__main__.py").write_text("print('pkg ran')\n")
    (folder / "app.py").write_text("import sys\nprint('app ran', sys.argv[1:])\n")
    (folder / "tools").mkdir()
    (folder / "tools" / "gen.py").write_text("print('gen ran')\n")
    site = folder / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    (site / "installed.py").write_text("print('installed ran')\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "other.py").write_text("print('other ran')\n")
    return folder


def terminal_environment(mode, broker_address, workspace, extra=None) -> dict:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("DAPPER_") and key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(BOOTSTRAP)
    if mode is not None:
        env.update({"DAPPER_AUTO_ATTACH": mode, "DAPPER_AUTO_ATTACH_BROKER": broker_address,
                    "DAPPER_AUTO_ATTACH_SECRET": SECRET,
                    "DAPPER_AUTO_ATTACH_FOLDERS": str(workspace)})
    env.update(extra or {})
    return env


def run(argv, env, cwd):
    return subprocess.run([sys.executable, *argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=TIMEOUT)


# (mode, the command line after `python`, where it runs, extra environment, asks?)
DECISIONS = [
    ("smart", ["app.py", "x"], "workspace", {}, True),
    ("smart", ["tools/gen.py"], "workspace", {}, True),
    ("smart", ["-m", "pkg"], "workspace", {}, True),
    ("smart", ["-X", "dev", "-Bm", "pkg"], "workspace", {}, True),
    ("smart", ["../elsewhere/other.py"], "workspace", {}, False),
    ("smart", [".venv/lib/python3/site-packages/installed.py"], "workspace", {}, False),
    ("smart", ["-m", "json.tool", "--help"], "workspace", {}, False),
    ("smart", ["-c", "print('code ran')"], "workspace", {}, False),
    ("smart", ["-m", "pytest", "--version"], "workspace", {}, True),
    ("smart", ["-m", "pytest", "--version"], "elsewhere", {}, False),
    ("smart", ["-m", "unittest", "--help"], "workspace", {}, True),
    ("smart", ["-m", "flask", "--version"], "workspace", {}, True),
    ("smart", ["-m", "flask", "--version"], "elsewhere", {}, False),
    ("smart", ["tools/gen.py"], "workspace",
     {"DAPPER_AUTO_ATTACH_PATTERNS": "**/workspace/**" + os.pathsep + "!**/tools/*.py"}, False),
    ("smart", ["../elsewhere/other.py"], "workspace",
     {"DAPPER_AUTO_ATTACH_PATTERNS": "**/elsewhere/o*.py"}, True),
    ("always", ["-c", "print('code ran')"], "workspace", {}, True),
    ("always", ["-m", "json.tool", "--help"], "workspace", {}, True),
    ("always", ["../elsewhere/other.py"], "workspace", {}, True),
    ("onlyWithFlag", ["app.py"], "workspace", {}, False),
    ("onlyWithFlag", ["app.py"], "workspace", {"DAPPER_DEBUG": "1"}, True),
    ("onlyWithFlag", ["-X", "dapper", "app.py"], "workspace", {}, True),
    ("onlyWithFlag", ["-Xdapper", "../elsewhere/other.py"], "workspace", {}, True),
    ("disabled", ["app.py"], "workspace", {}, False),
    (None, ["app.py"], "workspace", {}, False),
    # Dapper launched it (a launch in a terminal, or a child): its session is there.
    ("always", ["app.py"], "workspace", {"DAPPER_SESSION_TOKEN": "t"}, False),
]


@pytest.mark.parametrize("mode,argv,where,extra,asks", DECISIONS,
                         ids=[f"{c[0]}-{' '.join(c[1])}-{c[2]}-{sorted(c[3])}" for c in DECISIONS])
def test_which_programs_ask_to_attach(broker, workspace, mode, argv, where, extra, asks):
    cwd = workspace if where == "workspace" else workspace.parent / "elsewhere"
    plain = run(argv, terminal_environment(None, "", workspace), cwd)
    result = run(argv, terminal_environment(mode, broker.address, workspace, extra), cwd)
    # Whatever it decided, a broker that says no leaves the program as it was.
    assert (result.returncode, result.stdout, result.stderr) == (
        plain.returncode, plain.stdout, plain.stderr)
    assert len(broker.requests) == (1 if asks else 0)
    if asks:
        request = broker.requests[0]
        assert request["secret"] == SECRET
        assert isinstance(request["pid"], int)
        assert request["cwd"] == str(cwd)
        assert argv[-1] in request["argv"] or argv[-1] in " ".join(request["argv"])


def test_the_program_file_is_told(broker, workspace):
    run(["app.py"], terminal_environment("smart", broker.address, workspace), workspace)
    assert broker.requests[0]["program"] == str(workspace / "app.py")


def test_a_program_that_attaches_hands_its_children_no_auto_attach(broker, workspace):
    script = workspace / "env.py"
    script.write_text("import os\n"
                      "print(sorted(k for k in os.environ if k.startswith('DAPPER_')))\n")
    result = run(["env.py"], terminal_environment("always", broker.address, workspace), workspace)
    assert broker.requests and result.stdout == "[]\n"
    result = run(["env.py"], terminal_environment("onlyWithFlag", broker.address, workspace),
                 workspace)
    assert "DAPPER_AUTO_ATTACH" in result.stdout, "a program that did not attach keeps them"


def test_chains_to_the_users_sitecustomize(broker, workspace, tmp_path):
    users = tmp_path / "users"
    users.mkdir()
    (users / "sitecustomize.py").write_text("import sys\nsys.users_site = 'loaded'\n")
    env = terminal_environment("always", broker.address, workspace)
    env["PYTHONPATH"] += os.pathsep + str(users)
    code = "import sys, sitecustomize; print(sys.users_site, sitecustomize.__file__)"
    result = run(["-c", code], env, workspace)
    assert result.stdout == f"loaded {users / 'sitecustomize.py'}\n", result.stderr
    assert broker.requests, "and it still asked"


def test_a_failing_users_sitecustomize_fails_as_without_the_bootstrap(broker, workspace, tmp_path):
    users = tmp_path / "users"
    users.mkdir()
    (users / "sitecustomize.py").write_text("raise ValueError('users own')\n")
    plain_env = terminal_environment(None, "", workspace)
    plain_env["PYTHONPATH"] = str(users)
    env = terminal_environment("always", broker.address, workspace)
    env["PYTHONPATH"] += os.pathsep + str(users)
    plain = run(["app.py"], plain_env, workspace)
    result = run(["app.py"], env, workspace)
    assert "users own" in plain.stderr
    assert (result.returncode, result.stdout) == (plain.returncode, plain.stdout)
    assert result.stderr.splitlines()[0] == plain.stderr.splitlines()[0]


def test_without_a_users_sitecustomize_the_module_stays_importable(broker, workspace):
    # An interpreter may have its own (Debian's Pythons have one in the standard
    # library): the bootstrap chains to it, which is what the program then sees.
    where = ["-c", "import sitecustomize; print(sitecustomize.__file__)"]
    plain_env = {key: value for key, value in os.environ.items()
                 if not key.startswith("DAPPER_") and key != "PYTHONPATH"}
    plain = run(where, plain_env, workspace)
    result = run(where, terminal_environment("smart", broker.address, workspace), workspace)
    expected = plain.stdout if plain.returncode == 0 else f"{BOOTSTRAP / 'sitecustomize.py'}\n"
    assert result.stdout == expected, result.stderr


def test_no_window_no_change(workspace):
    """The window is gone (nothing listens at the broker's address): the program runs
    exactly as without the bootstrap, at once."""
    with socket.create_server(("127.0.0.1", 0)) as closed:
        gone = f"127.0.0.1:{closed.getsockname()[1]}"
    for argv in (["app.py", "a"], ["-m", "pkg"], ["-c", "import sys; sys.exit(3)"]):
        plain = run(argv, terminal_environment(None, "", workspace), workspace)
        started = time.monotonic()
        result = run(argv, terminal_environment("always", gone, workspace), workspace)
        assert time.monotonic() - started < 5
        assert (result.returncode, result.stdout, result.stderr) == (
            plain.returncode, plain.stdout, plain.stderr)


def test_a_told_program_connects_to_its_session_before_its_code_runs(workspace):
    """The broker names where the session listens; the program connects there, says
    hello, and its code has not run yet; the session leaving lets it run on."""
    marker = workspace / "ran"
    (workspace / "mark.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nprint('mark ran')\n")
    with socket.create_server(("127.0.0.1", 0)) as session:
        session.settimeout(TIMEOUT)
        made = Broker({"listen": {"host": "127.0.0.1", "port": session.getsockname()[1]}})
        try:
            program = subprocess.Popen(
                [sys.executable, "mark.py"], cwd=workspace, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
                env=terminal_environment("smart", made.address, workspace))
            sock, _ = session.accept()
            decoder = FrameDecoder()
            messages: list = []
            sock.settimeout(TIMEOUT)
            while not messages:
                messages.extend(payload for _, payload in decoder.feed(sock.recv(65536)))
            hello = messages[0]
            assert hello["event"] == "dapper/hello"
            assert hello["body"]["name"] == str(workspace / "mark.py")
            time.sleep(0.2)
            assert not marker.exists(), "the program waits for its debugger"
            sock.close()
            out, err = program.communicate(timeout=TIMEOUT)
            assert (program.returncode, out) == (0, "mark ran\n"), err
            assert marker.exists()
        finally:
            made.close()


def executable_run(argv, env, cwd):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT)


@pytest.mark.skipif(os.name == "nt", reason="#! files and console scripts of a POSIX venv")
@pytest.mark.parametrize("where,asks", [("workspace", True), ("elsewhere", False)])
def test_console_scripts_and_shebang_files(broker, workspace, where, asks):
    """``pytest`` (the venv's console script, run from the workspace) and a ``#!`` file
    of the workspace start the interpreter like ``python`` does, and are decided alike."""
    cwd = workspace if where == "workspace" else workspace.parent / "elsewhere"
    pytest_script = os.path.join(os.path.dirname(sys.executable), "pytest")
    if not os.path.exists(pytest_script):
        pytest.skip("this interpreter's environment has no pytest console script")
    env = terminal_environment("smart", broker.address, workspace)
    result = executable_run([pytest_script, "--version"], env, cwd)
    assert result.returncode == 0, result.stderr
    assert len(broker.requests) == (1 if asks else 0)
    tool = workspace / "tool.py"
    tool.write_text(f"#!{sys.executable}\nprint('tool ran')\n")
    tool.chmod(0o755)
    result = executable_run([str(tool)], env, cwd)
    assert result.stdout == "tool ran\n"
    assert len(broker.requests) == (2 if asks else 1), "a #! file of the workspace asks"
