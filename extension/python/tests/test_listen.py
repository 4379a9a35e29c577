"""``python -m dapperdbg --listen``: its command line, and a real listening program driven
the way the engine drives it after `connect` (hello without a token, configure,
configurationDone, detach, a second client, dapper/refused, dapper/terminate)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import PACKAGE_DIR, TIMEOUT
from dapperdbg.ipc.frames import KIND_TO_DEBUGGEE, FrameDecoder, encode_frame
from dapperdbg.launcher.listen_cli import UsageError, parse_arguments, parse_endpoint

GOOD = [
    (["--listen", "5678", "app.py"], ("127.0.0.1", 5678, False, "program", "app.py", [])),
    (["--listen=0", "--wait-for-client", "app.py", "-x", "--listen"],
     ("127.0.0.1", 0, True, "program", "app.py", ["-x", "--listen"])),
    (["--wait-for-client", "--listen", "0.0.0.0:80", "-m", "pkg.tool", "serve"],
     ("0.0.0.0", 80, True, "module", "pkg.tool", ["serve"])),
    (["--listen", "[::1]:9", "-mpkg"], ("::1", 9, False, "module", "pkg", [])),
    (["--listen", "localhost:1", "-c", "print(1)", "a"],
     ("localhost", 1, False, "code", "print(1)", ["a"])),
    (["--listen", "1", "-cpass"], ("127.0.0.1", 1, False, "code", "pass", [])),
    (["--listen", "1", "--", "-odd-name.py", "b"],
     ("127.0.0.1", 1, False, "program", "-odd-name.py", ["b"])),
    (["--listen", "1", "-c", ""], ("127.0.0.1", 1, False, "code", "", [])),
]


@pytest.mark.parametrize("argv,expected", GOOD)
def test_good_command_lines(argv, expected):
    parsed = parse_arguments(argv)
    assert (parsed.host, parsed.port, parsed.wait_for_client, parsed.target_kind, parsed.target,
            parsed.args) == expected


CONNECT = [
    (["--connect", "5678", "app.py", "-x"], ("127.0.0.1", 5678, "program", "app.py", ["-x"])),
    (["--connect=devbox:80", "-m", "pkg"], ("devbox", 80, "module", "pkg", [])),
    (["--connect", "[::1]:9", "-c", "pass"], ("::1", 9, "code", "pass", [])),
]


@pytest.mark.parametrize("argv,expected", CONNECT)
def test_connect_command_lines(argv, expected):
    parsed = parse_arguments(argv)
    assert parsed.mode == "connect" and not parsed.wait_for_client
    assert (parsed.host, parsed.port, parsed.target_kind, parsed.target, parsed.args) == expected
    assert parse_arguments(["--listen", "1", "a.py"]).mode == "listen"


BAD = [
    ([], "--listen [HOST:]PORT or --connect [HOST:]PORT is required"),
    (["app.py"], "--listen [HOST:]PORT or --connect [HOST:]PORT is required"),
    (["--connect"], "--connect needs [HOST:]PORT"),
    (["--connect", "1", "--connect", "2", "a.py"], "--connect given twice"),
    (["--listen", "1", "--connect", "2", "a.py"], "--listen and --connect exclude each other"),
    (["--connect", "0", "a.py"], "--connect '0': the port must be a number from 1 to 65535"),
    (["--connect", "x:y", "a.py"], "--connect 'x:y': the port must be a number from 0"),
    (["--connect", "1", "--wait-for-client", "a.py"], "--wait-for-client goes with --listen"),
    (["--listen", "5678"], "missing the program"),
    (["--listen"], "--listen needs [HOST:]PORT"),
    (["--listen", "1", "--listen", "2", "a.py"], "--listen given twice"),
    (["--listen", "http", "a.py"], "the port must be a number from 0 to 65535"),
    (["--listen", "65536", "a.py"], "the port must be a number from 0 to 65535"),
    (["--listen", "-1", "a.py"], "the port must be a number from 0 to 65535"),
    (["--listen", ":80", "a.py"], "the host before ':' is empty"),
    (["--listen", "::1:80", "a.py"], "write an IPv6 address in brackets"),
    (["--listen", "1", "--frobnicate", "a.py"], "unknown option '--frobnicate'"),
    (["--listen", "1", "-m"], "-m needs a value"),
    (["--listen", "1", "-m", ""], "the module to run is empty"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_command_lines(argv, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_arguments(argv)


def test_endpoints():
    assert parse_endpoint("0") == ("127.0.0.1", 0)
    assert parse_endpoint("[fe80::1%eth0]:7") == ("fe80::1%eth0", 7)


# --- A real listening program ----------------------------------------------------------

PROGRAM = """
import sys, time
ticks = 0
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    ticks += 1  # the breakpoint's line, 5
    time.sleep(0.01)
