"""Whether instrumented code copies work on this Python at all: a small sample with an
unconditional and a conditional probe is instrumented once (and the result kept with
the cache of copies, which a new Python or a changed compiler never reads: later
processes need no compile for it), and any refusal (a new bytecode the readers in
bytecode.py do not know, as 3.14's LOAD_SMALL_INT once was) means every file would be
refused too. The debugger then leaves breakpoints to the
tracer from the start and says so, instead of failing file by file in silence."""

from __future__ import annotations

import functools

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


@functools.lru_cache(maxsize=1)
def copies_unavailable() -> str | None:
    """None when the sample's probes are all taken, else why they are not."""
    from .copy_cache import instrument_file

    try:
        module = instrument_file(_SAMPLE, "<dapper self-check>", _PROBES)
    except InstrumentationError as error:
        return str(error)
    except Exception as error:  # A reader that breaks on new bytecode: what this is for.
        return f"{type(error).__name__}: {error}"
    if module.refused:
        return "; ".join(sorted(set(module.refused.values())))
    return None
