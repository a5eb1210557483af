"""Reading a catalogue file: what it is (CSV or XLSX, by its content), which encoding a CSV
is written in, and its rows, one at a time, as lists of text cells.

The encoding is found with charset-normalizer among those a supplier's computer writes: UTF-8
with or without a byte-order mark, UTF-16 (Excel's "Unicode text"), GB18030 (GBK and GB2312
are parts of it), Big5, Big5-HKSCS, Shift JIS and Windows-1252. Restricting the candidates is
what makes short files right: among every code page, a line of Chinese is often also
"valid" Korean or Thai. The uploader sees the encoding found and may choose another.

Limits (docs/operations.md): the file's size (`TRADEPOST_IMPORT_MAX_BYTES`), its rows
(`TRADEPOST_IMPORT_MAX_ROWS`), a cell's length (`CELL_MAX_CHARACTERS`) and, for an XLSX
file (a ZIP of XML), what it unpacks to (`TRADEPOST_IMPORT_MAX_UNPACKED_BYTES`) and how many
parts it has; each refused with a message that says which.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import logging
import signal
import subprocess
import sys
import tempfile
from collections.abc import Generator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from itertools import chain
from typing import IO, Any

from charset_normalizer import from_bytes
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.core.cleaning import storable
from tradepost.core.private_files import megabytes
from tradepost.core.spreadsheets import unguarded
from tradepost.imports import xlsx

logger = logging.getLogger(__name__)

#: The encodings detection chooses among, and the uploader may choose from (labels shown).
ENCODINGS: dict[str, Any] = {
    "utf-8": "UTF-8",
    "utf-8-sig": gettext_lazy("UTF-8 with a byte-order mark"),
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16 LE",
    "utf-16-be": "UTF-16 BE",
    "gb18030": "GB18030 (GBK, GB2312)",
    "big5": "Big5",
    "big5hkscs": "Big5-HKSCS",
    "shift_jis": "Shift JIS",
    "cp1252": "Windows-1252",
}
#: What charset-normalizer weighs (its names for the same encodings).
_CANDIDATES = ["utf_8", "utf_16", "gb18030", "big5", "big5hkscs", "shift_jis", "cp1252"]
#: Bytes looked at to find the encoding (then the whole file is read in it).
DETECTION_BYTES = 256 * 1024
#: The longest cell read (a description may be sent with up to 100,000 characters, which the
#: service then refuses for its length; beyond this the file is refused).
CELL_MAX_CHARACTERS = 200_000
#: An XLSX file has at most this many parts.
XLSX_MAX_PARTS = 10_000
#: An XLSX file's shared strings (its texts), in number and in characters all together;
#: its columns with a value, and its cells (empty ones included).
XLSX_MAX_SHARED_STRINGS = 1_000_000
XLSX_MAX_SHARED_CHARACTERS = 50_000_000
XLSX_MAX_COLUMNS = 256
XLSX_MAX_CELLS = 20_000_000
#: During the upload's request a workbook is only sniffed (`imports.xlsx.sniff`): its first
#: row, within this many unpacked bytes; its rows are counted only when its sheet and texts
#: unpack to at most XLSX_COUNT_BYTES (else the background counts them); in this CPU time.
XLSX_SNIFF_BYTES = 1024 * 1024
XLSX_COUNT_BYTES = 2 * 1024 * 1024
SNIFF_SECONDS = 2
#: Bytes written to the reader's standard input at a time.
_FEED_BYTES = 1024 * 1024

_SIGNATURES = (
    (b"\xd0\xcf\x11\xe0", "xls"),
    (b"%PDF-", "pdf"),
    (b"\x89PNG", "image"),
    (b"\xff\xd8\xff", "image"),
    (b"GIF8", "image"),
    (b"RIFF", "image"),
)


class FileRejected(ValueError):
    """The file cannot be read as a catalogue; the message says why, to the uploader."""


@dataclass(frozen=True)
class Row:
    """A row of the sheet: its number as a spreadsheet shows it (the header is row 1), its
    cells as text, and the positions of cells that held a formula (XLSX) or characters no
    text may hold (`core.cleaning.storable`: lone surrogates replaced by U+FFFD)."""

    line: int
    cells: list[str]
    formulas: tuple[int, ...] = ()


def max_bytes() -> int:
    return int(settings.TRADEPOST_IMPORT_MAX_BYTES)


def max_rows() -> int:
    return int(settings.TRADEPOST_IMPORT_MAX_ROWS)


def sniff_format(head: bytes, name: str) -> str:
    """ "xlsx" or "csv", from the file's first bytes; anything else is refused."""
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            if kind == "xls":
                raise FileRejected(
                    _(
                        "%(name)s is an old Excel file (.xls). Save it as an Excel workbook "
                        "(.xlsx) or as CSV, then upload it again."
                    )
                    % {"name": name}
                )
            raise FileRejected(_("%(name)s is not a CSV or XLSX file.") % {"name": name})
    return "csv"


