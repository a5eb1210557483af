"""Plans the demo marketplace's buying requests, quotations and conversations, from a seed.

Plain Python and deterministic, like generator.py: requests are written in the buyer's
language (English, or Chinese for buyers who write it), ask for product types that suppliers
of the plan list, and are quoted by those suppliers with the terms of their own listings.
Times are offsets from the moment the plan is written, so a demo always has open requests.

The demo buyer posts the first requests (one open with the demo supplier's quotation and a
conversation, one awarded to the demo supplier, one expired), so the demo logins see data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from tradepost.demo.generator import NICE_QUANTITIES, CompanySpec, ProductSpec
from tradepost.demo.vocabulary import CHINESE, Template, Vocabulary, pick

#: Requests in a full demo (fewer when the plan has few companies).
MAX_REQUESTS = 40
#: A different stream from the catalogue's, so adding requests never changes the listings.
SEED_SALT = 0x50C1
OPEN, AWARDED, EXPIRED = "open", "awarded", "expired"
DEMO_SUPPLIER, DEMO_BUYER = 0, 1
HOUR = 60


@dataclass
class QuotationPlan:
    supplier_index: int
    unit_price: Decimal
    currency: str
    moq: Decimal
    lead_time_days: int
    incoterm: str
    named_place: str
    payment_terms: list[str]
    valid_days: int
    sample_available: bool
    sample_cost: Decimal | None
    message: str
    status: str
    minutes_after_posting: int
    decline_reason: str = ""


@dataclass
class MessagePlan:
    from_buyer: bool
    body: str
    minutes_after_start: int


@dataclass
class ConversationPlan:
    quotation_position: int
    messages: list[MessagePlan]


@dataclass
class RequestPlan:
    buyer_index: int
    template_key: str
    title: str
    description: str
    original_language: str
    category_id: int
    quantity: Decimal
    unit: str
    target_unit_price: Decimal | None
    target_currency: str
    destination_country: str
    destination_port: str
    preferred_incoterm: str
    required_certifications: list[str]
    sealed: bool
    reveal_identity: bool
    state: str
    posted_minutes_ago: int
    # Minutes from now to the deadline; negative when it has passed.
    deadline_in_minutes: int
    quotations: list[QuotationPlan] = field(default_factory=list)
    awarded_position: int | None = None
    conversations: list[ConversationPlan] = field(default_factory=list)


_DESCRIPTIONS = {
    "en": (
        "<p>We are looking for {name} for our customers in {country}. Please quote with "
        "packing details, your MOQ and a photo of the product.</p>"
    ),
    "zh-hans": "<p>我们为{country}的客户采购{name}。请报价并注明包装方式、起订量，附产品照片。</p>",
    "zh-hant": "<p>我們為{country}的客戶採購{name}。請報價並註明包裝方式、起訂量，附產品照片。</p>",
}
_QUOTE_MESSAGES = {
    "en": (
        "We make this item every day and can ship from stock within two weeks.",
        "Price includes export carton packing. Samples are free; you pay the courier.",
        "We supply several importers in Europe; certificates on request.",
    ),
    "zh-hans": (
        "我们常年生产此产品，现货两周内可发货。",
        "价格含出口纸箱包装，样品免费，运费到付。",
        "我们长期供应欧洲进口商，可提供相关认证。",
    ),
    "zh-hant": (
        "我們常年生產此產品，現貨兩週內可出貨。",
        "價格含出口紙箱包裝，樣品免費，運費到付。",
        "我們長期供應歐洲進口商，可提供相關認證。",
    ),
}
# (buyer's question, supplier's answer) pairs in each language.
_EXCHANGES = {
    "en": (
        (
            "Could you send a sample before we place the order?",
            "Yes, a sample can leave within 5 days; its cost is refunded with the first order.",
        ),
        (
            "Can you print our logo on the product and on the carton?",
            "Yes, logo printing is free above the MOQ. Please send the artwork as a PDF.",
        ),
        (
            "What is your lead time for the full quantity?",
            "About 30 days after the deposit; we can ship part of it earlier if you need.",
        ),
        (
            "Is the price still valid with 30% deposit and 70% before shipment?",
            "Yes, those payment terms are fine for us.",
        ),
    ),
    "zh-hans": (
        ("能否在下单前寄样品？", "可以，样品5天内寄出，样品费在首单中退还。"),
        ("可以在产品和外箱上印我们的标志吗？", "可以，超过起订量免费印标志，请发PDF格式的图稿。"),
        ("全部数量的交货期是多久？", "收到定金后约30天，如有需要可以先发一部分。"),
        ("预付30%、发货前付70%，价格还有效吗？", "可以，这个付款方式没有问题。"),
    ),
    "zh-hant": (
        ("能否在下單前寄樣品？", "可以，樣品5天內寄出，樣品費在首單中退還。"),
        ("可以在產品和外箱上印我們的標誌嗎？", "可以，超過起訂量免費印標誌，請發PDF格式的圖稿。"),
        ("全部數量的交貨期是多久？", "收到訂金後約30天，如有需要可以先發一部分。"),
        ("預付30%、出貨前付70%，價格還有效嗎？", "可以，這個付款方式沒有問題。"),
    ),
}
_DECLINE_REASONS = {
    "en": "The price is above our budget.",
    "zh-hans": "价格超出了我们的预算。",
    "zh-hant": "價格超出了我們的預算。",
}
_COUNTRY_NAMES = {
    "en": {"NL": "the Netherlands", "US": "the United States", "GB": "the United Kingdom"},
    "zh-hans": {},
    "zh-hant": {},
}
CERTIFICATIONS = ("CE", "RoHS", "FDA", "LFGB", "ISO 9001", "BSCI", "REACH")


def _country(code: str, language: str) -> str:
    from tradepost.core.countries import country_name

    special = _COUNTRY_NAMES.get(language, {}).get(code)
    return special or country_name(code, language)


def _nice_quantity(minimum: float) -> int:
    for value in NICE_QUANTITIES:
        if value >= minimum:
            return value
    return NICE_QUANTITIES[-1]


def _money(value: float, places: int = 2) -> Decimal:
    return Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _language_of(buyer: CompanySpec, rng: random.Random) -> str:
    if buyer.original_language in CHINESE:
        return buyer.original_language
    if buyer.country in ("CN", "SG", "MY"):
        return "zh-hans"
    if buyer.country in ("TW", "HK", "MO"):
        return "zh-hant"
    return "zh-hans" if rng.random() < 0.2 else "en"


class _SourcingPlanner:
    def __init__(
        self,
        *,
        seed: int,
        vocab: Vocabulary,
        companies: list[CompanySpec],
        products: list[ProductSpec],
    ) -> None:
        self.rng = random.Random(seed ^ SEED_SALT)
        self.templates: dict[str, Template] = {t.key: t for t in vocab.templates}
        self.companies = companies
        # template key -> (supplier index -> its first listing of that product type)
        self.listings: dict[str, dict[int, ProductSpec]] = {}
        for product in products:
            self.listings.setdefault(product.template_key, {}).setdefault(
                product.company_index, product
            )
        self.buyers = [c.index for c in companies if c.is_buyer_only and c.index != DEMO_BUYER]

    def plan(self, count: int) -> list[RequestPlan]:
        rng = self.rng
        keys = sorted(key for key, listing in self.listings.items() if len(listing) >= 1)
        if not keys or len(self.companies) < 2:
            return []
        demo_keys = sorted(k for k, listing in self.listings.items() if DEMO_SUPPLIER in listing)
        flask = "vacuum-flask" if "vacuum-flask" in demo_keys else None
        plans: list[RequestPlan] = []
        # The demo buyer's own requests first: open, awarded to the demo supplier, expired.
        for position, state in enumerate((OPEN, AWARDED, EXPIRED)):
            if len(plans) >= count:
                break
            if position == 0 and flask:
                key = flask
            elif demo_keys:
                key = demo_keys[(position * 7) % len(demo_keys)]
            else:
                key = keys[position % len(keys)]
            plan = self.request(DEMO_BUYER, key, state, demo=True)
            if plan is not None:
                plans.append(plan)
        states = [OPEN] * 11 + [AWARDED] * 5 + [EXPIRED] * 4
        while len(plans) < count:
            number = len(plans)
            buyer = self.buyers[number % len(self.buyers)] if self.buyers else DEMO_BUYER
            # every fourth request is for something the demo supplier makes
            key = rng.choice(demo_keys) if demo_keys and number % 4 == 0 else rng.choice(keys)
            plan = self.request(buyer, key, states[number % len(states)], demo=False)
            if plan is None:
                key = rng.choice(keys)
                plan = self.request(buyer, key, OPEN, demo=False)
            if plan is None:
                break
            plans.append(plan)
        return plans

    def request(self, buyer_index: int, key: str, state: str, *, demo: bool) -> RequestPlan | None:
        rng = self.rng
        buyer = self.companies[buyer_index]
        template = self.templates[key]
        listing = self.listings[key]
        suppliers = sorted(index for index in listing if index != buyer_index)
        if not suppliers:
            return None
        language = "en" if demo else _language_of(buyer, rng)
        name = pick(template.names, language)
        spec_words = template.specs[rng.randrange(len(template.specs))] if template.specs else ()
        spec = pick(spec_words, language) if spec_words else ""
        separator = "" if language in CHINESE else ", "
        title = f"{name}{separator}{spec}" if spec else name
        first = listing[suppliers[0]]
        quantity = _nice_quantity(float(first.moq) * rng.choice((2, 3, 5, 10, 20)))
        usd_low, usd_high = template.price
        target = None
        if rng.random() < 0.7:
            target = _money((usd_low + (usd_high - usd_low) * rng.uniform(0.1, 0.5)) * 0.9)
        ports = {"NL": "Rotterdam", "DE": "Hamburg", "US": "Los Angeles", "ES": "Valencia"}
        if state == OPEN:
            posted = rng.randint(2 * HOUR, 10 * 24 * HOUR)
            deadline = rng.randint(30 * HOUR, 30 * 24 * HOUR)
            if demo:
                posted, deadline = 3 * 24 * HOUR, 12 * 24 * HOUR
        elif state == AWARDED:
            posted = rng.randint(15 * 24 * HOUR, 40 * 24 * HOUR)
            deadline = rng.randint(-10 * 24 * HOUR, 5 * 24 * HOUR)
        else:
            posted = rng.randint(20 * 24 * HOUR, 45 * 24 * HOUR)
            deadline = -rng.randint(1 * 24 * HOUR, 12 * 24 * HOUR)
        plan = RequestPlan(
            buyer_index=buyer_index,
            template_key=key,
            title=title[:200],
            description=_DESCRIPTIONS[language].format(
                name=name, country=_country(buyer.country, language)
            ),
            original_language=language,
            category_id=first.category_id,
            quantity=Decimal(quantity),
            unit=template.unit,
            target_unit_price=target,
            target_currency="USD" if target is not None else "",
            destination_country=buyer.country,
            destination_port=ports.get(buyer.country, ""),
            preferred_incoterm=rng.choice(("FOB", "FOB", "CIF", "EXW", "DDP")),
            required_certifications=sorted(rng.sample(CERTIFICATIONS, rng.choice((0, 1, 2)))),
            sealed=rng.random() < 0.15 and not demo,
            reveal_identity=demo or rng.random() < 0.5,
            state=state,
            posted_minutes_ago=posted,
            deadline_in_minutes=deadline,
        )
        self.quote(plan, suppliers, demo=demo)
        if state == AWARDED and plan.quotations:
            plan.awarded_position = 0 if demo else rng.randrange(len(plan.quotations))
            for position, quotation in enumerate(plan.quotations):
                if position == plan.awarded_position:
                    quotation.status = "awarded"
                elif quotation.status != "declined":
                    quotation.status = "not_selected"
        elif state == AWARDED:
            plan.state = EXPIRED
        self.converse(plan, demo=demo)
        return plan

    def quote(self, plan: RequestPlan, suppliers: list[int], *, demo: bool) -> None:
        rng = self.rng
        others = [index for index in suppliers if index != DEMO_SUPPLIER]
        rng.shuffle(others)
        chosen = others[: rng.randint(1, 5)]
        if DEMO_SUPPLIER in suppliers and (demo or rng.random() < 0.3):
            chosen = [DEMO_SUPPLIER, *chosen[:4]]
        chosen = chosen[:10] or suppliers[:1]
        window = max(HOUR, plan.posted_minutes_ago - max(0, -plan.deadline_in_minutes))
        for supplier_index in chosen:
            product = self.listings[plan.template_key][supplier_index]
            supplier = self.companies[supplier_index]
            language = supplier.original_language
            messages = _QUOTE_MESSAGES.get(language, _QUOTE_MESSAGES["en"])
            low, high = float(product.price_min), float(product.price_max)
            places = 0 if product.currency in ("JPY", "KRW", "VND", "IDR", "CLP") else 2
            price = max(_money(rng.uniform(low, high), places), Decimal(1).scaleb(-places))
            status = "submitted"
            if plan.state == OPEN and rng.random() < 0.25:
                status = "shortlisted"
            decline = ""
            if plan.state != EXPIRED and not demo and rng.random() < 0.1:
                status, decline = "declined", _DECLINE_REASONS[plan.original_language]
            plan.quotations.append(
                QuotationPlan(
                    supplier_index=supplier_index,
                    unit_price=price,
                    currency=product.currency,
                    moq=product.moq,
                    lead_time_days=product.lead_time_days,
                    incoterm=(product.incoterms or ["FOB"])[0],
                    named_place=product.port_of_loading[:100],
                    payment_terms=list(product.payment_terms),
                    valid_days=rng.choice((30, 45, 60, 90)),
                    sample_available=rng.random() < 0.7,
                    sample_cost=_money(rng.choice((0, 10, 20, 50))) if places else None,
                    message=rng.choice(messages),
                    status=status,
                    minutes_after_posting=rng.randint(HOUR // 2, window),
                    decline_reason=decline,
                )
            )

    def converse(self, plan: RequestPlan, *, demo: bool) -> None:
        """A question from the buyer and the supplier's answer on some quotations (always on
        the demo buyer's open request, with the demo supplier)."""
        rng = self.rng
        if not plan.quotations or not ((demo and plan.state == OPEN) or rng.random() < 0.25):
            return
        exchanges = _EXCHANGES[plan.original_language]
        position = 0 if demo else rng.randrange(len(plan.quotations))
        rounds = 2 if demo else rng.choice((1, 1, 2))
        start = plan.quotations[position].minutes_after_posting + HOUR
        picked = rng.sample(range(len(exchanges)), rounds)
        messages: list[MessagePlan] = []
        for number, index in enumerate(picked):
            question, answer = exchanges[index]
            at = start + number * 6 * HOUR
            messages.append(MessagePlan(True, question, at))
            messages.append(MessagePlan(False, answer, at + rng.randint(20, 5 * HOUR)))
        plan.conversations.append(ConversationPlan(position, messages))


def plan_sourcing(
    *,
    seed: int,
    vocab: Vocabulary,
    companies: list[CompanySpec],
    products: list[ProductSpec],
    count: int | None = None,
) -> list[RequestPlan]:
    """The demo's buying requests; `count` defaults to 40, fewer with few companies."""
    if count is None:
        count = min(MAX_REQUESTS, 2 * len(companies))
    planner = _SourcingPlanner(seed=seed, vocab=vocab, companies=companies, products=products)
    return planner.plan(count)
