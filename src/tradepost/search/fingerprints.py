"""Near-duplicate listings of one owner: MinHash signatures and an LSH index in the database.

Generic, like the rest of the engine: it works on the texts it is given (a listing's title
and its body: description, keywords, attribute names and values), for listings named by a
kind and an id and grouped by an owner's id; the catalogue decides what to pass and when
(docs/adr/0024-near-duplicate-listings.md).

- **Shingles** (`listing_shingles`): the title's analysed words (`analysis.analyze_fields`:
  folded, traditional Chinese as simplified, Latin words stemmed, numbers with their units,
  Chinese segmented) and the character bigrams of its Chinese runs (which survive the
  segmenter cutting an edited title differently); plus the product codes found anywhere in
  the listing ("kx-tg1032s" -> "kxtg1032s", "lds4821ww", "500ml"), each counted
  `code_weight` times. Words are a set: order does not matter. Chosen on the
  `entity_matching` train splits (`tradepost bench duplicates`): the title with weighted codes
  beats title+description words, character n-grams and word bigrams.
- **Signature**: `datasketch.MinHash` (affine32 scheme, fixed seed and permutations) over
  the shingles; the similarity of two listings is the share of equal MinHash values, an
  estimate of the Jaccard similarity of their shingle sets.
- **LSH index** (`ListingFingerprintBand`): the first `bands * rows` values cut into bands,
  each hashed with the kind and its number into one 64-bit key, indexed by (owner, key). A
  check looks up the listing's band keys among the owner's (the newest `MAX_PER_BAND` per
  key: a key most listings share tells little, and the check's cost stays bounded however
  large the catalogue), takes the fingerprints sharing the most bands (at most
  `MAX_CANDIDATES`), and compares their signatures with the listing's: those at least as
  similar as the threshold are its likely duplicates.

Writes (`fingerprint_store`, `fingerprint_remove`, `fingerprints_store_many`) run in the
writer's transaction, so the index holds exactly the committed listings.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from tradepost.core.database import insert_rows
from tradepost.search.analysis import analyze_fields, normalize
from tradepost.search.models import ListingFingerprint, ListingFingerprintBand

if TYPE_CHECKING:
    from datasketch import MinHash

__all__ = [
    "DEFAULT_THRESHOLD",
    "SCHEME",
    "Fingerprint",
    "LikelyDuplicate",
    "Scheme",
    "duplicate_threshold",
    "fingerprint",
    "fingerprint_remove",
    "fingerprint_store",
    "fingerprints_rebuild",
    "fingerprints_store_many",
    "likely_duplicates",
    "listing_body",
    "listing_shingles",
    "similarity",
]


@dataclass(frozen=True)
class Scheme:
    """How texts become fingerprints. Changing any of it needs a new `version` (and a
    rebuild: `tradepost reindex --fingerprints`); fingerprints of another version are
    ignored by the checks."""

    version: int
    #: MinHash values per signature.
    num_perm: int
    #: LSH bands, and MinHash values per band (bands * rows <= num_perm).
    bands: int
    rows: int
    seed: int = 1
    #: How many times a product code counts in the shingle set.
    code_weight: int = 3


#: Chosen with `tradepost bench duplicates` (bench/results/duplicates-*.md, ADR 0024).
SCHEME = Scheme(version=1, num_perm=128, bands=20, rows=2)

#: The similarity (estimated Jaccard of the shingle sets) from which a listing is a likely
#: duplicate, chosen on the train splits; settings.TRADEPOST_DUPLICATE_SIMILARITY overrides.
DEFAULT_THRESHOLD = 0.48

#: Fingerprints compared with the listing at most: those sharing the most bands with it.
MAX_CANDIDATES = 50

#: Listings read per band hash at most (the newest). A band hash that many of an owner's
#: listings share says little, like a common word; reading all of them would make a check
#: cost grow with the owner's catalogue. With it a check reads at most
#: `bands * MAX_PER_BAND` rows, whatever the catalogue.
MAX_PER_BAND = 20

#: Rows per INSERT when writing fingerprints in bulk.
_BATCH = 500

# A product code written with separators ("kx-tg1032s", "mb13-pnk-see-v2", "ab/12.c"),
# matched on normalised text and kept joined when it holds a letter and a digit.
_SEPARATED_CODE_RE = re.compile(r"(?<![a-z0-9])[a-z0-9]+(?:[-/.][a-z0-9]+)+")
_SEPARATORS_RE = re.compile(r"[-/.]")
_HAS_DIGIT_RE = re.compile(r"\d")
_HAS_LETTER_RE = re.compile(r"[a-z]")
# Runs of ASCII letters and digits long enough to be a code, in a body's text.
_ALNUM_RUN_RE = re.compile(r"[a-z0-9]{4,}")


def _is_code(token: str) -> bool:
    """A model number, part number or size: 4+ characters mixing ASCII letters and digits."""
    return (
        len(token) >= 4
        and token.isascii()
        and _HAS_DIGIT_RE.search(token) is not None
        and _HAS_LETTER_RE.search(token) is not None
    )


def _joined_codes(normalized: str) -> set[str]:
    codes = set()
    for match in _SEPARATED_CODE_RE.findall(normalized):
        joined = _SEPARATORS_RE.sub("", match)
        if _HAS_DIGIT_RE.search(joined) and _HAS_LETTER_RE.search(joined):
            codes.add(joined)
    return codes


def listing_body(
    *, description: str = "", keywords: str = "", attributes: Iterable[str] = ()
) -> str:
    """The body text of a listing: its plain-text description, keywords and attribute texts."""
    return "\n".join(part for part in (description, keywords, *attributes) if part)


def listing_shingles(title: str, body: str = "", *, code_weight: int | None = None) -> set[str]:
    """The shingle set of a listing (see the module's docstring). Empty when the texts hold
    no word, Chinese character or code. Never raises for any `str`."""
    weight = SCHEME.code_weight if code_weight is None else code_weight
    words, grams = analyze_fields(title or "")
    shingles = set(words)
    shingles.update("~" + gram for gram in grams if len(gram) == 2)
    codes = {word for word in words if _is_code(word)}
    codes |= _joined_codes(normalize(title or ""))
    if body:
        # Codes are ASCII: the body is folded (NFKC, lower case) but not segmented.
        folded = normalize(body, simplified=False)
        codes.update(run for run in _ALNUM_RUN_RE.findall(folded) if _is_code(run))
        codes |= _joined_codes(folded)
    shingles |= codes
    shingles.discard("")
    for copy in range(1, weight):
        shingles.update(f"#{copy}:{code}" for code in codes)
    return shingles


# --- signatures ------------------------------------------------------------------------------


_local = threading.local()


def _minhash(scheme: Scheme) -> MinHash:
    """An empty `MinHash` of the scheme: one per thread, cleared for each use (building one
    draws its permutations again). datasketch is imported here, on first use: its package
    imports SciPy (0.4 s), which every process start would otherwise pay."""
    from datasketch import MinHash

    cached = getattr(_local, "minhashes", None)
    if cached is None:
        cached = _local.minhashes = {}
    minhash = cached.get(scheme)
    if minhash is None:
        minhash = cached[scheme] = MinHash(
            num_perm=scheme.num_perm, seed=scheme.seed, scheme="affine32"
        )
    else:
        minhash.clear()
    return minhash


def signature(shingles: Iterable[str], scheme: Scheme = SCHEME) -> np.ndarray:
    """The MinHash values (uint32) of a shingle set."""
    minhash = _minhash(scheme)
    minhash.update_batch([shingle.encode("utf-8", "surrogatepass") for shingle in shingles])
    return np.array(minhash.hashvalues, dtype="<u4")


def similarity(first: np.ndarray, second: np.ndarray) -> float:
    """The estimated Jaccard similarity of two signatures of the same scheme."""
    return float(np.count_nonzero(first == second)) / len(first)


_MASK64 = (1 << 64) - 1


def _mix64(value: int) -> int:
    """MurmurHash3's 64-bit finaliser: a bijection on 64-bit values that spreads the bits."""
    value ^= value >> 33
    value = (value * 0xFF51AFD7ED558CCD) & _MASK64
    value ^= value >> 33
    value = (value * 0xC4CEB9FE1A85EC53) & _MASK64
    return value ^ (value >> 33)


@cache
def _band_salts(kind: str, bands: int) -> tuple[int, ...]:
    """A 64-bit salt per band of `kind`: equal values in different bands or kinds differ."""
    return tuple(
        int.from_bytes(
            hashlib.blake2b(f"{kind}\0{band}".encode(), digest_size=8, person=b"tp-lsh").digest(),
            "little",
        )
        for band in range(bands)
    )


def band_keys(kind: str, values: np.ndarray, scheme: Scheme = SCHEME) -> list[int]:
    """The LSH keys of a signature: one signed 64-bit hash per band, of the kind, the band's
    number and its MinHash values (each pair of 32-bit values folds in without loss)."""
    numbers = values[: scheme.bands * scheme.rows].tolist()
    rows = scheme.rows
    keys = []
    for band, salt in enumerate(_band_salts(kind, scheme.bands)):
        key = salt
        part = numbers[band * rows : (band + 1) * rows]
        for index in range(0, rows, 2):
            pair = part[index] << 32 | (part[index + 1] if index + 1 < rows else 0)
            key = _mix64(key ^ pair)
        keys.append(key - (1 << 64) if key >= 1 << 63 else key)
    return keys


@dataclass(frozen=True)
class Fingerprint:
    values: np.ndarray
    keys: list[int]
    digest: str


def _digest(title: str, body: str, scheme: Scheme) -> str:
    text = f"{scheme.version}\0{title}\0{body}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=20).hexdigest()


def fingerprint(
    kind: str, title: str, body: str = "", scheme: Scheme = SCHEME
) -> Fingerprint | None:
    """The fingerprint of a listing's texts; None when they hold nothing to compare."""
    shingles = listing_shingles(title, body, code_weight=scheme.code_weight)
    if not shingles:
        return None
    values = signature(shingles, scheme)
    return Fingerprint(values, band_keys(kind, values, scheme), _digest(title, body, scheme))


# --- the index -------------------------------------------------------------------------------


def _require_transaction() -> None:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("Fingerprints are written inside the writer's transaction.")


def _column(model: Any, name: str) -> str:
    """The quoted column of a model's field (the raw statements below name them so)."""
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    return str(connection.ops.quote_name(str(field.column)))


def _insert_bands(rows: list[tuple[int, int, int]]) -> None:
    """Band rows `(fingerprint id, owner id, key)`, written with one prepared INSERT (the
    ORM's bulk_create builds a model per row: most of a rebuild's time)."""
    insert_rows(ListingFingerprintBand, ("fingerprint", "owner_id", "key"), rows)


def fingerprint_store(
    *, kind: str, object_id: int, owner_id: int, title: str, body: str = ""
) -> None:
    """Keep the fingerprint of a listing that others are compared with (a published one)
    up to date: written when new, rewritten when its text or owner changed, removed when
    its text holds nothing to compare. Runs in the writer's transaction."""
    _require_transaction()
    row = ListingFingerprint.objects.filter(kind=kind, object_id=object_id).first()
    if (
        row is not None
        and row.owner_id == owner_id
        and row.version == SCHEME.version
        and row.digest == _digest(title, body, SCHEME)
    ):
        return
    found = fingerprint(kind, title, body)
    if found is None:
        fingerprint_remove(kind=kind, object_id=object_id)
        return
    if row is None:
        row = ListingFingerprint(kind=kind, object_id=object_id)
    else:
        ListingFingerprintBand.objects.filter(fingerprint=row).delete()
    row.owner_id = owner_id
    row.version = SCHEME.version
    row.digest = found.digest
    row.signature = found.values.tobytes()
    row.save()
    _insert_bands([(row.pk, owner_id, key) for key in found.keys])


def fingerprint_remove(*, kind: str, object_id: int) -> None:
    """Forget a listing's fingerprint (it is no longer compared with): no-op when none."""
    _require_transaction()
    ids = list(
        ListingFingerprint.objects.filter(kind=kind, object_id=object_id).values_list(
            "id", flat=True
        )
    )
    if ids:  # most writes are of drafts, which have none: one read, no write
        ListingFingerprintBand.objects.filter(fingerprint_id__in=ids).delete()
        ListingFingerprint.objects.filter(pk__in=ids).delete()


def fingerprints_remove_many(*, kind: str, object_ids: Iterable[int]) -> None:
    """Bulk form of `fingerprint_remove` (a batch of drafts written by an import): two
    statements per 500 listings, whatever number of them had a fingerprint."""
    _require_transaction()
    for chunk in _chunks(object_ids, _BATCH):
        ids = list(
            ListingFingerprint.objects.filter(kind=kind, object_id__in=chunk).values_list(
                "id", flat=True
            )
        )
        if ids:
            ListingFingerprintBand.objects.filter(fingerprint_id__in=ids).delete()
            ListingFingerprint.objects.filter(pk__in=ids).delete()


def fingerprints_store_many(
    *, kind: str, listings: Iterable[tuple[int, int, str, str]], replace: bool = True
) -> int:
    """Write the fingerprints of many listings, `(object_id, owner_id, title, body)`, in
    bulk (the demo, a rebuild). With `replace`, their old fingerprints go first; without,
    they must have none. Answers how many were written."""
    _require_transaction()
    written = 0
    for chunk in _chunks(listings, _BATCH):
        if replace:
            # By the fingerprints' ids, not a join: inside the transaction that wrote them the
            # planner may take these tables for empty, and PostgreSQL then ran the joined
            # DELETE as nested loops over both (24 minutes for a 3,000-listing rebuild).
            fingerprints_remove_many(kind=kind, object_ids=[listing[0] for listing in chunk])
        rows, keys = [], []
        for object_id, owner_id, title, body in chunk:
            found = fingerprint(kind, title, body)
            if found is None:
                continue
            rows.append(
                ListingFingerprint(
                    kind=kind,
                    object_id=object_id,
                    owner_id=owner_id,
                    version=SCHEME.version,
                    digest=found.digest,
                    signature=found.values.tobytes(),
                )
            )
            keys.append(found.keys)
        ListingFingerprint.objects.bulk_create(rows, batch_size=_BATCH)
        if rows and rows[0].pk is None:  # a backend that does not return ids (none in use)
            by_id = {
                r.object_id: r
                for r in ListingFingerprint.objects.filter(
                    kind=kind, object_id__in=[r.object_id for r in rows]
                )
            }
            rows = [by_id[r.object_id] for r in rows]
        _insert_bands(
            [
                (row.pk, row.owner_id, key)
                for row, row_keys in zip(rows, keys, strict=True)
                for key in row_keys
            ]
        )
        written += len(rows)
    return written


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def fingerprints_rebuild(*, on_progress: Callable[[int], None] | None = None) -> int:
    """Rebuild the fingerprints of every published product from the database (through the
    catalogue's search source, as `tradepost reindex` reads it), in one transaction.
    Answers how many were written."""
    from tradepost.search import sources  # the sources are registered when apps are ready

    source = sources.products()

    def listings() -> Iterator[tuple[int, int, str, str]]:
        try:
            for first, last in source.id_ranges(2000):
                records = source.load_range(first, last)
                for record in records:
                    body = listing_body(
                        description=record.description,
                        keywords=record.keywords,
                        attributes=record.attributes,
                    )
                    yield record.id, record.company.id, record.title, body
                if on_progress is not None:
                    on_progress(len(records))
        finally:
            source.forget()

    with transaction.atomic():
        ListingFingerprintBand.objects.filter(fingerprint__kind=PRODUCT_KIND).delete()
        ListingFingerprint.objects.filter(kind=PRODUCT_KIND).delete()
        return fingerprints_store_many(kind=PRODUCT_KIND, listings=listings(), replace=False)


#: The kind of the catalogue's products (the search outbox's name for them).
PRODUCT_KIND = "product"


# --- the check -------------------------------------------------------------------------------


def _candidates(kind: str, owner_id: int, keys: list[int]) -> list[tuple[int, bytes]]:
    """(object id, signature) of the owner's fingerprints of `kind` (and today's scheme)
    that share the most band hashes with `keys`: at most `MAX_CANDIDATES`, at most
    `MAX_PER_BAND` read per hash. One statement: a bounded range scan of the band index per
    hash, counted and ranked by the database, joined to the signatures."""
    quote = connection.ops.quote_name
    band = quote(ListingFingerprintBand._meta.db_table)
    fingerprint_id = _column(ListingFingerprintBand, "fingerprint")
    owner = _column(ListingFingerprintBand, "owner_id")
    key = _column(ListingFingerprintBand, "key")
    part = (
        f"SELECT f FROM (SELECT {fingerprint_id} AS f FROM {band} WHERE {owner} = %s "  # noqa: S608
        f"AND {key} = %s ORDER BY {fingerprint_id} DESC LIMIT {int(MAX_PER_BAND)}) AS b{{}}"
    )
    union = " UNION ALL ".join(part.format(number) for number in range(len(keys)))
    table = quote(ListingFingerprint._meta.db_table)
    sql = (
        f"SELECT p.{_column(ListingFingerprint, 'object_id')}, "  # noqa: S608
        f"p.{_column(ListingFingerprint, 'signature')} "
        f"FROM (SELECT f, COUNT(*) AS n FROM ({union}) AS u GROUP BY f "
        f"ORDER BY n DESC, f LIMIT {int(MAX_CANDIDATES)}) AS c "
        f"JOIN {table} p ON p.{_column(ListingFingerprint, 'pk')} = c.f "
        f"WHERE p.{_column(ListingFingerprint, 'kind')} = %s "
        f"AND p.{_column(ListingFingerprint, 'version')} = %s"
    )
    params: list[Any] = []
    for value in keys:
        params += [owner_id, value]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, kind, SCHEME.version])
        return [(object_id, bytes(stored)) for object_id, stored in cursor.fetchall()]


