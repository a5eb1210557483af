"""The tantivy index: its schema, where it lives, how documents are built, and its state file.

One index holds products, companies and open buying requests (a `kind` field tells them
apart), so the indexer
applies a batch of outbox rows with one commit. Text arrives pre-analysed by
`tradepost.search.analysis` and is indexed with tantivy's whitespace tokenizer, so indexing
and querying share one pipeline. Each process opens the index once; its reader reloads by
itself when another process commits.

The directory is `settings.TRADEPOST_INDEX_DIR` (default `TRADEPOST_HOME/index`) with one
sub-folder per schema version, so a new release with a new schema builds beside the old one.
Next to it, `v<N>.state.json` records the last outbox row the index has applied.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import tantivy
from django.conf import settings

from tradepost.money.amounts import Money
from tradepost.search.analysis import PieceCache, analyze_cjk_grams, analyze_words, normalize
from tradepost.search.documents import (
    MAX_CATEGORY_DEPTH,
    CategoryTree,
    CompanyRecord,
    ProductRecord,
    RequestRecord,
)
from tradepost.search.facetkeys import (
    KEY_FIELDS,
    incoterm_mask,
    lead_band,
    moq_band,
    price_band,
)

logger = logging.getLogger(__name__)

#: Bump when the schema or the way documents are built changes; a new folder is built.
SCHEMA_VERSION = 8

KIND_PRODUCT = "product"
KIND_COMPANY = "company"
KIND_REQUEST = "request"

#: Tokens longer than this are noise (and tantivy refuses very long terms).
MAX_TOKEN_CHARS = 60
#: Description text beyond this many characters is not indexed.
MAX_DESCRIPTION_CHARS = 4000
#: Suggestions are cut to this many characters (at a word boundary when possible).
MAX_SUGGESTION_CHARS = 60

#: The text fields of product documents and their weights in relevance.
#: `machine_words`: the stored machine translations of the title (docs/adr/0036), found by
#: the words a reader types in their language. Weighing no more than 1, it is not searched
#: for the lexicon's translations of a query (`querying.naming_fields`): a Chinese query's
#: English translations would otherwise match the English gloss of other Chinese titles.
PRODUCT_WORD_FIELDS = {
    "title_words": 3.0,
    "extra_words": 1.5,
    "machine_words": 1.0,
    "desc_words": 1.0,
}
#: Chinese bigrams: the title's apart, everything else (keywords, attributes, category,
#: company, the title's machine translations, description) in one field, so a bigram is
#: one posting list to walk, not two.
PRODUCT_GRAM_FIELDS = {"title_grams": 1.2, "body_grams": 0.5}
COMPANY_WORD_FIELDS = {"name_words": 3.0, "cproducts_words": 1.5, "cdesc_words": 0.8}
COMPANY_GRAM_FIELDS = {"name_grams": 1.2, "cproducts_grams": 0.6, "cdesc_grams": 0.3}
#: Buying requests use the product text fields (the `kind` filter keeps them apart).
REQUEST_WORD_FIELDS = {"title_words": 3.0, "extra_words": 1.5, "desc_words": 1.0}
REQUEST_GRAM_FIELDS = {"title_grams": 1.2, "body_grams": 0.5}
CATEGORY_FIELDS = [f"cat{depth}" for depth in range(MAX_CATEGORY_DEPTH + 1)]

#: The "newest" sort key: when a listing was published, in microseconds since 1970.
PUBLISHED_SORT_FIELD = "published_us"

#: Sort keys for listings without a USD price (they sort after priced listings either way).
NO_PRICE_ASC = 1e15
NO_PRICE_DESC = -1.0


def _dollars(amount: Decimal | None, currency: str) -> float | None:
    """A listed price in US dollars for the engine's price field (a float there: tantivy's
    fast fields are numbers; the money itself is converted in `Decimal`)."""
    if amount is None:
        return None
    dollars = Money(Decimal(amount), currency).to("USD")
    return float(dollars.amount) if dollars is not None else None


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("key", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("id", indexed=True, fast=True)
    sb.add_integer_field("version", fast=True)
    sb.add_integer_field("company_version", fast=True)
    # Text, already analysed. Only the title words keep positions (phrase boost).
    sb.add_text_field("title_words", tokenizer_name="whitespace", index_option="position")
    for name in ("extra_words", "machine_words", "desc_words", *PRODUCT_GRAM_FIELDS):
        sb.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    sb.add_text_field("name_words", tokenizer_name="whitespace", index_option="position")
    for name in ("cproducts_words", "cdesc_words", *COMPANY_GRAM_FIELDS):
        sb.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    # Suggestions: normalised titles, category and company names, each one term (found by
    # prefix in the term dictionary, which counts the documents holding it).
    sb.add_text_field("suggest", tokenizer_name="raw", index_option="basic")
    # Filters, facets and sorts.
    sb.add_unsigned_field("company_id", indexed=True, fast=True)
    for name in CATEGORY_FIELDS:
        sb.add_unsigned_field(name, indexed=True, fast=True)
    for name in ("country", "language", "business_types"):
        sb.add_text_field(name, tokenizer_name="raw", index_option="basic", fast=True)
    sb.add_text_field("incoterms", tokenizer_name="raw", index_option="basic")
    # Product facets are counted by small whole-number keys (search/facetkeys.py).
    for name in KEY_FIELDS.values():
        sb.add_unsigned_field(name, fast=True)
    sb.add_boolean_field("verified", indexed=True, fast=True)
    for name in ("moq", "price_min_usd", "price_max_usd"):
        sb.add_float_field(name, indexed=True, fast=True)
    sb.add_float_field("price_asc", fast=True)
    sb.add_float_field("price_desc", fast=True)
    sb.add_unsigned_field("lead_time", indexed=True, fast=True)
    sb.add_date_field("published", indexed=True, fast=True)
    # tantivy keeps dates to the second; "newest" sorts by microseconds (ties: id).
    sb.add_integer_field(PUBLISHED_SORT_FIELD, indexed=True, fast=True)
    sb.add_float_field("quality", fast=True)
    # The supplier's response rate (0-1; absent when nobody has asked it anything yet).
    sb.add_float_field("response_rate", fast=True)
    # The last day (a proleptic ordinal, `date.toordinal`) the company carries the Gold
    # Supplier badge; absent when it carries none. Cards compare it with today.
    sb.add_integer_field("badge_until", fast=True)
    sb.add_float_field("boost", fast=True)
    # Buying requests: quantity wanted, and when quotations close (microseconds).
    sb.add_float_field("quantity", indexed=True, fast=True)
    sb.add_integer_field("deadline_us", indexed=True, fast=True)
    return sb.build()


# ---------------------------------------------------------------------------------------
# Location and the per-process index object.


def index_root() -> Path:
    return Path(settings.TRADEPOST_INDEX_DIR)


def index_dir() -> Path:
    return index_root() / f"v{SCHEMA_VERSION}"


def state_path() -> Path:
    return index_root() / f"v{SCHEMA_VERSION}.state.json"


_schema: tantivy.Schema | None = None
_indexes: dict[str, tantivy.Index] = {}
_open_lock = threading.Lock()


def schema() -> tantivy.Schema:
    global _schema
    if _schema is None:
        _schema = build_schema()
    return _schema


def get_index() -> tantivy.Index:
    """This process's handle on the index, created empty when it does not exist yet."""
    path = index_dir()
    key = str(path)
    index = _indexes.get(key)
    if index is not None:
        return index
    with _open_lock:
        index = _indexes.get(key)
        if index is None:
            path.mkdir(parents=True, exist_ok=True)
            try:
                index = tantivy.Index(schema(), path=key, reuse=True)
            except ValueError:
                # Another process created it at the same moment.
                index = tantivy.Index.open(key)
            _indexes[key] = index
    return index


