"""Near-duplicate listings within a company (docs/adr/0024-near-duplicate-listings.md).

The search app keeps a MinHash fingerprint of every published product
(`tradepost.search.fingerprints`, generic: it works on the texts given to it); this module
gives it a product's texts, keeps the fingerprint in step with the product's state
(`fingerprint_sync`, from every write through `services._changed`) and, when a product is
published, finds the company's published listings it is most like (`likely_duplicates_of`)
and refuses the publication until the supplier confirms (`refuse_likely_duplicates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import Product, ProductStatus
from tradepost.search.documents import attribute_texts, plain_text
from tradepost.search.fingerprints import (
    PRODUCT_KIND,
    fingerprint_remove,
    fingerprint_store,
    fingerprints_remove_many,
    fingerprints_store_many,
    likely_duplicates,
    listing_body,
)


def listing_texts(product: Product) -> tuple[str, str]:
    """The title and the body (plain description, keywords, attributes) compared; the same
    texts the search source gives a rebuild (`search.fingerprints.fingerprints_rebuild`)."""
    body = listing_body(
        description=plain_text(product.description or ""),
        keywords=product.keywords or "",
        attributes=attribute_texts(product.attributes),
    )
    return product.title or "", body


def fingerprint_sync(product: Product) -> None:
    """In the writer's transaction: a published product is fingerprinted (again, when its
    texts changed); any other (draft, held, hidden, deleted) is not compared with."""
    if product.status == ProductStatus.PUBLISHED:
        title, body = listing_texts(product)
        fingerprint_store(
            kind=PRODUCT_KIND,
            object_id=product.pk,
            owner_id=product.company_id,
            title=title,
            body=body,
        )
    else:
        fingerprint_remove(kind=PRODUCT_KIND, object_id=product.pk)


def fingerprints_forget(products: Iterable[Product]) -> None:
    """`fingerprint_sync` of many products that are not published (drafts written in bulk by
    a catalogue import), in a few statements: none of them is compared with."""
    ids = [product.pk for product in products if product.status != ProductStatus.PUBLISHED]
    fingerprints_remove_many(kind=PRODUCT_KIND, object_ids=ids)


@dataclass(frozen=True)
class DuplicateListing:
    product: Product
    #: Estimated share of the two listings' shingles they have in common, 0..1.
    similarity: float


def likely_duplicates_of(product: Product) -> list[DuplicateListing]:
    """The company's published products most like `product` (itself excluded), most
    similar first (at most five)."""
    title, body = listing_texts(product)
    found = likely_duplicates(
        kind=PRODUCT_KIND,
        owner_id=product.company_id,
        title=title,
        body=body,
        exclude_id=product.pk,
    )
    if not found:
        return []
    published = (
        Product.objects.filter(
            pk__in=[match.object_id for match in found],
            company_id=product.company_id,
            status=ProductStatus.PUBLISHED,
        )
        .only("id", "company_id", "status", "title", "slug")
        .order_by()
        .in_bulk()
    )
    return [
        DuplicateListing(published[match.object_id], match.similarity)
        for match in found
        if match.object_id in published
    ]


def refuse_likely_duplicates(product: Product) -> None:
    """Refuse to publish `product` while the company has a published listing much like it
    (`LIKELY_DUPLICATE`, a conflict): the message names the most similar one, and the
    error's `duplicates` extension lists each with its id, title, page and similarity."""
    duplicates = likely_duplicates_of(product)
    if not duplicates:
        return
    first = duplicates[0]
    raise ProductError(
        ProductErrorCode.LIKELY_DUPLICATE,
        _(
            "This product looks much like “%(title)s”, which your company has already "
            "published (%(percent)d%% alike). Edit that listing instead, or publish this one "
            "anyway."
        )
        % {"title": first.product.title, "percent": round(first.similarity * 100)},
        extensions={
            "duplicates": [
                {
                    "id": duplicate.product.pk,
                    "title": duplicate.product.title,
                    "url": duplicate.product.get_absolute_url(),
                    "similarity": duplicate.similarity,
                }
                for duplicate in duplicates
            ]
        },
    )


def fingerprints_store_published(products: list[Product]) -> int:
    """In the writer's transaction: fingerprint the published ones among `products`, written
    in bulk (the demo's listings, which are not published one by one). Answers how many."""
    return fingerprints_store_many(
        kind=PRODUCT_KIND,
        listings=(
            (product.pk, product.company_id, *listing_texts(product))
            for product in products
            if product.status == ProductStatus.PUBLISHED
        ),
    )