@dataclass(frozen=True)
class LikelyDuplicate:
    object_id: int
    #: Estimated Jaccard similarity of the shingle sets, 0..1.
    similarity: float


def duplicate_threshold() -> float:
    """The similarity from which listings are likely duplicates; 0 turns the check off."""
    return float(getattr(settings, "TRADEPOST_DUPLICATE_SIMILARITY", DEFAULT_THRESHOLD))


def likely_duplicates(
    *,
    kind: str,
    owner_id: int,
    title: str,
    body: str = "",
    exclude_id: int | None = None,
    threshold: float | None = None,
    limit: int = 5,
) -> list[LikelyDuplicate]:
    """The owner's fingerprinted listings of `kind` most like these texts, most similar
    first, at most `limit`, each at least `threshold` alike (default: the setting);
    `exclude_id` (the listing being checked) is never among them."""
    minimum = duplicate_threshold() if threshold is None else threshold
    if minimum <= 0:
        return []
    found = fingerprint(kind, title, body)
    if found is None:
        return []
    candidates = [row for row in _candidates(kind, owner_id, found.keys) if row[0] != exclude_id]
    if not candidates:
        return []
    # Every candidate's signature in one array, compared with the listing's at once.
    stored = np.frombuffer(b"".join(row[1] for row in candidates), dtype="<u4")
    shares = (stored.reshape(len(candidates), -1) == found.values).mean(axis=1)
    matches = [
        LikelyDuplicate(object_id=object_id, similarity=round(float(share), 3))
        for (object_id, _signature), share in zip(candidates, shares, strict=True)
        if share >= minimum
    ]
    matches.sort(key=lambda match: (-match.similarity, match.object_id))
    return matches[:limit]
