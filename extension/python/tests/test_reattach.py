"""The children of an attached program across debuggers (launcher/reattach.py): a child
whose session ended reconnects where the reattach file says, and stops at the new
debugger's breakpoints, also in code that runs a copy compiled for the first debugger's
breakpoints (a module-level loop, with instrumented copies on 3.9-3.11)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

from test_listen import Client

from conftest import PACKAGE_DIR, TIMEOUT
from dapperdbg.launcher.reattach_file import new_reattach_file, remove_reattach_file

CHILD = """
import time
ticks = 0
while True:
    ticks += 1  # line 5
    time.sleep(0.02)
"""
LINE = 5


def session(server: socket.socket, program: str) -> tuple[Client, dict]:
    sock, _ = server.accept()
    sock.settimeout(TIMEOUT)
    client = Client(0, sock)
    hello = client.read()
    assert hello["event"] == "dapper/sessionHello", hello
    client.request("dapper/configure", {"client": {"linesStartAt1": True},
                                        "launch": {"console": "externalTerminal"}})
    answer = client.request("setBreakpoints", {"source": {"path": program},
                                               "breakpoints": [{"line": LINE}]})
    assert answer["body"]["breakpoints"][0]["verified"], answer
    client.request("configurationDone")
    stopped = client.until(lambda m: m.get("event") == "stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    return client, hello


def test_a_child_reconnects_to_the_next_debugger(tmp_path):
    program = tmp_path / "child.py"
    program.write_text(CHILD)
    path = new_reattach_file()
    first = socket.create_server(("127.0.0.1", 0))
    second = socket.create_server(("127.0.0.1", 0))
    for server in (first, second):
        server.settimeout(TIMEOUT)
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR), DAPPER_SESSION_TOKEN="first-token",
               DAPPER_PARENT_SESSION_ID="p", DAPPER_REATTACH_FILE=path)
    process = subprocess.Popen(
        [sys.executable, "-m", "dapperdbg.launcher", "--ipc",
         f"tcp:127.0.0.1:{first.getsockname()[1]}", "--session-id", "p.1", "--program",
         str(program)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        client, hello = session(first, str(program))
        assert hello["body"]["token"] == "first-token"
        client.close()  # The first debugger leaves; the child runs on.
        time.sleep(0.3)
        assert process.poll() is None
        with open(path, "w", encoding="utf-8") as file:
            json.dump({"generation": 1, "token": "second-token",
                       "address": f"tcp:127.0.0.1:{second.getsockname()[1]}"}, file)
        client, hello = session(second, str(program))
        assert hello["body"] == {**hello["body"], "token": "second-token", "sessionId": "p.1",
                                 "parentSessionId": "p", "pid": process.pid}
        client.close()
    finally:
        first.close()
        second.close()
        process.kill()
        process.communicate(timeout=TIMEOUT)
        remove_reattach_file(path)
