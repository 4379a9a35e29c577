"""The subprocess.Popen hook (and so run, call, check_call, check_output).

``Popen.__init__`` is wrapped: the arguments are bound to its own signature, the
command and environment of a Python child are rewritten, the original runs, and the
child is announced with the pid Popen got. A child that cannot be attached runs as
written and is reported as a candidate. If anything in the hook itself fails, the
command runs exactly as the program gave it.

The signature is read from the function's code object (its parameters' names and
defaults), not with ``inspect``: every debugged process that imports subprocess gets the
hook, and ``inspect`` (with ast, dis, tokenize and the rest it imports) would cost each
9-12 ms of CPU. Only a ``Popen.__init__`` that another tool has wrapped (its parameters
then say ``*args, **kwargs``, or it names what it wraps) is bound with ``inspect``.
"""

from __future__ import annotations

import os
import sys

from ..common.code_flags import CO_VARARGS, CO_VARKEYWORDS
from .state import ACTIVE, PACKAGE_DIR, ChildHooks

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from .planning import Plan

# Popen.__init__ as subprocess defines it, and how a call's arguments bind to it; set
# when the hook goes in, which is when the program imports subprocess (importing it for
# every debuggee would cost each ~2 ms before its first line).
_original_init = None
_binding: Binding | _InspectedBinding | None = None


def _words(args) -> list[str] | None:
    """The command as a list of str, or None when it is not something we can read."""
    if isinstance(args, (str, bytes, os.PathLike)):
        return [os.fsdecode(args)]
    try:
        return [os.fsdecode(word) for word in args]
    except TypeError:
        return None


def _path_of(env) -> str | None:
    if env is None:
        return os.environ.get("PATH")
    for key in ("PATH", b"PATH"):
        if key in env:
            return os.fsdecode(env[key])
    return None


def plan_popen(args, executable, shell: bool, cwd, env) -> Plan | None:
    # Planning is imported by the first command a program starts (children/__init__.py).
    from .planning import plan_argv, plan_shell

    cwd_text = os.fsdecode(cwd) if cwd is not None else None
    if shell:
        if isinstance(args, (str, bytes, os.PathLike)):
            line = os.fsdecode(args)
        else:
            words = _words(args)
            if not words:
                return None
            # Extra list items after the command are the shell's $0, $1…: kept as they are.
            line = words[0]
        shell_program = os.fsdecode(executable) if executable else "/bin/sh"
        return plan_shell(line, cwd_text, _path_of(env), shell_program)
    words = _words(args)
    if words is None:
        return None
    return plan_argv(words, os.fsdecode(executable) if executable else None, cwd_text,
                     _path_of(env))


def _popen_init(self, *args, **kwargs):
    hooks = ACTIVE.usable()
    if hooks is None:
        return _original_init(self, *args, **kwargs)
    arguments = _binding.bind((self, *args), kwargs)
    if arguments is None:
        return _original_init(self, *args, **kwargs)  # Let Popen give its own error.
    cwd = arguments.get("cwd")
    try:
        plan = plan_popen(arguments.get("args"), arguments.get("executable"),
                          bool(arguments.get("shell", False)), cwd, arguments.get("env"))
    except Exception as error:  # The program must start its child whatever happens here.
        print(f"dapper: could not examine a child command: {error}", file=sys.stderr)
        plan = None
    session_id = handed = None
    if plan is not None and plan.attachable:
        session_id, handed = _rewrite(hooks, plan, arguments)
    try:
        with ACTIVE.busy():
            _binding.call(_original_init, arguments)
    finally:
        if handed is not None:
            os.close(handed)  # The child has its own, if it started.
    if plan is None:
        return None
    cwd_text = os.fsdecode(cwd) if cwd is not None else None
    if session_id is not None:
        hooks.announce(plan, self.pid, session_id, cwd_text)
    else:
        hooks.report_candidate(plan, self.pid, cwd_text)
    return None


