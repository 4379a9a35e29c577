"""Line breakpoints in code that is not loaded yet: the store's states, the rule that
says which files are loaded, and the ``breakpoint`` event that verifies a pending
breakpoint when its module is imported (on every tracer backend)."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from dapperdbg.breakpoints.loaded_files import LoadedFiles
from dapperdbg.breakpoints.store import NOT_LOADED_YET, BreakpointStore
from dapperdbg.common.paths import canonical_path

SOURCE = "x = 1\n\n# a comment\ny = 2\n"


def make_file(tmp_path, name="mod.py", text=SOURCE):
    path = tmp_path / name
    path.write_text(text)
    return path


def state(breakpoint, store) -> tuple:
    armed = breakpoint.line in store.lines_by_file.get(breakpoint.canonical, {})
    return breakpoint.verified, breakpoint.pending, armed, breakpoint.line, breakpoint.message


# (name, file text or None for a missing file, loaded?, spec, expected state).
STATE_CASES = [
    ("loaded: verified", SOURCE, True, {"line": 1}, (True, False, True, 1, None)),
    ("loaded: moved to the next line", SOURCE, True, {"line": 2}, (True, False, True, 4, None)),
    ("not loaded: pending, moved, armed", SOURCE, False, {"line": 3},
     (False, True, True, 4, NOT_LOADED_YET)),
    ("not loaded, past the end", SOURCE, False, {"line": 9},
     (False, False, False, 9, "Line 9 is past the last executable line of the file.")),
    ("not loaded, invalid condition", SOURCE, False, {"line": 1, "condition": "x ==="},
     (False, False, False, 1, "Invalid condition")),
    ("missing file", None, False, {"line": 1}, (False, False, False, 1, "Cannot read")),
    ("file that does not compile", "def (:\n", False, {"line": 1},
     (False, False, False, 1, "does not compile")),
]


@pytest.mark.parametrize("text,loaded,spec,expected",
                         [case[1:] for case in STATE_CASES], ids=[c[0] for c in STATE_CASES])
def test_breakpoint_states(tmp_path, text, loaded, spec, expected):
    path = tmp_path / "mod.py"
    if text is not None:
        path.write_text(text)
    store = BreakpointStore()
    if loaded:
        store.loaded.note(canonical_path(str(path)))
    [breakpoint] = store.set_file_breakpoints({"path": str(path)}, [spec])
    *flags, message = state(breakpoint, store)
    assert tuple(flags) == expected[:4]
    if expected[4] is None:
        assert message is None
    else:
        assert expected[4] in message
    pending = {canonical_path(str(path))} if breakpoint.pending else set()
    assert store.pending_files == pending
    [described] = store.describe([breakpoint], 0)
    # A pending breakpoint is shown verified (docs/editors.md), without its message.
    assert described["verified"] is (expected[0] or expected[1])
    assert described["line"] == expected[3]
    assert ("message" in described) is (not expected[0] and not expected[1])


# How a file comes to be loaded: (name, how, expected).
def _by_tracer(files, path):
    files.note(canonical_path(str(path)))


def _by_sys_modules(files, path):
    module = types.ModuleType("dapper_test_loaded_module")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module


def _as_program(files, path):
    files.set_program(str(path))


def _as_other_program(files, path):
    files.set_program(str(path.parent / "other.py"))


def _module_without_file(files, path):
    sys.modules["dapper_test_loaded_module"] = types.ModuleType("dapper_test_loaded_module")


LOADED_CASES = [
    ("seen by the tracer", _by_tracer, True),
    ("a module's __file__ in sys.modules", _by_sys_modules, True),
    ("the launch's program", _as_program, True),
    ("another program", _as_other_program, False),
    ("a module without __file__", _module_without_file, False),
]


@pytest.mark.parametrize("how,expected", [c[1:] for c in LOADED_CASES],
                         ids=[c[0] for c in LOADED_CASES])
def test_which_files_are_loaded(tmp_path, how, expected):
    path = make_file(tmp_path)
    files = LoadedFiles()
    try:
        how(files, path)
        assert files.contains(canonical_path(str(path))) is expected
    finally:
        sys.modules.pop("dapper_test_loaded_module", None)
    assert not files.contains(canonical_path(str(tmp_path / "never.py")))


class Announcements:
    def __init__(self):
        self.batches: list[list[tuple[int, bool, int]]] = []

    def __call__(self, breakpoints):
        self.batches.append([(bp.id, bp.verified, bp.line) for bp in breakpoints])


def pending_store(tmp_path, lines=(3,)):
    path = make_file(tmp_path)
    store = BreakpointStore()
    created = store.set_file_breakpoints({"path": str(path)}, [{"line": n} for n in lines])
    return store, created, canonical_path(str(path))


@pytest.mark.parametrize("answered", [True, False], ids=["answered", "not answered yet"])
def test_a_file_imported_while_its_breakpoints_are_set(tmp_path, answered):
    """verify_loaded (run after the live swap, with the files whose functions it found):
    an answered breakpoint is announced, an unanswered one is verified silently (its
    response says so)."""
    store, created, canonical = pending_store(tmp_path)
    if answered:
        store.describe(created, 0)
        store.answered(created)
    announce = Announcements()
    store.verify_loaded(set(), announce)
    assert announce.batches == [] and created[0].pending, "no function found yet"
    store.verify_loaded({canonical}, announce)
    assert store.loaded.seen(canonical)
    assert created[0].verified and store.pending_files == frozenset()
    assert announce.batches == ([[(created[0].id, True, 4)]] if answered else [])
    if not answered:
        assert store.describe(created, 0)[0]["verified"] is True
        assert store.answered(created) == []


def test_loading_verifies_and_announces_once(tmp_path):
    store, created, canonical = pending_store(tmp_path)
    store.describe(created, 0)
    assert store.answered(created) == []
    announce = Announcements()
    store.loaded.note(canonical)
    store.file_loaded(canonical, announce, 1.0)
    assert announce.batches == [[(created[0].id, True, 4)]]
    assert created[0].message is None and store.pending_files == frozenset()
    store.file_loaded(canonical, announce, 1.0)
    assert len(announce.batches) == 1, "never twice"
    # Loaded now: a new set for the file is verified at once.
    [again] = store.set_file_breakpoints({"path": created[0].source["path"]}, [{"line": 3}])
    assert again.verified and again.id == created[0].id


def test_replaced_breakpoints_are_never_announced(tmp_path):
    store, old, canonical = pending_store(tmp_path, lines=(1,))
    store.describe(old, 0)
    store.answered(old)
    new = store.set_file_breakpoints({"path": old[0].source["path"]}, [{"line": 4}])
    store.describe(new, 0)
    store.answered(new)
    announce = Announcements()
    store.file_loaded(canonical, announce, 1.0)
    assert announce.batches == [[(new[0].id, True, 4)]]
    assert old[0].pending and not old[0].verified


def test_a_thread_loading_the_file_waits_for_the_response(tmp_path):
    store, created, canonical = pending_store(tmp_path)
    store.describe(created, 0)
    announce = Announcements()
    loader = threading.Thread(target=store.file_loaded, args=(canonical, announce, 10.0))
    loader.start()
    time.sleep(0.1)
    assert loader.is_alive() and announce.batches == [], "no event before the response"
    assert store.answered(created) == []
    loader.join(5)
    assert not loader.is_alive()
    assert announce.batches == [[(created[0].id, True, 4)]]


def test_after_the_wait_the_answer_announces_it(tmp_path):
    store, created, canonical = pending_store(tmp_path)
    store.describe(created, 0)
    announce = Announcements()
    store.file_loaded(canonical, announce, 0.05)
    assert announce.batches == [] and created[0].verified
    assert store.answered(created) == created


def test_verified_before_the_response_is_answered_verified(tmp_path):
    store, created, canonical = pending_store(tmp_path)
    store.file_loaded(canonical, Announcements(), 0.0)
    [described] = store.describe(created, 0)
    assert described["verified"] is True and "message" not in described
    assert store.answered(created) == []


class LoadedWhileDeciding(LoadedFiles):
    """The file's first code runs between the decision and the publication."""

    def contains(self, canonical):
        self.note(canonical)
        return False