print("ran", flush=True)
sys.exit(4)
"""
TICK_LINE = 5


class Client:
    """The engine's end of one connection to the listening program."""

    def __init__(self, port: int, sock: socket.socket | None = None,
                 process: subprocess.Popen | None = None) -> None:
        if sock is None:
            sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.sock = sock
        # The listening program, whose state a closed connection reports.
        self.process = process
        self.decoder = FrameDecoder()
        self.pending: list[dict] = []
        self.seq = 0

    def read(self) -> dict | None:
        while not self.pending:
            data = self.sock.recv(65536)
            if not data:
                self.sock.shutdown(socket.SHUT_WR)  # as the engine's host does
                return None
            self.pending.extend(message for _, message in self.decoder.feed(data))
        return self.pending.pop(0)

    def until(self, predicate) -> dict:
        while True:
            message = self.read()
            assert message is not None, f"the connection closed; {self._program_state()}"
            if predicate(message):
                return message

    def request(self, command: str, arguments: dict | None = None) -> dict:
        self.seq += 1
        seq = self.seq
        self.sock.sendall(encode_frame(KIND_TO_DEBUGGEE, {
            "seq": seq, "type": "request", "command": command, "arguments": arguments or {}}))
        return self.until(lambda m: m.get("type") == "response" and m.get("request_seq") == seq)

    def attach(self, program_path: str, **configure) -> dict:
        hello = self.read()
        assert hello is not None and hello["event"] == "dapper/hello", hello
        assert self.request("dapper/configure", {
            "client": {"linesStartAt1": True},
            "launch": {"justMyCode": True, "console": "externalTerminal"}, **configure})["success"]
        answer = self.request("setBreakpoints", {
            "source": {"path": program_path}, "breakpoints": [{"line": TICK_LINE}]})
        assert answer.get("success"), answer.get("message")
        assert answer["body"]["breakpoints"][0]["verified"], answer
        assert self.request("configurationDone")["success"]
        return hello

    def close(self) -> None:
        self.sock.close()

    def _program_state(self) -> str:
        if self.process is None:
            return "the program is not known"
        try:
            out, err = self.process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            return "the program still runs"
        return f"the program ended with {self.process.returncode}: {out!r} {err!r}"


def start(tmp_path, *options: str, seconds: str = "30", text: str = PROGRAM):
    """``python -m dapperdbg --listen 0`` on ``text`` (whose breakpoint's line is
    TICK_LINE); the process, its port and the program's path."""
    program = tmp_path / "ticks.py"
    program.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR))
    process = subprocess.Popen(
        [sys.executable, "-m", "dapperdbg", "--listen", "0", *options, str(program), seconds],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()
    match = re.match(r"dapper: listening for a debugger on 127\.0\.0\.1:(\d+)", line)
    assert match, line
    return process, int(match.group(1)), str(program)


def finish(process) -> None:
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=TIMEOUT)


