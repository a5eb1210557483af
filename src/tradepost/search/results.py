"""What a search returns: a page of hits with their facets, labels and the notes on the words
(expanded, respelled, not found).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.safestring import SafeString

from tradepost.search.filters import MAX_PAGE


# Results.
@dataclass
class FacetOption:
    value: str
    label: str
    count: int
    selected: bool = False
    #: The request parameters that select this option (for links).
    params: dict[str, str] = field(default_factory=dict)


if TYPE_CHECKING:  # the apps' types, for the checker only (the engine imports no app)
    from tradepost.catalog.models import Product
    from tradepost.catalog.selectors import ProductCard
    from tradepost.companies.models import Company


@dataclass
class Facet:
    name: str
    label: str
    options: list[FacetOption]


@dataclass
class ProductHit:
    product: Product
    card: ProductCard
    score: float
    #: The title the viewer reads (a translation when there is one), escaped, with the
    #: matched words in <mark>.
    title_html: SafeString
    #: The supplier's response rate in percent (ADR 0007), None when nobody asked yet.
    response_rate_percent: int | None = None
    #: The title as the supplier wrote it, highlighted, when the viewer reads a machine
    #: translation and the query matched the original words only (else None).
    original_html: SafeString | None = None
    #: The supplier carries the Gold Supplier badge today (read from the index).
    gold_badge: bool = False


@dataclass(kw_only=True)
class SearchPage:
    """What every search result holds besides its hits."""

    query: str
    total: int
    page: int
    per_page: int
    facets: list[Facet]
    #: Glossary expansions searched too, to show ("also searched: 保温杯").
    expansions: list[str]
    #: True when words no listing holds were also looked for by similar spelling.
    fuzzy_used: bool
    took_ms: float
    #: Those words, as typed ("kettel"), where the best result has one spelt like it.
    respelled: list[str] = field(default_factory=list)
    #: Words of the query the best result does not match, as typed, when it matches only
    #: part of the query (shown: "not found: …"); empty when it matches all of it.
    unmatched: list[str] = field(default_factory=list)

    @property
    def num_pages(self) -> int:
        return min(MAX_PAGE, max(1, math.ceil(self.total / self.per_page)))


@dataclass(kw_only=True)
class ProductSearchResult(SearchPage):
    sort: str
    hits: list[ProductHit]


@dataclass
class CompanyHit:
    company: Company
    score: float
    name_html: SafeString
    #: The company carries the Gold Supplier badge today (read from the index).
    gold_badge: bool = False


@dataclass(kw_only=True)
class CompanySearchResult(SearchPage):
    hits: list[CompanyHit]


@dataclass
class RequestHit:
    #: The buying request (buyer and category loaded). Only its public fields may be shown:
    #: the buyer's name only when `request.reveal_identity`.
    request: Any
    score: float
    title_html: SafeString
    category_name: str
    buyer_country: str
    buyer_country_name: str
    buyer_business_types: list[str]
    #: The buyer's name when the buyer chose to reveal it, else "".
    buyer_name: str
    #: The buyer's own title, highlighted, when the title shown is a machine translation
    #: and the query matched only the original words.
    original_html: SafeString | None = None


@dataclass(kw_only=True)
class RequestSearchResult(SearchPage):
    sort: str
    hits: list[RequestHit]