def test_a_file_loaded_while_deciding_is_verified(tmp_path):
    path = make_file(tmp_path)
    store = BreakpointStore()
    store.loaded = LoadedWhileDeciding()
    [breakpoint] = store.set_file_breakpoints({"path": str(path)}, [{"line": 3}])
    assert (breakpoint.verified, breakpoint.pending, breakpoint.line) == (True, False, 4)
    assert store.pending_files == frozenset()


def test_clear_releases_a_waiting_thread(tmp_path):
    store, created, canonical = pending_store(tmp_path)
    announce = Announcements()
    loader = threading.Thread(target=store.file_loaded, args=(canonical, announce, 10.0))
    loader.start()
    time.sleep(0.05)
    store.clear()
    loader.join(5)
    assert not loader.is_alive() and announce.batches == []


# End to end through the launcher, on every backend.

MAIN = """
import os, sys, threading, time
def load():
    import helper
    helper.run()
mode = sys.argv[1] if len(sys.argv) > 1 else "main"
if mode == "wait":
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.01)
before_import = True
if mode == "thread":
    worker = threading.Thread(target=load)
    worker.start()
    worker.join()
elif mode != "skip":
    load()
print("done")
"""
BEFORE_IMPORT = 9
HELPER = """
def run():

    value = 1
    return value
"""


