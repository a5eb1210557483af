"""Plans the demo marketplace: companies, people, products and pictures, from a seed.

Everything here is plain Python and deterministic: the same seed, counts and category tree give
the same plan. Nothing touches the database; services.demo_load writes the plan.
"""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from html import escape

from babel import Locale
from django.utils.text import slugify

from tradepost.catalog.models import PaymentTerm, Unit
from tradepost.companies.models import BusinessType, Company, EmployeeRange, Market
from tradepost.core.countries import country_name
from tradepost.core.currencies import is_currency
from tradepost.core.incoterms import Incoterm
from tradepost.demo.vocabulary import (
    CHINESE,
    LANGUAGES,
    Country,
    Template,
    Vocabulary,
    pick,
)

DEFAULT_SEED = 20250601
DEFAULT_COMPANIES = 160
DEFAULT_PRODUCTS = 3200
MAX_COMPANIES = 5000
MAX_PRODUCTS = 200_000

# Share of products written in Chinese (simplified and traditional together).
CHINESE_PRODUCT_SHARE = 0.6
# Countries that get at least one company whenever the company count allows, in this order:
# the demo's supplier and buyer first, then the listing languages.
GUARANTEED_COUNTRIES = ("CN", "NL", "TW", "HK", "VN", "TR", "ES", "MX", "US", "DE", "IN")
DEMO_SUPPLIER_INDUSTRIES = ("home-garden", "kitchenware")
DEMO_LOGIN_EMAILS = {
    "supplier": "supplier@demo.example",
    "buyer": "buyer@demo.example",
    "operator": "operator@demo.example",
}
# "In business for N years" is counted from this year, not today, so a plan never changes.
REFERENCE_YEAR = 2025

NICE_QUANTITIES = (1, 2, 5, 10, 20, 25, 50, 100, 200, 300, 500, 1000, 2000, 3000, 5000,
                   10000, 20000, 50000, 100000)  # fmt: skip
ZERO_DECIMAL_CURRENCIES = frozenset({"JPY", "KRW", "VND", "IDR", "CLP"})
EUROPE_AND_AMERICAS = frozenset({"DE", "IT", "ES", "PT", "PL", "US", "MX", "BR", "GB", "FR"})
INCOTERM_ORDER = [choice.value for choice in Incoterm]
PAYMENT_ORDER = [choice.value for choice in PaymentTerm]
EMPLOYEE_WEIGHTS = (
    (EmployeeRange.FROM_1_TO_10, 1),
    (EmployeeRange.FROM_11_TO_50, 4),
    (EmployeeRange.FROM_51_TO_200, 5),
    (EmployeeRange.FROM_201_TO_500, 3),
    (EmployeeRange.FROM_501_TO_1000, 1),
    (EmployeeRange.OVER_1000, 1),
)
EXPORT_MARKETS = [m.value for m in Market if m != Market.DOMESTIC]
UI_LANGUAGE = {"zh-hans": "zh-hans", "zh-hant": "zh-hant"}


class PlanError(ValueError):
    """The plan cannot be made (for example, the category tree is empty)."""


# --- inputs and outputs ----------------------------------------------------------------------


@dataclass(frozen=True)
class LeafCategory:
    id: int
    slug: str
    name_en: str
    path: str
    top_slug: str
    hs_codes: tuple[str, ...]


@dataclass(frozen=True)
class PersonSpec:
    email: str
    full_name: str
    preferred_language: str


@dataclass(frozen=True)
class LoginSpec:
    role: str  # "supplier", "buyer" or "operator"
    email: str
    full_name: str


@dataclass
class CompanySpec:
    index: int
    slug: str
    legal_name: str
    english_name: str
    original_language: str
    business_types: list[str]
    country: str
    province: str
    city: str
    year_established: int
    employee_range: str
    main_markets: list[str]
    main_products: str
    certifications: list[str]
    export_share: int | None
    website: str
    description: str
    is_verified: bool
    is_featured: bool
    owner: PersonSpec
    is_buyer_only: bool
    # Context for writing products; not stored on the company.
    industries: tuple[str, ...] = ()
    city_en: str = ""
    city_local: str = ""
    ports: tuple[str, ...] = ()
    currency: str = "USD"
    price_factor: float = 1.0
    model_prefix: str = ""

    def company_row(self, *, description: str) -> Company:
        """The company to insert, its fields checked; `description` as it is stored."""
        company = Company(
            slug=self.slug,
            legal_name=self.legal_name,
            english_name=self.english_name,
            original_language=self.original_language,
            business_types=self.business_types,
            country=self.country,
            province=self.province,
            city=self.city,
            year_established=self.year_established,
            employee_range=self.employee_range,
            main_markets=self.main_markets,
            main_products=self.main_products,
            certifications=self.certifications,
            export_share=self.export_share,
            website=self.website,
            description=description,
            is_verified=self.is_verified,
            is_featured=self.is_featured,
        )
        company.clean_fields(exclude=["logo"])
        return company


