"""`core.garbage.long_lived_set_aside`: the objects alive before the block are left out of the
collector's passes during it, and only during it; the block's own cycles are still
collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from tradepost.core.garbage import long_lived_set_aside


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_what_lived_before_is_set_aside_during_the_block_only():
    before = gc.get_freeze_count()
    with long_lived_set_aside():
        assert gc.get_freeze_count() > before
    assert gc.get_freeze_count() == before
    with pytest.raises(ZeroDivisionError), long_lived_set_aside():
        1 / 0
    assert gc.get_freeze_count() == before


def test_the_blocks_own_cycles_are_collected():
    with long_lived_set_aside():
        node = _Node()
        gone = weakref.ref(node)
        del node
        gc.collect()
        assert gone() is None


def test_garbage_from_before_is_put_back_and_collected_after_the_block():
    gc.disable()  # no collection but the test's own
    try:
        node = _Node()
        gone = weakref.ref(node)
        del node
        with long_lived_set_aside():
            gc.collect()
            assert gone() is not None  # set aside with everything alive before
        gc.collect()
        assert gone() is None
    finally:
        gc.enable()
