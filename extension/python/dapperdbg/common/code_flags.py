"""Code object flags (inspect's CO_*, unchanged since 3.6; test_code_lines compares them
with inspect's): neither inspect nor dis is imported at start. A module of their own, so
that the tracer reads them without importing code_lines, which only a breakpoint needs."""

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200
