"""The in-code API (dapperdbg.listen, connect, wait_for_client, is_client_connected,
breakpoint) in real programs, driven over real sockets the way the engine drives them."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys

import pytest
from test_listen import Client

from conftest import PACKAGE_DIR, TIMEOUT
from dapperdbg.launcher.api import parse_address
from dapperdbg.launcher.reattach_file import (
    new_reattach_file,
    read_reattach_file,
    write_reattach_file,
)


@pytest.mark.parametrize("address,expected", [
    (5678, ("127.0.0.1", 5678)),
    (0, ("127.0.0.1", 0)),
    (("0.0.0.0", 80), ("0.0.0.0", 80)),
    (["::1", 9], ("::1", 9)),
    (("", 9), ("127.0.0.1", 9)),
    ("devbox:7", ("devbox", 7)),
    ("[::1]:7", ("::1", 7)),
    ("7", ("127.0.0.1", 7)),
])
def test_addresses(address, expected):
    assert parse_address(address, "listen") == expected


@pytest.mark.parametrize("address,error,message", [
    (True, TypeError, "takes a port or a (host, port) pair, not True"),
    (("h", "80"), TypeError, "takes a port or a (host, port) pair"),
    (("h", 1, 2), TypeError, "takes a port or a (host, port) pair"),
    (70000, ValueError, "the port must be from 0 to 65535, not 70000"),
    ("h:x", ValueError, "the port must be a number"),
])
def test_bad_addresses(address, error, message):
    with pytest.raises(error, match=re.escape(message)):
        parse_address(address, "listen")


def run(code: str, *args: str, **popen) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR))
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


def test_importing_starts_nothing_and_breakpoint_is_a_no_op_without_a_client():
    code = """
import sys, threading
import dapperdbg
assert sorted(dapperdbg.__all__) == ["breakpoint", "connect", "is_client_connected", "listen",
                                     "post_mortem", "wait_for_client"]
heavy = [name for name in sys.modules if name.startswith("dapperdbg.")
         and not name.startswith("dapperdbg.common")]
assert heavy == [], heavy
assert threading.active_count() == 1
dapperdbg.breakpoint()
try:
    1 / 0
except ZeroDivisionError:
    dapperdbg.post_mortem()
for wrong in ((), (ValueError("never raised"),), ("text",)):
    try:
        dapperdbg.post_mortem(*wrong)
    except (TypeError, ValueError) as error:
        print(type(error).__name__, error)
assert not dapperdbg.is_client_connected()
try:
    dapperdbg.wait_for_client()
except RuntimeError as error:
    print(error)
print(sys.gettrace(), "dapperdbg.launcher" in sys.modules)
"""
    process = run(code)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert out == (
        "ValueError dapperdbg.post_mortem(): no exception given, and none is being handled\n"
        "ValueError dapperdbg.post_mortem(): ValueError('never raised') was never raised, so it "
        "has no traceback to show\n"
        "TypeError dapperdbg.post_mortem() takes an exception, not str\n"
        "dapperdbg.wait_for_client(): call dapperdbg.listen() or dapperdbg.connect() "
        "first\nNone False\n")


PROGRAM = """
import sys
import dapperdbg
host, port = dapperdbg.listen(0) if sys.argv[1] == "listen" else (None, None)
if sys.argv[1] == "connect":
    dapperdbg.connect(int(sys.argv[2]))
print(port, flush=True)
dapperdbg.wait_for_client()
answer = 6 * 7
dapperdbg.breakpoint()  # line 10: the stop
print("connected", dapperdbg.is_client_connected(), answer, flush=True)
"""
BREAKPOINT_LINE = 10


def drive(client: Client, process: subprocess.Popen) -> None:
    hello = client.read()
    assert hello["event"] == "dapper/hello" and hello["body"]["pid"] == process.pid, hello
    assert hello["body"]["name"] == "python -c" or hello["body"]["name"] == "-c"
    assert client.request("dapper/configure", {
        "client": {"linesStartAt1": True},
        "launch": {"console": "externalTerminal", "redirectOutput": False}})["success"]
    assert client.request("configurationDone")["success"]
    stopped = client.until(lambda m: m.get("event") == "stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    thread = stopped["body"]["threadId"]
    frames = client.request("stackTrace", {"threadId": thread})["body"]["stackFrames"]
    assert frames[0]["line"] == BREAKPOINT_LINE and frames[0]["name"] == "<module>", frames[0]
    client.request("continue", {"threadId": thread})
    exiting = client.until(lambda m: m.get("event") == "dapper/exiting")
    assert exiting["body"] == {"exitCode": 0}
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert out.endswith("connected True 42\n"), out


def test_listen_wait_for_client_and_breakpoint():
    process = run(PROGRAM, "listen")
    try:
        port = int(process.stdout.readline())
        drive(Client(port), process)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TIMEOUT)


def test_connect_wait_for_client_and_breakpoint():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(TIMEOUT)
    port = server.getsockname()[1]
    process = run(PROGRAM, "connect", str(port))
    try:
        sock, _ = server.accept()
        drive(Client(port, sock), process)
    finally:
        server.close()
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TIMEOUT)


CONNECT_ONLY = """import sys
import dapperdbg
dapperdbg.connect(int(sys.argv[1]))
print("connected", dapperdbg.is_client_connected(), flush=True)
answer = 6 * 7  # line 5: the breakpoint, the first line after connect()
print("ran", answer, flush=True)
"""


def test_connect_returns_once_the_debugger_has_set_its_breakpoints(tmp_path):
    """As ``python -m dapperdbg --connect``: the line after ``connect()`` already stops
    at a breakpoint, with no ``wait_for_client()`` between them."""
    program = tmp_path / "connect_only.py"
    program.write_text(CONNECT_ONLY)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(TIMEOUT)
    port = server.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR))
    process = subprocess.Popen([sys.executable, str(program), str(port)], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        sock, _ = server.accept()
        client = Client(port, sock)
        client.attach(str(program))
        stopped = client.until(lambda m: m.get("event") == "stopped")
        assert stopped["body"]["reason"] == "breakpoint"
        client.request("continue", {"threadId": stopped["body"]["threadId"]})
        out, err = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 0, err
        assert out == "connected True\nran 42\n"
    finally:
        server.close()
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TIMEOUT)


def test_connect_to_nothing_raises_and_listen_twice_is_refused():
    code = """
