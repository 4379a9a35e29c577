"""Terminal auto-attach's bootstrap (docs/auto-attach.md), run by sitecustomize.py in
every Python started in a VS Code terminal while auto-attach is on, before the program's
own code. It chains to the user's own ``sitecustomize``; then, from the mode the
terminal's environment says (``DAPPER_AUTO_ATTACH``) and this interpreter's command line,
it decides whether to ask the VS Code window's broker to debug this process, asks with
the window's secret, and connects to the session the window started, through the
debuggee package (imported only then). Deciding not to imports nothing.

It never prints and never fails the program: a window that is gone, a broker that says
no or anything unexpected leaves the program running as it would without Dapper.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# Tools that run the workspace's code: ``smart`` attaches them, though they are installed.
_RUNNERS = ("pytest", "py.test", "unittest", "flask")
# How long the broker may take to answer, in seconds.
_BROKER_TIMEOUT = 5.0
# macOS's file systems ignore case by default, as Windows's do, but only Windows's
# os.path.normcase folds it: a folder opened as ~/Projects holds ~/projects/app.py.
_FOLD_CASE = sys.platform == "darwin"


def run():
    """sitecustomize.py's whole work."""
    try:
        _chain()
    finally:
        try:  # noqa: SIM105 (contextlib is not imported yet, and need not be)
            _attach()
        except Exception:
            pass  # The program runs on without the debugger.


def _chain():
    """Import the user's own ``sitecustomize`` (the next one on sys.path), as ``site``
    would have without this folder; its errors reach ``site`` as they would have."""
    this = sys.modules.pop("sitecustomize")
    saved = sys.path[:]
    sys.path[:] = [entry for entry in saved if os.path.abspath(entry or ".") != _HERE]
    try:
        import sitecustomize  # noqa: F401
    except ImportError as error:
        # ``site`` finds this module in sys.modules when its import ends.
        sys.modules["sitecustomize"] = this
        if error.name != "sitecustomize":
            raise
    finally:
        sys.path[:] = saved


def _command_line():
    """The interpreter's whole command line when known (3.10+, or Linux)."""
    argv = getattr(sys, "orig_argv", None)
    if argv:
        return list(argv)
    try:
        with open("/proc/self/cmdline", "rb") as file:
            raw = file.read()
    except OSError:
        return None
    return [part.decode(sys.getfilesystemencoding(), "surrogateescape")
            for part in raw.split(b"\0")[:-1]]


def _module_of(command_line):
    """The module of ``python [options] -m MODULE …``, or None."""
    words = iter(command_line[1:])
    for word in words:
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        for at, letter in enumerate(word[1:], 2):
            if letter == "c":
                return None
            if letter in "mWX":
                value = word[at:] or next(words, None)
                if letter == "m":
                    return value
                break
    return None


def _target():
    """(the file that runs: the script, the ``-m`` module's top-level package or module,
    None for ``-c``, stdin and the REPL; the ``-m`` module's name or None)."""
    first = sys.argv[0] if sys.argv else ""
    if first == "-m":
        command_line = _command_line()
        module = _module_of(command_line) if command_line else None
        if not module:
            return None, None
        from importlib.machinery import PathFinder

        top = module.partition(".")[0]
        spec = PathFinder.find_spec(top, [os.getcwd(), *sys.path])
        if spec is None:
            return None, module
        if spec.submodule_search_locations:
            return os.path.join(list(spec.submodule_search_locations)[0], "__init__.py"), module
        return spec.origin, module
    if first in ("", "-c", "-"):
        return None, None
    return os.path.abspath(first), None


def _under(path, folder, paths=os.path, fold_case=_FOLD_CASE):
    """Whether ``path`` is ``folder`` or lies in it, by the rules of ``paths`` (the
    platform's os.path: ntpath's drive letters and either separator, in any case)."""
    folder = paths.normcase(paths.abspath(folder)).rstrip(paths.sep)
    path = paths.normcase(path)
    if fold_case:
        folder, path = folder.lower(), path.lower()
    return path == folder or path.startswith(folder + paths.sep)


def _split(value, separator=os.pathsep):
    return [part for part in value.split(separator) if part] if value else []


