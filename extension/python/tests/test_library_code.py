"""Which files justMyCode treats as library code."""

from __future__ import annotations

import json
import os

import pytest

from dapperdbg.common.library_code import is_library_canonical
from dapperdbg.common.paths import canonical_path


@pytest.mark.parametrize("path, library", [
    (json.__file__, True),  # the standard library
    (pytest.__file__, True),  # site-packages of this environment
    ("<frozen importlib._bootstrap>", True),
    ("<string>", False),
    ("/home/user/project/app.py", False),
    ("/home/user/project/.venv/lib/python3.12/site-packages/pkg/mod.py", True),
    ("/usr/lib/python3/dist-packages/pkg/mod.py", True),
    ("/home/user/site-packages-notes/app.py", False),
])
def test_library_code(path, library):
    canonical = path if path.startswith("<") else canonical_path(path.replace("/", os.sep))
    assert is_library_canonical(canonical) is library


def test_runpy_is_known_without_importing_it():
    import runpy

    from dapperdbg.common.paths import canonical_path, is_runpy_path

    assert is_runpy_path(canonical_path(runpy.__file__))
