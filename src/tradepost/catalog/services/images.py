"""A product's photos: added (checked and re-encoded), removed (files deleted after the
commit), reordered; the limit on their number."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tradepost.accounts.models import User
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductImage
from tradepost.catalog.services._common import _changed, _full_clean, _locked_to_manage
from tradepost.core.images import ImageRejected, process_image


def _delete_files_on_commit(names: Iterable[str | None]) -> None:
    """Delete these stored files after the commit, each only if no picture still uses it
    (the demo's products share files, and so may copies of a listing)."""
    stored = [name for name in names if name]

    def delete() -> None:
        for name in stored:
            if not ProductImage.objects.filter(Q(image=name) | Q(thumbnail=name)).exists():
                default_storage.delete(name)

    transaction.on_commit(delete)


def product_images_check(*, count: int) -> None:
    """Refuse (`TOO_MANY_IMAGES`) a product that would have `count` images, over the limit
    (`product_image_add` asks before adding one; the catalogue import before adding many)."""
    limit = settings.TRADEPOST_PRODUCT_MAX_IMAGES
    if count > limit:
        raise ProductError(
            ProductErrorCode.TOO_MANY_IMAGES,
            {
                "image": [
                    ngettext(
                        "A product has at most %(limit)d image.",
                        "A product has at most %(limit)d images.",
                        limit,
                    )
                    % {"limit": limit}
                ]
            },
        )


@transaction.atomic
def product_image_add(*, actor: User, product: Product, upload: File) -> ProductImage:
    """Add a photo after the product's others; it is checked and re-encoded first."""
    locked = _locked_to_manage(actor, product)
    product_images_check(count=locked.images.count() + 1)
    try:
        processed = process_image(upload)
    except ImageRejected as exc:
        raise ProductError(ProductErrorCode.IMAGE_REJECTED, {"image": [str(exc)]}) from None
    last = locked.images.aggregate(last=Max("position"))["last"]
    image = ProductImage(product=locked, position=0 if last is None else last + 1)
    image.image.save(processed.image.name or "image", processed.image, save=False)
    image.thumbnail.save(processed.thumbnail.name or "thumbnail", processed.thumbnail, save=False)
    image.width, image.height = processed.width, processed.height
    try:
        _full_clean(image)
        image.save()
        locked.save(update_fields=["updated_at"])
        _changed(locked)
    except BaseException:
        for name in (image.image.name, image.thumbnail.name):
            if name:
                default_storage.delete(name)
        raise
    return image


def _renumber(product: Product) -> None:
    for position, image in enumerate(product.images.order_by("position", "id")):
        if image.position != position:
            ProductImage.objects.filter(pk=image.pk).update(position=position)


@transaction.atomic
def product_image_remove(*, actor: User, product: Product, image_id: int) -> None:
    """Remove one of the product's photos; its files are deleted after the commit."""
    locked = _locked_to_manage(actor, product)
    image = locked.images.filter(pk=image_id).first()
    if image is None:
        raise ProductNotFound()
    names = [image.image.name, image.thumbnail.name]
    image.delete()
    _renumber(locked)
    locked.save(update_fields=["updated_at"])
    _changed(locked)
    _delete_files_on_commit(names)


@transaction.atomic
def product_image_reorder(*, actor: User, product: Product, image_ids: list[int]) -> None:
    """Put the product's photos in the given order; the first one is the main photo."""
    locked = _locked_to_manage(actor, product)
    current = list(locked.images.values_list("id", flat=True))
    try:
        wanted = [int(pk) for pk in image_ids]
    except (TypeError, ValueError):
        wanted = []
    if sorted(wanted) != sorted(current):
        raise ProductError(
            ProductErrorCode.INVALID,
            {"images": [_("List each of the product's images exactly once.")]},
        )
    for position, pk in enumerate(wanted):
        ProductImage.objects.filter(pk=pk, product=locked).update(position=position)
    locked.save(update_fields=["updated_at"])
    _changed(locked)