# --- encodings -------------------------------------------------------------------------------


def _codec_name(name: str) -> str:
    return codecs.lookup(name).name


def _sample(data: bytes) -> bytes:
    """The first DETECTION_BYTES, cut after a line's end so that no character is cut."""
    if len(data) <= DETECTION_BYTES:
        return data
    cut = data.rfind(b"\n", 0, DETECTION_BYTES)
    return data[: cut + 1] if cut > 0 else data[:DETECTION_BYTES]


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without a byte-order mark: a NUL in most even (BE) or odd (LE) places of text
    that is mostly ASCII, as CSV punctuation and digits are."""
    sample = data[:4096]
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    even = sample[0::2].count(0) / len(sample[0::2])
    odd = sample[1::2].count(0) / len(sample[1::2])
    if odd > 0.3 and even < 0.05:
        return "utf-16-le"
    if even > 0.3 and odd < 0.05:
        return "utf-16-be"
    return None


def _utf8(sample: bytes) -> bool:
    """Whether the sample is UTF-8 (a character cut at its end allowed), or nearly: a file
    of UTF-8 with a few broken bytes (read as U+FFFD, which the preview flags)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(sample, final=False)
    broken = text.count("\ufffd")
    if not broken:
        return True
    sound = sum(1 for char in text if ord(char) > 127) - broken
    return sound >= 3 and broken / (sound + broken) <= 0.05


#: A Chinese reading is plausible when at most this share of its Chinese characters are
#: outside everyday use (the wrong one of GBK and Big5 reads mostly rare characters).
PLAUSIBLE_RARE_SHARE = 0.15


def _normal(name: str | None) -> str | None:
    if name is None:
        return None
    name = _codec_name(name)
    return "gb18030" if name in ("gbk", "gb2312") else name


def _chinese_readings(sample: bytes) -> dict[str, float]:
    """GB18030 and Big5 readings of the sample that give Chinese characters mostly in
    everyday use, with their share of rare ones."""
    from tradepost.core.garbled import rare_share

    readings: dict[str, float] = {}
    for name in ("gb18030", "big5"):
        try:
            text = codecs.getincrementaldecoder(name)().decode(sample, final=False)
        except UnicodeDecodeError:
            continue
        share, han = rare_share(text)
        if han and share <= PLAUSIBLE_RARE_SHARE:
            readings[name] = share
    return readings


def detect_encoding(data: bytes) -> str:
    """The encoding a CSV file is written in (a Python codec name, one of ENCODINGS).

    Byte-order marks first; then UTF-16 without one, and strict UTF-8. Then the Chinese
    encodings: GB18030 and Big5 are tried, and one that reads the bytes as characters in
    everyday use is taken (when both do, as they may for a line or two, charset-normalizer
    decides between them). Else charset-normalizer chooses among all the candidates."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    without_bom = _utf16_without_bom(data)
    if without_bom:
        return without_bom
    sample = _sample(data)
    if _utf8(sample):
        return "utf-8"
    readings = _chinese_readings(sample)
    if len(readings) == 1:
        return next(iter(readings))
    if readings:
        best = from_bytes(sample, cp_isolation=["gb18030", "big5"]).best()
        choice = _normal(best.encoding) if best is not None else None
        least = min(readings.values())
        if choice in readings and readings[choice] <= least + 0.05:
            return str(choice)
        return min(readings, key=lambda name: readings[name])
    best = from_bytes(sample, cp_isolation=_CANDIDATES).best()
    name = _normal(best.encoding) if best is not None else None
    return name if name in ENCODINGS else "utf-8"


def encoding_label(name: str) -> str:
    return str(ENCODINGS.get(name, name))


# --- rows ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    """A cell as text: numbers as a person writes them (12.0 -> 12), `core.cleaning.storable`
    (NUL characters dropped, lone surrogates replaced by U+FFFD: a rejected row's cells are
    stored as read), a formula guard (`core.spreadsheets`) undone."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, int):
        return str(value)
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return unguarded(storable(str(value)))


