"""Child processes through the debuggee's hooks, with the test playing the engine on both
the root's connection and the tree's child listener: announcements, the child's hello,
its environment, its exit, detaching, candidates, fork children on each tracer."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import socket
import subprocess
import sys
import tempfile
import threading

import pytest

from conftest import TIMEOUT, TOKEN
from dapperdbg.ipc.frames import KIND_TO_DEBUGGEE, FrameDecoder, encode_frame

ENV_REPORT = """
import json, os, sys
print(json.dumps({
    "argv": sys.argv,
    "dapper_vars": sorted(k for k in os.environ if k.startswith("DAPPER_")),
    "pythonpath": os.environ.get("PYTHONPATH"),
}), flush=True)
sys.exit(5)
"""


class ChildListener:
    """The tree's child listener, as the engine holds it."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="dpc-")
        self.path = os.path.join(self.directory, "c.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(8)
        self.sock.settimeout(TIMEOUT)
        self.accepted: list[ChildEnd] = []

    @property
    def address(self) -> dict:
        return {"transport": "unix", "path": self.path}

    def accept(self) -> ChildEnd:
        conn, _ = self.sock.accept()
        end = ChildEnd(conn)
        self.accepted.append(end)
        return end

    def close(self) -> None:
        for end in self.accepted:
            end.close()
        self.sock.close()
        os.unlink(self.path)
        os.rmdir(self.directory)


class ChildEnd:
    """The engine's end of one child's connection."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.messages: queue.Queue = queue.Queue()
        self._seq = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        decoder = FrameDecoder()
        try:
            while True:
                data = self.conn.recv(65536)
                if not data:
                    self.conn.shutdown(socket.SHUT_WR)  # as the engine's host does
                    break
                for _, message in decoder.feed(data):
                    self.messages.put(message)
        except OSError:
            pass
        self.messages.put(None)

    def next(self, predicate=lambda m: True) -> dict:
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            assert message is not None, "the child closed its connection"
            if predicate(message):
                return message

    def request(self, command: str, arguments: dict | None = None) -> dict:
        self._seq += 1
        seq = self._seq
        message = {"type": "request", "seq": seq, "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self.conn.sendall(encode_frame(KIND_TO_DEBUGGEE, message))
        response = self.next(lambda m: m.get("type") == "response" and m["request_seq"] == seq)
        assert response["success"], response
        return response.get("body", {})

    def event(self, name: str) -> dict:
        return self.next(lambda m: m.get("type") == "event" and m["event"] == name).get("body", {})

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)
        self.conn.close()


@pytest.fixture
def listener():
    child_listener = ChildListener()
    yield child_listener
    child_listener.close()


def start_root(launch, program, listener, auto_attach=True, tracer=None):
    debuggee = launch("--program", program, tracer=tracer)
    debuggee.request("dapper/configure", {
        "client": {"linesStartAt1": True},
        "launch": {"subprocessAutoAttach": auto_attach},
        "childListener": listener.address,
    })
    debuggee.request("configurationDone")
    return debuggee


def child_runs_to_its_end(listener: ChildListener, exit_code: int) -> None:
    """The next child says hello, is configured with nothing, and exits with
    ``exit_code``."""
    child = listener.accept()
    assert child.next()["event"] == "dapper/sessionHello"
    configure_child(child)
    assert child.event("dapper/exiting") == {"exitCode": exit_code}


def configure_child(child: ChildEnd, breakpoints=None) -> None:
    child.request("dapper/configure", {"client": {"linesStartAt1": True}, "launch": {}})
    for path, lines in (breakpoints or {}).items():
        child.request("setBreakpoints", {"source": {"path": str(path)},
                                         "breakpoints": [{"line": line} for line in lines]})
    child.request("configurationDone")


def test_a_popen_child_is_announced_says_hello_and_runs_in_its_own_environment(
        launch, write, listener):
    child_program = write("child.py", ENV_REPORT)
    parent = write("parent.py", f"""
        import subprocess, sys
        code = subprocess.call([sys.executable, {str(child_program)!r}, "x"])
        print("parent saw", code, flush=True)
    """)
    root = start_root(launch, parent, listener)
    announced = root.wait_event("dapper/childProcess")
    child = listener.accept()
    hello = child.next()
    assert hello["event"] == "dapper/sessionHello"
    body = hello["body"]
    assert body["token"] == TOKEN
    assert body["sessionId"] == announced["sessionId"] == "s1.1"
    assert body["parentSessionId"] == "s1"
    assert body["pid"] == announced["pid"]
    assert body["protocol"] == 1
    assert announced["name"] == "child.py"
    assert announced["isPython"] is True
    assert announced["parentPid"] == root.process.pid
    assert announced["parentSessionId"] == "s1"
    assert announced["command"] == [sys.executable, str(child_program), "x"]
    assert announced["ipcPort"] is None
    configure_child(child)
    assert child.event("dapper/exiting") == {"exitCode": 5}
    assert root.wait_event("dapper/childProcessExited") == {"pid": announced["pid"],
                                                            "name": "child.py"}
    root.finish(0)
    lines = root.stdout().splitlines()
    report = json.loads(lines[0])
    assert report == {"argv": [str(child_program), "x"], "dapper_vars": [], "pythonpath": None}
    assert lines[1] == "parent saw 5"


SOCKETS_REPORT = """
import json, os, stat, sys
sockets = []
for name in os.listdir("/proc/self/fd"):
    try:
        if stat.S_ISSOCK(os.fstat(int(name)).st_mode):
            sockets.append(os.get_inheritable(int(name)))
    except OSError:
        continue  # The listing's own descriptor, closed by now.
print(json.dumps({"loaded": sorted(m for m in ("_socket", "socket") if m in sys.modules),
                  "inheritable": sockets}), flush=True)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="lists descriptors in /proc")