@dataclass(frozen=True)
class PictureSpec:
    key: str
    shape: str
    colour_hex: str
    label: str
    caption: str
    style: str
    swatches: tuple[str, ...]


@dataclass(frozen=True)
class TranslationSpec:
    language: str
    title: str
    description: str


@dataclass
class ProductSpec:
    company_index: int
    template_key: str
    slug: str
    original_language: str
    title: str
    description: str
    category_id: int
    keywords: str
    attributes: list[dict[str, str]]
    moq: Decimal
    moq_unit: str
    price_min: Decimal
    price_max: Decimal
    currency: str
    incoterms: list[str]
    port_of_loading: str
    payment_terms: list[str]
    lead_time_days: int
    supply_capacity: Decimal
    supply_capacity_unit: str
    hs_code: str
    origin_country: str
    published_minutes_ago: int
    pictures: list[str]
    translations: list[TranslationSpec] = field(default_factory=list)


@dataclass
class DemoPlan:
    seed: int
    companies: list[CompanySpec]
    products: list[ProductSpec]
    pictures: dict[str, PictureSpec]
    logins: list[LoginSpec]


@dataclass
class _Variant:
    """The choices that make one listing: indexes into the template's word lists."""

    spec: int
    modifier: int | None
    extra: int | None
    selling: int | None
    model: str | None
    colour: str
    show_colour: bool
    attribute_choices: dict[str, int]
    intro: int
    custom: int
    shipping: int
    sample_days: int


@dataclass(frozen=True)
class _Terms:
    moq: int
    price_min: Decimal
    price_max: Decimal
    incoterms: list[str]
    payments: list[str]
    lead: int
    capacity: int
    port: str


# --- helpers ----------------------------------------------------------------------------------


def _words(text: str) -> set[str]:
    """Lower-case word stems of an English text, for matching templates to categories."""
    stems = set()
    for word in re.split(r"[^a-z0-9]+", text.lower()):
        if len(word) > 3 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word:
            stems.add(word)
    return stems


def choose_leaf(template: Template, leaves: list[LeafCategory]) -> LeafCategory:
    """The leaf under the template's top-level category whose English name best matches
    the template's keywords; any leaf of that top level when none matches, else any leaf."""
    wanted = _words(" ".join(template.keywords))
    candidates = [leaf for leaf in leaves if leaf.top_slug == template.top] or leaves

    def score(leaf: LeafCategory) -> int:
        own = leaf.slug[len(leaf.top_slug) :] if leaf.slug.startswith(leaf.top_slug) else leaf.slug
        return len(wanted & (_words(leaf.name_en) | _words(own)))

    best = max(candidates, key=score)  # max keeps the first of equal scores (tree order)
    return best


def hs_code_for(template: Template, leaf: LeafCategory) -> str:
    """A code from the category's HS mapping; the template's own code when it refines one."""
    codes = [code for code in leaf.hs_codes if code.isdigit() and len(code) <= 6]
    for code in codes:
        if template.hs_code.startswith(code):
            return template.hs_code
    if codes:
        return codes[0]
    return template.hs_code


