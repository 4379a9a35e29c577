"""Play the stepping cases (stepping_cases/*.py), or with --async the asyncio cases
(async_cases/*.py), against debugpy and against Dapper, each through its adapter over
TCP, and print the two stop sequences side by side with the expected one. Not part of
the test suite: debugpy is no dependency of this project, and the point is to find the
next place where the two disagree (docs/stepping.md).

    python stepping_compare.py --debugpy-python /tmp/debugpy-venv/bin/python \\
        [--python /path/to/python3.12] [--tracer settrace|monitoring] [--async] [CASE ...]

Only the standard library is used: a DAP client is a socket and some JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import async_format
import stepping_format

ROOT = Path(__file__).resolve().parents[3]
CONNECT_TIMEOUT = 15.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class AdapterSession:
    """One adapter process serving one DAP session over TCP."""

    def __init__(self, argv, launch_config, workdir: Path, name: str):
        self.port = free_port()
        self.name = name
        self.workdir = workdir
        self.launch_config = launch_config
        self.log = open(workdir / f"{name}-adapter.log", "wb")  # noqa: SIM115 (closed in close())
        argv = [a.replace("{port}", str(self.port)) for a in argv]
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, cwd=workdir)
        self.sock = self._connect()
        self.seq = 0
        self.messages: queue.Queue = queue.Queue()
        self.events: list = []
        self.responses: dict = {}
        self.launch_seq = None
        # The description of the last stopped event (it names the task that stopped).
        self.last_description = None
        threading.Thread(target=self._read, daemon=True).start()

    def _connect(self):
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while True:
            try:
                return socket.create_connection(("127.0.0.1", self.port), timeout=1)
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name}: the adapter did not listen on "
                                       f"{self.port}") from None
                time.sleep(0.05)

    def _read(self):
        self.sock.settimeout(None)
        buffer = b""
        try:
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = self.sock.recv(65536)
                    if not data:
                        raise EOFError
                    buffer += data
                header, _, buffer = buffer.partition(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                while len(buffer) < length:
                    data = self.sock.recv(65536)
                    if not data:
                        raise EOFError
                    buffer += data
                body, buffer = buffer[:length], buffer[length:]
                self.messages.put(json.loads(body))
        except (OSError, EOFError, ValueError):
            self.messages.put(None)

    def send(self, command, arguments=None) -> int:
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        data = json.dumps(message).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        return self.seq

    def _pump(self, predicate, timeout):
        """The first message (kept events first) that predicate accepts, else None."""
        for event in self.events:
            if predicate(event):
                self.events.remove(event)
                return event
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if message is None:
                self.messages.put(None)
                return {"type": "closed"}
            if predicate(message):
                return message
            if message["type"] == "event":
                self.events.append(message)
            elif message["type"] == "response":
                self.responses[message["request_seq"]] = message
            elif message["type"] == "request":
                # A reverse request (runInTerminal, startDebugging): refused, the cases
                # run in the adapter's own console.
                self._answer(message)

    def _answer(self, request):
        data = json.dumps({"seq": 0, "type": "response", "request_seq": request["seq"],
                           "command": request["command"], "success": False,
                           "message": "not supported by stepping_compare"}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(data) + data)

    def request(self, command, arguments=None, timeout=10.0):
        seq = self.send(command, arguments)
        if seq in self.responses:
            response = self.responses.pop(seq)
        else:
            response = self._pump(lambda m: m.get("type") == "response"
                                  and m.get("request_seq") == seq, timeout)
        if response is None or response.get("type") != "response":
            return False, f"no response to {command}"
        if response["success"]:
            return True, response.get("body") or {}
        return False, response.get("message")

    def begin(self, case):
        path = self.workdir / case.path.name
        shutil.copyfile(case.path, path)
        self.request("initialize", {
            "clientID": "stepping-compare", "adapterID": self.name, "pathFormat": "path",
            "linesStartAt1": True, "columnsStartAt1": True,
            "supportsVariableType": True, "supportsRunInTerminalRequest": False})
        # The launch is answered after configurationDone by some adapters: send it, and
        # configure once the adapter says it is initialized.
        self.launch_seq = self.send("launch", {**self.launch_config,
                                               **getattr(case, "options", {}),
                                               "program": str(path), "cwd": str(self.workdir)})
        initialized = self._pump(lambda m: m.get("event") == "initialized", CONNECT_TIMEOUT)
        if not initialized or initialized.get("type") == "closed":
            raise RuntimeError(f"{self.name}: no initialized event")
        breakpoints = [{"line": b.line, **({"condition": b.condition} if b.condition else {}),
                        **({"hitCondition": b.hit} if b.hit else {})}
                       for b in case.breakpoints]
        self.request("setBreakpoints", {"source": {"path": str(path)},
                                        "breakpoints": breakpoints})
        self.request("setExceptionBreakpoints", {"filters": case.exception_filters})

    def next_outcome(self, timeout):
        message = self._pump(lambda m: m.get("type") == "closed" or (
            m.get("type") == "event" and m.get("event") in ("stopped", "exited", "terminated")
        ), timeout)
        if message is None:
            return None
        if message.get("event") == "stopped":
            self.last_description = message["body"].get("description")
            return "stopped", message["body"]
        if message.get("event") == "exited":
            return "exit", message["body"].get("exitCode")
        # terminated (or the adapter went away) without an exit code: wait a moment for
        # an exited event that may follow it.
        exited = self._pump(lambda m: m.get("event") == "exited", 1.0)
        return "exit", exited["body"].get("exitCode") if exited and "body" in exited else "?"

    def close(self):
        with contextlib.suppress(OSError):
            self.send("disconnect", {"terminateDebuggee": True})
            self._pump(lambda m: m.get("type") == "closed", 2.0)
        with contextlib.suppress(OSError):
            self.sock.close()
        try:
            self.process.wait(3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def run_case(cases, name, adapter, argv, launch_config, version, tracer, workdir):
    case = cases.load_case(name, version, tracer)
    casedir = workdir / f"{name}-{adapter}"
    casedir.mkdir(parents=True, exist_ok=True)
    try:
        session = AdapterSession(argv, launch_config, casedir, adapter)
    except RuntimeError as error:
        return case, [(case.steps[0], {"kind": "error", "value": str(error)}, False)]
    try:
        player = (async_format.AsyncPlayer if cases is async_format
                  else stepping_format.Player)(case, session)
        try:
            results = player.play(keep_going=True)
        except RuntimeError as error:
            results = [(case.steps[0], {"kind": "error", "value": str(error)}, False)]
    finally:
        session.close()
    return case, results


def python_version(python) -> tuple:
    out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1])


def side_by_side(cases, case, dapper, debugpy) -> tuple:
    """The case's table (request, expected, Dapper, debugpy, marks) and whether the two
    debuggers differ. Marks: `D` Dapper is not as expected, `d` debugpy is not, `<>` they
    differ from each other."""
    rows = [("request", "expected", "Dapper", "debugpy", "")]
    differ = False
    for index, step in enumerate(case.steps):
        cells = []
        oks = []
        for results in (dapper, debugpy):
            if index < len(results):
                _, seen, ok = results[index]
                cells.append(cases.render(case, step.expect, seen))
                oks.append(ok or cases.matches(step.expect, seen))
            else:
                cells.append("(not played)")
                oks.append(None)
        marks = []
        if oks[0] is False:
            marks.append("D")
        if oks[1] is False:
            marks.append("d")
        if cells[0] != cells[1]:
            marks.append("<>")
            differ = True
        action, _, expected = step.text.partition("->")
        rows.append((action.strip(), expected.strip(), cells[0], cells[1], " ".join(marks)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    text = "\n".join(("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4]).rstrip()
                     for r in rows)
    return text, differ


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter that runs the programs (default: this one)")
    parser.add_argument("--debugpy-python", required=True,
                        help="an interpreter with debugpy installed (its adapter runs on it)")
    parser.add_argument("--dapper-adapter", default=str(ROOT / "dist" / "adapter.js"),
                        help="Dapper's standalone adapter (default: dist/adapter.js)")
    parser.add_argument("--tracer", choices=("settrace", "monitoring"),
                        help="Dapper's tracer (default: Dapper's own choice)")
    parser.add_argument("--keep", action="store_true", help="keep the adapters' logs")
    parser.add_argument("--async", dest="asyncio", action="store_true",
                        help="play the asyncio cases (async_cases/) instead")
    options = parser.parse_args(argv)

    version = python_version(options.python)
    tracer = options.tracer or ("monitoring" if version >= (3, 12) else "settrace")
    cases = async_format if options.asyncio else stepping_format
    names = options.cases or cases.case_names()
    workdir = Path(tempfile.mkdtemp(prefix="stepping-compare-"))
    common = {"type": "python", "request": "launch", "python": options.python,
              "console": "internalConsole", "justMyCode": True}
    dapper_config = {**common, "type": "dapper"}
    if options.tracer:
        dapper_config["env"] = {"DAPPER_TRACER": options.tracer}
    adapters = {
        "dapper": (["node", options.dapper_adapter, "--port", "{port}"], dapper_config),
        "debugpy": ([options.debugpy_python, "-m", "debugpy.adapter", "--port", "{port}"],
                    common),
    }
    print(f"Python {version[0]}.{version[1]} ({options.python}), Dapper's tracer: {tracer}")
    summary = {"same": [], "differ": [], "dapper-wrong": [], "debugpy-wrong": []}
    for name in names:
        played = {}
        for adapter, (command, config) in adapters.items():
            case, played[adapter] = run_case(cases, name, adapter, command, config, version,
                                             tracer, workdir)
        text, differ = side_by_side(cases, case, played["dapper"], played["debugpy"])
        dapper_ok = all(ok for *_, ok in played["dapper"]) and len(
            played["dapper"]) == len(case.steps)
        debugpy_ok = all(ok for *_, ok in played["debugpy"]) and len(
            played["debugpy"]) == len(case.steps)
        summary["differ" if differ else "same"].append(name)
        if not dapper_ok:
            summary["dapper-wrong"].append(name)
        if not debugpy_ok:
            summary["debugpy-wrong"].append(name)
        status = "differ" if differ else "same"
        print(f"\n== {name}: {status}; Dapper {'as expected' if dapper_ok else 'NOT as expected'}"
              f", debugpy {'as expected' if debugpy_ok else 'NOT as expected'}")
        print(text)
    print("\nSummary")
    for key, label in (("differ", "Dapper and debugpy differ"),
                       ("dapper-wrong", "Dapper not as expected"),
                       ("debugpy-wrong", "debugpy not as expected")):
        print(f"  {label} ({len(summary[key])}): {', '.join(summary[key]) or '-'}")
    if options.keep:
        print(f"adapter logs: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if summary["dapper-wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