@pytest.mark.parametrize("close_fds", [True, False])
def test_a_popen_child_is_handed_its_connection_unless_descriptors_are_left_open(
        launch, write, listener, close_fds):
    """A child started by subprocess gets its connection from its parent, ready-made: it
    never loads _socket, keeps the connection from the programs it starts, and the
    parent keeps no copy. Where the program asked for its descriptors to be left open,
    pass_fds would override that: the child dials the listener itself."""
    child_program = write("child.py", SOCKETS_REPORT)
    parent = write("parent.py", f"""
        import os, stat, subprocess, sys

        def sockets():
            return sum(1 for name in os.listdir("/proc/self/fd")
                       if os.path.exists(f"/proc/self/fd/{{name}}")
                       and stat.S_ISSOCK(os.stat(f"/proc/self/fd/{{name}}").st_mode))

        before = sockets()
        code = subprocess.call([sys.executable, {str(child_program)!r}],
                               close_fds={close_fds!r})
        print("parent saw", code, "sockets", sockets() - before, flush=True)
    """)
    root = start_root(launch, parent, listener)
    child_runs_to_its_end(listener, 0)
    root.finish(0)
    lines = root.stdout().splitlines()
    report = json.loads(lines[0])
    assert report == ({"loaded": [], "inheritable": [False]} if close_fds
                      else {"loaded": ["_socket"], "inheritable": [False]})
    assert lines[1] == "parent saw 0 sockets 0"


def test_a_child_that_does_not_start_leaves_no_connection_open(launch, write, listener):
    """Popen fails after the parent connected for the child: the connection is closed
    without a hello, and the program gets Popen's own error."""
    parent = write("parent.py", """
        import subprocess, sys
        try:
            subprocess.call([sys.executable, "-c", "pass"], cwd="/nonexistent/dir")
        except OSError as error:
            print("parent saw", type(error).__name__, flush=True)
    """)
    root = start_root(launch, parent, listener)
    child = listener.accept()
    with pytest.raises(AssertionError, match="closed its connection"):
        child.next()
    root.finish(0)
    assert root.stdout().splitlines() == ["parent saw FileNotFoundError"]


def test_a_child_whose_connection_closes_before_it_starts_runs_its_program(
        launch, write, listener):
    child_program = write("child.py", ENV_REPORT)
    parent = write("parent.py", f"""
        import subprocess, sys
        print("parent saw", subprocess.call([sys.executable, {str(child_program)!r}]),
              flush=True)
    """)
    root = start_root(launch, parent, listener)
    child = listener.accept()
    assert child.next()["event"] == "dapper/sessionHello"
    child.close()
    root.finish(0)
    assert root.stdout().splitlines()[-1] == "parent saw 5"


