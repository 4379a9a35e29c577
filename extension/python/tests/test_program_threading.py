"""The debugger never imports threading itself (common/program_threading.py): a program
that does not import it runs without it, its main thread shown as the only one; once it
imports it, threading's main thread is the real one (before 3.13 the first import takes
the importing thread for the main one), keeps the DAP id it had, and the threads it
starts are announced, traced and stopped, their uncaught exceptions included."""

from __future__ import annotations

LATE_IMPORT = """
import sys
print("threading" in sys.modules, flush=True)
import _thread
import threading
def work():
    return 42
main = threading.main_thread()
worker = threading.Thread(target=work, name="worker")
worker.start()
worker.join()
print(main.ident == _thread.get_ident(), main.name, threading.current_thread() is main)
"""


def _threads(debuggee) -> dict[int, str]:
    return {thread["id"]: thread["name"]
            for thread in debuggee.request("threads")["threads"]}


def test_a_program_imports_threading_late_and_its_threads_are_the_program_s(
        launch, write, backend):
    path = write("late.py", LATE_IMPORT)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"program": str(path)})
    debuggee.set_breakpoints(path, [3, 6])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    # Stopped before the program imported threading: the main thread alone.
    assert stopped["threadId"] == 1
    assert _threads(debuggee) == {1: "MainThread"}
    assert debuggee.top_frame(1)["line"] == 3
    debuggee.request("continue", {"threadId": 1})
    stopped = debuggee.stopped()
    worker = stopped["threadId"]
    assert worker != 1
    assert debuggee.top_frame(worker)["name"] == "work"
    assert _threads(debuggee) == {1: "MainThread", worker: "worker"}
    started = [event["body"]["threadId"] for event in debuggee.events
               if event.get("event") == "thread" and event["body"]["reason"] == "started"]
    assert started == [worker]
    debuggee.request("continue", {"threadId": worker})
    debuggee.finish(0)
    assert debuggee.stdout() == "False\nTrue MainThread True\n"


def test_an_uncaught_exception_of_a_thread_started_after_a_late_import_stops(
        launch, write, backend):
    path = write("fails.py", """
        import sys
        assert "threading" not in sys.modules
        import threading
        def fail():
            raise ValueError("boom")
        worker = threading.Thread(target=fail, name="failing")
        worker.start()
        worker.join()
        print("after")
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"program": str(path)})
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("exception")
    assert stopped["text"] == "ValueError"
    assert stopped["threadId"] != 1
    info = debuggee.request("exceptionInfo", {"threadId": stopped["threadId"]})
    assert info["exceptionId"].endswith("ValueError")
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "after\n"
    assert "ValueError: boom" in debuggee.stderr()


def test_a_traceback_raised_by_an_imported_module_is_as_plain(launch, write, backend):
    # Until threading is imported the source loader runs the module's code through the
    # debugger's watch for it, which a traceback must not show.
    write("bad.py", """
        raise ValueError("at import")
    """)
    path = write("imports_bad.py", """
        import sys
        import traceback
        assert "threading" not in sys.modules
        try:
            import bad
        except ValueError:
            print(traceback.format_exc())
    """)
    debuggee = launch("--program", path, tracer=backend, cwd=path.parent)
    debuggee.configure({"program": str(path)})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    shown = debuggee.stdout()
    assert "bad.py" in shown and "frozen" not in shown and "dapperdbg" not in shown


FIRST_IMPORT_ON_A_DEBUGGER_THREAD = """
import _thread, sys
from dapperdbg.common import program_threading
from dapperdbg.common.debugger_threads import start_debugger_thread
assert "threading" not in sys.modules
imported = _thread.allocate_lock()
imported.acquire()
def import_it():
    import threading  # as modules do that a request imports (tempfile, before 3.12)
    imported.release()
start_debugger_thread("dapper.test", import_it)
imported.acquire()
import threading
main = threading.main_thread()
assert main is threading.current_thread(), (main, threading.current_thread())
assert main.ident == _thread.get_ident() and main.name == "MainThread"
assert program_threading.main_thread() is main
worker = threading.Thread(target=print, args=("worker ran",))
worker.start()
worker.join()
print("main alive", main.is_alive())
"""


def test_threading_first_imported_by_a_debugger_thread_keeps_the_real_main_thread(tmp_path):
    # Before 3.13 that import takes the debugger thread for the main one; the process
    # must still see its own main thread, and exit (threading's shutdown would otherwise
    # wait for the debugger thread).
    import os
    import subprocess
    import sys

    from conftest import PACKAGE_DIR, TIMEOUT

    env = {**os.environ, "PYTHONPATH": str(PACKAGE_DIR)}
    done = subprocess.run([sys.executable, "-c", FIRST_IMPORT_ON_A_DEBUGGER_THREAD],
                          capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "worker ran\nmain alive True\n", "")


def test_hooks_wait_for_threading_again_after_the_debugger_left(tmp_path):
    # A detach from an attached process takes the watch out (forget); a later attach's
    # hooks must still run as the program imports threading.
    import os
    import subprocess
    import sys

    from conftest import PACKAGE_DIR, TIMEOUT

    code = (
        "import sys\n"
        "from dapperdbg.common import program_threading\n"
        "program_threading.forget()\n"
        "program_threading.when_imported(lambda module: print('hooked', module.__name__))\n"
        "import threading\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_DIR)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "hooked threading\n", "")