def launch_pending(launch, write, backend, args=(), main_lines=()):
    """Launch MAIN with breakpoints at ``main_lines`` of it; helper.py is not imported."""
    main = write("main.py", MAIN)
    helper = write("helper.py", HELPER)
    debuggee = launch("--program", main, *args, tracer=backend)
    debuggee.configure({"program": str(main)})
    if main_lines:
        debuggee.set_breakpoints(main, list(main_lines))
    return debuggee, helper


def set_pending(debuggee, helper) -> dict:
    [answered] = debuggee.set_breakpoints(helper, [2])
    # Armed, waiting for its module: shown verified at its line (as debugpy does; shown
    # unverified, clients such as nvim-dap draw it rejected).
    assert answered["verified"] is True and answered["line"] == 3
    assert "message" not in answered and "reason" not in answered
    return answered


def before_the_start(launch, write, backend, tmp_path):
    debuggee, helper = launch_pending(launch, write, backend)
    answered = set_pending(debuggee, helper)
    debuggee.request("configurationDone")
    return debuggee, answered


def before_the_start_other_thread(launch, write, backend, tmp_path):
    debuggee, helper = launch_pending(launch, write, backend, ["thread"])
    answered = set_pending(debuggee, helper)
    debuggee.request("configurationDone")
    return debuggee, answered


def while_running(launch, write, backend, tmp_path):
    flag = tmp_path / "go"
    debuggee, helper = launch_pending(launch, write, backend, ["wait", flag])
    debuggee.request("configurationDone")
    time.sleep(0.2)  # The program waits in its loop now.
    answered = set_pending(debuggee, helper)
    flag.write_text("")
    return debuggee, answered


def while_stopped(launch, write, backend, tmp_path):
    debuggee, helper = launch_pending(launch, write, backend, main_lines=[BEFORE_IMPORT])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    answered = set_pending(debuggee, helper)
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    return debuggee, answered


@pytest.mark.parametrize("when", [before_the_start, before_the_start_other_thread,
                                  while_running, while_stopped],
                         ids=lambda when: when.__name__)