def test_attach_detach_refuse_and_attach_again(tmp_path):
    process, port, program = start(tmp_path)
    try:
        first = Client(port, process=process)
        hello = first.attach(program)
        assert "token" not in hello["body"]
        assert hello["body"]["pid"] == process.pid and hello["body"]["name"] == program
        assert hello["body"]["protocol"] == 1
        assert hello["body"]["sessionId"] == f"listen-{process.pid}"
        stopped = first.until(lambda m: m.get("event") == "stopped")
        assert stopped["body"]["reason"] == "breakpoint"

        busy = Client(port, process=process)
        refused = busy.read()
        assert refused["event"] == "dapper/refused", refused
        assert refused["body"]["message"] == "another debugger is attached to it"
        assert busy.read() is None
        busy.close()

        first.close()  # Detach: the stopped thread is released and the program runs on.
        time.sleep(0.3)
        assert process.poll() is None

        second = Client(port, process=process)
        second.attach(program)
        assert second.until(lambda m: m.get("event") == "stopped")["body"]["reason"] == "breakpoint"
        answer = second.request("dapper/terminate", {"force": False})
        assert answer["success"]
        exiting = second.until(lambda m: m.get("event") == "dapper/exiting")
        assert exiting["body"] == {"exitCode": 143}
        process.wait(timeout=TIMEOUT)
        expected = 1 if os.name == "nt" else -signal.SIGTERM
        assert process.returncode in (expected, 143)
    finally:
        finish(process)


def test_wait_for_client_runs_the_program_only_after_configuration_done(tmp_path):
    process, port, program = start(tmp_path, "--wait-for-client", seconds="0.2")
    try:
        time.sleep(0.5)
        assert process.poll() is None, "the program waits for a client"
        client = Client(port, process=process)
        client.attach(program)
        stopped = client.until(lambda m: m.get("event") == "stopped")
        assert stopped["body"]["reason"] == "breakpoint"
        client.close()  # Detached: the program runs to its own end.
        out, _ = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 4 and out == "ran\n"
    finally:
        finish(process)


def test_output_and_the_exit_are_announced_to_the_attached_client(tmp_path):
    process, port, program = start(tmp_path, seconds="0.5")
    try:
        client = Client(port, process=process)
        client.read()  # The hello; no breakpoints this time.
        # What the engine sends for attach: the program's own terminal, teed.
        launch = {"console": "externalTerminal", "redirectOutput": True}
        assert client.request("dapper/configure", {"client": {}, "launch": launch})["success"]
        assert client.request("configurationDone")["success"]
        outputs: list[dict] = []

        def exiting_after_output(message: dict) -> bool:
            # The program's output, not the debugger's own notices (before 3.12: tracing
            # with sys.settrace, test_fast_paths.py).
            if message.get("event") == "output" and not message["body"]["output"].startswith(
                    "Dapper: "):
                outputs.append(message["body"])
            return message.get("event") == "dapper/exiting"

        exiting = client.until(exiting_after_output)
        assert {body["category"] for body in outputs} == {"stdout"}
        assert "".join(body["output"] for body in outputs) == "ran\n"
        assert exiting["body"] == {"exitCode": 4}
        assert client.read() is None
        process.wait(timeout=TIMEOUT)
        assert process.returncode == 4
    finally:
        finish(process)


