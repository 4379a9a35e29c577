"""Who a session is: its hello, and what a launched session knows about itself for
child-process support (its id, its parent's, the token, and the tree's child listener
from dapperdbg/configure).

Kept free of heavy imports: every debuggee imports it (``platform`` alone would cost
~5 ms, most of it ``re``).
"""

from __future__ import annotations

import os
import sys
import time

from ..common.package import PROTOCOL_VERSION

PARENT_SESSION_VARIABLE = "DAPPER_PARENT_SESSION_ID"


class ExitState:
    """The exit status to report in ``dapper/exiting``; set once the program ends (None:
    unknown, for a program that was running before the session)."""

    def __init__(self) -> None:
        self.code: int | None = 0
        # Set once the program has ended and the session is closing its connection.
        self.finished = False


def own_keys(configure: dict) -> dict:
    """dapper/configure's arguments without the launch configuration's private keys,
    which a client adds to the configuration it was asked to attach with (VS Code's
    ``__configurationTarget``) and the debuggee has no use for: what tells two
    configurations of a child apart (session/inheritance.py, session/dormant.py)."""
    launch = configure.get("launch")
    if not isinstance(launch, dict):
        return configure
    own = {key: value for key, value in launch.items() if not key.startswith("__")}
    return {**configure, "launch": own}


def format_address(listener: dict) -> tuple[str, int | None]:
    """``childListener`` of dapper/configure as a launcher ``--ipc`` value, plus its port."""
    transport = listener.get("transport")
    if transport == "unix" and isinstance(listener.get("path"), str):
        return f"unix:{listener['path']}", None
    port = listener.get("port")
    if transport == "tcp" and isinstance(port, int) and isinstance(listener.get("host"), str):
        return f"tcp:{listener['host']}:{port}", port
    raise ValueError(f"unusable childListener {listener!r}")


# sys.implementation.name as platform.python_implementation() spells it.
_IMPLEMENTATION_NAMES = {"cpython": "CPython", "pypy": "PyPy", "ironpython": "IronPython",
                         "jython": "Jython"}


def python_version() -> str:
    """What ``platform.python_version()`` gives: the first word of ``sys.version``
    ("3.13.0", "3.14.0a1", "3.12.1+")."""
    words = sys.version.split()
    return words[0] if words else ".".join(map(str, sys.version_info[:3]))


def python_implementation() -> str:
    """What ``platform.python_implementation()`` gives ("CPython", "PyPy", ...)."""
    name = sys.implementation.name
    return _IMPLEMENTATION_NAMES.get(name, name)


def hello(session_id: str, *, token: str | None = None, parent_session_id: str | None = None,
          name: str | None = None) -> tuple[str, dict]:
    """The first message of every connection (docs/ipc.md, "Hello"): ``dapper/hello``, or
    ``dapper/sessionHello`` for a child session (one with a parent). A launched session
    proves itself with the ``token``; a listening program (``python -m dapperdbg
    --listen``) has none and gives its ``name`` instead."""
    body: dict = {
        "sessionId": session_id,
        "pid": os.getpid(),
        "pythonVersion": python_version(),
        "pythonImplementation": python_implementation(),
        "executable": sys.executable,
        "protocol": PROTOCOL_VERSION,
    }
    if token is not None:
        body["token"] = token
    if name is not None:
        body["name"] = name
    if parent_session_id is not None:
        body["parentSessionId"] = parent_session_id
        return "dapper/sessionHello", body
    return "dapper/hello", body


class SessionLink:
    """What the launcher knows about its own session, for the child-process support."""

    def __init__(self, session_id: str, parent_session_id: str | None, token: str,
                 variables: dict, exit_state=None) -> None:
        self.session_id = session_id
        self.parent_session_id = parent_session_id
        self.token = token
        self.variables = dict(variables)
        self.exit_state = exit_state
        self.child_listener: dict | None = None
        # A program debuggers attach to (launcher/listen.py) lets its children reconnect
        # to the next debugger: the file where it says where (launcher/reattach.py), and
        # its live announced children, {pid: (plan, session id, cwd)}, to announce again.
        self.reattach_file: str | None = None
        self.live_children: dict = {}
        # When the hello was made (time.monotonic()), once it is.
        self.hello_at: float | None = None

    @property
    def is_child(self) -> bool:
        return self.parent_session_id is not None

    def hello(self) -> tuple[str, dict]:
        """The first frame: ``dapper/hello`` for a root, ``dapper/sessionHello`` for a child."""
        self.hello_at = time.monotonic()
        return hello(self.session_id, token=self.token, parent_session_id=self.parent_session_id)

    def for_fork_child(self, session_id: str) -> SessionLink:
        """The link of a fork child of this session, which becomes session ``session_id``
        of its own: same token, tree and child listener, this session as its parent."""
        link = SessionLink(session_id, self.session_id, self.token, self.variables,
                           self.exit_state)
        link.child_listener = self.child_listener
        return link

    def children_address(self, debugger) -> tuple[str, int | None] | None:
        """The child listener as a launcher ``--ipc`` address (and its port) when this
        session's children are to be attached, else None."""
        launch = debugger.launch_configuration
        if (self.child_listener is None or not launch.get("subprocessAutoAttach", True)
                or debugger.no_debug or debugger.detached):
            return None
        try:
            return format_address(self.child_listener)
        except ValueError as error:
            print(f"dapper: child processes will not be debugged: {error}", file=sys.stderr)
            return None

    def observe(self, message: dict) -> None:
        """Called for each message from the engine: keeps configure's childListener, and
        the token children prove themselves with when this session has none of its own
        (``childToken``: an attached program's, which said no token in its hello)."""
        if message.get("type") != "request":
            return
        if message.get("command") == "dapper/inherit":
            # A child's first configuration comes inside it (session/inheritance.py).
            arguments = message.get("arguments")
            requests = arguments.get("requests") if isinstance(arguments, dict) else None
            for request in requests if isinstance(requests, list) else ():
                if isinstance(request, dict) and request.get("command") == "dapper/configure":
                    self.observe({"type": "request", **request})
            return
        if message.get("command") == "dapper/configure":
            arguments = message.get("arguments")
            if not isinstance(arguments, dict):
                arguments = {}
            listener = arguments.get("childListener")
            self.child_listener = listener if isinstance(listener, dict) else None
            token = arguments.get("childToken")
            if isinstance(token, str) and token:
                self.token = token