def _join(items: list[str], language: str, vocab: Vocabulary) -> str:
    items = [item for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    separator = pick(vocab.list_separator, language)
    return separator.join(items[:-1]) + pick(vocab.list_and, language) + items[-1]


@cache
def _country_label(code: str, language: str) -> str:
    if language in ("en", "zh-hans", "zh-hant"):
        return country_name(code, language)
    name = Locale.parse(language).territories.get(code)
    return str(name) if name else country_name(code, "en")


def _round_price(value: float, currency: str) -> Decimal:
    """A price as suppliers write it: 3 significant digits for large amounts."""
    if value >= 1000:
        digits = len(str(int(value))) - 3
        rounded = round(value / 10**digits) * 10**digits
        return Decimal(rounded).quantize(Decimal("1"))
    if value >= 10:
        step = Decimal("1") if currency in ZERO_DECIMAL_CURRENCIES else Decimal("0.01")
        return Decimal(str(value)).quantize(step, rounding=ROUND_HALF_UP)
    if value >= 0.1:
        return Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return max(
        Decimal(str(value)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP), Decimal("0.0001")
    )


def _cjk_concat(*parts: str) -> str:
    """Join the parts of a Chinese title, with a space only between two Latin or digit runs."""
    text = ""
    for part in parts:
        if not part:
            continue
        if (
            text
            and text[-1].isascii()
            and text[-1].isalnum()
            and part[0].isascii()
            and (part[0].isalnum())
        ):
            text += " "
        text += part
    return text


# Capitalised words that stay capitalised inside an English sentence.
_PROPER_WORDS = frozenset({"Christmas", "Danish", "Portland", "Bluetooth", "Android", "Windows"})


def _in_sentence(name: str, language: str) -> str:
    """A title-case product name as it reads inside an English sentence ("LED bulb")."""
    if language != "en":
        return name
    words = []
    for word in name.split(" "):
        if word[:1].isupper() and word[1:].islower() and word not in _PROPER_WORDS:
            word = word.lower()
        words.append(word)
    return " ".join(words)


def _format_quantity(value: int, language: str) -> str:
    return f"{value:,}" if language == "en" else str(value)


def _weighted_counts(total: int, weights: list[float]) -> list[int]:
    """Split total into integers proportional to weights (largest remainder)."""
    if not weights or total <= 0:
        return [0] * len(weights)
    weight_sum = sum(weights)
    quotas = [total * w / weight_sum for w in weights]
    counts = [int(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


# --- the planner ------------------------------------------------------------------------------


class _Planner:
    def __init__(self, *, seed: int, vocab: Vocabulary, leaves: list[LeafCategory]) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.vocab = vocab
        self.leaves = leaves
        self._leaf_cache: dict[str, LeafCategory] = {}
        self.slugs: set[str] = set()
        self.legal_names: set[str] = set()
        self.titles: set[str] = set()
        self.pictures: dict[str, PictureSpec] = {}
        self.listed_templates: set[str] = set()
        self.templates_by_top: dict[str, list[Template]] = {}
        for template in vocab.templates:
            self.templates_by_top.setdefault(template.top, []).append(template)

    # countries -------------------------------------------------------------------------------

    def country_sequence(self, n: int) -> list[str]:
        countries = self.vocab.countries
        codes = [c.code for c in countries]
        quotas = [n * c.weight / sum(c.weight for c in countries) for c in countries]
        counts = dict(zip(codes, (int(q) for q in quotas), strict=True))
        remainders = dict(zip(codes, (q - int(q) for q in quotas), strict=True))
        guaranteed = list(GUARANTEED_COUNTRIES)
        if n >= len(codes):
            guaranteed += [code for code in codes if code not in guaranteed]
        for code in guaranteed[:n]:
            counts[code] = max(counts[code], 1)
        protected = set(guaranteed[:n])
        while sum(counts.values()) > n:
            # take from the largest country that can spare one
            code = max(
                codes, key=lambda c: (counts[c] - (1 if c in protected else 0), -codes.index(c))
            )
            counts[code] -= 1
        for code in sorted(codes, key=lambda c: (-remainders[c], codes.index(c))):
            if sum(counts.values()) >= n:
                break
            counts[code] += 1
        while sum(counts.values()) < n:
            counts["CN"] += 1
        sequence = [code for code in codes for _ in range(counts[code])]
        self.rng.shuffle(sequence)
        # The demo's supplier (a Chinese manufacturer) and buyer (a Dutch importer) come first.
        for position, code in enumerate(("CN", "NL")):
            if code in sequence[position:]:
                found = sequence.index(code, position)
                sequence[position], sequence[found] = sequence[found], sequence[position]
        return sequence

    # people ----------------------------------------------------------------------------------

    def person_name(self, country: Country) -> str:
        people = self.vocab.names["people"][country.people]
        if "family" in people:
            return self.rng.choice(people["family"]) + self.rng.choice(people["given"])
        first, last = self.rng.choice(people["first"]), self.rng.choice(people["last"])
        return f"{last} {first}" if people.get("family_first") else f"{first} {last}"

    # companies -------------------------------------------------------------------------------

    def _names(
        self,
        country: Country,
        industry: str | None,
        city: tuple[str, str],
        *,
        manufacturer: bool = False,
    ):
        names = self.vocab.names
        forms = [f for f in country.forms if f.business_type == BusinessType.MANUFACTURER]
        form = self.rng.choice(forms if manufacturer and forms else country.forms)
        if industry is None:  # a buyer: importer, wholesaler, distributor
            if country.style == "es":
                stem = self.rng.choice(country.stems)
                word = self.rng.choice(names["buyer_words"]["es"])
                core_local, core_en = f"{word} {stem[0]}", f"{stem[1]} Trading"
            elif country.style == "hk":
                trade = self.rng.choice(names["hk_trade"])
                core_local, core_en = trade[0] + "國際貿易", f"{trade[1]} International Trading"
            else:
                stem = self.rng.choice(country.stems)
                word = self.rng.choice(names["buyer_words"]["en"])
                core_local = core_en = f"{stem[0]} {word}"
        else:
            words = names["industries"][industry]
            style = country.style
            if style == "cn":
                trade = self.rng.choice(names["cn_trade"])
                core_local = city[1] + trade[0] + words[1]
                core_en = f"{city[0]} {trade[1]} {words[0]}"
            elif style in ("tw", "hk"):
                trade = self.rng.choice(names[f"{style}_trade"])
                core_local, core_en = trade[0] + words[2], f"{trade[1]} {words[0]}"
            elif style == "vi":
                name = self.rng.choice(names["vi_names"])
                core_local, core_en = f"{pick(words, 'vi')} {name[0]}", f"{name[1]} {words[0]}"
            elif style == "tr":
                name = self.rng.choice(names["tr_names"])
                core_local, core_en = f"{name[0]} {pick(words, 'tr')}", f"{name[1]} {words[0]}"
            elif style == "es":
                stem = self.rng.choice(country.stems)
                core_local, core_en = f"{pick(words, 'es')} {stem[0]}", f"{stem[1]} {words[0]}"
            else:
                stem = self.rng.choice(country.stems)
                core_local = core_en = f"{stem[0]} {words[0]}"
        legal = form.local.replace("{}", core_local)
        english = form.english.replace("{}", core_en) if form.english else ""
        if english == legal:
            english = ""
        return legal, english, form.business_type, core_en

    def _slug(self, text: str) -> str:
        base = slugify(text)[:56].strip("-") or "company"
        slug, n = base, 2
        while slug in self.slugs:
            slug, n = f"{base}-{n}", n + 1
        self.slugs.add(slug)
        return slug

    def company(
        self, index: int, code: str, *, buyer: bool, industries: tuple[str, ...]
    ) -> CompanySpec:
        rng, vocab = self.rng, self.vocab
        country = vocab.country(code)
        language = country.language
        region = rng.choice(country.regions)
        if index == 0 and code == "CN":  # the demo supplier: a flask maker in Zhejiang
            region = country.regions[0]
        city = rng.choice(region.cities)
        for _attempt in range(12):
            legal, english, business_type, core_en = self._names(
                country, None if buyer else industries[0], city, manufacturer=index == 0
            )
            if legal not in self.legal_names:
                break
        else:
            legal = f"{legal} ({index})"
        self.legal_names.add(legal)
        slug = self._slug(english or legal)
        if buyer:
            business_types = rng.choice(
                [
                    [BusinessType.TRADING_COMPANY.value, BusinessType.WHOLESALER.value],
                    [BusinessType.WHOLESALER.value],
                    [BusinessType.WHOLESALER.value, BusinessType.RETAILER.value],
                ]
            )
        else:
            business_types = [business_type]
            if business_type == BusinessType.MANUFACTURER and rng.random() < 0.2:
                business_types.append(BusinessType.TRADING_COMPANY.value)
        year = rng.randint(1986, 2021)
        employees = rng.choices(
            [value for value, _w in EMPLOYEE_WEIGHTS], [w for _v, w in EMPLOYEE_WEIGHTS]
        )[0]
        markets = sorted(rng.sample(EXPORT_MARKETS, rng.randint(2, 4)), key=EXPORT_MARKETS.index)
        if buyer:
            markets = [Market.DOMESTIC.value, *markets[:2]]
        cert_pool = vocab.certifications.get(industries[0] if industries else "", None)
        cert_pool = cert_pool or vocab.certifications["_default"]
        certifications = sorted(rng.sample(cert_pool, min(len(cert_pool), rng.randint(1, 3))))
        if buyer:
            certifications = []
        # What the company makes, or for a buyer what it imports.
        topics = industries or tuple(rng.sample(sorted(self.templates_by_top), 3))
        product_names = [
            _in_sentence(pick(t.names, language), language)
            for top in topics
            for t in self.templates_by_top[top][:2]
        ]
        main_products = pick(vocab.list_separator, language).join(product_names[:5])[:500]
        export_share = None if buyer else rng.choice(range(30, 101, 5))
        currency_codes = [c for c, _w in country.currencies]
        currency = rng.choices(currency_codes, [w for _c, w in country.currencies])[0]
        if currency not in vocab.fx or not is_currency(currency):
            currency = "USD"
        owner_name = self.person_name(country)
        mailbox = "purchasing" if buyer else "sales"
        owner = PersonSpec(
            email=f"{mailbox}@{slug}.example",
            full_name=owner_name,
            preferred_language=UI_LANGUAGE.get(language, "en"),
        )
        initials = "".join(word[0] for word in re.findall(r"[A-Za-z]+", core_en)[:3]).upper()
        spec = CompanySpec(
            index=index,
            slug=slug,
            legal_name=legal,
            english_name=english,
            original_language=language,
            business_types=business_types,
            country=code,
            province=region.province[0],
            city=city[0],
            year_established=year,
            employee_range=employees,
            main_markets=markets,
            main_products=main_products,
            certifications=certifications,
            export_share=export_share,
            website=f"https://www.{slug}.example",
            description="",
            is_verified=rng.random() < (0.2 if buyer else 0.35),
            is_featured=False,
            owner=owner,
            is_buyer_only=buyer,
            industries=industries,
            city_en=city[0],
            city_local=city[1],
            ports=region.ports,
            currency=currency,
            price_factor=rng.uniform(0.85, 1.2),
            model_prefix=(initials or "TP")[:3],
        )
        spec.is_featured = not buyer and spec.is_verified and rng.random() < 0.3
        spec.description = self.company_description(spec, country, region.province[1])
        return spec

    def company_description(self, company: CompanySpec, country: Country, province: str) -> str:
        vocab, language = self.vocab, company.original_language
        key = "buyer_description" if company.is_buyer_only else "company_description"
        sentences = vocab.sentences[key]
        options = sentences.get(language) or sentences["en"]
        if language not in sentences:
            language = "en"
        template = self.rng.choice(options)
        local = language == company.original_language
        text = template.format(
            name=company.legal_name if local or not company.english_name else company.english_name,
            year=company.year_established,
            city=company.city_local if local else company.city_en,
            province=province if local else "",
            country=_country_label(company.country, language),
            employees=company.employee_range,
            products=company.main_products,
            markets=_join(
                [pick(vocab.markets[m], language) for m in company.main_markets], language, vocab
            ),
            certs=_join(company.certifications, language, vocab) or "ISO 9001",
            share=company.export_share or 0,
            btype=pick(vocab.business_types[company.business_types[0]], language),
        )
        return f"<p>{escape(text)}</p>"

    # products --------------------------------------------------------------------------------

    def leaf_for(self, template: Template) -> LeafCategory:
        if template.key not in self._leaf_cache:
            self._leaf_cache[template.key] = choose_leaf(template, self.leaves)
        return self._leaf_cache[template.key]

    def picture(self, template: Template, colour: str) -> str:
        key = f"{template.key}-{colour}"
        if key not in self.pictures:
            style = ("studio", "tinted", "catalogue")[zlib.crc32(key.encode()) % 3]
            self.pictures[key] = PictureSpec(
                key=key,
                shape=template.shape,
                colour_hex=self.vocab.colour_hex(colour),
                label=template.names[0],
                caption=self.vocab.colour_name(colour, "en"),
                style=style,
                swatches=tuple(self.vocab.colour_hex(c) for c in template.colours[:6]),
            )
        return key

    def title(self, template: Template, variant: _Variant, language: str) -> str:
        vocab = self.vocab
        name = pick(template.names, language)
        spec = pick(template.specs[variant.spec], language)
        prefix_spec = spec[:1].isdigit()
        colour = vocab.colour_name(variant.colour, language) if variant.show_colour else ""
        selling_points = vocab.selling_points.get(language) or vocab.selling_points["en"]
        selling = (
            selling_points[variant.selling % len(selling_points)]
            if variant.selling is not None
            else ""
        )
        modifier = extra = ""
        if variant.modifier is not None and template.modifiers:
            modifier = pick(template.modifiers[variant.modifier], language)
        if variant.extra is not None and template.extras:
            extra = pick(template.extras[variant.extra], language)
        if language in CHINESE:
            head = _cjk_concat(spec if prefix_spec else "", colour, modifier, name)
            parts = [head, "" if prefix_spec else spec, extra, selling, variant.model or ""]
            return " ".join(part for part in parts if part)
        if language == "en":
            head = " ".join(
                part for part in (spec if prefix_spec else "", colour, modifier, name) if part
            )
            parts = [head, "" if prefix_spec else spec, extra]
            title = " ".join(part for part in parts if part)
            if variant.selling is not None and variant.selling % 2 == 0:
                title = f"{selling} {title}"  # "Hot Sale 500ml ..."
            elif variant.selling is not None:
                title = f"{title} - {selling}"
            return f"{title} {variant.model}" if variant.model else title
        # Spanish, Vietnamese, Turkish: the name first, then the details.
        title = " ".join(part for part in (name, spec, colour.lower()) if part)
        if selling:
            title = f"{title} - {selling}"
        return f"{title} {variant.model}" if variant.model else title

    def attributes(
        self, template: Template, variant: _Variant, language: str
    ) -> list[dict[str, str]]:
        vocab = self.vocab
        rows = [
            {
                "name": pick(vocab.attribute_names[template.spec_attribute], language),
                "value": pick(template.specs[variant.spec], language),
            }
        ]
        for name, values in template.attributes:
            if name == template.spec_attribute:
                continue
            value = values[variant.attribute_choices.get(name, 0) % len(values)]
            rows.append(
                {
                    "name": pick(vocab.attribute_names[name], language),
                    "value": vocab.value(value, language),
                }
            )
        if len(template.colours) > 1 or variant.show_colour:
            rows.append(
                {
                    "name": pick(vocab.attribute_names["colour"], language),
                    "value": vocab.colour_name(variant.colour, language),
                }
            )
        return rows

    def description(
        self,
        template: Template,
        variant: _Variant,
        company: CompanySpec,
        terms: _Terms,
        language: str,
    ) -> str:
        vocab = self.vocab
        local = language == company.original_language or (
            language in CHINESE and company.original_language in CHINESE
        )
        port = terms.port
        if language in CHINESE and port in vocab.port_names:
            port = vocab.port_names[port][0 if language == "zh-hans" else 1]
        values = {
            "name": _in_sentence(pick(template.names, language), language),
            "company": company.legal_name
            if local or not company.english_name
            else company.english_name,
            "city": company.city_local if local else company.city_en,
            "years": max(1, REFERENCE_YEAR - company.year_established),
            "markets": _join(
                [pick(vocab.markets[m], language) for m in company.main_markets[:3]],
                language,
                vocab,
            ),
            "sample_days": variant.sample_days,
            "moq": _format_quantity(terms.moq, language),
            "unit": pick(vocab.units[template.unit], language),
            "lead": terms.lead,
            "port": port,
        }

        def sentence(key: str, index: int) -> str:
            options = vocab.sentences[key].get(language) or vocab.sentences[key]["en"]
            return escape(options[index % len(options)].format(**values))

        items = "".join(
            f"<li><strong>{escape(row['name'])}</strong>: {escape(row['value'])}</li>"
            for row in self.attributes(template, variant, language)
        )
        return (
            f"<p>{sentence('product_intro', variant.intro)}</p>\n<ul>{items}</ul>\n"
            f"<p>{sentence('product_custom', variant.custom)}</p>\n"
            f"<p>{sentence('product_shipping', variant.shipping)}</p>"
        )

    def variant(self, template: Template, company: CompanySpec) -> _Variant:
        rng = self.rng
        spec = rng.randrange(len(template.specs))
        modifier = extra = selling = None
        model = None
        if template.modifiers and rng.random() < 0.75:
            modifier = rng.randrange(len(template.modifiers))
        if template.extras and rng.random() < 0.55:
            extra = rng.randrange(len(template.extras))
        if rng.random() < 0.6:
            selling = rng.randrange(12)
        if rng.random() < 0.3:
            suffix = rng.choice(["", "A", "B", "S", "X"])
            model = f"{company.model_prefix}-{rng.randint(100, 9999)}{suffix}"
        return _Variant(
            spec=spec,
            modifier=modifier,
            extra=extra,
            selling=selling,
            model=model,
            colour=rng.choice(template.colours),
            show_colour=len(template.colours) > 1 and rng.random() < 0.25,
            attribute_choices={name: rng.randrange(8) for name, _values in template.attributes},
            intro=rng.randrange(3),
            custom=rng.randrange(3),
            shipping=rng.randrange(2),
            sample_days=rng.choice((3, 5, 7, 10)),
        )

    def terms(self, template: Template, company: CompanySpec) -> _Terms:
        rng = self.rng
        low, high = template.moq
        choices = [q for q in NICE_QUANTITIES if low <= q <= high] or [low]
        moq = rng.choice(choices)
        base = rng.uniform(*template.price) * company.price_factor
        rate = self.vocab.fx.get(company.currency, 1.0)
        price_min = _round_price(base * rate, company.currency)
        price_max = _round_price(base * rng.uniform(1.08, 1.6) * rate, company.currency)
        if rng.random() < 0.12:
            price_max = price_min
        price_max = max(price_min, price_max)
        if company.country in EUROPE_AND_AMERICAS:
            incoterms = ["EXW", "FCA", *rng.sample(["FOB", "DAP", "CIF"], rng.randint(0, 2))]
        else:
            incoterms = ["FOB", *rng.sample(["EXW", "CIF", "CFR", "FCA", "DDP"], rng.randint(0, 3))]
        incoterms = sorted(set(incoterms), key=INCOTERM_ORDER.index)
        if template.unit == Unit.TONNES:
            payments = ["tt", "lc"]
        else:
            payments = [
                "tt",
                *rng.sample(["lc", "paypal", "western_union", "dp", "escrow"], rng.randint(0, 2)),
            ]
        payments = sorted(set(payments), key=PAYMENT_ORDER.index)
        if template.unit in (Unit.SETS, Unit.UNITS) and template.price[0] > 500:
            lead = rng.randint(20, 60)
        elif template.unit == Unit.TONNES:
            lead = rng.randint(10, 40)
        else:
            lead = rng.choice((7, 10, 15, 20, 25, 30, 35, 45))
        capacity = moq * rng.choice((20, 30, 50, 100, 200, 500))
        return _Terms(
            moq=moq,
            price_min=price_min,
            price_max=price_max,
            incoterms=incoterms,
            payments=payments,
            lead=lead,
            capacity=capacity,
            port=rng.choice(company.ports) if company.ports else "",
        )

    def product(self, company: CompanySpec, template: Template) -> ProductSpec:
        rng = self.rng
        language = company.original_language
        variant = self.variant(template, company)
        title = self.title(template, variant, language)
        for _attempt in range(4):
            if title not in self.titles:
                break
            variant = self.variant(template, company)
            title = self.title(template, variant, language)
        if title in self.titles:
            variant.model = f"{company.model_prefix}-{len(self.titles) + 100}"
            title = self.title(template, variant, language)
        self.titles.add(title)
        leaf = self.leaf_for(template)
        terms = self.terms(template, company)
        others = [c for c in template.colours if c != variant.colour]
        extra_pictures = min(len(others), rng.choices((0, 1, 2), (5, 3, 2))[0])
        colours = [variant.colour, *rng.sample(others, extra_pictures)]
        pictures = [self.picture(template, colour) for colour in colours]
        translations = []
        for other in self.translation_languages(language):
            translations.append(
                TranslationSpec(
                    language=other,
                    title=self.title(template, variant, other),
                    description=self.description(template, variant, company, terms, other),
                )
            )
        keywords = [pick(template.names, language), pick(template.specs[variant.spec], language)]
        if variant.modifier is not None:
            keywords.append(pick(template.modifiers[variant.modifier], language))
        if language != "en":
            keywords.append(template.names[0])
        origin = company.country
        if company.country == "HK" and rng.random() < 0.8:
            origin = "CN"
        return ProductSpec(
            company_index=company.index,
            template_key=template.key,
            slug=slugify(self.title(template, variant, "en"))[:80].strip("-"),
            original_language=language,
            title=title[:200],
            description=self.description(template, variant, company, terms, language),
            category_id=leaf.id,
            keywords=", ".join(keywords)[:300],
            attributes=self.attributes(template, variant, language),
            moq=Decimal(terms.moq),
            moq_unit=template.unit,
            price_min=terms.price_min,
            price_max=terms.price_max,
            currency=company.currency,
            incoterms=terms.incoterms,
            port_of_loading=terms.port,
            payment_terms=terms.payments,
            lead_time_days=terms.lead,
            supply_capacity=Decimal(terms.capacity),
            supply_capacity_unit=template.unit,
            hs_code=hs_code_for(template, leaf),
            origin_country=origin,
            published_minutes_ago=rng.randint(0, 120 * 24 * 60),
            pictures=pictures,
            translations=translations,
        )

    def translation_languages(self, language: str) -> list[str]:
        roll = self.rng.random()
        if language in CHINESE:
            if roll < 0.1:
                return ["en", "zh-hant" if language == "zh-hans" else "zh-hans"]
            return ["en"] if roll < 0.4 else []
        if language == "en":
            return ["zh-hans"] if roll < 0.15 else []
        return ["en"] if roll < 0.5 else []

    # the whole plan --------------------------------------------------------------------------

    def plan(self, *, companies: int, products: int) -> DemoPlan:
        rng, vocab = self.rng, self.vocab
        sequence = self.country_sequence(companies)
        all_industries = [top for top in vocab.industries if top in self.templates_by_top]
        rotation = list(all_industries)
        rng.shuffle(rotation)
        per_country: dict[str, int] = {}
        buyers_left = {
            code: round(sequence.count(code) * vocab.country(code).buyer_share)
            for code in set(sequence)
        }
        specs: list[CompanySpec] = []
        cn_seen = 0
        for index, code in enumerate(sequence):
            country = vocab.country(code)
            per_country[code] = per_country.get(code, 0) + 1
            buyer = index == 1 and code == "NL"
            if not buyer and index != 0 and buyers_left.get(code, 0) > 0:
                buyer = True
            if buyer and buyers_left.get(code, 0) > 0:
                buyers_left[code] -= 1
            industries: tuple[str, ...] = ()
            if not buyer:
                if index == 0 and code == "CN":
                    industries = DEMO_SUPPLIER_INDUSTRIES
                else:
                    allowed = [top for top in country.industries if top in self.templates_by_top]
                    if code == "CN" or not allowed:
                        primary = rotation[cn_seen % len(rotation)]
                        cn_seen += 1
                        allowed = all_industries
                    else:
                        primary = rng.choice(allowed)
                    industries = (primary,)
                    if rng.random() < 0.35:
                        second = rng.choice(allowed)
                        if second != primary:
                            industries = (primary, second)
            specs.append(self.company(index, code, buyer=buyer, industries=industries))
        if specs and specs[0].country == "CN":
            specs[0].is_verified = specs[0].is_featured = True
            specs[0].business_types = [BusinessType.MANUFACTURER.value]

        suppliers = [c for c in specs if not c.is_buyer_only]
        chinese = [c for c in suppliers if c.original_language in CHINESE]
        others = [c for c in suppliers if c.original_language not in CHINESE]
        chinese_total = round(products * CHINESE_PRODUCT_SHARE) if others else products
        if not chinese:
            chinese_total = 0
        plans: list[ProductSpec] = []
        for group, total in ((chinese, chinese_total), (others, products - chinese_total)):
            weights = [2.5 if c.index == 0 else rng.uniform(0.4, 1.6) for c in group]
            for company, count in zip(group, _weighted_counts(total, weights), strict=True):
                pool = [t for top in company.industries for t in self.templates_by_top.get(top, [])]
                if not pool:
                    continue
                catalogue = self.catalogue(company, pool)
                for number in range(count):
                    # each product type of the catalogue first, then any of them
                    template = catalogue[number] if number < len(catalogue) else None
                    plans.append(self.product(company, template or rng.choice(catalogue)))
        logins = self.logins(specs)
        return DemoPlan(
            seed=self.seed,
            companies=specs,
            products=plans,
            pictures=self.pictures,
            logins=logins,
        )

    def catalogue(self, company: CompanySpec, pool: list[Template]) -> list[Template]:
        """The product types a supplier lists: 3 to 7 of its industries' templates, those no
        other supplier lists yet first, so the whole vocabulary shows up in the marketplace."""
        rng = self.rng
        fresh = [t for t in pool if t.key not in self.listed_templates]
        known = [t for t in pool if t.key in self.listed_templates]
        rng.shuffle(fresh)
        rng.shuffle(known)
        if company.index == 0:  # the demo supplier makes vacuum flasks
            fresh.sort(key=lambda t: t.key != "vacuum-flask")
        catalogue = (fresh + known)[: min(len(pool), rng.randint(3, 7))]
        self.listed_templates.update(t.key for t in catalogue)
        return catalogue

    def logins(self, specs: list[CompanySpec]) -> list[LoginSpec]:
        supplier, buyer = specs[0], specs[1]
        logins = [
            LoginSpec("supplier", DEMO_LOGIN_EMAILS["supplier"], supplier.owner.full_name),
            LoginSpec("buyer", DEMO_LOGIN_EMAILS["buyer"], buyer.owner.full_name),
            LoginSpec("operator", DEMO_LOGIN_EMAILS["operator"], "Demo Operator"),
        ]
        supplier.owner = PersonSpec(logins[0].email, supplier.owner.full_name, "en")
        buyer.owner = PersonSpec(logins[1].email, buyer.owner.full_name, "en")
        return logins


def build_plan(
    *, seed: int, companies: int, products: int, vocab: Vocabulary, leaves: list[LeafCategory]
) -> DemoPlan:
    """Plan the demo marketplace. Raises PlanError when it cannot be made."""
    if not leaves:
        raise PlanError("the category tree has no leaves")
    if companies < 2:
        raise PlanError("at least 2 companies are needed (the demo supplier and buyer)")
    return _Planner(seed=seed, vocab=vocab, leaves=leaves).plan(
        companies=companies, products=products
    )


__all__ = [
    "DEFAULT_COMPANIES",
    "DEFAULT_PRODUCTS",
    "DEFAULT_SEED",
    "LANGUAGES",
    "DemoPlan",
    "LeafCategory",
    "PlanError",
    "build_plan",
]
