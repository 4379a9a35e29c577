"""Whether instrumented code copies work on this Python at all: a small sample with an
unconditional and a conditional probe is instrumented once (and the verdict kept in the
debugger's cache, which a new Python or a changed compiler never reads: later processes
need no compile for it), and any refusal (a new bytecode the readers in
bytecode.py do not know, as 3.14's LOAD_SMALL_INT once was) means every file would be
refused too. The debugger then leaves breakpoints to the
tracer from the start and says so, instead of failing file by file in silence."""

from __future__ import annotations

from .copies import InstrumentationError
from .probes import Probe

_SAMPLE = """\
def sample(n):
    total = n
    for i in range(n):
        total += i
    return total
"""
_PROBES = {2: Probe(1, None), 4: Probe(2, "i > 1 and n")}


# The verdict once known in this process (a list, so that it may be None). Not
# functools.lru_cache: on 3.13+ nothing else a debugged process runs imports functools,
# and its import (collections with it) costs a process with breakpoints 1-2 ms.
_known: list = []


def copies_unavailable() -> str | None:
    """None when the sample's probes are all taken, else why they are not. The verdict
    is kept in the cache: it holds for this Python and this compiler's text, which its
    key names, and a later process has it for the price of one small read."""
    if _known:
        return _known[0]
    from ..common import code_cache
    from .plain_code import cache_key

    key = cache_key("self-check", sorted((line, p.condition) for line, p in _PROBES.items()))
    kept = code_cache.load("verdicts", "self-check", key, _SAMPLE.encode())
    if isinstance(kept, str):
        verdict = kept or None
    else:
        verdict = _check()
        code_cache.store("verdicts", "self-check", key, _SAMPLE.encode(), verdict or "")
    _known[:] = [verdict]
    return verdict


def forget_verdict() -> None:
    """Check again at the next call (tests)."""
    _known.clear()


def _check() -> str | None:
    from .compiler import instrument_source

    try:
        module = instrument_source(_SAMPLE, "<dapper self-check>", _PROBES)
    except InstrumentationError as error:
        return str(error)
    except Exception as error:  # A reader that breaks on new bytecode: what this is for.
        return f"{type(error).__name__}: {error}"
    if module.refused:
        return "; ".join(sorted(set(module.refused.values())))
    return None
