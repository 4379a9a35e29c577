"""One debug session in this process: its lifecycle from connection to exit
(lifecycle), who it is and its hello (link), its state — configuration and what the
tracer reports (debugger), the threads and stopping and resuming them together
(threads, stops) — and running the user's program as ``python`` would (program)."""