import socket, dapperdbg
probe = socket.create_server(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()
try:
    dapperdbg.connect(port)
except OSError as error:
    print("OSError", type(error).__name__)
print(dapperdbg.listen(("127.0.0.1", 0))[0])
try:
    dapperdbg.listen(0)
except RuntimeError as error:
    print(str(error).split(":")[0])
"""
    process = run(code)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert out == ("OSError ConnectionRefusedError\n127.0.0.1\n"
                   "dapperdbg.listen() was called already\n"), out


def test_the_reattach_file_is_private_and_replaced_whole():
    path = new_reattach_file()
    try:
        assert read_reattach_file(path) is None
        write_reattach_file(path, {"generation": 1, "address": "unix:/x", "token": "t"})
        write_reattach_file(path, {"generation": 2, "address": "tcp:127.0.0.1:9", "token": "u"})
        assert read_reattach_file(path) == {"generation": 2, "address": "tcp:127.0.0.1:9",
                                            "token": "u"}
        if os.name != "nt":
            assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
            assert os.stat(path).st_mode & 0o777 == 0o600
        assert os.listdir(os.path.dirname(path)) == ["debugger.json"]
    finally:
        shutil.rmtree(os.path.dirname(path))


LAUNCHED = """
import dapperdbg
dapperdbg.wait_for_client()
print("connected", dapperdbg.is_client_connected(), flush=True)
try:
    dapperdbg.listen(0)
except RuntimeError as error:
    print(error, flush=True)
value = 1
dapperdbg.breakpoint()
print("done", value)
"""


def test_a_launched_program_uses_the_api_on_its_session(launch, write, backend):
    """Under Dapper's launcher the API serves the launched session: breakpoint() stops,
    wait_for_client() returns at once, listen() and connect() refuse."""
    program = write("main.py", LAUNCHED)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    assert debuggee.top_frame(stopped["threadId"])["line"] == 9  # write() strips the text
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == (
        "connected True\n"
        "dapperdbg.listen(): this program runs under the debugger already\ndone 1\n")


POST_MORTEM = """
import logging, threading
import dapperdbg


def parse(text):
    number = int(text)  # line 6: where the exception is raised
    return number


def handle(text):
    try:
        return parse(text)
    except ValueError as error:
        logging.error("bad input %r", text)
        dapperdbg.post_mortem(error)  # after the fact, from a caught exception
        return -1


print("main got", handle("x1"), flush=True)
thread = threading.Thread(target=lambda: print("thread got", handle("x2"), flush=True))
thread.start()
thread.join()
"""


def test_post_mortem_stops_in_the_traceback_of_a_caught_exception(launch, write, backend):
    """dapperdbg.post_mortem(error) in an except block (in the main thread, then in
    another): the stop shows the frame that raised, innermost, its caller and that
    caller's callers, with their variables; exceptionInfo describes the exception;
    stepping over goes on in the frame that caught it, continuing after the call."""
    program = write("main.py", POST_MORTEM)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    for text in ("x1", "x2"):
        stopped = debuggee.stopped(reason="exception")
        assert stopped["description"] == (
            f"ValueError: invalid literal for int() with base 10: '{text}'")
        thread = stopped["threadId"]
        frames = debuggee.request("stackTrace", {"threadId": thread})["stackFrames"]
        names = [(frame["name"], frame["line"]) for frame in frames]
        assert names[:2] == [("parse", 6), ("handle", 12)], names
        if text == "x1":
            assert names[2:] == [("<module>", 19)], names
        assert debuggee.locals_of(frames[0]["id"])["text"]["value"] == repr(text)
        info = debuggee.request("exceptionInfo", {"threadId": thread})
        assert info["breakMode"] == "always"
        assert info["exceptionId"] == "ValueError"
        if text == "x1":
            # Stepping over from the raising frame (ended) goes on in the catching one.
            debuggee.request("next", {"threadId": thread})
            debuggee.stopped(reason="step")
            top = debuggee.top_frame(thread)
            assert (top["name"], top["line"]) == ("handle", 16), top
        debuggee.request("continue", {"threadId": thread})
    debuggee.finish(0)
    assert debuggee.stdout() == "main got -1\nthread got -1\n"
