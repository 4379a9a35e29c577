"""The types of the interpreter's own objects that the start-up modules test against,
made here rather than imported from ``types``: every debugged process imports these
modules before its program runs (those that apply its breakpoints included), and
``types`` (a module of the standard library, not built in) costs a start about 0.25 ms
that a plain ``python -c`` child never pays. Modules that load only at a stop, for hot
reload or with ``ast`` (compiling instrumented copies) import ``types`` itself."""

from __future__ import annotations

import sys


def _function() -> None:
    return None


def _generator():
    yield


async def _coroutine() -> None:
    return None


async def _async_generator():
    yield


class _Class:
    def method(self) -> None:
        return None


CodeType = type(_function.__code__)
FunctionType = type(_function)
MethodType = type(_Class().method)
ModuleType = type(sys)
GeneratorType = type(_generator())
_made = _coroutine()
CoroutineType = type(_made)
_made.close()  # Never awaited, and not to be warned about.
AsyncGeneratorType = type(_async_generator())

del _function, _generator, _coroutine, _async_generator, _Class, _made
