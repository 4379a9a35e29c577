"""DAP thread ids (session/threads.py): one per thread object, in the order threads are
first seen, never given again, and a registry that does not grow with every thread the
program ever started."""

from __future__ import annotations

import threading

from dapperdbg.session.threads import ThreadRegistry


def _ended_thread() -> threading.Thread:
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    return thread


def test_ids_follow_first_sight_and_stay_with_their_thread():
    registry = ThreadRegistry()
    assert registry.id_for(threading.main_thread()) == 1
    first, second = _ended_thread(), _ended_thread()
    assert registry.id_for(first) == 2
    assert registry.id_for(second) == 3
    assert registry.id_for(first) == 2
    assert registry.thread(2) is first
    assert registry.thread(99) is None


def test_ended_threads_are_forgotten_and_their_ids_never_reused():
    registry = ThreadRegistry()
    seen = set()
    for _ in range(1000):
        # Each thread object dies at the end of the iteration: its id() is likely reused
        # by the next one, which must still get an id of its own.
        thread_id = registry.id_for(_ended_thread())
        assert thread_id not in seen
        seen.add(thread_id)
    assert len(seen) == 1000
    kept = _ended_thread()
    kept_id = registry.id_for(kept)
    assert registry.thread(kept_id) is kept
    assert registry.thread(2) is None  # The first of the thousand is gone.
    assert len(registry._threads) < 200 and len(registry._ids) < 200
