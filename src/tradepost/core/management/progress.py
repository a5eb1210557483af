"""The progress bar of the long commands (demo generation, reindexing, imports): tqdm on the
terminal's own stream, since Django's wrapper ends every write with a new line and tqdm
redraws its line with carriage returns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import BaseCommand
from tqdm import tqdm


@contextmanager
def progress_bar(
    command: BaseCommand,
    *,
    total: int,
    unit: str,
    quiet: bool,
    label: str | None = None,
    start: int = 0,
) -> Iterator[tqdm]:
    """A bar on the command's standard error counting `unit`s up to `total` (unknown when 0),
    from `start`; nothing is drawn when `quiet`. Closed when the block ends, however it ends."""
    bar = tqdm(
        total=total or None,
        initial=start,
        desc=label,
        unit=unit,
        disable=quiet,
        file=getattr(command.stderr, "_out", command.stderr),
        dynamic_ncols=True,
    )
    try:
        yield bar
    finally:
        bar.close()
