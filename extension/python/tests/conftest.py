"""Test harness: the tests play the engine. A listener (unix or tcp) is opened, the
launcher is spawned with the environment the engine would give it, and the test talks
DAP-shaped JSON over real DP frames."""

from __future__ import annotations

import contextlib
import dis
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PACKAGE_DIR))

from dapperdbg.children.commands import PROGRAM, launcher_start  # noqa: E402
from dapperdbg.ipc.frames import KIND_TO_DEBUGGEE, FrameDecoder, encode_frame  # noqa: E402

TIMEOUT = 15.0
KIND_OPTIONS = ("--program", "--module", "--code")
TOKEN = "secret-token-1234"
BACKENDS = ["settrace"] + (["monitoring"] if sys.version_info >= (3, 12) else [])


def as_the_engine_sends(message: dict) -> list[dict]:
    """What the engine makes of a message from the debuggee for its client: a batch of
    queued lines (``dapper/outputLines``, in runs of lines from one place) is an
    ``output`` event per line, in order
    (core/src/session/output_lines.rs); anything else is itself."""
    if message.get("type") != "event" or message.get("event") != "dapper/outputLines":
        return [message]
    body = message["body"]
    sent = []
    for run in body["runs"]:
        place = {key: value for key, value in run.items() if key != "outputs"}
        sent += [{"type": "event", "event": "output", "seq": message["seq"],
                  "body": {"category": body["category"], "output": text, **place}}
                 for text in run["outputs"]]
    return sent


