"""A search hit whose title is a machine translation shows the supplier's own title too,
highlighted, when the query matched only the original words."""

from __future__ import annotations

from types import SimpleNamespace

from tradepost.search.products import _matched_original


def _card(shown: str, original: str, *, machine: bool) -> SimpleNamespace:
    return SimpleNamespace(
        text=SimpleNamespace(title=shown, machine=machine),
        product=SimpleNamespace(title=original),
    )


def test_the_original_is_shown_when_only_it_matched():
    card = _card("Texture of Timber Flask", "保温杯 <b>", machine=True)
    html = _matched_original(card, ["保温杯"])
    assert str(html) == "<mark>保温杯</mark> &lt;b&gt;"


def test_nothing_more_when_the_translation_matched_or_it_is_not_a_machine_translation():
    assert _matched_original(_card("Vacuum Flask", "保温杯", machine=True), ["flask"]) is None
    assert _matched_original(_card("保温杯", "保温杯", machine=False), ["保温杯"]) is None
    assert _matched_original(_card("Vacuum Flask", "保温杯", machine=True), []) is None
