"""The greenlets are listed without disturbing the program's threads
(common/greenlet_frames.py)."""

from __future__ import annotations

import threading
import time

import pytest

from dapperdbg.common.greenlet_frames import all_greenlets, waiting_greenlet_frames

greenlet = pytest.importorskip("greenlet")


def _waiting(count: int) -> list:
    def wait() -> None:
        greenlet.getcurrent().parent.switch()

    class Subclassed(greenlet.greenlet):
        pass

    started = [greenlet.greenlet(wait) for _ in range(count)] + [Subclassed(wait)]
    for item in started:
        item.switch()
    return started


def test_every_greenlet_and_the_frames_of_those_waiting_are_found():
    started = _waiting(3)
    found = all_greenlets()
    assert all(any(item is other for other in found) for item in started)
    frames = waiting_greenlet_frames()
    assert all(any(item.gr_frame is frame for frame in frames) for item in started)


def test_a_tuple_another_thread_is_filling_is_left_alone():
    """A thread that builds tuples from a generator (CPython resizes such a tuple in
    place while it alone refers to it) meets no SystemError while greenlets are listed
    over and over: listing them never holds every object while another thread runs."""
    kept = _waiting(2)  # Greenlets to find, and gc.get_objects has work to do.
    failures: list[BaseException] = []
    done = threading.Event()

    def slowly(count):
        for item in range(count):
            time.sleep(0)  # Lets the listing thread run in the middle of the tuple.
            yield item

    def fill() -> None:
        try:
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                assert len(tuple(slowly(300))) == 300
        except BaseException as error:  # noqa: BLE001 - the test reports it
            failures.append(error)
        finally:
            done.set()

    filler = threading.Thread(target=fill)
    filler.start()
    listings = 0
    while not done.is_set():
        assert len(all_greenlets()) >= len(kept)
        listings += 1
    filler.join()
    assert listings > 10
    assert failures == []
