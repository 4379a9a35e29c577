"""Free-threaded builds (3.13t and newer) are refused with an error that says so: the
tracer relies on the GIL, and no free-threaded build is at hand to test on. The launcher
and ``--listen`` print the error and exit 1 (choose_backend_name is their first check)."""

from __future__ import annotations

import sys

import pytest

from dapperdbg.tracing import choose_backend_name, is_free_threaded


def test_the_pythons_under_test_are_standard_builds():
    assert not is_free_threaded()
    assert choose_backend_name(None) in ("monitoring", "settrace")


@pytest.mark.parametrize("requested", [None, "settrace"])
def test_a_free_threaded_build_is_refused_with_the_reason(monkeypatch, requested):
    # What a free-threaded build's sys says of itself (python3.14t: abiflags "t").
    monkeypatch.setattr(sys, "abiflags", "t", raising=False)
    with pytest.raises(ValueError, match=r"free-threaded build of Python \(3\.\d+t\).*"
                                         r"does not support yet.*standard build"):
        choose_backend_name(requested)
