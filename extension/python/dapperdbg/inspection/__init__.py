"""Inspecting a stopped program: frames, scopes and variables (inspector), rendering
values (rendering), evaluating and assigning (evaluation), completions, sources and
modules (sources), the program's output (output_capture), and running work on a
stopped thread with a deadline (stopped_work)."""