def test_verified_by_an_event_before_the_stop(launch, write, backend, tmp_path, when):
    debuggee, answered = when(launch, write, backend, tmp_path)
    stopped = debuggee.stopped()
    # Events read while waiting for the stop came before it.
    changed = [e["body"] for e in debuggee.events if e["event"] == "breakpoint"]
    assert changed == [{"reason": "changed", "breakpoint": {
        "id": answered["id"], "verified": True, "line": 3, "source": answered["source"]}}]
    assert stopped["hitBreakpointIds"] == [answered["id"]]
    assert debuggee.top_frame(stopped["threadId"])["line"] == 3
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert len(breakpoint_events(debuggee)) == 1, "never twice"


def breakpoint_events(debuggee) -> list[dict]:
    """Every ``breakpoint`` event of the session, once the debuggee has exited."""
    events = list(debuggee.events)
    while (message := debuggee.messages.get(timeout=15)) is not None:
        events.append(message)
    return [e["body"] for e in events if e.get("event") == "breakpoint"]


def test_never_imported_stays_armed_and_is_never_announced(launch, write, backend):
    debuggee, helper = launch_pending(launch, write, backend, ["skip"])
    set_pending(debuggee, helper)
    debuggee.request("configurationDone")
    debuggee.finish(0)
    assert debuggee.stdout() == "done\n"
    assert breakpoint_events(debuggee) == []


def test_set_while_stopped_in_a_loaded_module_is_verified_at_once(launch, write, backend):
    debuggee, helper = launch_pending(launch, write, backend)
    set_pending(debuggee, helper)
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    [again] = debuggee.set_breakpoints(helper, [4])
    assert again["verified"] is True and again["line"] == 4 and "message" not in again
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.stopped()
    assert debuggee.top_frame(stopped["threadId"])["line"] == 4
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)


RACE_MAIN = """
import importlib, os, sys, threading, time
flag, count, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
while not os.path.exists(flag):
    time.sleep(0.002)
def work(first):
    for index in range(first, count, workers):
        importlib.import_module(f"m{index}").f()
threads = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
while not os.path.exists(flag + ".end"):
    time.sleep(0.002)
"""


def test_modules_imported_by_threads_while_their_breakpoints_are_set(launch, write, backend,
                                                                     tmp_path):
    """Threads import modules while setBreakpoints requests for them arrive: each log
    point is announced at most once, after its response, and before it logs."""
    count, flag = 24, tmp_path / "go"
    main = write("main.py", RACE_MAIN)
    modules = [write(f"m{index}.py", "def f():\n    return 1\n") for index in range(count)]
    debuggee = launch("--program", main, flag, count, 4, tracer=backend)
    debuggee.configure({"program": str(main)})
    debuggee.request("configurationDone")
    seqs: dict[int, int] = {}
    messages = list(debuggee.events)

    def read_responses(expected: int) -> None:
        # In order, with the events between them.
        while sum(m.get("request_seq") in seqs for m in messages) < expected:
            message = debuggee.messages.get(timeout=15)
            assert message is not None, f"connection closed; stderr: {debuggee.stderr()}"
            messages.append(message)

    for index, module in enumerate(modules):
        if index == count // 3:
            # These are surely pending when imported; the rest race with the imports.
            read_responses(index)
            flag.write_text("")
        seqs[debuggee.send_request("setBreakpoints", {
            "source": {"path": str(module)},
            "breakpoints": [{"line": 2, "logMessage": f"m{index}"}]})] = index
    read_responses(count)
    (tmp_path / "go.end").write_text("")
    debuggee.finish(0)
    while (message := debuggee.messages.get(timeout=15)) is not None:
        messages.append(message)
    # A breakpoint answered verified may log before its response is read (its module
    # was loaded and running: the usual race of a breakpoint set while running). One
    # answered unverified must be announced verified, once, before it logs.
    answered: dict[int, bool] = {}
    announced: set[int] = set()
    logged_early: set[int] = set()
    ids = {}
    for message in messages:
        if message["type"] == "response" and message["request_seq"] in seqs:
            index = seqs[message["request_seq"]]
            [breakpoint] = message["body"]["breakpoints"]
            ids[breakpoint["id"]] = index
            answered[index] = breakpoint["verified"]
        elif message.get("event") == "breakpoint":
            index = ids.get(message["body"]["breakpoint"]["id"])
            assert index is not None, "an event before its response"
            assert index not in announced, f"m{index} twice"
            announced.add(index)
        elif message.get("event") == "output" and message["body"]["category"] == "console":
            index = int(message["body"]["output"].strip()[1:])
            if index not in answered:
                logged_early.add(index)
            else:
                assert answered[index] or index in announced, f"m{index} logged unverified"
    assert len(ids) == count
    assert all(answered[index] for index in logged_early)
    assert announced, "no module was imported after its breakpoint was set"


