"""One way to page a list on the web pages, with the API's rule past the end
(docs/adr/0014-one-pagination-style.md).

    page = paginate(request, selectors.open_requests(filters=filters), PER_PAGE)
    render(request, "sourcing/board.html", {"page": page})

and the template includes `catalog/_pagination.html`, which shows "Previous", "Page 2 of 5"
and "Next", or, on a page past the end, says so with links to the last page and the first.

`?page=` is read with the project's id parser (`core.ids.parse_id`): a whole number from 1 to
`core.ids.MAX_ID`. Anything else (missing, "abc", "0", "-1", "1.5", "1e3", a NUL, a number
too large for an id) is page 1, never an error (where the API answers 422). A page past the
last one (`?page=99` of a 3-page list) is what the API answers: no items, with the true `count`
and `num_pages`, so the template says "this page is past the end of the 57 results" and links
to the last page and the first instead of showing another page under that number. The last
page is at most `max_page`, the API's bound for the same list (10,000 for a database list, the
search engine's 100 for a search): a page above it is past the end too (the API's 422).

The list is counted once and only the page's rows are read (none past the end). The links
(`previous_url`, `next_url`, `first_url`, `last_url`) keep every other query parameter as it
came, in its order; page 1 is written without `page`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload
from urllib.parse import urlencode

from django.db.models import QuerySet
from django.http import HttpRequest

from tradepost.core.ids import parse_id

#: The deepest page of a database list: the API's bound (`api.pagination.MAX_PAGE`; the web
#: does not import the API, tests/web/test_pagination.py holds the two equal).
MAX_PAGE = 10_000

T = TypeVar("T")


def page_number(request: HttpRequest) -> int:
    """The page `?page=` asks for: a whole number (`parse_id`), otherwise 1."""
    return parse_id(request.GET.get("page")) or 1


def _other_params(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((name, value) for name, value in pairs if name != "page")


def _request_params(request: HttpRequest) -> tuple[tuple[str, str], ...]:
    return _other_params((name, value) for name, values in request.GET.lists() for value in values)


class Page(Generic[T]):
    """One page of a list: its items (`object_list`; the page itself iterates over them),
    its `number`, the `count` of every page together, `num_pages`, and the links. Templates
    written for Django's `Page` read it the same way, except `page.paginator.count` and
    `page.paginator.num_pages`, which are `page.count` and `page.num_pages` here."""

    def __init__(
        self,
        object_list: Sequence[T],
        *,
        number: int,
        count: int,
        per_page: int,
        max_page: int = MAX_PAGE,
        params: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.object_list = list(object_list)
        self.number = number
        self.count = count
        self.per_page = per_page
        self.max_page = max_page
        #: The query parameters other than `page`, kept in the links.
        self.params = _other_params(params)

    # The items.
    def __len__(self) -> int:
        return len(self.object_list)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self.object_list[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self.object_list)

    def __repr__(self) -> str:
        return f"<Page {self.number} of {self.num_pages}: {len(self)} of {self.count} items>"

    # Where it stands.
    @property
    def num_pages(self) -> int:
        """Pages of the list (1 for an empty list), at most `max_page`."""
        return min(self.max_page, max(1, math.ceil(self.count / self.per_page)))

    @property
    def past_end(self) -> bool:
        """A page after the last one of a list that has items: it holds none."""
        return self.count > 0 and self.number > self.num_pages

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_previous(self) -> bool:
        return 1 < self.number <= self.num_pages

    @property
    def has_other_pages(self) -> bool:
        return self.has_next or self.has_previous

    @property
    def next_page_number(self) -> int | None:
        return self.number + 1 if self.has_next else None

    @property
    def previous_page_number(self) -> int | None:
        return self.number - 1 if self.has_previous else None

    # The links.
    def url_for(self, number: int) -> str:
        """`?…&page=<number>` with the other parameters; page 1 without `page`."""
        pairs = [*self.params, *([("page", str(number))] if number > 1 else [])]
        return "?" + urlencode(pairs)

    @property
    def previous_url(self) -> str | None:
        number = self.previous_page_number
        return None if number is None else self.url_for(number)

    @property
    def next_url(self) -> str | None:
        number = self.next_page_number
        return None if number is None else self.url_for(number)

    @property
    def first_url(self) -> str:
        return self.url_for(1)

    @property
    def last_url(self) -> str:
        return self.url_for(self.num_pages)


def _count(items: QuerySet[Any] | Sequence[Any]) -> int:
    return items.count() if isinstance(items, QuerySet) else len(items)


def paginate(
    request: HttpRequest,
    items: QuerySet[Any] | Sequence[Any],
    per_page: int,
    *,
    max_page: int = MAX_PAGE,
) -> Page[Any]:
    """The page of `items` that `?page=` asks for: one count, and the page's rows only."""
    page: Page[Any] = Page(
        [],
        number=page_number(request),
        count=_count(items),
        per_page=per_page,
        max_page=max_page,
        params=_request_params(request),
    )
    if page.count and page.number <= page.num_pages:
        start = (page.number - 1) * per_page
        page.object_list = list(items[start : start + per_page])
    return page


def cut_page(
    items: Sequence[T],
    *,
    number: int,
    count: int,
    per_page: int,
    max_page: int,
    params: Iterable[tuple[str, str]],
) -> Page[T]:
    """A page whose items were cut elsewhere (the search engine pages itself): `number` is
    the page asked for (`page_number`), `count` the items of every page together, `params`
    the parameters its links keep."""
    return Page(
        items, number=number, count=count, per_page=per_page, max_page=max_page, params=params
    )