def _matches(pattern, parts):
    """Whether the glob's segments (``**`` any number of folders, ``*`` and ``?`` within
    one) match the path's."""
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        return any(_matches(pattern[1:], parts[index:]) for index in range(len(parts) + 1))
    return bool(parts) and _segment(head, parts[0]) and _matches(pattern[1:], parts[1:])


def _segment(pattern, name):
    if not pattern:
        return not name
    if pattern[0] == "*":
        return any(_segment(pattern[1:], name[index:]) for index in range(len(name) + 1))
    return bool(name) and pattern[0] in ("?", name[0]) and _segment(pattern[1:], name[1:])


def _segments(path, paths=os.path, fold_case=_FOLD_CASE):
    path = paths.normcase(path).replace("\\", "/")
    if fold_case:
        path = path.lower()
    return [part for part in path.split("/") if part]


def _by_patterns(path, patterns, paths=os.path, fold_case=_FOLD_CASE):
    """The last pattern that matches decides (``!`` excludes); none: no."""
    parts = _segments(path, paths, fold_case)
    verdict = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if _matches(_segments(pattern[1:] if negated else pattern, paths, fold_case), parts):
            verdict = not negated
    return verdict


def _is_tool(path):
    """A file of an installed package or of the interpreter's own environment."""
    if any(part in ("site-packages", "dist-packages") for part in _segments(path)):
        return True
    prefixes = {sys.prefix, sys.exec_prefix, getattr(sys, "base_prefix", sys.prefix)}
    return any(_under(path, prefix) for prefix in prefixes)


def _smart(environ):
    path, module = _target()
    patterns = _split(environ.get("DAPPER_AUTO_ATTACH_PATTERNS"))
    if patterns:
        return path is not None and _by_patterns(path, patterns), path
    folders = _split(environ.get("DAPPER_AUTO_ATTACH_FOLDERS"))
    runner = (module or "").partition(".")[0] in _RUNNERS or (
        module is None and path is not None
        and os.path.basename(path).lower().rsplit(".exe", 1)[0] in _RUNNERS)
    if runner:
        return any(_under(os.getcwd(), folder) for folder in folders), path
    if path is None or _is_tool(path):
        return False, path
    return any(_under(path, folder) for folder in folders), path


def _decide(environ):
    """(attach?, the program's file or None), from the mode the terminal says."""
    mode = environ.get("DAPPER_AUTO_ATTACH")
    if not mode:
        return False, None
    if mode == "always":
        return True, _target()[0]
    if mode == "onlyWithFlag":
        flagged = environ.get("DAPPER_DEBUG") == "1" or "dapper" in sys._xoptions
        return flagged, (_target()[0] if flagged else None)
    if mode == "smart":
        return _smart(environ)
    return False, None


def _ask_broker(environ, program):
    """Where the session the window started for this process listens, or None."""
    # _socket, not socket (which imports enum): a window that is gone costs only this.
    import _socket

    host, _, port = environ.get("DAPPER_AUTO_ATTACH_BROKER", "").rpartition(":")
    secret = environ.get("DAPPER_AUTO_ATTACH_SECRET", "")
    if not host or not port.isdigit() or not secret:
        return None
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        sock.settimeout(_BROKER_TIMEOUT)
        sock.connect((host, int(port)))
        import json

        request = {"secret": secret, "pid": os.getpid(), "argv": _command_line() or
                   [sys.executable, *sys.argv], "cwd": os.getcwd(), "program": program}
        sock.sendall(json.dumps(request).encode() + b"\n")
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                return None
            answer += chunk
    finally:
        sock.close()
    reply = json.loads(answer)
    listen = reply.get("listen") if isinstance(reply, dict) else None
    if not isinstance(listen, dict):
        return None
    return listen.get("host"), listen.get("port")


def _attach():
    environ = os.environ
    if "DAPPER_SESSION_TOKEN" in environ:
        return  # Dapper launched this process (a launch in a terminal, or a child).
    attach, program = _decide(environ)
    if not attach:
        return
    # This process is debugged now: its children are, as today, through the session.
    settings = {name: environ.pop(name) for name in list(environ)
                if name.startswith("DAPPER_AUTO_ATTACH") or name == "DAPPER_DEBUG"}
    where = _ask_broker(settings, program)
    if where is None:
        return
    sys.path.append(os.path.dirname(_HERE))
    from dapperdbg.launcher.terminal_attach import attach_at

    attach_at(where[0], where[1], program or "python", program)