TWIN = "def f():\n    return 1\n"


def test_equal_code_in_two_files_is_told_apart(launch, write, backend):
    """Code objects compare equal when only their file differs: the tracer must still
    see the second file's code (its pending breakpoint is verified, and stops)."""
    write("twin_a.py", TWIN)
    twin_b = write("twin_b.py", TWIN)
    main = write("main.py", "import twin_a\ntwin_a.f()\nimport twin_b\ntwin_b.f()\n")
    debuggee = launch("--program", main, tracer=backend)
    debuggee.configure({"program": str(main)})
    [answered] = debuggee.set_breakpoints(twin_b, [2])
    assert answered["verified"] is True  # Pending (twin_b is not imported yet): shown so.
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    assert stopped["hitBreakpointIds"] == [answered["id"]]
    assert debuggee.top_frame(1)["source"]["path"] == str(twin_b)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert len(breakpoint_events(debuggee)) == 1


SLOW_MODULE = """import os, sys, time
open(sys.argv[1] + ".importing", "w").close()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.005)
def f():
    return 1
f()
"""


def test_a_module_still_being_imported_gets_its_breakpoint(launch, write, backend, tmp_path):
    """A breakpoint set while its module's import is under way (the module's code runs,
    its functions are not defined yet): the functions it then defines stop there, on
    every backend (without a trace function on 3.9-3.11 too)."""
    flag = tmp_path / "go"
    slow = write("slow.py", SLOW_MODULE)
    main = write("main.py", "import slow\n")
    debuggee = launch("--program", main, flag, tracer=backend)
    debuggee.configure({"program": str(main)})
    debuggee.request("configurationDone")
    deadline = time.monotonic() + 10
    while not (tmp_path / "go.importing").exists():
        assert time.monotonic() < deadline, "the program never started importing slow"
        time.sleep(0.01)
    [answered] = debuggee.set_breakpoints(slow, [6])
    assert answered["verified"] is True, answered
    flag.write_text("")
    stopped = debuggee.stopped()
    assert stopped["hitBreakpointIds"] == [answered["id"]]
    assert debuggee.top_frame(1)["line"] == 6
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_breakpoint_in_a_module_the_instrumenting_compiler_uses_itself(
        launch, write, backend, tmp_path):
    # copy.py has a breakpoint and is first imported by the program, with nothing kept in
    # the cache: its copies are made when the breakpoint is set, so that its import does
    # not need the compiler (which uses copy, then only half imported).
    import copy
    import dis

    program = write("main.py", """
        import copy
        print(copy.copy([1, 2]))
    """)
    code = copy.copy.__code__
    line = min(start for _, start in dis.findlinestarts(code)
               if start and start > code.co_firstlineno)
    debuggee = launch("--program", program, tracer=backend,
                      env={"DAPPER_CACHE_DIR": str(tmp_path / "empty-cache")})
    debuggee.configure({"program": str(program)})
    [breakpoint] = debuggee.set_breakpoints(copy.__file__, [line])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    assert debuggee.top_frame(stopped["threadId"])["line"] == line
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "[1, 2]\n"