class Debuggee:
    """One launched debuggee and the engine's end of its connection."""

    def __init__(self, argv, env, cwd, transport, workdir: Path):
        self.messages: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        self.responses: dict[int, dict] = {}
        self._seq = 0
        self._cond = threading.Condition()
        self._closed = False
        # Files, not pipes: a chatty program must never block on a full pipe.
        self.stdout_file = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.stderr_file = tempfile.TemporaryFile()  # noqa: SIM115
        if transport == "unix":
            # Unix socket paths are limited to ~100 bytes: use a short private directory.
            self._socket_dir = tempfile.mkdtemp(prefix="dpt-")
            path = os.path.join(self._socket_dir, "s.sock")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            address = f"unix:{path}"
        else:
            self._socket_dir = None
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            address = f"tcp:127.0.0.1:{listener.getsockname()[1]}"
        listener.listen(1)
        listener.settimeout(TIMEOUT)
        self.listener = listener
        argv = [a.replace("{ipc}", address) for a in argv]
        self.process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=self.stdout_file, stderr=self.stderr_file,
        )
        self.sock = None
        self.hello = None

    def accept(self) -> dict:
        # Poll, so that a debuggee that dies before connecting fails the test at once.
        self.listener.settimeout(0.1)
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self.sock, _ = self.listener.accept()
                break
            except socket.timeout:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    raise AssertionError(
                        f"the debuggee never connected; stderr: {self.stderr()}"
                    ) from None
        self.sock.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()
        hello = self._next_message()
        assert hello["type"] == "event" and hello["event"] == "dapper/hello", hello
        self.hello = hello["body"]
        return self.hello

    def _read(self):
        decoder = FrameDecoder()
        sock = self.sock  # disconnect() forgets it
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    # As the engine's host does: the debuggee's end closed, so this one
                    # closes too (the debuggee waits for it before closing its socket).
                    sock.shutdown(socket.SHUT_WR)
                    break
                for kind, message in decoder.feed(data):
                    assert kind == 1
                    for sent in as_the_engine_sends(message):
                        self.messages.put(sent)
        except OSError:
            pass
        self.messages.put(None)

    def _next_message(self, timeout=TIMEOUT):
        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no message from the debuggee within {timeout}s; stderr: {self.stderr()}"
            ) from None
        if message is None:
            self._closed = True
            self.messages.put(None)
        return message

    def _pump_until(self, predicate, what, timeout=TIMEOUT):
        """Read messages until predicate(message) holds; keep everything read."""
        for event in self.events:
            if predicate(event):
                self.events.remove(event)
                return event
        while True:
            message = self._next_message(timeout)
            if message is None:
                raise AssertionError(f"connection closed while waiting for {what}; "
                                     f"stderr: {self.stderr()}")
            if predicate(message):
                return message
            if message["type"] == "event":
                self.events.append(message)
            else:
                self.responses[message["request_seq"]] = message

    def send_request(self, command, arguments=None) -> int:
        self._seq += 1
        message = {"type": "request", "seq": self._seq, "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self.sock.sendall(encode_frame(KIND_TO_DEBUGGEE, message))
        return self._seq

    def response(self, seq) -> dict:
        if seq in self.responses:
            return self.responses.pop(seq)
        return self._pump_until(
            lambda m: m["type"] == "response" and m["request_seq"] == seq, f"response {seq}"
        )

    def request_raw(self, command, arguments=None) -> dict:
        return self.response(self.send_request(command, arguments))

    def request(self, command, arguments=None) -> dict:
        """Send a request, wait for its response, assert success, return the body."""
        response = self.request_raw(command, arguments)
        assert response["command"] == command
        assert response["success"], f"{command} failed: {response.get('message')}"
        return response.get("body", {})

    def wait_event(self, name, timeout=TIMEOUT) -> dict:
        event = self._pump_until(
            lambda m: m["type"] == "event" and m["event"] == name, f"event {name}", timeout
        )
        return event.get("body", {})

    def wait_exit(self, timeout=TIMEOUT) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.dump_stacks()
            raise AssertionError(f"the debuggee did not exit; stdout: {self.stdout()[-2000:]}"
                                 f"\nstderr: {self.stderr()}") from None

    def dump_stacks(self):
        """End a debuggee that hangs so that its stderr says where every thread was:
        faulthandler (on in every debuggee here) prints them all on SIGABRT."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        self.kill()

    def stdout(self) -> str:
        self.stdout_file.seek(0)
        return self.stdout_file.read().decode("utf-8", "replace")

    def stderr(self) -> str:
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode("utf-8", "replace")

    # Conversation shortcuts.

    def configure(self, launch=None, client=None):
        client = {"linesStartAt1": True, "columnsStartAt1": True, **(client or {})}
        return self.request("dapper/configure", {"client": client, "launch": launch or {}})

    def set_breakpoints(self, path, lines, **extra):
        breakpoints = [{"line": line, **extra} for line in lines]
        body = self.request(
            "setBreakpoints", {"source": {"path": str(path)}, "breakpoints": breakpoints}
        )
        return body["breakpoints"]

    def stopped(self, reason="breakpoint", timeout=TIMEOUT) -> dict:
        body = self.wait_event("stopped", timeout)
        assert body["reason"] == reason, body
        return body

    def top_frame(self, thread_id) -> dict:
        return self.request("stackTrace", {"threadId": thread_id})["stackFrames"][0]

    def locals_of(self, frame_id) -> dict:
        scopes = self.request("scopes", {"frameId": frame_id})["scopes"]
        reference = scopes[0]["variablesReference"]
        return self.variables(reference)

    def variables(self, reference, **paging) -> dict:
        body = self.request("variables", {"variablesReference": reference, **paging})
        return {v["name"]: v for v in body["variables"]}

    def finish(self, expected_exit=0) -> int:
        code = self.wait_exit()
        assert code == expected_exit, f"exit {code}; stderr: {self.stderr()}"
        return code

    def disconnect(self):
        """Drop the connection as an engine that went away would (shutdown first: a
        plain close would wait for our own reader thread's recv)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.sock = None

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self):
        self.kill()
        for handle in (self.sock, self.listener):
            if handle is not None:
                handle.close()
        self.stdout_file.close()
        self.stderr_file.close()
        if self._socket_dir:
            for name in os.listdir(self._socket_dir):
                os.unlink(os.path.join(self._socket_dir, name))
            os.rmdir(self._socket_dir)


def first_body_line(function) -> int:
    """The line of the first statement of ``function``'s body (not decorated), in its
    file: where a breakpoint on the function goes."""
    code = function.__code__
    return min(line for _, line in dis.findlinestarts(code)
               if line and line > code.co_firstlineno)


def engine_environment(extra=None, tracer=None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAPPER_", "PYTHON"))}
    env["PYTHONPATH"] = str(PACKAGE_DIR)
    env["DAPPER_PYTHONPATH_ENTRY"] = str(PACKAGE_DIR)
    env["DAPPER_SESSION_TOKEN"] = TOKEN
    env["DAPPER_CAPTURED_OUTPUT"] = "1"
    # A debuggee that hangs is ended with SIGABRT, and faulthandler shows its threads.
    env["PYTHONFAULTHANDLER"] = "1"
    if tracer:
        env["DAPPER_TRACER"] = tracer
    env.update(extra or {})
    return {k: v for k, v in env.items() if v is not None}


@pytest.fixture
def write(tmp_path):
    """write("name.py", source) -> absolute Path; the source is dedented."""

    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write_file


@pytest.fixture
def launch(tmp_path):
    """launch("--program", path, *args, tracer=..., transport=...) -> a Debuggee whose
    hello has been checked. ``connect=False`` skips the accept. ``package``: the folder
    holding the ``dapperdbg`` to run (a copy's; the environment's PYTHONPATH must name it
    too, as the engine's does)."""
    started = []

    def start(*target, tracer=None, transport="unix", env=None, cwd=None, connect=True,
              launcher_options=(), session_id="s1", python_options=(), package=PACKAGE_DIR):
        # As the engine and the children's hooks start it (core/src/config/launcher.rs).
        kind = next((str(word)[2:] for word in target if str(word) in KIND_OPTIONS), PROGRAM)
        start = launcher_start(kind, any(option in ("-E", "-I") for option in python_options),
                               str(package))
        argv = [sys.executable, *python_options, *start, "--ipc", "{ipc}",
                "--session-id", session_id, *launcher_options, *map(str, target)]
        debuggee = Debuggee(argv, engine_environment(env, tracer), cwd or tmp_path,
                            transport, tmp_path)
        started.append(debuggee)
        if connect:
            hello = debuggee.accept()
            assert hello["token"] == TOKEN
            assert hello["sessionId"] == session_id
            assert hello["pid"] == debuggee.process.pid
        return debuggee

    yield start
    for debuggee in started:
        debuggee.close()


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param
