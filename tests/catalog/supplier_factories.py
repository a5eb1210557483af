"""Helpers for the tests of the supplier's product services, dashboard pages and API."""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from tests.factories import add_member, leaf_category, make_company, make_operator, make_user
from tradepost.catalog.models import HSCode, Product
from tradepost.companies.models import Company, Role

#: Who tries, and whether they may manage the target company's products.
ROLES = ["anonymous", "other_company", "member", "admin", "owner", "operator"]
ALLOWED_ROLES = {"member", "admin", "owner", "operator"}


@dataclass
class Cast:
    """A company with an owner, an admin and a member; a stranger from another company;
    an operator."""

    company: Company
    other_company: Company
    users: dict[str, Any]

    def actor(self, role: str) -> Any:
        return self.users[role]


def make_cast() -> Cast:
    owner = make_user()
    company = make_company(owner=owner)
    stranger = make_user()
    other_company = make_company(owner=stranger)
    return Cast(
        company=company,
        other_company=other_company,
        users={
            "anonymous": AnonymousUser(),
            "other_company": stranger,
            "member": add_member(company, role=Role.MEMBER),
            "admin": add_member(company, role=Role.ADMIN),
            "owner": owner,
            "operator": make_operator(),
        },
    )


def ensure_hs_code(code: str = "961730") -> str:
    """An HS code the reference table knows (added when the shipped list is not loaded)."""
    for length in (2, 4, 6):
        part = code[:length]
        HSCode.objects.get_or_create(
            code=part,
            defaults={
                "description": f"Test heading {part}",
                "level": length,
                "parent_id": code[: length - 2] if length > 2 else None,
            },
        )
    return code


def valid_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "title": "Stainless steel vacuum flask 500 ml",
        "description": "<p>Double wall, keeps drinks hot for 12 hours.</p>",
        "category_id": leaf_category().pk,
        "keywords": "thermos, bottle",
        "attributes": [{"name": "Material", "value": "304 steel"}],
        "moq": Decimal("500"),
        "moq_unit": "pieces",
        "price_min": Decimal("2.10"),
        "price_max": Decimal("3.40"),
        "currency": "USD",
        "incoterms": ["FOB", "EXW"],
        "port_of_loading": "Ningbo",
        "payment_terms": ["tt", "lc"],
        "lead_time_days": 30,
        "hs_code": "",
        "origin_country": "CN",
        "original_language": "en",
    }
    fields.update(overrides)
    return fields


def snapshot(product: Product) -> dict[str, Any]:
    """Everything stored about a product, to compare before and after a refused write."""
    fresh = Product.objects.get(pk=product.pk)
    data = {f.attname: getattr(fresh, f.attname) for f in Product._meta.concrete_fields}
    data["images"] = sorted(fresh.images.values_list("id", "position", "image"))
    data["translations"] = sorted(fresh.translations.values_list("language", "title"))
    return data


def png_bytes(width: int = 32, height: int = 32, *, noise: bool = False) -> bytes:
    image = Image.new("RGB", (width, height), (200, 80, 20))
    if noise:
        image = Image.effect_noise((width, height), 80).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def image_upload(name: str = "photo.png", data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes() if data is None else data, "image/png")


def bomb_png_header(width: int = 40_000, height: int = 40_000) -> bytes:
    """A PNG whose header declares a huge picture; the pixel data is a token few bytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def real_png(width: int, height: int) -> bytes:
    """A whole, valid PNG of `width` × `height` grey pixels, made in a fraction of a second
    and a few hundred KB however many pixels it declares: the rows are compressed once, in
    blocks that each end with a full flush (so they stand alone), and the block is repeated;
    the checksums are the real ones, so Pillow could decode every pixel."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    row = b"\x00" + b"\x80" * width  # filter "none", then mid-grey
    rows_per_block = max(1, min(height, 500))
    blocks, rest = divmod(height, rows_per_block)
    block = row * rows_per_block
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(blocks):
        checksum = zlib.adler32(block, checksum)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15)
    ending = tail.compress(row * rest) + tail.flush(zlib.Z_FINISH)
    checksum = zlib.adler32(row * rest, checksum)
    data = b"\x78\xda" + segment * blocks + ending + struct.pack(">I", checksum)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )
