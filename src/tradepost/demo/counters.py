"""Plans the demo marketplace's insight counters from a seed: how often each listing was viewed
and which search words showed each supplier's listings over the supplier desk's weeks, so a
new user's desk has numbers and charts to show.

Plain Python and deterministic, like generator.py and sourcing.py: a listing's popularity is
drawn once (a few listings draw most views, the demo supplier's draw more), a listing has views
from the week it was published, fewer at weekends, slowly more in recent weeks. The counts are
kept per week, on one day of it (the desk adds them up by week), so a full demo writes tens of
thousands of rows, not one a listing and day.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

from tradepost.demo.generator import ProductSpec
from tradepost.demo.sourcing import DEMO_SUPPLIER
from tradepost.insights.selectors import DESK_WEEKS, desk_weeks
from tradepost.search.analysis import query_words

#: A different stream from the catalogue's and the requests', so neither changes.
SEED_SALT = 0x1D51
#: The search words counted for each supplier (the desk lists the first ten).
WORDS_PER_COMPANY = 10
MINUTES_A_DAY = 24 * 60


@dataclass(frozen=True)
class CounterPlan:
    #: (product index in the plan, day, views)
    views: list[tuple[int, date, int]]
    #: (company index in the plan, word, day, searches that showed its listings)
    words: list[tuple[int, str, date, int]]


def plan_counters(*, seed: int, products: list[ProductSpec], today: date) -> CounterPlan:
    """The counters of the desk's weeks up to `today`, a row a listing (or a supplier's word)
    and week, on the week's Wednesday (today in the current week, if earlier)."""
    rng = random.Random(seed ^ SEED_SALT)
    mondays = desk_weeks(weeks=DESK_WEEKS, today=today)
    days = [min(monday + timedelta(days=2), today) for monday in mondays]
    views: list[tuple[int, date, int]] = []
    reach: Counter[int] = Counter()  # each company's weekly views, for its searches
    vocabulary: dict[int, Counter[str]] = {}
    for index, product in enumerate(products):
        popularity = rng.lognormvariate(1.2, 0.9)
        if product.company_index == DEMO_SUPPLIER:
            popularity *= 3
        published = today - timedelta(days=product.published_minutes_ago // MINUTES_A_DAY)
        for week, day in enumerate(days):
            if day < published:
                continue
            trend = 0.7 + 0.3 * week / max(1, len(days) - 1)
            count = round(popularity * trend * rng.uniform(0.5, 1.5))
            if count:
                views.append((index, day, count))
        reach[product.company_index] += round(popularity)
        words = vocabulary.setdefault(product.company_index, Counter())
        keywords = query_words(product.keywords.replace(",", " "), limit=12)
        words.update(word for word in keywords if len(word) > 1)  # not 可 of 可微波
    searches: list[tuple[int, str, date, int]] = []
    for company_index, words in sorted(vocabulary.items()):
        top = [word for word, _n in words.most_common(WORDS_PER_COMPANY)]
        for rank, word in enumerate(top):
            share = 2.0 / (rank + 2)  # the first words found the listings most often
            for week, day in enumerate(days):
                trend = 0.7 + 0.3 * week / max(1, len(days) - 1)
                count = round(reach[company_index] * share * trend * rng.uniform(0.4, 1.2))
                if count:
                    searches.append((company_index, word, day, count))
    return CounterPlan(views=views, words=searches)
