"""Taking the debugger's audit hook out of the interpreter, which Python has no call for
(PEP 578: a hook added is there for good).

Once a hook is added, every audited call of the program builds its event and calls the
hooks: ``id()`` is one, and ``copy.deepcopy`` calls it on every object it copies (twice
as slow with a hook that returns at once). Python 3.9-3.11 skip all of that while the
interpreter state's field for the hooks (``PyInterpreterState.audit_hooks``, a list) is
NULL, and ``sys.addaudithook`` makes a new list when it is. So where the debugger's hook
is the only one, the field is set back to NULL through ctypes' own module: its place is
known for the 64-bit builds measured, and checked before anything is written (it must
hold a list whose one item is the hook); anywhere else the hook stays, as it always did.

On 3.12 and later the watcher that needs the hook runs only on the settrace backend,
which is not theirs by default; the field's place there was not measured, and the hook
stays.
"""

from __future__ import annotations

import sys

# The field's offset in PyInterpreterState, by Python version, on 64-bit Linux builds
# without debug fields: the one word of the structure that changes from NULL when a
# first hook is added (the structure goes on for kilobytes after it).
_OFFSETS = {(3, 9): 3536, (3, 10): 3504, (3, 11): 3552}

# The hook lists taken out: the interpreter's reference to each is ours now, kept so
# that a call in progress on another thread never sees the list freed under it.
_taken_out: list[list] = []


def take_out(hook) -> bool:
    """Set the interpreter's hook list to none when it holds ``hook`` alone; whether it
    did (False where the field's place is unknown or anything looks other than
    expected: the hook then stays). Runs under the GIL throughout, as the interpreter's
    own readers of the field do.

    Through ``_ctypes`` itself: the ``ctypes`` package costs 3-4 ms to import, where this
    takes under 1 ms (a breakpoint in a module the program imports is given 5 ms)."""
    offset = _OFFSETS.get(sys.version_info[:2])
    if offset is None or sys.maxsize != 2**63 - 1 or hasattr(sys, "gettotalrefcount"):
        return False
    try:
        import _ctypes

        class Word(_ctypes._SimpleCData):
            _type_ = "P"

        class Object(_ctypes._SimpleCData):
            _type_ = "O"

        class PythonApi(_ctypes.CFuncPtr):  # Called with the GIL held, as ctypes.pythonapi.
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_PYTHONAPI
            _restype_ = Word

        interpreter = PythonApi(_ctypes.dlsym(_ctypes.dlopen(None, 0),
                                              "PyInterpreterState_Get"))()
        field = Word.from_address(interpreter + offset)
        address = field.value
        if not address or address % 8 or abs(address - id(_taken_out)) > 2**40:
            return False  # Not an object's address: a wrong field holds a count or a flag.
        if Word.from_address(address + 8).value != id(list):  # Its ob_type.
            return False
        hooks = Object.from_address(interpreter + offset).value
        if len(hooks) != 1 or hooks[0] is not hook:
            return False
        _taken_out.append(hooks)
        field.value = 0
        return True
    except Exception:  # No _ctypes, no dlopen (Windows), no such function: it stays.
        return False