def _delimiter(first_line: str) -> str:
    counts = {delimiter: first_line.count(delimiter) for delimiter in (",", "\t", ";")}
    return max(counts, key=lambda delimiter: counts[delimiter])


def csv_rows(stream: IO[bytes], encoding: str) -> Generator[Row, None, None]:
    """The rows of a CSV file read in `encoding` (bytes it cannot read become U+FFFD, which
    the preview flags). Empty rows are skipped, their numbers kept."""
    text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="")
    try:
        first = text.readline()
        if first.startswith("\ufeff"):
            first = first[1:]
        delimiter = _delimiter(first)
        csv.field_size_limit(CELL_MAX_CHARACTERS)
        reader = csv.reader(chain([first], text), delimiter=delimiter)
        number = 0
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error:
                raise FileRejected(
                    _(
                        "Row %(row)d has a cell longer than %(limit)d characters, or quotes "
                        "that are not closed."
                    )
                    % {"row": number + 1, "limit": CELL_MAX_CHARACTERS}
                ) from None
            number += 1
            if any(cell.strip() for cell in cells):
                yield Row(number, [_text(cell) for cell in cells])
    finally:
        text.detach()  # the caller's file stays open


# --- XLSX: read in a process of its own (`imports.xlsx`) -------------------------------------


def xlsx_limits(**changes: int) -> xlsx.Limits:
    """What reading one workbook may cost (docs/operations.md, "Catalogue import")."""
    values = {
        "rows": max_rows(),
        "columns": XLSX_MAX_COLUMNS,
        "cell_characters": CELL_MAX_CHARACTERS,
        "shared_strings": XLSX_MAX_SHARED_STRINGS,
        "shared_characters": XLSX_MAX_SHARED_CHARACTERS,
        "cells": XLSX_MAX_CELLS,
        "parts": XLSX_MAX_PARTS,
        "sniff_bytes": XLSX_SNIFF_BYTES,
        "count_bytes": XLSX_COUNT_BYTES,
        "unpacked_bytes": int(settings.TRADEPOST_IMPORT_MAX_UNPACKED_BYTES),
        "file_bytes": max_bytes(),
        "memory_bytes": int(settings.TRADEPOST_IMPORT_READER_MEMORY_MB) * 1024 * 1024,
        "cpu_seconds": int(settings.TRADEPOST_IMPORT_READER_SECONDS),
    }
    values.update(changes)
    return xlsx.Limits(**values)


def _refusal(code: str, numbers: dict[str, int], name: str) -> FileRejected:
    """A refusal of the reader, in the uploader's language."""
    limit = numbers.get("limit", 0)
    values = {"name": name, "limit": limit, **numbers}
    if code in ("unpacks_too_much", "too_many_parts"):
        values["limit"] = megabytes(int(settings.TRADEPOST_IMPORT_MAX_UNPACKED_BYTES))
        message = _("%(name)s unpacks to more than %(limit)d MB; split it into smaller files.")
    elif code == "file_too_large":
        values["limit"] = megabytes(limit)
        message = _("%(name)s is larger than %(limit)d MB; split it into smaller files.")
    elif code == "cell_too_long" and numbers.get("row"):
        message = _("Row %(row)d has a cell longer than %(limit)d characters.")
    elif code == "cell_too_long":
        message = _("%(name)s holds a text longer than %(limit)d characters.")
    elif code == "too_many_rows":
        message = _("The file has more than %(limit)d rows; split it into smaller files.")
    elif code == "too_many_columns":
        message = _(
            "Row %(row)d has a value in column %(column)d; a catalogue has at most %(limit)d "
            "columns."
        )
    elif code == "too_many_strings":
        message = _(
            "%(name)s holds more than %(limit)d different texts; split it into smaller files."
        )
    elif code == "strings_too_long":
        message = _(
            "The texts of %(name)s are longer than %(limit)d characters in all; split it "
            "into smaller files."
        )
    elif code == "too_many_cells":
        message = _(
            "%(name)s has more than %(limit)d cells, empty ones included; split it into "
            "smaller files."
        )
    elif code in ("memory", "time"):
        message = _(
            "%(name)s takes more memory or time to read than a catalogue may; split it into "
            "smaller files."
        )
    else:
        message = _("%(name)s is not a valid XLSX file.")
    return FileRejected(message % values)