def test_without_auto_attach_children_are_left_alone(launch, write, listener):
    child_program = write("child.py", ENV_REPORT)
    parent = write("parent.py", f"""
        import subprocess, sys
        print("parent saw", subprocess.call([sys.executable, {str(child_program)!r}]),
              flush=True)
    """)
    root = start_root(launch, parent, listener, auto_attach=False)
    root.finish(0)
    assert root.stdout().splitlines()[-1] == "parent saw 5"
    assert not [e for e in root.events if e["event"].startswith("dapper/child")]
    listener.sock.settimeout(0.2)
    with pytest.raises(socket.timeout):
        listener.sock.accept()


@pytest.mark.skipif(sys.version_info < (3, 11) or os.name == "nt",
                    reason="a ._pth file beside the interpreter: 3.11+ on POSIX")
@pytest.mark.parametrize("extensions", [True, False], ids=["attached", "no extension modules"])
@pytest.mark.parametrize("words", [["-c", "import sys; print(sys.argv, sys.path); sys.exit(4)"],
                                   ["-m", "platform", "--terse"]], ids=["code", "module"])
def test_a_child_whose_interpreter_reads_a_path_file_is_attached(launch, write, listener,
                                                                 tmp_path, words, extensions):
    # An interpreter with a ._pth file beside it takes sys.path from that file and ignores
    # PYTHONPATH (CPython's test_site copies one so): the launcher must still be found.
    # Where the file leaves out the extension modules' directory, the child cannot make a
    # connection (no _socket, unless the interpreter has it built in, as Debian's does);
    # one that subprocess starts is handed its connection by its parent (POSIX), which
    # it uses with os alone. A child that has neither runs untraced, as plain.
    import shutil

    interpreter = tmp_path / "interpreter" / "python"
    interpreter.parent.mkdir()
    shutil.copy(os.path.realpath(getattr(sys, "_base_executable", sys.executable)),
                interpreter)
    stdlib = [entry for entry in sys.path if entry.startswith(sys.base_prefix)
              and (extensions or "dynload" not in entry)]
    (tmp_path / "interpreter" / "python._pth").write_text("\n".join(stdlib) + "\n")
    argv = [str(interpreter), *words]
    plain = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    connects = extensions or os.name == "posix" or subprocess.run(
        [str(interpreter), "-c", "import _socket"], capture_output=True,
        timeout=60).returncode == 0
    parent = write("parent.py", f"""
        import subprocess
        code = subprocess.call({argv!r})
        print("parent saw", code, flush=True)
    """)
    root = start_root(launch, parent, listener)
    if connects:
        child_runs_to_its_end(listener, plain.returncode)
    root.finish(0)
    assert root.stdout() == plain.stdout + f"parent saw {plain.returncode}\n"
    if not connects:
        assert "this child process runs without the debugger" in root.stderr()


@pytest.mark.parametrize("command, name, reason", [
    ('["true"]', "true", "not a Python program"),
    ('[sys.executable, "-"]', os.path.basename(sys.executable).lower(),
     "it reads its program from standard input"),
    ('f"{sys.executable} -c pass | cat"', "sh",
     "the shell command line uses the operator '|' (pipes, lists or redirections), "
     "so its Python program is not attached"),
])
def test_children_that_cannot_be_attached_are_reported(launch, write, listener,
                                                       command, name, reason):
    shell = "|" in command
    parent = write("parent.py", f"""
        import subprocess, sys
        subprocess.run({command}, shell={shell}, stdin=subprocess.DEVNULL, check=True)
    """)
    root = start_root(launch, parent, listener)
    candidate = root.wait_event("dapper/childProcessCandidate")
    root.finish(0)
    assert (candidate["name"], candidate["reason"]) == (name, reason)
    assert candidate["pid"] > 0 and candidate["parentSessionId"] == "s1"
    assert candidate["sessionId"] is None