def _rewrite(hooks: ChildHooks, plan: Plan, arguments: dict) -> tuple[str | None, int | None]:
    """Rewrite ``arguments`` for the launcher: the child's session id, and the descriptor
    of the connection made for it, which the caller closes once Popen has run."""
    # The child is handed its connection ready-made (ipc/dial.py says why), through
    # pass_fds, which only that child inherits; not where the program asked for its
    # descriptors to be left open (close_fds=False), which pass_fds would override.
    handed = (hooks.connection_for_child()
              if arguments.get("close_fds", True) is not False else None)
    try:
        session_id = hooks.next_session_id()
        ipc = hooks.ipc if handed is None else f"fd:{handed}"
        new_args = plan.rewritten(ipc, session_id, PACKAGE_DIR)
        environment = hooks.child_environment(arguments.get("env"))
    except Exception as error:
        if handed is not None:
            os.close(handed)
        plan.python = None
        plan.reason = f"its command could not be rewritten: {error}"
        return None, None
    original = arguments.get("args")
    if plan.shell_assignments is not None and not isinstance(original, (str, bytes, os.PathLike)):
        # A shell=True list: the first item is the command line, the rest the shell's $0…
        new_args = [new_args, *list(original)[1:]]
    arguments["args"] = new_args
    arguments["env"] = environment
    if plan.replaces_program:
        arguments["executable"] = None
    if handed is not None:
        arguments["pass_fds"] = (*arguments.get("pass_fds", ()), handed)
    return session_id, handed


def hook_subprocess(subprocess) -> None:
    """Patch ``subprocess.Popen`` (once the program imports subprocess: stand_ins.py)."""
    global _original_init, _binding
    if getattr(subprocess.Popen.__init__, "_dapper_hook", False):
        return
    _binding = binding_of(subprocess.Popen.__init__)
    _original_init = subprocess.Popen.__init__
    _popen_init._dapper_hook = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = _popen_init  # type: ignore[method-assign]


class Binding:
    """How a call of a function binds, read from its code object: ``bind`` gives
    {parameter: value} for what a call passes, as the function would bind it, or None
    where the function would refuse the call (it then says why itself); ``call`` calls
    the function with such a dict."""

    def __init__(self, function) -> None:
        code = function.__code__
        self.positional = code.co_varnames[:code.co_argcount]
        self.keyword_only = code.co_varnames[code.co_argcount:
                                             code.co_argcount + code.co_kwonlyargcount]
        self.names = frozenset(self.positional + self.keyword_only)
        defaults = function.__defaults__ or ()
        kw_defaults = function.__kwdefaults__ or {}
        self.required = (*self.positional[:len(self.positional) - len(defaults)],
                         *(name for name in self.keyword_only if name not in kw_defaults))

    @staticmethod
    def reads(function) -> bool:
        """Whether the code object is the whole signature: every parameter can be passed
        by name, and nothing stands in for another function."""
        code = getattr(function, "__code__", None)
        return (code is not None and not code.co_flags & (CO_VARARGS | CO_VARKEYWORDS)
                and not code.co_posonlyargcount and not hasattr(function, "__wrapped__")
                and not hasattr(function, "__signature__"))

    def bind(self, args: tuple, kwargs: dict) -> dict | None:
        if len(args) > len(self.positional):
            return None
        given = dict(zip(self.positional, args))
        for name, value in kwargs.items():
            if name in given or name not in self.names:
                return None
            given[name] = value
        for name in self.required:
            if name not in given:
                return None
        return given

    def call(self, function, arguments: dict):
        return function(**arguments)


class _InspectedBinding:
    """The same, with ``inspect``: for a function whose code object is not its signature
    (a wrapper, say), which ``inspect`` follows to what it wraps."""

    def __init__(self, function) -> None:
        import inspect

        self._signature = inspect.signature(function)
        self._bound = inspect.BoundArguments

    def bind(self, args: tuple, kwargs: dict) -> dict | None:
        try:
            return self._signature.bind(*args, **kwargs).arguments
        except TypeError:
            return None

    def call(self, function, arguments: dict):
        bound = self._bound(self._signature, arguments)
        return function(*bound.args, **bound.kwargs)


def binding_of(function) -> Binding | _InspectedBinding:
    return Binding(function) if Binding.reads(function) else _InspectedBinding(function)
