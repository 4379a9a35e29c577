"""One debug session in this process: its lifecycle from connection to exit
(lifecycle), who it is and its hello (link), its state — configuration, stopping and
resuming threads (debugger, threads) — and running the user's program as ``python``
would (program)."""
