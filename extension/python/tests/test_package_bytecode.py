"""The package's bytecode is cached beside it even where the user's environment says not
to write bytecode (PYTHONDONTWRITEBYTECODE, usual in containers), for the modules imported
at start and, once, for those imported later (at a stop, for a child): no debugged process
compiles the package again. The program itself runs with the user's setting."""

from __future__ import annotations

import importlib.util
import shutil
import sys

from conftest import PACKAGE_DIR

PROGRAM = """
import sys
import helper
print(sys.dont_write_bytecode)
"""


def test_the_package_is_cached_once_and_the_program_is_not(launch, write, tmp_path):
    package = tmp_path / "package"
    shutil.copytree(PACKAGE_DIR / "dapperdbg", package / "dapperdbg",
                    ignore=shutil.ignore_patterns("__pycache__"))
    write("helper.py", "VALUE = 1\n")
    program = write("main.py", PROGRAM)
    env = {"PYTHONPATH": str(package), "DAPPER_PYTHONPATH_ENTRY": str(package),
           "PYTHONDONTWRITEBYTECODE": "1"}
    for _ in range(2):
        debuggee = launch("--program", program, env=env, package=package)
        debuggee.configure({"program": str(program)})
        debuggee.request("configurationDone")
        debuggee.finish(0)
        assert debuggee.stdout() == "True\n"
    sources = sorted((package / "dapperdbg").rglob("*.py"))
    assert sources
    missing = [str(path) for path in sources
               if not (package / importlib.util.cache_from_source(str(path))).exists()]
    assert missing == []
    assert (package / "dapperdbg" / "__pycache__" /
            f"all-cached.{sys.implementation.cache_tag}").exists()
    assert not (tmp_path / "__pycache__").exists()


def _pyc_is_current(source) -> bool:
    cached = importlib.util.cache_from_source(str(source))
    try:
        with open(cached, "rb") as file:
            header = file.read(16)
    except OSError:
        return False
    status = source.stat()
    return (int.from_bytes(header[8:12], "little") == int(status.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == status.st_size & 0xFFFFFFFF)


def test_a_module_changed_since_it_was_cached_is_cached_again_by_the_start_that_imports_it(
        launch, write, tmp_path):
    # Live instrumentation is imported while the launcher applies the breakpoints, after
    # the session is configured: a start that imported it stale (the package updated in
    # place) and left its pyc so compiled it again in every debugged process.
    package = tmp_path / "package"
    shutil.copytree(PACKAGE_DIR / "dapperdbg", package / "dapperdbg",
                    ignore=shutil.ignore_patterns("__pycache__"))
    helper = write("helper.py", "VALUE = 1\n")
    program = write("main.py", PROGRAM)
    env = {"PYTHONPATH": str(package), "DAPPER_PYTHONPATH_ENTRY": str(package),
           "PYTHONDONTWRITEBYTECODE": "1"}
    live = package / "dapperdbg" / "instrumentation" / "live.py"

    def run() -> None:
        debuggee = launch("--program", program, env=env, package=package)
        debuggee.configure({"program": str(program)})
        debuggee.set_breakpoints(helper, [1], condition="__name__ == 'never'")
        debuggee.request("configurationDone")
        debuggee.finish(0)
        assert debuggee.stdout() == "True\n"

    run()
    assert _pyc_is_current(live)
    with open(live, "a") as source:
        source.write("\n# Changed in place.\n")
    assert not _pyc_is_current(live)
    run()
    assert _pyc_is_current(live)
    assert not (tmp_path / "__pycache__").exists()