def test_a_fork_child_becomes_a_session_with_its_own_breakpoints(
        launch, write, listener, backend):
    parent = write("forker.py", """
        import os
        pid = os.fork()
        if pid == 0:
            value = 41
            value += 1  # child line
            print("child", value, flush=True)
            os._exit(3)
        _, status = os.waitpid(pid, 0)
        print("parent saw", os.waitstatus_to_exitcode(status), flush=True)
    """)
    line = parent.read_text().splitlines().index(
        "    value += 1  # child line") + 1
    root = start_root(launch, parent, listener, tracer=backend)
    announced = root.wait_event("dapper/childProcess")
    assert announced["name"] == "forker.py (fork)"
    child = listener.accept()
    hello = child.next()["body"]
    assert (hello["sessionId"], hello["pid"]) == (announced["sessionId"], announced["pid"])
    configure_child(child, {parent: [line]})
    stopped = child.event("stopped")
    frame = child.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"][0]
    assert (frame["line"], frame["source"]["path"]) == (line, str(parent))
    child.request("continue", {"threadId": stopped["threadId"]})
    assert child.event("dapper/exiting") == {"exitCode": 3}
    root.finish(0)
    assert root.stdout().splitlines() == ["child 42", "parent saw 3"]


def test_a_fork_child_without_auto_attach_never_uses_its_parents_connection(
        launch, write, listener, backend):
    program = write("forker.py", """
        import os

        def work(who):
            return who  # breakpoint

        pid = os.fork()
        if pid == 0:
            print("child", work("child"), flush=True)
            os._exit(0)
        os.waitpid(pid, 0)
        print("parent", work("parent"), flush=True)
    """)
    line = program.read_text().splitlines().index("    return who  # breakpoint") + 1
    root = launch("--program", program, tracer=backend)
    root.request("dapper/configure", {"client": {}, "launch": {"subprocessAutoAttach": False},
                                      "childListener": listener.address})
    root.set_breakpoints(program, [line])
    root.request("configurationDone")
    stopped = root.stopped()
    # The only stop is the parent's, after the child ended: the child stopped nowhere
    # and left the connection it shared with its parent alone.
    frames = root.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"]
    locals_ = root.locals_of(frames[0]["id"])
    assert locals_["who"]["value"] == "'parent'"
    root.request("continue", {"threadId": stopped["threadId"]})
    root.finish(0)
    assert root.stdout().splitlines() == ["child child", "parent parent"]
    assert not [e for e in root.events if e["event"] == "stopped"]


def test_multiprocessing_is_hooked_when_the_program_imports_it(launch, write, listener):
    # The hooks patch multiprocessing's modules when the program imports them, not at
    # start: the name proves Popen._launch was wrapped, the announcement spawnv_passfds.
    parent = write("mp_parent.py", """
        import sys
        print("preloaded", "multiprocessing.popen_spawn_posix" in sys.modules, flush=True)
        import multiprocessing

        def work():
            pass

        if __name__ == "__main__":
            process = multiprocessing.get_context("spawn").Process(target=work)
            process.start()
            process.join()
            print("exit", process.exitcode, flush=True)
    """)
    root = start_root(launch, parent, listener)
    announced = root.wait_event("dapper/childProcess")
    assert announced["name"] == "SpawnProcess-1"
    assert announced["isPython"] is True
    child = listener.accept()
    assert child.next()["event"] == "dapper/sessionHello"
    configure_child(child)
    assert child.event("dapper/exiting") == {"exitCode": 0}
    root.finish(0)
    # The child runs the main module's top level too (as __mp_main__), hence two lines.
    assert root.stdout().splitlines() == ["preloaded False", "preloaded False", "exit 0"]


def test_a_child_forked_by_another_thread_ends_when_that_thread_ends(
        launch, write, listener, backend):
    # CPython's test_threading: forked from a thread that is not the main one, the child's
    # only thread is that one; when it returns, the process ends (status 0, no atexit).
    # The child's session must not keep it alive, and reports that status.
    parent = write("thread_forker.py", """
        import os, sys, threading

        def func():
            pid = os.fork()
            if pid == 0:
                print("child main", threading.main_thread() is threading.current_thread(),
                      flush=True)
                return
            _, status = os.waitpid(pid, 0)
            print("parent saw", os.waitstatus_to_exitcode(status), flush=True)

        thread = threading.Thread(target=func)
        thread.start()
        thread.join()
    """)
    root = start_root(launch, parent, listener, tracer=backend)
    root.wait_event("dapper/childProcess")
    child = listener.accept()
    child.next()
    configure_child(child, {})
    assert child.event("dapper/exiting") == {"exitCode": 0}
    root.finish(0)
    assert root.stdout().splitlines() == ["child main True", "parent saw 0"]


