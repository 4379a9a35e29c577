"""The requests the engine forwards to the debuggee, one handler each: the table and
the dispatcher (dispatch.py), what every handler uses (handling.py), and the handlers
by kind: configuration, breakpoints, execution, inspection."""
