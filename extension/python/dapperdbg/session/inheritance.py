"""A child process that runs before its client has configured its session.

Once the engine knows a child (its announcement and its hello), it sends it
``dapper/inherit``: its configuration, and the breakpoint requests its parent's session
was last given (core/src/session/inheritance.rs says why). The child applies them and
its program runs; the client is asked for its session once it has run 100 ms, or at once
when it sends something for the user (a held stop says so with ``dapper/sessionWanted``),
and a child that ends first with nothing to show has none (core/src/router/children.rs).
That session's own configuration is the authority once it comes:

- a ``setBreakpoints`` the same as the inherited one for its source is answered from the
  breakpoints in place (their ids and verdicts), any other request is applied as a
  change;
- at its ``configurationDone``, what was inherited and not sent again is dropped;
- until then, the events meant for the client are held (ipc/connection.py), so that it
  hears of a stop once its session is configured.

A child that ends before its session came does not wait for it: its held events go out
before its ``dapper/exiting``, and the engine gives them, with its exit, to the session
when it comes (core/src/router/children.rs).
"""

from __future__ import annotations

from .link import own_keys


class Inherited:
    """The breakpoint requests a child inherited that its client has not sent again."""

    __slots__ = ("configuration", "exceptions", "functions", "sources")

    def __init__(self, requests: list[dict]) -> None:
        self.configuration: dict | None = None
        self.sources: dict[str, dict] = {}
        self.functions: dict | None = None
        self.exceptions: dict | None = None
        for request in requests:
            arguments = request.get("arguments")
            if not isinstance(arguments, dict):
                continue
            command = request.get("command")
            if command == "dapper/configure":
                self.configuration = own_keys(arguments)
            elif command == "setBreakpoints":
                source = arguments.get("source")
                path = source.get("path") if isinstance(source, dict) else None
                if isinstance(path, str):
                    self.sources[path] = arguments
            elif command == "setFunctionBreakpoints":
                self.functions = arguments
            elif command == "setExceptionBreakpoints":
                self.exceptions = arguments

    def confirmed(self, command: str, arguments: dict) -> bool:
        """The client sent ``command``: what it inherited there is no longer left over.
        True when the request is a ``setBreakpoints`` or a ``dapper/configure`` the same
        as the inherited one."""
        if command == "dapper/configure":
            return self.configuration is not None and own_keys(arguments) == self.configuration
        if command == "setBreakpoints":
            source = arguments.get("source")
            path = source.get("path") if isinstance(source, dict) else None
            return self.sources.pop(path, None) == arguments if isinstance(path, str) else False
        if command == "setFunctionBreakpoints":
            self.functions = None
        elif command == "setExceptionBreakpoints":
            self.exceptions = None
        return False
