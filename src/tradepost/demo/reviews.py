"""Plans the demo marketplace's reviews: most awarded requests are reviewed by their buyer some
days after the award, in the request's language, and about half of the reviews have the
supplier's reply, in the supplier's language. Plain Python and deterministic, like
sourcing.py (its own stream of the seed, so adding reviews changes nothing else).

The demo buyer's own awarded request is left unreviewed, so the demo login can write one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

#: A different stream from the catalogue's and the requests', from the same seed.
SEED_SALT = 0x4E71
#: Share of the awarded requests that get a review.
REVIEWED_SHARE = 0.85
#: Stars and how often buyers give them (the ratings of B2B marketplaces lean high).
RATING_WEIGHTS = {5: 45, 4: 33, 3: 13, 2: 6, 1: 3}

_TEXTS = {
    "en": {
        "good": (
            "Quality as in the samples, shipped on the agreed date. Communication was quick.",
            "Well packed, every carton labelled as we asked. We will order again.",
            "Good price and the supplier answered every question within a day.",
        ),
        "fair": (
            "The goods are fine but shipment was a week late.",
            "Acceptable quality; a few pieces had scratches, replaced in the next order.",
        ),
        "poor": (
            "The colour differed from the approved sample and shipment was late.",
            "Slow answers after the deposit; the cartons were damaged on arrival.",
        ),
    },
    "zh-hans": {
        "good": (
            "质量与样品一致，按约定日期发货，沟通很及时。",
            "包装很好，每箱都按我们的要求贴了标签，会继续下单。",
            "价格合理，供应商一天内就回复了所有问题。",
        ),
        "fair": ("货物还可以，但晚发货一周。", "质量尚可，有几件有划痕，下次订单已补发。"),
        "poor": ("颜色与确认的样品不一致，而且延迟发货。", "付定金后回复很慢，到货时纸箱有破损。"),
    },
    "zh-hant": {
        "good": (
            "品質與樣品一致，按約定日期出貨，溝通很及時。",
            "包裝很好，每箱都按我們的要求貼了標籤，會繼續下單。",
            "價格合理，供應商一天內就回覆了所有問題。",
        ),
        "fair": ("貨物還可以，但晚出貨一週。", "品質尚可，有幾件有刮痕，下次訂單已補發。"),
        "poor": ("顏色與確認的樣品不一致，而且延遲出貨。", "付訂金後回覆很慢，到貨時紙箱有破損。"),
    },
}
_REPLIES = {
    "en": {
        "good": "Thank you for your order and your kind words; we look forward to the next one.",
        "fair": "Thank you. We are sorry for the delay and have changed our shipping plan.",
        "poor": "We apologise. Please contact us: we will make it right on your next order.",
    },
    "zh-hans": {
        "good": "感谢您的订单和好评，期待再次合作。",
        "fair": "谢谢您的反馈，对延误深表歉意，我们已调整发货安排。",
        "poor": "非常抱歉，请联系我们，我们会在下一笔订单中弥补。",
    },
    "zh-hant": {
        "good": "感謝您的訂單和好評，期待再次合作。",
        "fair": "謝謝您的回饋，對延誤深表歉意，我們已調整出貨安排。",
        "poor": "非常抱歉，請聯繫我們，我們會在下一筆訂單中彌補。",
    },
}


@dataclass(frozen=True)
class AwardFacts:
    """What the planner needs of one awarded request."""

    quotation_id: int
    closed_at: datetime
    buyer_language: str
    supplier_language: str
    demo_buyer: bool


@dataclass(frozen=True)
class ReviewPlan:
    quotation_id: int
    rating: int
    text: str
    written_at: datetime
    reply: str
    replied_at: datetime | None


def _band(rating: int) -> str:
    return "good" if rating >= 4 else "fair" if rating == 3 else "poor"


def _language(code: str) -> str:
    return code if code in _TEXTS else "en"


def plan_reviews(*, seed: int, awards: list[AwardFacts], now: datetime) -> list[ReviewPlan]:
    """The reviews of `awards` (in their order); none dated after `now`."""
    rng = random.Random(seed ^ SEED_SALT)
    ratings, weights = list(RATING_WEIGHTS), list(RATING_WEIGHTS.values())
    plans = []
    for award in awards:
        if award.demo_buyer or rng.random() >= REVIEWED_SHARE:
            continue
        rating = rng.choices(ratings, weights)[0]
        band = _band(rating)
        written = min(award.closed_at + timedelta(days=rng.randint(3, 20)), now)
        written = max(written - timedelta(hours=1), award.closed_at)
        reply, replied = "", None
        if rng.random() < 0.5:
            reply = _REPLIES[_language(award.supplier_language)][band]
            replied = min(written + timedelta(hours=rng.randint(2, 72)), now)
        plans.append(
            ReviewPlan(
                quotation_id=award.quotation_id,
                rating=rating,
                text=rng.choice(_TEXTS[_language(award.buyer_language)][band]),
                written_at=written,
                reply=reply,
                replied_at=replied,
            )
        )
    return plans
