"""Breakpoints of every kind: line breakpoints and their verification (store,
loaded_files), conditions, hit conditions and log messages (expressions), function
breakpoints (functions), exception filters and the stops they cause
(exception_filters, exception_stops)."""