@pytest.mark.parametrize("argv,message", [
    (["--listen", "http", "x.py"], "dapper: --listen 'http': the port must be"),
    (["--listen", "999.1.1.1:0", "x.py"], "dapper: cannot listen on 999.1.1.1:0:"),
    (["--connect", "127.0.0.1:1", "x.py"],
     "dapper: cannot connect to the debugger at 127.0.0.1:1:"),
])
def test_bad_starts_say_why(argv, message):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR))
    result = subprocess.run([sys.executable, "-m", "dapperdbg", *argv], env=env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode in (1, 2)
    assert result.stderr.startswith(message), result.stderr


# Whoever is attached controls the program, so on Linux only the program's own user may
# attach: another account (here nobody, a real second uid) is refused and closed.
STRANGER = """
import socket, sys
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
data = b""
while True:
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
print(data.decode("latin1"))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0
                    or not os.path.exists("/usr/bin/python3"),
                    reason="needs Linux, root (to run a client as nobody) and /usr/bin/python3")
def test_another_user_is_refused(tmp_path):
    process, port, program = start(tmp_path)
    try:
        stranger = subprocess.run(
            ["/usr/bin/python3", "-c", STRANGER, str(port)], user=65534, group=65534,
            extra_groups=[], capture_output=True, text=True, timeout=TIMEOUT, cwd="/")
        assert "dapper/refused" in stranger.stdout, stranger
        assert "dapper/hello" not in stranger.stdout
        assert "uid 65534" in stranger.stdout
        # The owner still attaches.
        owner = Client(port, process=process)
        owner.attach(program)
        assert owner.until(lambda m: m.get("event") == "stopped")["body"]["reason"] == "breakpoint"
        owner.close()
    finally:
        process.kill()
        _, stderr = process.communicate(timeout=TIMEOUT)
    assert "dapper: refused a debugger from 127.0.0.1" in stderr, stderr


# --- A program that connects to the debugger (--connect) ---------------------------------

CHILD_PARENT = """
import subprocess, sys
ticks = 0  # the breakpoint's line, 3
subprocess.run([sys.executable, "-c", "print('child ran')"], check=True)
print("parent ran", flush=True)
"""


def test_connect_waits_for_the_configuration_and_its_children_come_back(tmp_path):
    """The engine listens; the program connects before it starts, waits for
    configurationDone, stops at its breakpoint, and its Python child connects to the same
    listener with a dapper/sessionHello carrying the token configure gave (childToken)."""
    program = tmp_path / "parent.py"
    program.write_text(CHILD_PARENT)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(TIMEOUT)
    port = server.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR))
    process = subprocess.Popen(
        [sys.executable, "-m", "dapperdbg", "--connect", str(port), str(program)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        sock, _ = server.accept()
        client = Client(port, sock)
        listener = {"transport": "tcp", "host": "0.0.0.0", "port": port}
        hello = client.read()
        assert hello["event"] == "dapper/hello" and "token" not in hello["body"], hello
        assert hello["body"]["name"] == str(program)
        assert client.request("dapper/configure", {
            "client": {"linesStartAt1": True},
            "launch": {"console": "externalTerminal", "subprocessAutoAttach": True},
            "childListener": listener, "childToken": "secret"})["success"]
        answer = client.request("setBreakpoints", {
            "source": {"path": str(program)}, "breakpoints": [{"line": 3}]})
        assert answer.get("success"), answer.get("message")
        assert answer["body"]["breakpoints"][0]["verified"], answer
        time.sleep(0.3)
        assert process.poll() is None
        assert client.request("configurationDone")["success"]
        stopped = client.until(lambda m: m.get("event") == "stopped")
        assert stopped["body"]["reason"] == "breakpoint"
        client.request("continue", {"threadId": stopped["body"]["threadId"]})
        announced = client.until(lambda m: m.get("event") == "dapper/childProcess")
        assert announced["body"]["ipcPort"] == port
        child_sock, _ = server.accept()
        child = Client(port, child_sock)
        child_hello = child.read()
        assert child_hello["event"] == "dapper/sessionHello", child_hello
        assert child_hello["body"]["token"] == "secret"
        assert child_hello["body"]["parentSessionId"] == f"listen-{process.pid}"
        child.close()  # Not debugged after all: the child runs on without the debugger.
        exiting = client.until(lambda m: m.get("event") == "dapper/exiting")
        assert exiting["body"] == {"exitCode": 0}
        out, _ = process.communicate(timeout=TIMEOUT)
        assert out == "child ran\nparent ran\n"
    finally:
        server.close()
        finish(process)


def test_a_connection_whose_delay_option_is_refused_is_kept(monkeypatch):
    """TCP_NODELAY only makes small messages go at once: where a system refuses it, the
    connection is used all the same."""
    import _socket

    from dapperdbg.ipc import dial

    class NoDelayRefused(_socket.socket):
        def setsockopt(self, *arguments):
            raise OSError("refused here")

    with socket.create_server(("127.0.0.1", 0)) as server:
        monkeypatch.setattr(_socket, "socket", NoDelayRefused)
        connection = dial.connect_tcp(server.getsockname(), 5.0)
        monkeypatch.undo()
        try:
            accepted, _ = server.accept()
            with accepted:
                connection.send(b"hello")
                assert accepted.recv(5) == b"hello"
        finally:
            connection.close()
