"""The bad values: what goes into one field, what replaces a whole body, and bad uploads."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from enum import Enum

from PIL import Image

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
OVERLONG = "Double wall 保温 " * 7_000  # 105,000 characters, many bytes each
NESTING = 10_000


class Expect(Enum):
    REFUSED = "refused"  # a 4xx (on a page also the form again, or an error message), no write
    ANY = "any"  # accepted or refused, never a 5xx, never half-saved


@dataclass(frozen=True)
class FieldValue:
    """A bad value for one field, as JSON text (it may hold escapes no string can: "\\ud800")."""

    name: str
    json: str
    expect: Expect = Expect.REFUSED


#: Per kind of field (as the API schema describes it): the values to put in it.
FIELD_VALUES: dict[str, list[FieldValue]] = {
    "text": [
        FieldValue("surrogate", '"x\\ud800y"'),
        FieldValue("nul", '"x\\u0000y"'),
        FieldValue("overlong", '"' + OVERLONG + '"'),
        FieldValue("number", "12345"),
        FieldValue("list", '["FOB"]'),
        FieldValue("object", '{"a": "b"}'),
        FieldValue("null", "null", Expect.ANY),  # "leave it out" on a PATCH
    ],
    "number": [
        FieldValue("words", '"twelve"'),
        FieldValue("huge", "1" + "0" * 40),
        FieldValue("float-overflow", "1e400"),
        FieldValue("nan", "NaN"),
        FieldValue("list", "[1]"),
        FieldValue("object", '{"n": 1}'),
    ],
    "bool": [
        FieldValue("words", '"maybe"'),
        FieldValue("list", "[true]"),
    ],
    "list": [
        FieldValue("string", '"FOB"'),
        FieldValue("object", '{"a": 1}'),
    ],
}


@dataclass(frozen=True)
class Body:
    """A whole bad body: its bytes (built from the operation's valid body) and Content-Type."""

    name: str
    content_type: str


JSON = "application/json"

#: Bodies that replace a valid one. Their bytes are made by `api_cases.with_body`.
BAD_BODIES = [
    Body("truncated", JSON),
    Body("trailing-comma", JSON),
    Body("nested-10k", JSON),
    Body("nested-10k-in-a-field", JSON),
    Body("latin-1", JSON),
    Body("gbk", JSON),
    Body("huge", JSON),
    Body("empty", JSON),
    Body("top-level-list", JSON),
    Body("top-level-string", JSON),
    Body("top-level-null", JSON),
    Body("text-plain", "text/plain"),
    Body("form-encoded", "application/x-www-form-urlencoded"),
    Body("multipart-without-boundary", "multipart/form-data"),
]


def nested(depth: int = NESTING) -> str:
    return "[" * depth + "]" * depth


# --- uploads ----------------------------------------------------------------------------------


def png(width: int = 16, height: int = 16, *, noise: bool = False) -> bytes:
    image = Image.new("RGB", (width, height), (30, 120, 200))
    if noise:
        image = Image.effect_noise((width, height), 80).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def png_declaring(width: int, height: int) -> bytes:
    """A real small PNG whose header is rewritten to declare `width` × `height` pixels (with
    its checksum corrected): a decompression bomb's calling card in a few dozen bytes."""
    data = png(4, 4)
    start = 8  # after the signature; IHDR is always the first chunk
    length = struct.unpack(">I", data[start : start + 4])[0]
    body = bytearray(data[start + 8 : start + 8 + length])
    body[0:8] = struct.pack(">II", width, height)
    return data[:start] + _chunk(b"IHDR", bytes(body)) + data[start + 12 + length :]


@dataclass(frozen=True)
class Upload:
    name: str
    filename: str
    content: bytes
    #: A pattern of the refusal, in English (every endpoint's wording may differ).
    says: str
    #: ... where a catalogue sheet (CSV or XLSX) is expected instead of a picture or a PDF.
    says_sheet: str = ""


#: The limit the "oversized" upload is over: the tests lower the upload limits to it.
SMALL_LIMIT = 1024 * 1024

UPLOADS = [
    Upload(
        "text-named-png",
        "photo.png",
        b"This is a plain text file, not a picture.\n" * 20,
        r"not a valid image|not a PDF|Only PDF",
        r"must be the SKU",  # text is CSV: its first row names no SKU column
    ),
    Upload(
        "truncated-png",
        "photo.png",
        png(64, 64, noise=True)[:2000],
        r"not a valid image|not a PDF|Only PDF",
        r"not a CSV or XLSX file",
    ),
    Upload(
        "bomb-png",
        "bomb.png",
        png_declaring(30_000, 30_000),
        r"pixels",
        r"not a CSV or XLSX file",
    ),
    Upload(
        "too-many-pixels-png",
        "big.png",
        png_declaring(6_000, 6_000),
        r"pixels",
        r"not a CSV or XLSX file",
    ),
    Upload("zero-bytes", "empty.png", b"", r"empty", r"empty"),
    Upload(
        "oversized",
        "huge.png",
        png(16, 16) + b"\0" * (SMALL_LIMIT + 1),
        r"too large|larger than",
        r"larger than",
    ),
]


def catalogue_csv() -> bytes:
    """A valid catalogue of one product (the import's upload)."""
    return (
        b"SKU,Title,Category,Minimum order quantity,Unit\n"
        b"VF-BAD-INPUT-NEW,Vacuum flask 750 ml,home-garden-vacuum-flasks,100,pieces\n"
    )


def pictures_zip() -> bytes:
    """A ZIP of one picture (the import's pictures)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("flask.png", png())
    return buffer.getvalue()
