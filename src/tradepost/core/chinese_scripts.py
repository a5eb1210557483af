"""Showing Chinese text in the reader's script: Simplified on zh-Hans pages, Traditional on
zh-Hant pages.

A listing or a company name written in one script is converted for display into the other
with OpenCC (the `s2t` and `t2s` configurations the `opencc` package ships; the search
analysis folds with the same `t2s`). What is stored never changes: the page marks the text
as converted and keeps the original one click away.

Conversions are memoised per process (a results page converts about 20 titles and company
names; the same ones come back page after page), so a repeated text costs a dictionary look-up
and a new one tens of microseconds.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import opencc

SIMPLIFIED = "zh-hans"
TRADITIONAL = "zh-hant"
CHINESE_SCRIPTS = (SIMPLIFIED, TRADITIONAL)

#: Distinct texts remembered per process (titles are at most 200 characters: a few MB).
_MEMO_SIZE = 20_000
#: Texts longer than this (descriptions) are converted without being remembered.
_MEMO_MAX_CHARS = 400

_CONFIGS = {(SIMPLIFIED, TRADITIONAL): "s2t", (TRADITIONAL, SIMPLIFIED): "t2s"}


def other_script(language: str) -> str:
    """The other Chinese script of `language` ("" for a language that is not Chinese)."""
    if language == SIMPLIFIED:
        return TRADITIONAL
    if language == TRADITIONAL:
        return SIMPLIFIED
    return ""


def is_convertible(written_in: str, reader: str) -> bool:
    """Whether text written in `written_in` is converted for a reader of `reader`."""
    return (written_in, reader) in _CONFIGS


@cache
def _converter(config: str) -> Any:
    return opencc.OpenCC(config)


@lru_cache(maxsize=_MEMO_SIZE)
def _convert_remembered(text: str, config: str) -> str:
    return str(_converter(config).convert(text))


def convert_script(text: str, *, written_in: str, reader: str) -> str:
    """`text` in the reader's script when it was written in the other Chinese script; else
    `text` unchanged."""
    config = _CONFIGS.get((written_in, reader))
    if config is None or not text:
        return text
    if len(text) > _MEMO_MAX_CHARS:
        return str(_converter(config).convert(text))
    return _convert_remembered(text, config)
