"""The supplier desk's numbers: GET /api/v1/me/insights.

Only the signed-in user's own company: there is no company parameter, so another company's
numbers cannot be asked for. A user without a company gets 404.
"""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller_actor
from tradepost.api.bodies import QueryInt
from tradepost.insights.selectors import (
    DESK_WEEKS,
    MAX_WEEKS,
    TOP_LISTINGS,
    deeper_statistics,
    supplier_desk,
)

router = Router(auth=API_AUTH, tags=["me"])


class WeekOut(Schema):
    week_start: date = Field(description="The Monday the week starts on (UTC)")
    views: int = Field(description="Views of the company's product pages (robots not counted)")
    inquiries: int = Field(description="Conversations buyers started with the company")
    quotations_sent: int
    quotations_won: int = Field(description="Quotations awarded this week")
    asks: int = Field(
        description="Inquiries and quoted buying requests of the week counted in the response rate"
    )
    response_rate: float | None = Field(
        description="Share of `asks` answered within 24 hours, 0-1; null when nobody asked"
    )
    median_first_response_hours: float | None = Field(
        description="Median time to the first answer, in hours; null when nothing was answered"
    )


class SearchWordOut(Schema):
    word: str = Field(description="A normalised search word (lower case, simplified Chinese)")
    impressions: int = Field(description="Results pages that showed the company's listings")


class ListingOut(Schema):
    product_id: int
    title: str
    views: int
    inquiries: int = Field(description="Conversations started about this listing")


class CountryOut(Schema):
    country: str = Field(description="ISO 3166 code of the buyers' country")
    inquiries: int


class InsightsOut(Schema):
    company_id: int
    weeks: list[WeekOut] = Field(description="Oldest first; the last is the current week")
    top_search_words: list[SearchWordOut] = Field(
        description="The 10 search words that showed the company's listings most, over the weeks"
    )
    deeper_statistics: bool = Field(
        description="Whether the company's plan gives the deeper statistics (Gold Supplier)"
    )
    listings: list[ListingOut] | None = Field(
        description=f"With the deeper statistics: the {TOP_LISTINGS} listings with the most "
        "views (then inquiries) over the weeks; null without them"
    )
    inquiry_countries: list[CountryOut] | None = Field(
        description="With the deeper statistics: inquiries over the weeks by the buyers' "
        "country, most first; null without them"
    )


@router.get(
    "",
    response=InsightsOut,
    summary="Your company's numbers week by week (the supplier desk)",
)
def my_insights(
    request: HttpRequest,
    weeks: QueryInt = Query(DESK_WEEKS, ge=1, le=MAX_WEEKS, description="How many weeks, 1-52"),  # noqa: B008
):
    company = caller_actor(request).require_company()
    desk = supplier_desk(company=company, weeks=weeks)
    deeper = deeper_statistics(company=company, since=desk.start)
    return {
        "company_id": company.pk,
        "weeks": [
            {
                "week_start": week.start,
                "views": week.views,
                "inquiries": week.inquiries,
                "quotations_sent": week.quotations_sent,
                "quotations_won": week.quotations_won,
                "asks": week.responsiveness.asks,
                "response_rate": week.response_rate,
                "median_first_response_hours": week.median_response_hours,
            }
            for week in desk.weeks
        ],
        "top_search_words": [
            {"word": word.word, "impressions": word.impressions} for word in desk.top_words
        ],
        "deeper_statistics": deeper is not None,
        "listings": None
        if deeper is None
        else [
            {
                "product_id": row.product.pk,
                "title": row.product.title,
                "views": row.views,
                "inquiries": row.inquiries,
            }
            for row in deeper.listings
        ],
        "inquiry_countries": None
        if deeper is None
        else [
            {"country": row.country, "inquiries": row.inquiries} for row in deeper.inquiry_countries
        ],
    }