def forget_indexes() -> None:
    """Drop this process's index handles (tests switch folders between tests)."""
    with _open_lock:
        _indexes.clear()
        _searchers.clear()


@dataclass(frozen=True)
class Snapshot:
    """One state of the index as this process searches it. `generation` changes whenever
    the searcher does, so results computed from a snapshot can be cached under it."""

    searcher: tantivy.Searcher
    generation: int


#: index folder -> (the index's meta.json as last read, the snapshot opened for it)
_searchers: dict[str, tuple[bytes, Snapshot]] = {}
_generation = 0


def _meta(path: str) -> bytes:
    try:
        with open(os.path.join(path, "meta.json"), "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def snapshot() -> Snapshot:
    """The searcher for the index's latest commit, kept while nothing is committed.

    tantivy rewrites `meta.json` (atomically) on every commit, in whatever process; reading
    it (a few kilobytes, microseconds) tells whether the index changed since this process
    opened its searcher. Unchanged, the same searcher (and generation) is reused.
    """
    global _generation
    index = get_index()
    key = str(index_dir())
    meta = _meta(key)
    cached = _searchers.get(key)
    if cached is not None and cached[0] == meta:
        return cached[1]
    index.reload()
    with _open_lock:
        _generation += 1
        found = Snapshot(searcher=index.searcher(), generation=_generation)
        _searchers[key] = (meta, found)
    return found


def searcher() -> tantivy.Searcher:
    return snapshot().searcher


class IndexBusy(Exception):
    """Another indexer (in this or another process) holds the index writer."""


def term_query(field_name: str, value: Any) -> tantivy.Query:
    return tantivy.Query.term_query(schema(), field_name, value)


class IndexWriter:
    """The index's single writer, wrapped so that leaving `index_writer()` really releases
    it (and its lock) even if a caller keeps a reference to this object."""

    def __init__(self, writer: Any) -> None:
        self._writer: Any = writer

    @property
    def _live(self) -> Any:
        if self._writer is None:
            raise RuntimeError("the index writer was released")
        return self._writer

    def add(self, doc: tantivy.Document) -> None:
        self._live.add_document(doc)

    def delete_term(self, field_name: str, value: Any) -> None:
        # By query: deleting by term does not match unsigned fields in tantivy-py.
        self._live.delete_documents_by_query(term_query(field_name, value))

    def delete_all(self) -> None:
        self._live.delete_all_documents()

    def commit(self) -> None:
        self._live.commit()

    def rollback(self) -> None:
        self._live.rollback()

    def release(self) -> None:
        self._writer = None


@contextmanager
def index_writer(*, heap_bytes: int = 64_000_000, threads: int = 1) -> Iterator[IndexWriter]:
    """The index's single writer; uncommitted changes roll back on error, and the writer
    (with its lock) is released on exit. Raises IndexBusy when another holds it."""
    index = get_index()
    try:
        raw = index.writer(heap_size=heap_bytes, num_threads=threads)
    except ValueError as exc:
        if "lock" in str(exc).lower():
            raise IndexBusy(str(exc)) from exc
        raise
    writer = IndexWriter(raw)
    del raw
    try:
        yield writer
    except BaseException:
        try:
            writer.rollback()
        except Exception:  # pragma: no cover - rollback after a fatal error
            logger.exception("search index rollback failed")
        raise
    finally:
        writer.release()
        index.reload()
        _searchers.pop(str(index_dir()), None)


# ---------------------------------------------------------------------------------------
# The state file: the outbox position the index has applied.


@dataclass
class IndexState:
    #: Every outbox row with id <= position has been applied, except those in `holes`.
    position: int = 0
    #: Ids below `position` that had no committed row when the position passed them (a
    #: transaction still open, or rolled back); id -> unix time first seen. They are looked
    #: for again until they expire.
    holes: dict[int, float] = field(default_factory=dict)
    #: Unix time of the last apply or rebuild.
    applied_at: float = 0.0
    built_at: float = 0.0


def heartbeat_path() -> Path:
    """Touched by this machine's worker while its indexer runs (`beat`)."""
    return index_root() / "worker.heartbeat"


def beat() -> None:
    path = heartbeat_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def heartbeat_age() -> float | None:
    """Seconds since this machine's worker last showed it was alive; None if it never ran."""
    try:
        return max(0.0, datetime.now(UTC).timestamp() - heartbeat_path().stat().st_mtime)
    except OSError:
        return None


def read_state() -> IndexState | None:
    """The recorded state, or None when the index has never been built."""
    try:
        raw = json.loads(state_path().read_text("utf-8"))
        return IndexState(
            position=int(raw["position"]),
            holes={int(k): float(v) for k, v in raw.get("holes", {}).items()},
            applied_at=float(raw.get("applied_at", 0)),
            built_at=float(raw.get("built_at", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_state(state: IndexState) -> None:
    """Replace the state file atomically (write a temporary file, then rename)."""
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(
        json.dumps(
            {
                "schema": SCHEMA_VERSION,
                "position": state.position,
                "holes": {str(k): v for k, v in state.holes.items()},
                "applied_at": state.applied_at,
                "built_at": state.built_at,
            }
        ),
        "utf-8",
    )
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------
# Documents.


def product_key(product_id: int) -> str:
    return f"p:{product_id}"


def company_key(company_id: int) -> str:
    return f"c:{company_id}"


def request_key(request_id: int) -> str:
    return f"r:{request_id}"


_LONG_TOKEN_RE = re.compile(rf"\S{{{MAX_TOKEN_CHARS + 1},}}")


def _join(tokens: Iterable[str]) -> str:
    joined = " ".join(tokens)
    if len(joined) > MAX_TOKEN_CHARS and _LONG_TOKEN_RE.search(joined):
        return " ".join(t for t in joined.split(" ") if len(t) <= MAX_TOKEN_CHARS)
    return joined


def _unique_join(tokens: Iterable[str]) -> str:
    return _join(dict.fromkeys(tokens))


def _words(texts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        if text:
            out.extend(analyze_words(text))
    return out


def _grams(texts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        if text:
            out.extend(analyze_cjk_grams(text))
    return out


def _name_terms(
    names: Sequence[str], suggested: Sequence[str]
) -> tuple[list[str], list[str], list[str]]:
    """The words and grams of `names`, and the suggestion keys of the names in `suggested`,
    each once and in order (a category's path, a company's names)."""
    keys = (suggestion_key(name) for name in suggested)
    return (
        list(dict.fromkeys(_words(names))),
        list(dict.fromkeys(_grams(names))),
        [key for key in dict.fromkeys(keys) if key],
    )


def suggestion_key(text: str) -> str:
    """The normalised form of a suggestion, cut at a word boundary."""
    key = normalize(text)
    if len(key) > MAX_SUGGESTION_CHARS:
        cut = key[:MAX_SUGGESTION_CHARS]
        space = cut.rfind(" ")
        key = cut[:space] if space > MAX_SUGGESTION_CHARS // 2 else cut
    return key.strip()


def badge_day(value: date | None) -> int | None:
    """A badge's last day as the index keeps it (an ordinal; None: no badge)."""
    return value.toordinal() if value is not None else None


def _microseconds(value: datetime | None) -> int:
    return int(value.timestamp() * 1_000_000) if value else 0


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def quality_score(record: ProductRecord) -> float:
    """Completeness of a listing in [0, 1]: photos, description, attributes, translations,
    price and lead time. It breaks ties in relevance; it never hides a listing."""
    score = 0.35 * min(record.image_count, 3) / 3
    score += 0.25 * min(len(record.description) / 400, 1.0)
    score += 0.15 * min(len(record.attributes) / 8, 1.0)  # names and values: 4 attributes
    score += 0.10 if record.translations else 0.0
    score += 0.10 if record.price_min is not None else 0.0
    score += 0.05 if record.lead_time_days is not None else 0.0
    return round(min(score, 1.0), 4)


#: The largest share of a score that listing quality and supplier responsiveness may add
#: (docs/adr/0006): quality up to 10%, responsiveness up to 3% more.
QUALITY_WEIGHT = 0.1
RESPONSIVENESS_WEIGHT = 0.03


def rank_boost(quality: float, response_rate: float | None = None) -> float:
    """The `boost` fast field. tantivy multiplies a score by log2(2 + boost); this makes the
    factor 1 + 0.1 * quality + 0.03 * response rate, at most 13%: enough to order equal
    matches, never enough to outrank a clearly better match, and never zero (nothing is
    hidden). A supplier nobody has asked yet gets no responsiveness credit."""
    rate = min(max(response_rate or 0.0, 0.0), 1.0)
    return 2 ** (1 + QUALITY_WEIGHT * quality + RESPONSIVENESS_WEIGHT * rate) - 2


@dataclass
class Shared:
    """Analysed text that many documents share (a category lineage, a company's names),
    computed once per indexer batch or rebuild instead of once per product."""

    tree: CategoryTree
    #: category id -> (words, grams, suggestion keys of the leaf's names)
    categories: dict[int, tuple[list[str], list[str], list[str]]] = field(default_factory=dict)
    #: (company id, updated) -> (words, grams, suggestion keys)
    companies: dict[tuple[int, int], tuple[list[str], list[str], list[str]]] = field(
        default_factory=dict
    )
    #: Analysis of titles and descriptions, sentence by sentence (templated descriptions
    #: share most sentences even when the whole texts differ)
    pieces: PieceCache = field(default_factory=PieceCache)

    def category(self, category_id: int) -> tuple[list[str], list[str], list[str]]:
        found = self.categories.get(category_id)
        if found is None:
            lineage = self.tree.lineage(category_id)
            names = [name for node in lineage for name in node.names]
            found = _name_terms(names, lineage[-1].names if lineage else [])
            self.categories[category_id] = found
        return found

    def company(self, record: CompanyRecord) -> tuple[list[str], list[str], list[str]]:
        cache_key = (record.id, _microseconds(record.updated_at))
        found = self.companies.get(cache_key)
        if found is None:
            if len(self.companies) > 50_000:
                self.companies.clear()
            names = [record.legal_name, record.english_name]
            found = _name_terms(names, [name for name in names if name])
            self.companies[cache_key] = found
        return found

    def text(self, text: str) -> tuple[list[str], list[str]]:
        """Words and grams of a text (`analysis.analyze_fields`), each distinct sentence
        analysed once per run: descriptions and attributes are pasted by a supplier into
        many products, and titles repeat across variants."""
        return self.pieces.fields(text)

    def description(self, text: str) -> tuple[list[str], list[str]]:
        """Words and Chinese bigrams of a description. Descriptions keep no single
        characters: a query word of two or more Chinese characters is matched by its
        bigrams, and single characters found anywhere in a description would match nearly
        every Chinese listing (half its gram tokens)."""
        return self.pieces.fields(text, bigrams_only=True)


#: A document as plain Python values (picklable, so analysis can run in other processes).
Fields = dict[str, Any]


def product_fields(record: ProductRecord, shared: Shared) -> Fields:
    """Everything the index holds about a product; the costly part (text analysis)."""
    titles = [record.title, *(title for _lang, title, _desc in record.translations)]
    descriptions = [
        record.description[:MAX_DESCRIPTION_CHARS],
        *(desc[:MAX_DESCRIPTION_CHARS] for _lang, _title, desc in record.translations),
    ]
    title_words: list[str] = []
    title_grams: list[str] = []
    for title in titles:
        words, grams = shared.text(title)
        title_words.extend(words)
        title_grams.extend(grams)
    own_extra = " ; ".join(t for t in (record.keywords, *record.attributes) if t)
    extra_words, extra_grams = shared.text(own_extra)
    machine_words: list[str] = []
    machine_grams: list[str] = []
    for title in record.machine_titles:
        words, grams = shared.text(title)
        machine_words.extend(words)
        machine_grams.extend(grams)
    desc_words: list[str] = []
    desc_grams: list[str] = []
    for description in descriptions:
        words, grams = shared.description(description)
        desc_words.extend(words)
        desc_grams.extend(grams)
    category_words, category_grams, category_keys = shared.category(record.category_id)
    company_words, company_grams, company_keys = shared.company(record.company)

    title_keys = {suggestion_key(t) for t in titles} - {""}
    keys = sorted(title_keys | set(category_keys) | set(company_keys))

    lineage = shared.tree.lineage(record.category_id)
    price_min = _dollars(record.price_min, record.currency)
    price_max = _dollars(record.price_max, record.currency)
    if price_min is None:
        price_min = price_max
    if price_max is None:
        price_max = price_min
    quality = quality_score(record)
    fields: Fields = {
        "key": product_key(record.id),
        "kind": KIND_PRODUCT,
        "id": record.id,
        "version": _microseconds(record.updated_at),
        "company_version": _microseconds(record.company.updated_at),
        "title_words": _join(title_words),
        "title_grams": _join(title_grams),
        "desc_words": _join(desc_words),
        "machine_words": _join(machine_words),
        "extra_words": _unique_join([*extra_words, *category_words, *company_words]),
        "body_grams": _join(
            [
                *dict.fromkeys([*extra_grams, *category_grams, *company_grams]),
                *machine_grams,
                *desc_grams,
            ]
        ),
        "suggest": keys,
        "company_id": record.company.id,
        "country": record.company.country or None,
        "verified": record.company.is_verified,
        "language": record.original_language or None,
        "incoterms": list(dict.fromkeys(record.incoterms)),
        "incoterms_mask": incoterm_mask(record.incoterms),
        "moq": float(record.moq),
        "moq_band": moq_band(float(record.moq)),
        "price_band": price_band(price_min),
        "lead_band": lead_band(record.lead_time_days),
        "price_min_usd": price_min,
        "price_max_usd": price_max,
        "price_asc": price_min if price_min is not None else NO_PRICE_ASC,
        "price_desc": price_max if price_max is not None else NO_PRICE_DESC,
        "lead_time": int(record.lead_time_days) if record.lead_time_days is not None else None,
        "published": _utc(record.published_at or record.updated_at),
        PUBLISHED_SORT_FIELD: _microseconds(record.published_at or record.updated_at),
        "quality": quality,
        "response_rate": record.company.response_rate,
        "badge_until": badge_day(record.company.badge_until),
        "boost": rank_boost(quality, record.company.response_rate),
    }
    for node in lineage[: MAX_CATEGORY_DEPTH + 1]:
        fields[CATEGORY_FIELDS[min(node.depth, MAX_CATEGORY_DEPTH)]] = node.id
    return fields


def company_quality(record: CompanyRecord) -> float:
    score = 0.4 if record.is_verified else 0.0
    score += 0.3 * min(len(record.description) / 300, 1.0)
    score += 0.3 if record.main_products else 0.0
    return round(score, 4)


def company_fields(record: CompanyRecord) -> Fields:
    names = [record.legal_name, record.english_name]
    description = record.description[:MAX_DESCRIPTION_CHARS]
    keys = sorted({suggestion_key(name) for name in names if name} - {""})
    quality = company_quality(record)
    return {
        "key": company_key(record.id),
        "kind": KIND_COMPANY,
        "id": record.id,
        "company_id": record.id,
        "version": _microseconds(record.updated_at),
        "company_version": _microseconds(record.updated_at),
        "name_words": _join(_words(names)),
        "name_grams": _join(_grams(names)),
        "cproducts_words": _join(_words([record.main_products])),
        "cproducts_grams": _join(_grams([record.main_products])),
        "cdesc_words": _join(_words([description])),
        "cdesc_grams": _join(_grams([description])),
        "suggest": keys,
        "country": record.country or None,
        "verified": record.is_verified,
        "language": record.original_language or None,
        "business_types": list(dict.fromkeys(record.business_types)),
        "response_rate": record.response_rate,
        "badge_until": badge_day(record.badge_until),
        "quality": quality,
        "boost": rank_boost(quality),
    }


def request_fields(record: RequestRecord, shared: Shared) -> Fields:
    """An open buying request: its public text, category, destination, quantity and dates
    (never the buyer: the page shows what the buyer chose to reveal)."""
    title_words, title_grams = shared.text(record.title)
    desc_words, desc_grams = shared.description(record.description[:MAX_DESCRIPTION_CHARS])
    category_words, category_grams, _keys = shared.category(record.category_id)
    fields: Fields = {
        "key": request_key(record.id),
        "kind": KIND_REQUEST,
        "id": record.id,
        "version": _microseconds(record.updated_at),
        "company_version": 0,
        "title_words": _join(title_words),
        "title_grams": _join(title_grams),
        "desc_words": _join(desc_words),
        "extra_words": _unique_join(category_words),
        "body_grams": _join([*dict.fromkeys(category_grams), *desc_grams]),
        "country": record.destination_country or None,
        "language": record.original_language or None,
        "quantity": float(record.quantity),
        "published": _utc(record.created_at),
        PUBLISHED_SORT_FIELD: _microseconds(record.created_at),
        "deadline_us": _microseconds(record.deadline),
        "boost": 0.0,
    }
    for node in shared.tree.lineage(record.category_id)[: MAX_CATEGORY_DEPTH + 1]:
        fields[CATEGORY_FIELDS[min(node.depth, MAX_CATEGORY_DEPTH)]] = node.id
    return fields


def build_document(fields: Fields) -> tantivy.Document:
    """The tantivy document for `fields` (absent values and empty lists are left out)."""
    present = {name: value for name, value in fields.items() if value is not None and value != []}
    return tantivy.Document.from_dict(present, schema())


def product_document(record: ProductRecord, shared: Shared) -> tantivy.Document:
    return build_document(product_fields(record, shared))


def company_document(record: CompanyRecord) -> tantivy.Document:
    return build_document(company_fields(record))


def request_document(record: RequestRecord, shared: Shared) -> tantivy.Document:
    return build_document(request_fields(record, shared))
