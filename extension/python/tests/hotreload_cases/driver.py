"""Runs one hot reload case in a fresh interpreter (so cases cannot leak into each other)
and prints what happened as JSON. Usage: python driver.py CASE_FILE WORK_DIR

A case file (NAME.case) has sections introduced by ``#@ name`` lines:
``before`` and ``after`` (the module's source before and after the edit), optional
``setup`` (run after import, with ``m`` the module) and ``check`` (run after the reload,
same namespace; its assertions are the case's behaviour), and ``expect`` (JSON, compared
by the test)."""

import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from dapperdbg.hotreload import ReloadError, reload_file, remember_source  # noqa: E402


def sections(text):
    out, name = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith("#@ "):
            name = line[3:].strip()
            out[name] = ""
        elif name is not None:
            out[name] += line
    return out


def main(case_file, work_dir):
    with open(case_file) as file:
        parts = sections(file.read())
    module_name = "case_module"
    path = os.path.join(work_dir, module_name + ".py")
    with open(path, "w") as file:
        file.write(parts["before"])
    sys.path.insert(0, work_dir)
    module = __import__(module_name)
    # As the integrator does when a module loads: keep its source, to tell what changed.
    remember_source(path)
    env = {"m": module, "__name__": "case_env"}
    exec(compile(parts.get("setup", ""), "<setup>", "exec"), env)
    # A different size or a later mtime makes the edit visible to the import system.
    time.sleep(0.01)
    with open(path, "w") as file:
        file.write(parts["after"])
    out = {}
    try:
        result = reload_file(path)
        out["result"] = result.to_body()
    except ReloadError as error:
        out["error"] = error.to_body()
    try:
        exec(compile(parts.get("check", ""), "<check>", "exec"), env)
        out["check"] = "ok"
    except Exception:  # noqa: BLE001
        out["check"] = traceback.format_exc()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
