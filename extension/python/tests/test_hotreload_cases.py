"""Hot reload, data-driven: each file in hotreload_cases/ is a module before and after an
edit, what the program does around it, and the reload's expected result. Every case runs
in its own interpreter (this one's version) so no case sees another's modules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parent / "hotreload_cases"
NAMES = sorted(p.stem for p in CASES.glob("*.case"))


def run_case(name: str, tmp_path: Path) -> tuple[dict, dict]:
    case = CASES / f"{name}.case"
    expect_text = case.read_text().split("#@ expect\n", 1)[1].split("#@ ", 1)[0]
    done = subprocess.run(
        [sys.executable, "-B", str(CASES / "driver.py"), str(case), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), json.loads(expect_text)


@pytest.mark.parametrize("name", NAMES)
def test_case(name, tmp_path):
    out, expect = run_case(name, tmp_path)
    assert out["check"] == "ok", out
    if "error" in expect:
        assert "result" not in out, out
        for key, value in expect["error"].items():
            assert out["error"][key] == value, out["error"]
        return
    result = out.get("result")
    assert result is not None, out
    for key in ("updated", "moved", "added", "removed", "deferred"):
        if key in expect:
            assert sorted(result[key]) == sorted(expect[key]), (key, result)
    if "refused" in expect:
        refused = {r["name"]: r["reason"] for r in result["refused"]}
        assert sorted(refused) == sorted(expect["refused"]), result
        for qualname, fragment in expect["refused"].items():
            assert fragment in refused[qualname], (qualname, refused[qualname])
    for fragment in expect.get("warnings", []):
        assert any(fragment in warning for warning in result["warnings"]), (fragment, result)
    if expect.get("no_warnings"):
        assert result["warnings"] == [], result
