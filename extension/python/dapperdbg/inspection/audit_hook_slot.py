"""Taking the debugger's audit hook out of the interpreter, which Python has no call for
(PEP 578: a hook added is there for good).

Once a hook is added, every audited call of the program builds its event and calls the
hooks: ``id()`` is one, and ``copy.deepcopy`` calls it on every object it copies (twice
as slow with a hook that returns at once). Python 3.9-3.11 skip all of that while the
interpreter state's field for the hooks (``PyInterpreterState.audit_hooks``, a list) is
NULL, and ``sys.addaudithook`` makes a new list when it is. So where the debugger's hook
is the only one, the field is set back to NULL, through ctypes: its place is known for
the 64-bit builds measured, and checked before anything is written (it must hold a list
whose one item is the hook); anywhere else the hook stays, as it always did.

3.12 and later run the watcher that needs the hook only on the settrace backend, which
is not theirs by default, and keep their hooks elsewhere: left alone there.
"""

from __future__ import annotations

import sys

# The field's offset in PyInterpreterState, by Python version, on 64-bit Linux builds
# without debug fields (found by the field that changes from NULL when a first hook is
# added); 8-byte words before it, so reading it never goes past the structure's end.
_OFFSETS = {(3, 9): 3536, (3, 10): 3504, (3, 11): 3552}

# The hook lists taken out: the interpreter's reference to each is ours now, kept so
# that a call in progress on another thread never sees the list freed under it.
_taken_out: list[list] = []


def take_out(hook) -> bool:
    """Set the interpreter's hook list to none when it holds ``hook`` alone; whether it
    did (False where the field's place is unknown or anything looks other than
    expected: the hook then stays). Runs under the GIL throughout, as the interpreter's
    own readers of the field do."""
    offset = _OFFSETS.get(sys.version_info[:2])
    if offset is None or sys.maxsize != 2**63 - 1 or hasattr(sys, "gettotalrefcount"):
        return False
    try:
        import ctypes

        get_interpreter = ctypes.pythonapi.PyInterpreterState_Get
        get_interpreter.restype = ctypes.c_void_p
        get_interpreter.argtypes = ()
        field = ctypes.c_size_t.from_address(get_interpreter() + offset)
        address = field.value
        if not _a_list_at(address):
            return False
        hooks = ctypes.cast(address, ctypes.py_object).value
        if type(hooks) is not list or len(hooks) != 1 or hooks[0] is not hook:
            return False
        _taken_out.append(hooks)
        field.value = 0
        return True
    except Exception:
        return False


def _a_list_at(address: int) -> bool:
    """Whether ``address`` holds a list object: it must look like an object's address
    before its type is read (a wrong field would hold a count or a flag)."""
    import ctypes

    if address == 0 or address % 8 or abs(address - id(_taken_out)) > 2**40:
        return False
    return ctypes.c_size_t.from_address(address + 8).value == id(list)
