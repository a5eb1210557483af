"""Validation and re-encoding of uploaded images (logos, product photos).

Every upload is opened with Pillow, checked against byte and pixel limits, and re-encoded,
so what is stored is a real image with no metadata and a random name.
"""

from __future__ import annotations

import io
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

ALLOWED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}
THUMBNAIL_SIZE = (360, 360)
MAX_STORED_EDGE = 2000


class ImageRejected(ValueError):
    """The upload is not an acceptable image; the message is for the user. `not_an_image`: the
    file is no image this site reads (rather than an image too large, in bytes or pixels)."""

    def __init__(self, message: str, *, not_an_image: bool = False) -> None:
        super().__init__(message)
        self.not_an_image = not_an_image


@dataclass(frozen=True)
class ProcessedImage:
    image: ContentFile
    thumbnail: ContentFile
    width: int
    height: int


def _random_name(extension: str) -> str:
    return f"{secrets.token_hex(16)}.{extension}"


def process_image(upload, *, max_bytes: int | None = None) -> ProcessedImage:
    """Validate an uploaded file and return re-encoded full-size and thumbnail files."""
    max_bytes = max_bytes or settings.TRADEPOST_IMAGE_MAX_BYTES
    size = getattr(upload, "size", None)
    if size is None:
        data = upload.read()
        size = len(data)
        upload = io.BytesIO(data)
    if size > max_bytes:
        raise ImageRejected(
            _("The image is too large (%(size)d KB); the limit is %(limit)d KB.")
            % {"size": size // 1024, "limit": max_bytes // 1024}
        )
    if size == 0:
        raise ImageRejected(_("The image file is empty."))
    try:
        upload.seek(0)
        with Image.open(upload) as probe:
            image_format = probe.format
            width, height = probe.size
            if width * height > settings.TRADEPOST_IMAGE_MAX_PIXELS:
                raise ImageRejected(
                    _("The image has too many pixels (%(w)d × %(h)d).") % {"w": width, "h": height}
                )
            probe.verify()
        upload.seek(0)
        with Image.open(upload) as opened:
            opened.load()
            transposed = ImageOps.exif_transpose(opened)
            has_alpha = transposed.mode in ("RGBA", "LA", "P") and image_format in {
                "PNG",
                "WEBP",
                "GIF",
            }
            img: Image.Image = transposed.convert("RGBA" if has_alpha else "RGB")
    except ImageRejected:
        raise
    except Image.DecompressionBombError:
        # Pillow's own limit, far above ours, refuses the header before our check sees it.
        raise ImageRejected(
            _("The image has too many pixels; at most %(limit)d million are accepted.")
            % {"limit": max(1, settings.TRADEPOST_IMAGE_MAX_PIXELS // 1_000_000)}
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise ImageRejected(_("The file is not a valid image."), not_an_image=True) from None
    if image_format not in ALLOWED_FORMATS:
        raise ImageRejected(
            _("Only JPEG, PNG, WebP and GIF images are accepted."), not_an_image=True
        )

    img.thumbnail((MAX_STORED_EDGE, MAX_STORED_EDGE))
    extension = "png" if has_alpha else "jpg"
    full = _encode(img, extension)
    thumb_img = img.copy()
    thumb_img.thumbnail(THUMBNAIL_SIZE)
    thumb = _encode(thumb_img, extension)
    return ProcessedImage(
        image=ContentFile(full, name=_random_name(extension)),
        thumbnail=ContentFile(thumb, name=_random_name(extension)),
        width=img.width,
        height=img.height,
    )


def check_image(data: bytes, *, max_bytes: int | None = None) -> None:
    """Refuse (ImageRejected) what `process_image` refuses: for files kept as they were sent
    (message attachments), which must still be whole images within the pixel limit."""
    process_image(io.BytesIO(data), max_bytes=max_bytes)


def _encode(img: Image.Image, extension: str) -> bytes:
    buffer = io.BytesIO()
    if extension == "png":
        img.save(buffer, format="PNG", optimize=True)
    else:
        img.save(buffer, format="JPEG", quality=85, optimize=True)
    return buffer.getvalue()
