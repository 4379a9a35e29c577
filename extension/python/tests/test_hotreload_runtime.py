"""Hot reload around a running program: frames still in old code, reload while running
(deferred patches), a main script's loop, bytecode caches, and the errors. Each test runs
its program in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def run(tmp_path: Path, files: dict[str, str], main: str, *args: str) -> dict:
    """Write ``files`` and run ``main`` in a new interpreter; its last stdout line is JSON."""
    (tmp_path / "edits.py").write_text(EDITS)
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    env = dict(os.environ, PYTHONPATH=f"{PACKAGE_DIR}{os.pathsep}{tmp_path}")
    done = subprocess.run(
        [sys.executable, *args, str(tmp_path / main)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


EDITS = """
def edit(path, old, new):
    with open(path) as file:
        text = file.read()
    assert old in text, old
    with open(path, "w") as file:
        file.write(text.replace(old, new))
"""


# A module whose work() blocks (on a thread) at line 8 until released.
WORKER = """
import threading
started = threading.Event()
release = threading.Event()

def work():
    started.set()
    release.wait()
    return "old"

def idle():
    return "old"
"""


def test_frames_running_old_code_are_named(tmp_path):
    out = run(
        tmp_path,
        {
            "worker.py": WORKER,
            "main.py": """
                from edits import edit
                import json, threading
                import worker
                from dapperdbg.hotreload import reload_file
                thread = threading.Thread(target=lambda: results.append(worker.work()), name="w1")
                results = []
                thread.start()
                worker.started.wait()
                edit(worker.__file__, 'return "old"', 'return "new"')
                result = reload_file(worker.__file__).to_body()
                worker.release.set()
                thread.join()
                print(json.dumps({"result": result, "ran": results, "again": worker.work()}))
            """,
        },
        "main.py",
    )
    result = out["result"]
    assert sorted(result["updated"]) == ["idle", "work"]
    assert result["updatedFrameCodes"] == 2 and result["reboundFrames"] == 0
    [frame] = result["framesRunningOldCode"]
    assert frame["thread"] == "w1" and frame["function"] == "work" and frame["line"] == 8
    # The running frame finished its old code; the next call runs the new one.
    assert out["ran"] == ["old"]
    # (work() waits on an event that is now set)
    assert out["again"] == "new"


def test_reload_while_running_defers_functions_on_a_stack(tmp_path):
    out = run(
        tmp_path,
        {
            "worker.py": WORKER,
            "main.py": """
                from edits import edit
                import json, threading
                import worker
                from dapperdbg.hotreload import apply_deferred, pending, reload_file
                thread = threading.Thread(target=worker.work)
                thread.start()
                worker.started.wait()
                edit(worker.__file__, 'return "old"', 'return "new"')
                result = reload_file(worker.__file__, while_running=True).to_body()
                waiting = pending()
                first = apply_deferred()
                still = first.to_body()["deferred"]
                worker.release.set()
                thread.join()
                second = apply_deferred().to_body()
                print(json.dumps({"result": result, "waiting": waiting, "still": still,
                                  "second": second, "idle": worker.idle(),
                                  "work": worker.work(), "after": pending()}))
            """,
        },
        "main.py",
    )
    assert out["result"]["updated"] == ["idle"]
    assert out["result"]["deferred"] == ["work"]
    assert out["waiting"] == ["work"] and out["still"] == ["work"]
    assert out["second"]["updated"] == ["work"] and out["second"]["deferred"] == []
    assert out["idle"] == "new" and out["work"] == "new" and out["after"] == []


def test_main_script_loop_is_not_restarted(tmp_path):
    """The program's main script, run the way the launcher runs it (its code executed in a
    fresh ``__main__``), edits itself mid-loop and reloads: the loop goes on, state kept."""
    script = """
        import json, sys
        from dapperdbg.hotreload import reload_file
        from edits import edit
        total = 0
        calls = []
        print("top level ran")

        def step(i):
            return i

        for i in range(6):
            total += step(i)
            calls.append(step(i))
            if i == 2:
                edit(__file__, "return i\\n", "return i * 100\\n")
                result = reload_file(__file__, frames={0: sys._getframe()})
        print(json.dumps({"calls": calls, "total": total, "result": result.to_body()}))
    """
    runner = """
        import sys, types
        path = sys.argv[1]
        module = types.ModuleType("__main__")
        module.__file__ = path
        sys.modules["__main__"] = module
        with open(path) as file:
            code = compile(file.read(), path, "exec")
        exec(code, module.__dict__)
    """
    (tmp_path / "prog.py").write_text(textwrap.dedent(script))
    (tmp_path / "runner.py").write_text(textwrap.dedent(runner))
    (tmp_path / "edits.py").write_text(EDITS)
    env = dict(os.environ, PYTHONPATH=f"{PACKAGE_DIR}{os.pathsep}{tmp_path}")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "runner.py"), str(tmp_path / "prog.py")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("top level ran") == 1
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["calls"] == [0, 1, 2, 300, 400, 500]
    assert out["result"]["reloadedModule"] == "__main__"
    assert out["result"]["updated"] == ["step"]
    [frame] = out["result"]["framesRunningOldCode"] or [None]
    assert frame is None  # the module frame runs module code, which a reload never replaces


def test_stale_bytecode_is_rewritten(tmp_path):
    """Same size, same mtime second: the import system would trust the old .pyc."""
    out = run(
        tmp_path,
        {
            "cached_mod.py": """
                def f():
                    return "old"
            """,
            "main.py": """
                import json, os, subprocess, sys
                sys.dont_write_bytecode = False
                import cached_mod
                from dapperdbg.hotreload import reload_file
                path = cached_mod.__file__
                assert os.path.exists(cached_mod.__spec__.cached)
                stat = os.stat(path)
                with open(path) as file:
                    text = file.read()
                with open(path, "w") as file:
                    file.write(text.replace('"old"', '"new"'))
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                result = reload_file(path).to_body()
                child = subprocess.run([sys.executable, "-c",
                                        "import cached_mod; print(cached_mod.f())"],
                                       capture_output=True, text=True)
                print(json.dumps({"here": cached_mod.f(), "child": child.stdout.strip(),
                                  "warnings": result["warnings"]}))
            """,
        },
        "main.py",
    )
    assert out == {"here": "new", "child": "new", "warnings": []}


def test_compiler_warnings_are_filtered_as_on_import(tmp_path):
    """3.15 compiles an imported module with its name (``compile(module=...)``), so a
    warnings filter naming the module applies: it must apply to the reload's compile too
    (before 3.15 the compiler names the file, on import as on reload)."""
    out = run(
        tmp_path,
        {
            "warn_mod.py": """
                def f():
                    return 1 is 1
            """,
            "main.py": """
                from edits import edit
                import io, json, sys, warnings
                sys.dont_write_bytecode = True
                import importlib.util
                # Loaded under a name its path does not give (as plugin loaders do).
                name = "plugins.warn_mod"
                warnings.filterwarnings("ignore", category=SyntaxWarning, module=name)
                shown = []
                warnings.showwarning = lambda message, *rest: shown.append(str(message))
                spec = importlib.util.spec_from_file_location(name, "warn_mod.py")
                warn_mod = sys.modules[name] = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(warn_mod)
                on_import = len(shown)
                from dapperdbg.hotreload import reload_file
                edit(warn_mod.__file__, "1 is 1", "2 is 2")
                reload_file(warn_mod.__file__)
                print(json.dumps({"import": on_import, "reload": len(shown) - on_import}))
            """,
        },
        "main.py",
    )
    assert out["reload"] == out["import"], out


def test_errors_change_nothing(tmp_path):
    out = run(
        tmp_path,
        {
            "mod.py": """
                def f():
                    return 1
            """,
            "notes.txt": "hello\n",
            "main.py": """
                import json, os
                import mod
                from dapperdbg.hotreload import ReloadError, reload_file
                out = {}
                for path, source in [("notes.txt", None), ("elsewhere.py", None),
                                     (mod.__file__, "def f():\\n    return 2\\n  x = (\\n")]:
                    try:
                        reload_file(os.path.abspath(path), new_source=source)
                    except ReloadError as error:
                        out[os.path.basename(path)] = error.to_body()
                out["f"] = mod.f()
                print(json.dumps(out))
            """,
        },
        "main.py",
    )
    assert out["notes.txt"]["kind"] == "not-a-python-source"
    assert out["elsewhere.py"]["kind"] == "not-loaded"
    error = out["mod.py"]
    assert error["kind"] == "compile-error" and error["line"] == 3 and error["column"] >= 1
    assert "indent" in error["message"]
    assert out["f"] == 1


def test_reloaded_function_is_a_plain_function_with_the_new_code(tmp_path):
    """No wrapper left in: the tight loop runs the same kind of code object as before."""
    out = run(
        tmp_path,
        {
            "loop.py": """
                def spin(n):
                    total = 0
                    for i in range(n):
                        total += i
                    return total
            """,
            "main.py": """
                from edits import edit
                import json, types
                import loop
                from dapperdbg.hotreload import reload_file
                before = loop.spin
                edit(loop.__file__, "total += i", "total += 2 * i")
                reload_file(loop.__file__)
                code = loop.spin.__code__
                print(json.dumps({
                    "same_object": loop.spin is before,
                    "plain": type(loop.spin) is types.FunctionType
                    and loop.spin.__closure__ is None,
                    "flags": code.co_flags == before.__code__.co_flags,
                    "value": loop.spin(10),
                }))
            """,
        },
        "main.py",
    )
    assert out == {"same_object": True, "plain": True, "flags": True, "value": 90}
