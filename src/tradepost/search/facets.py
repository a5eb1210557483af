"""Facet options and their labels in the viewer's language (price bands, categories, countries,
languages, verified, "at most N" limits).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from tradepost.core.countries import country_name
from tradepost.core.languages import (
    LISTING_LANGUAGES,
)
from tradepost.search.documents import CategoryTree
from tradepost.search.engine import bucket_counts
from tradepost.search.results import Facet, FacetOption


def format_amount(value: float) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def price_label(low: float | None, high: float | None) -> str:
    if low is None and high is not None:
        return _("Under US$%(high)s") % {"high": format_amount(high)}
    if high is None and low is not None:
        return _("US$%(low)s and above") % {"low": format_amount(low)}
    return _("US$%(low)s–%(high)s") % {
        "low": format_amount(low or 0),
        "high": format_amount(high or 0),
    }


def category_facet(
    counts: list[tuple[Any, int]], tree: CategoryTree, language: str, selected: int | None
) -> Facet:
    options = []
    for key, count in counts:
        node = tree.nodes.get(int(key)) if key is not None else None
        if node is None or count <= 0:
            continue
        options.append(
            (
                node,
                FacetOption(
                    value=str(node.id),
                    label=node.name_for(language),
                    count=count,
                    selected=node.id == selected,
                    params={"category": str(node.id)},
                ),
            )
        )
    options.sort(key=lambda pair: (-pair[1].count, pair[0].path))
    return Facet(name="category", label=_("Category"), options=[o for _n, o in options])


def language_names() -> dict[str, str]:
    return {code: str(label) for code, label in LISTING_LANGUAGES}


def term_options(
    aggregation: Mapping[str, Any],
    bucket: str,
    *,
    selected: Sequence[str],
    param: str,
    label: Callable[[str], str],
) -> list[FacetOption]:
    """One option per value a terms aggregation found (count > 0), labelled by `label`."""
    return [
        FacetOption(
            value=str(code),
            label=label(str(code)),
            count=count,
            selected=code in selected,
            params={param: str(code)},
        )
        for code, count in bucket_counts(aggregation, bucket)
        if code and count > 0
    ]


def country_options(
    aggregation: Mapping[str, Any],
    bucket: str,
    selected: Sequence[str],
    param: str,
    language: str,
) -> list[FacetOption]:
    return term_options(
        aggregation,
        bucket,
        selected=selected,
        param=param,
        label=lambda code: country_name(code, language),
    )


def cumulative_options(
    aggregation: Mapping[str, Any],
    bucket: str,
    limits: Sequence[int],
    *,
    selected: float | None,
    param: str,
    label: Callable[[int], str],
) -> list[FacetOption]:
    """ "At most N" options from a range aggregation counted up to each of `limits`: each
    option counts every document at or under its limit; those counting none are left out."""
    options = []
    running = 0
    counts = [count for _key, count in bucket_counts(aggregation, bucket)]
    for limit, count in zip(limits, counts, strict=False):
        running += count
        if running:
            options.append(
                FacetOption(
                    value=str(limit),
                    label=label(limit),
                    count=running,
                    selected=selected == limit,
                    params={param: str(limit)},
                )
            )
    return options


def verified_facet(aggregation: Mapping[str, Any], selected: bool) -> Facet:
    count = sum(
        count for key, count in bucket_counts(aggregation, "verified") if key in (1, True, "true")
    )
    option = FacetOption(
        value="1",
        label=_("Verified suppliers only"),
        count=count,
        selected=selected,
        params={"verified": "1"},
    )
    return Facet(
        name="verified",
        label=_("Verified supplier"),
        options=[option] if count or selected else [],
    )
