"""Writes on a supplier's products: one function per use case, one transaction each.

Every function takes keyword arguments only, checks that the actor may manage the product's
company, validates everything before writing anything, and raises `ProductError` (a
`core.errors.DomainError` with messages per field) when refused: nothing is saved then.

By concern: `fields` (the input and its cleaners), `products` (create, change, check, delete,
the import's batches), `publishing`, `moderation` (operators: hide, restore, review of held
listings), `images`, `translations`; `_common` holds what several of them share. Callers use
this package (`from tradepost.catalog import services`), which names them all.
"""

from tradepost.catalog.services.fields import (
    PRODUCT_FIELDS,
    PUBLISH_FIELDS,
    ProductFields,
    clean_leaf_category,
)
from tradepost.catalog.services.images import (
    product_image_add,
    product_image_remove,
    product_image_reorder,
    product_images_check,
)
from tradepost.catalog.services.moderation import (
    REVIEW_REASON_MAX_LENGTH,
    product_hide,
    product_restore,
    product_review_approve,
    product_review_reject,
)
from tradepost.catalog.services.products import (
    CheckedDraft,
    ProductDraft,
    listings_reprice,
    product_check,
    product_create,
    product_delete,
    product_draft_check,
    product_update,
    products_create_many,
)
from tradepost.catalog.services.publishing import product_publish, product_unpublish
from tradepost.catalog.services.translations import (
    product_translation_check,
    product_translation_remove,
    product_translation_set,
)

__all__ = [
    "PRODUCT_FIELDS",
    "PUBLISH_FIELDS",
    "REVIEW_REASON_MAX_LENGTH",
    "CheckedDraft",
    "ProductDraft",
    "ProductFields",
    "clean_leaf_category",
    "listings_reprice",
    "product_check",
    "product_create",
    "product_delete",
    "product_draft_check",
    "product_hide",
    "product_image_add",
    "product_image_remove",
    "product_image_reorder",
    "product_images_check",
    "product_publish",
    "product_restore",
    "product_review_approve",
    "product_review_reject",
    "product_translation_check",
    "product_translation_remove",
    "product_translation_set",
    "product_unpublish",
    "product_update",
    "products_create_many",
]
