"""Pictures for uploads: small PNGs, and PNGs that declare more pixels than they carry."""

from __future__ import annotations

import io
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image


def png_bytes(
    width: int = 32,
    height: int = 32,
    *,
    noise: bool = False,
    colour=(200, 80, 20),
    band: tuple[int, int, int, int] | None = None,
    band_colour=(240, 240, 240),
) -> bytes:
    """A PNG of one colour (or noise); `band` (left, top, right, bottom; right and bottom
    excluded) a rectangle of `band_colour` drawn on it, for a picture that is not blank."""
    image = Image.new("RGB", (width, height), colour)
    if noise:
        image = Image.effect_noise((width, height), 80).convert("RGB")
    if band is not None:
        image.paste(band_colour, band)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def image_upload(name: str = "photo.png", data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes() if data is None else data, "image/png")


def png_chunk(kind: bytes, body: bytes) -> bytes:
    """One PNG chunk: length, kind, body and its checksum."""
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def bomb_png_header(width: int = 40_000, height: int = 40_000) -> bytes:
    """A PNG whose header declares a huge picture; the pixel data is a token few bytes."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + png_chunk(b"IEND", b"")
    )


def real_png(width: int, height: int) -> bytes:
    """A whole, valid PNG of `width` × `height` grey pixels, made in a fraction of a second
    and a few hundred KB however many pixels it declares: the rows are compressed once, in
    blocks that each end with a full flush (so they stand alone), and the block is repeated;
    the checksums are the real ones, so Pillow could decode every pixel."""
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
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", data)
        + png_chunk(b"IEND", b"")
    )