@contextmanager
def _reader(
    stream: IO[bytes], mode: str, limits: xlsx.Limits, name: str
) -> Iterator[Iterator[dict[str, Any]]]:
    """The reader's messages (`imports.xlsx.main`), read as it writes them; a reader that
    ends without saying why (killed past its CPU time, or its memory) is a refusal too."""
    command = [sys.executable, "-I", xlsx.__file__, mode, json.dumps(asdict(limits))]
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            _feed(stream, process.stdin)
            yield _messages(process, errors, name)
        finally:
            process.kill()
            process.wait()
            process.stdout.close()


def _feed(stream: IO[bytes], into: IO[bytes]) -> None:
    """The whole file to the reader, which reads all of it before it answers."""
    stream.seek(0)
    try:
        while chunk := stream.read(_FEED_BYTES):
            into.write(chunk)
    except BrokenPipeError:  # the reader stopped reading: it says why
        pass
    finally:
        stream.seek(0)
        with suppress(BrokenPipeError):
            into.close()


def _messages(process: Any, errors: IO[bytes], name: str) -> Iterator[dict[str, Any]]:
    for line in process.stdout:
        message = json.loads(line)
        if "refused" in message or message.get("end"):
            logger.info(
                "XLSX reader of %s: %s, cost %s",
                name,
                message.get("refused") or "read",
                message.get("cost"),
                extra={"reader_cost": message.get("cost")},
            )
        if "refused" in message:
            raise _refusal(str(message["refused"]), dict(message.get("numbers") or {}), name)
        if message.get("end"):
            return
        yield message
    status = process.wait()
    errors.seek(0)
    logger.warning(
        "The XLSX reader of %s ended (status %s) without a word: %s",
        name,
        status,
        errors.read(2000).decode("utf-8", "replace"),
    )
    raise _refusal("time" if status in (-signal.SIGXCPU, -signal.SIGKILL) else "memory", {}, name)


def xlsx_sniff(stream: IO[bytes], name: str) -> xlsx.Sniff:
    """The first row and the size of a workbook, at a bounded cost (`imports.xlsx.sniff`),
    or FileRejected."""
    limits = xlsx_limits(cpu_seconds=SNIFF_SECONDS)
    sniffed = None
    with _reader(stream, "sniff", limits, name) as messages:
        for message in messages:  # the sniff, then the end (with its cost, logged)
            sniffed = xlsx.Sniff(**message["sniff"])
    if sniffed is None:
        raise _refusal("not_xlsx", {}, name)
    return sniffed


def xlsx_rows(stream: IO[bytes], name: str) -> Generator[Row, None, None]:
    """The rows of the workbook's first sheet (a formula cell is read as empty, its position
    noted: the preview refuses it). Empty rows are skipped, their numbers kept."""
    with _reader(stream, "rows", xlsx_limits(), name) as messages:
        for message in messages:
            values = [_text(cell) for cell in message["cells"]]
            formulas = tuple(message["formulas"])
            if any(value.strip() for value in values) or formulas:
                yield Row(int(message["row"]), values, formulas)


def rows_of(
    stream: IO[bytes], *, file_format: str, encoding: str, name: str
) -> Generator[Row, None, None]:
    if file_format == "xlsx":
        return xlsx_rows(stream, name)
    return csv_rows(stream, encoding)


def estimate_rows(stream: IO[bytes]) -> int:
    """About how many rows a CSV file has, cheaply: its line ends. In UTF-16 some characters
    hold a line-feed byte too, so this may count more, never fewer (more only sends a file
    to the background sooner)."""
    try:
        count = 0
        while chunk := stream.read(1024 * 1024):
            count += chunk.count(b"\n")
        return count
    finally:
        stream.seek(0)