@pytest.mark.skipif(not (3, 10) <= sys.version_info < (3, 12) or not hasattr(os, "fork"),
                    reason="CPython 3.10 and 3.11: one sys.settrace at a time per process")
def test_a_fork_child_that_cannot_trace_runs_on_as_plain(launch, write, listener):
    # CPython's test_threading (test_is_alive_after_fork): a fork taken while another
    # thread is inside sys.settrace (here held in an audit hook) leaves the child unable
    # to install any trace function. os.fork must still return in the child, as plain.
    parent = write("settrace_forker.py", """
        import os, sys, threading
        inside, release = threading.Event(), threading.Event()

        def hook(event, args):
            if event == "sys.settrace" and threading.current_thread().name == "installer":
                inside.set()
                release.wait()

        sys.addaudithook(hook)
        installer = threading.Thread(target=sys.settrace, args=(None,), name="installer")
        installer.start()
        inside.wait()
        pid = os.fork()
        if pid == 0:
            print("child runs", flush=True)
            os._exit(7)
        release.set()
        installer.join()
        _, status = os.waitpid(pid, 0)
        print("parent saw", os.waitstatus_to_exitcode(status), flush=True)
    """)
    plain = subprocess.run([sys.executable, str(parent)], capture_output=True, text=True,
                           timeout=60)
    assert plain.stdout == "child runs\nparent saw 7\n", plain.stderr
    root = start_root(launch, parent, listener)
    root.wait_event("dapper/childProcess")
    child = listener.accept()
    child.next()  # Its hello.
    child.request("dapper/configure", {"client": {"linesStartAt1": True}, "launch": {}})
    # The raised filter needs a trace function from the start.
    child.request("setExceptionBreakpoints", {"filters": ["raised"]})
    child.request("configurationDone")
    notice = child.event("output")
    assert "cannot be traced" in notice["output"], notice
    assert child.event("dapper/exiting") == {"exitCode": 7}
    root.finish(0)
    assert root.stdout() == plain.stdout


INTROSPECTED = """
import inspect, json, os
report = {}
for name in ("execv", "execve", "posix_spawn", "posix_spawnp", "system", "spawnv"):
    function = getattr(os, name, None)
    if function is None:
        continue
    try:
        signature = str(inspect.signature(function))
    except ValueError as error:
        signature = f"ValueError: {error}"
    report[name] = [signature, getattr(function, "__text_signature__", "<none>"),
                    function.__name__, function.__qualname__, function.__module__,
                    function.__doc__]
print(json.dumps(report), flush=True)
"""


def test_the_hooked_os_functions_introspect_as_without_the_debugger(launch, write, listener):
    # CPython's test_inspect checks that os.posix_spawn keeps a text signature that
    # inspect.signature cannot parse: the hooks stand in for the functions they wrap.
    program = write("introspect.py", INTROSPECTED)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=TIMEOUT, check=True)
    root = start_root(launch, program, listener)
    root.finish(0)
    assert json.loads(root.stdout().splitlines()[-1]) == json.loads(plain.stdout)


@pytest.mark.parametrize("how", ["argv", pytest.param("shell", marks=pytest.mark.skipif(
    os.name == "nt", reason="the line is quoted for a POSIX shell"))])
def test_a_code_child_runs_as_its_plain_run_does(launch, write, listener, how):
    # A -c child runs the launcher under -c too (children/commands.py): it sees what its
    # plain run sees, started from a list or through a shell line rewritten for it.
    code = ("import json, sys; print(json.dumps([sys.argv, sys.path[0], "
            "'runpy' in sys.modules, sys.modules['__main__'].__spec__])); sys.exit(4)")
    argv = [sys.executable, "-c", code, "a b"]
    plain = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    call = (f"subprocess.call({argv!r})" if how == "argv"
            else f"subprocess.call({shlex.join(argv)!r}, shell=True)")
    parent = write("parent.py", f"""
        import subprocess
        code = {call}
        print("parent saw", code, flush=True)
    """)
    root = start_root(launch, parent, listener)
    child_runs_to_its_end(listener, 4)
    root.finish(0)
    assert root.stdout() == plain.stdout + "parent saw 4\n"
