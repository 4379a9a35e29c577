"""The Popen hook's binding of a call's arguments (children/popen_hook.py): read from
``Popen.__init__``'s code object without ``inspect``, it must bind every call as
``inspect.signature`` does, and refuse what Popen itself refuses."""

from __future__ import annotations

import subprocess

import pytest

POPEN_CALLS = [
    pytest.param((["ls"],), {}, id="args"),
    pytest.param(("ls", -1, None, None, None, None, None, True, True), {}, id="positional"),
    pytest.param((["ls"],), {"shell": True, "cwd": "/", "env": {}, "text": True}, id="keywords"),
    pytest.param((), {"args": "ls", "executable": "/bin/ls"}, id="args-by-name"),
    pytest.param((), {}, id="args-missing"),
    pytest.param((["ls"],), {"args": ["ls"]}, id="twice"),
    pytest.param((["ls"],), {"no_such_parameter": 1}, id="unknown"),
    pytest.param(tuple(range(40)), {}, id="too-many"),
]


@pytest.mark.parametrize(("args", "kwargs"), POPEN_CALLS)
def test_popen_arguments_bind_as_inspect_binds_them(args, kwargs):
    import inspect

    from dapperdbg.children.popen_hook import Binding

    init = subprocess.Popen.__init__
    assert Binding.reads(init)
    try:
        expected = dict(inspect.signature(init).bind(None, *args, **kwargs).arguments)
    except TypeError:
        expected = None
    assert Binding(init).bind((None, *args), kwargs) == expected


def test_a_wrapped_popen_is_bound_by_its_signature():
    import functools

    from dapperdbg.children.popen_hook import binding_of

    calls = []

    def original(self, args, *more, shell=False, **options):
        calls.append((args, more, shell, options))

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        return original(*args, **kwargs)

    binding = binding_of(wrapper)
    arguments = binding.bind((None, ["ls"], 1, 2), {"shell": True, "cwd": "/"})
    assert arguments is not None and arguments["args"] == ["ls"]
    arguments["args"] = ["rewritten"]
    binding.call(wrapper, arguments)
    assert calls == [(["rewritten"], (1, 2), True, {"cwd": "/"})]
