"""Python's cycle collector during long bulk work (a catalogue import's passes).

The collector's full passes walk every object the process holds: Django's models, URL
patterns, translations, templates — several hundred thousand objects that live as long as the
process. A pass over 50,000 catalogue rows allocates enough to trigger a dozen full passes,
each walking all of them again: 4 of the 24 seconds of such an import. `long_lived_set_aside`
moves what is alive when the work starts out of the collector's sight (`gc.freeze`) and puts
it back when the work ends (`gc.unfreeze`): the work's own objects are collected as usual,
the process's long-lived ones are not walked again and again meanwhile. Both calls cost
microseconds, so a small file's check in a web request pays nothing for it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def long_lived_set_aside() -> Iterator[None]:
    """Run the block with the objects alive now left out of the collector's passes."""
    # No collection first (a full pass, 60 ms): garbage set aside with the rest is put back
    # with it, and collected afterwards as usual.
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
