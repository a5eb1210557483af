"""One way to page a list: `page` and `page_size`, through django-ninja's `@paginate`.

Every endpoint that answers an open-ended list is declared with `response=list[ItemOut]` and
`@paged()`: ninja's `@paginate(PagePagination)` (docs/adr/0014-one-pagination-style.md).
ninja adds the two query parameters to the operation and turns the response into a page:

    {"items": [...], "count": 57, "page": 2, "page_size": 20,
     "next_page": 3, "previous_page": 1}

`count` is the number of items of every page together; `next_page` is null on the last page.
A page past the last one answers 200 with no items (and the same `count`), never an error;
`page` below 1 or above `max_page`, `page_size` outside 1..100, or either not a whole number
is a 422 problem, in the client's language, like every other parameter.

An endpoint returns one of:
- a queryset or a list: ninja's paginator counts it, cuts the page and the response schema
  serialises the rows;
- `Rows(queryset, render=..., extra=..., prepare=...)`: the same, each row of the page turned
  into what the response schema reads by `render` (with the request's context) and `extra`
  fields (for a `Page` subclass given as `output`) added; `prepare`, if given, is called with
  the page's rows first (to read what their rendering needs in one query for the page);
- `CutPage(items, count, extra)`: a page the endpoint cut itself because the engine behind it
  pages (search); it reads the parameters through `pass_parameter`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import wraps
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Schema
from ninja.pagination import PaginationBase, paginate
from pydantic import BaseModel, Field

from tradepost.api.bodies import QueryInt
from tradepost.api.problems import validation_problem

#: Rows a page holds unless asked otherwise, and at most.
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
#: The deepest page of a database list (100 rows a page: a million rows).
MAX_PAGE = 10_000


def _page_params(max_page: int, max_page_size: int, default_page_size: int) -> type[Schema]:
    class PageParams(Schema):
        """The paging parameters of every list endpoint."""

        page: QueryInt = Field(
            1, ge=1, le=max_page, description="1 for the first page; past the last one, no items"
        )
        page_size: QueryInt = Field(
            default_page_size, ge=1, le=max_page_size, description="Items on a page"
        )

    return PageParams


PageParams = _page_params(MAX_PAGE, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE)


class Page(BaseModel):
    """What every list endpoint answers. A plain pydantic model (not ninja's `Schema`): the
    items are dicts or schemas already, and `Schema` would wrap each in an attribute reader."""

    items: list[Any]
    count: int = Field(description="Items on every page together")
    page: int
    page_size: int
    next_page: int | None = Field(description="Null on the last page")
    previous_page: int | None = Field(description="Null on the first page")


def _identity(row: Any) -> Any:
    return row


@dataclass
class Rows:
    """The rows of a list (a queryset or a sequence), how to show one row, and the fields a
    `Page` subclass adds."""

    rows: Any
    render: Callable[[Any], Any] = _identity
    extra: dict[str, Any] = field(default_factory=dict)
    prepare: Callable[[list[Any]], None] | None = None


@dataclass
class CutPage:
    """A page its endpoint already cut: the page's items and how many there are in all."""

    items: Sequence[Any]
    count: int
    extra: dict[str, Any] = field(default_factory=dict)


class PagePagination(PaginationBase):
    """Page-number pagination: `page` (from 1) and `page_size`, answered as a `Page`."""

    Input = PageParams  # type: ignore[assignment]
    Output = Page  # type: ignore[assignment]

    def __init__(
        self,
        *,
        output: type[Page] = Page,
        max_page: int = MAX_PAGE,
        max_page_size: int = MAX_PAGE_SIZE,
        default_page_size: int = DEFAULT_PAGE_SIZE,
        pass_parameter: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pass_parameter=pass_parameter, **kwargs)
        self.Output = output  # type: ignore[misc]
        self.max_page = max_page
        bounds = (max_page, max_page_size, default_page_size)
        if bounds != (MAX_PAGE, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE):
            self.Input = _page_params(*bounds)  # type: ignore[misc]

    def paginate_queryset(
        self, queryset: Any, pagination: Any, request: HttpRequest, **params: Any
    ) -> dict[str, Any]:
        page, size = pagination.page, pagination.page_size
        if isinstance(queryset, CutPage):
            items, count, extra = list(queryset.items), queryset.count, queryset.extra
        else:
            source = queryset if isinstance(queryset, Rows) else Rows(queryset)
            count = self._items_count(source.rows)
            start = (page - 1) * size
            # Past the last page: no query for rows that are not there.
            rows = list(source.rows[start : start + size]) if start < count else []
            if source.prepare is not None:
                source.prepare(rows)
            items, extra = [source.render(row) for row in rows], source.extra
        return {
            **extra,
            "items": items,
            "count": count,
            "page": page,
            "page_size": size,
            "next_page": page + 1 if page * size < count and page < self.max_page else None,
            "previous_page": page - 1 if page > 1 else None,
        }


def _parameter_names(view: Callable[..., Any], paging: type[BaseModel]) -> frozenset[str]:
    """The query parameters `view` declares (the fields of its schemas, its plain ones) and
    the paging ones."""
    names = set(paging.model_fields)
    for name, parameter in inspect.signature(view).parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:  # ninja's `pass_parameter`
            continue
        annotation = parameter.annotation
        model = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            names.update(info.alias or field for field, info in model.model_fields.items())
        elif name != "request":
            names.add(name)
    return frozenset(names)


def paged(**params: Any) -> Callable[[Callable[..., Any]], Any]:
    """`@paginate(PagePagination, **params)` (params: `output`, `max_page`, `max_page_size`,
    `default_page_size`, `pass_parameter`).

    A query parameter the operation does not declare is refused (422) rather than ignored:
    a client that sends another list's spelling (`per_page`, `cursor`, `limit`,
    `min_quantity`) learns of it instead of getting a page it did not ask for.

    ninja reads the annotations of the view it wraps in its own module, where the names of a
    module with postponed annotations are unknown, so they are resolved here first."""

    def decorate(view: Callable[..., Any]) -> Any:
        view.__annotations__ = get_type_hints(view, include_extras=True)
        paginator = PagePagination(**params)
        known = _parameter_names(view, paginator.Input)

        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            unknown = sorted(set(request.GET) - known)
            if unknown:
                raise validation_problem(
                    [
                        {"field": name, "message": _("This field is not known here.")}
                        for name in unknown
                    ]
                )
            return view(request, *args, **kwargs)

        return paginate(PagePagination, **params)(checked)

    return decorate
