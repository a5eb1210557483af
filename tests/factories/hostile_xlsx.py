"""Hostile XLSX files: what a malicious supplier may upload to the catalogue import.

Each builder returns the bytes of an .xlsx file (a ZIP of XML parts) written by hand with
`zipfile`: a minimal workbook (`[Content_Types].xml`, `_rels/.rels`, `xl/workbook.xml`,
`xl/_rels/workbook.xml.rels`, `xl/worksheets/sheet1.xml`, `xl/sharedStrings.xml` when the
builder needs one) whose first row is a valid catalogue header ("SKU", "Title", "Listing
language", "Category"), so that a file passes a header check and the attack lies further on.

Every part is streamed into the ZIP in chunks: no builder holds the unpacked XML in memory
(the 800 MB string bomb is built in a few MB). What is held is the compressed file.

Each builder's defaults reproduce the real attack (`FULL`, for `bench/hostile_uploads.py`);
`CORPUS` holds the same attacks at small sizes for unit tests (each built in well under half
a second, under 2 MB). `DAMAGED` names those that are no sound ZIP by design.

Standard library only.
"""

from __future__ import annotations

import functools
import io
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Final, Literal
from xml.sax.saxutils import escape

#: The catalogue's header row (English column names) and a valid data row for it.
HEADER: Final = ("SKU", "Title", "Listing language", "Category")
VALID_ROW: Final = ("HX-1", "Stainless steel vacuum flask", "en", "home-garden-vacuum-flasks")

#: The largest sheet Excel writes: 16,384 columns (A to XFD), 1,048,576 rows.
MAX_COLUMNS: Final = 16_384
MAX_ROWS: Final = 1_048_576

MB: Final = 1024 * 1024
GIB: Final = 1024**3
#: The size of the chunks written into a ZIP member.
CHUNK: Final = MB

_MAIN: Final = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_OFFICE: Final = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE: Final = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPES: Final = "http://schemas.openxmlformats.org/package/2006/content-types"
_SPREADSHEET: Final = "application/vnd.openxmlformats-officedocument.spreadsheetml"
_DECLARATION: Final = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_SHEET_OPEN: Final = f'<worksheet xmlns="{_MAIN}" xmlns:r="{_OFFICE}">'.encode()
_SHEET_CLOSE: Final = b"</worksheet>"

SHEET: Final = "xl/worksheets/sheet1.xml"
SHARED_STRINGS: Final = "xl/sharedStrings.xml"

Chunks = bytes | Iterable[bytes]


# --- the package -----------------------------------------------------------------------------


def _content_types(shared_strings: bool) -> bytes:
    overrides = [
        ("/xl/workbook.xml", f"{_SPREADSHEET}.sheet.main+xml"),
        ("/" + SHEET, f"{_SPREADSHEET}.worksheet+xml"),
    ]
    if shared_strings:
        overrides.append(("/" + SHARED_STRINGS, f"{_SPREADSHEET}.sharedStrings+xml"))
    return (
        _DECLARATION
        + f'<Types xmlns="{_TYPES}">'
        '<Default Extension="rels" '
        'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'.encode()
        + "".join(
            f'<Override PartName="{part}" ContentType="{kind}"/>' for part, kind in overrides
        ).encode()
        + b"</Types>"
    )


def _package_rels() -> bytes:
    return (
        _DECLARATION
        + f'<Relationships xmlns="{_PACKAGE}"><Relationship Id="rId1" '
        f'Type="{_OFFICE}/officeDocument" Target="xl/workbook.xml"/></Relationships>'.encode()
    )


def _workbook_xml() -> bytes:
    return (
        _DECLARATION
        + f'<workbook xmlns="{_MAIN}" xmlns:r="{_OFFICE}"><sheets>'
        '<sheet name="Products" sheetId="1" r:id="rId1"/></sheets></workbook>'.encode()
    )


def _workbook_rels(shared_strings: bool) -> bytes:
    relationships = (
        f'<Relationship Id="rId1" Type="{_OFFICE}/worksheet" Target="worksheets/sheet1.xml"/>'
    )
    if shared_strings:
        relationships += (
            f'<Relationship Id="rId2" Type="{_OFFICE}/sharedStrings" Target="sharedStrings.xml"/>'
        )
    return (
        _DECLARATION + f'<Relationships xmlns="{_PACKAGE}">{relationships}</Relationships>'.encode()
    )


def _write_part(archive: zipfile.ZipFile, name: str, data: Chunks) -> None:
    """One member, its chunks written one after another (never joined)."""
    with archive.open(name, "w", force_zip64=True) as member:
        if isinstance(data, bytes | bytearray | memoryview):
            member.write(data)
            return
        for chunk in data:
            member.write(chunk)


def _package(
    sheet_xml: Chunks,
    shared_strings_xml: Chunks | None,
    extra: dict[str, bytes] | None,
    *,
    compression: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    shared = shared_strings_xml is not None
    parts: dict[str, Chunks] = {
        "[Content_Types].xml": _content_types(shared),
        "_rels/.rels": _package_rels(),
        "xl/workbook.xml": _workbook_xml(),
        "xl/_rels/workbook.xml.rels": _workbook_rels(shared),
        SHEET: sheet_xml,
    }
    if shared_strings_xml is not None:
        parts[SHARED_STRINGS] = shared_strings_xml
    parts.update(extra or {})
    buffer = io.BytesIO()
    level = 9 if compression == zipfile.ZIP_DEFLATED else None
    with zipfile.ZipFile(buffer, "w", compression, compresslevel=level) as archive:
        for name, data in parts.items():
            _write_part(archive, name, data)
    return buffer.getvalue()


def workbook(
    sheet_xml: bytes | Iterable[bytes],
    shared_strings_xml: bytes | Iterable[bytes] | None = None,
    extra: dict[str, bytes] | None = None,
) -> bytes:
    """The bytes of an .xlsx file whose one sheet is `sheet_xml` (and shared strings
    `shared_strings_xml`), each given whole or as an iterable of chunks that is streamed into
    its member (ZIP_DEFLATED, level 9, ZIP64 local headers). `extra` adds parts, or replaces
    a standard one of the same name."""
    return _package(sheet_xml, shared_strings_xml, extra)


# --- XML pieces ------------------------------------------------------------------------------


def column_letter(number: int) -> str:
    """The letters of a column (1 is "A", 16,384 is "XFD")."""
    letters = ""
    while number > 0:
        number, remainder = divmod(number - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def inline_cell(reference: str, text: str) -> bytes:
    return f'<c r="{reference}" t="inlineStr"><is><t>{escape(text)}</t></is></c>'.encode()


def shared_cell(reference: str, index: int) -> bytes:
    return f'<c r="{reference}" t="s"><v>{index}</v></c>'.encode()


def number_cell(reference: str, value: int) -> bytes:
    return f'<c r="{reference}"><v>{value}</v></c>'.encode()


def row(number: int, cells: Iterable[bytes]) -> bytes:
    return f'<row r="{number}">'.encode() + b"".join(cells) + b"</row>"


def inline_row(number: int, texts: Sequence[str]) -> bytes:
    """A row of inline strings, from column A."""
    return row(
        number,
        (inline_cell(f"{column_letter(n)}{number}", text) for n, text in enumerate(texts, 1)),
    )


def shared_row(number: int, indexes: Sequence[int]) -> bytes:
    """A row of shared strings (by their index), from column A."""
    return row(
        number,
        (shared_cell(f"{column_letter(n)}{number}", index) for n, index in enumerate(indexes, 1)),
    )


def header_row() -> bytes:
    return inline_row(1, HEADER)


def _sheet_head(dimension: str | None = None) -> bytes:
    head = _DECLARATION + _SHEET_OPEN
    if dimension is not None:
        head += f'<dimension ref="{dimension}"/>'.encode()
    return head + b"<sheetData>"


def sheet(rows: Iterable[bytes], *, dimension: str | None = None) -> Iterator[bytes]:
    """A worksheet's XML, in chunks: the rows (already XML) batched into chunks of about
    CHUNK bytes."""
    yield _sheet_head(dimension)
    yield from batched(rows)
    yield b"</sheetData>" + _SHEET_CLOSE


def batched(pieces: Iterable[bytes], size: int = CHUNK) -> Iterator[bytes]:
    """Small pieces joined into chunks of about `size` bytes (fewer, larger writes)."""
    pending: list[bytes] = []
    held = 0
    for piece in pieces:
        pending.append(piece)
        held += len(piece)
        if held >= size:
            yield b"".join(pending)
            pending, held = [], 0
    if pending:
        yield b"".join(pending)


def repeated(unit: bytes, count: int, size: int = CHUNK) -> Iterator[bytes]:
    """`unit` `count` times, in chunks of about `size` bytes (one chunk built, yielded again
    and again)."""
    if count <= 0:
        return
    per_chunk = max(1, size // max(1, len(unit)))
    block = unit * min(per_chunk, count)
    full, rest = divmod(count, per_chunk)
    for _ in range(full):
        yield block
    if rest:
        yield unit * rest


def padding(size: int, unit: bytes = b" ") -> Iterator[bytes]:
    """`size` bytes of `unit` (one byte), in chunks."""
    return repeated(unit, size)


def _shared_strings(
    items: Iterable[bytes], *, count: int | None, unique: int | None
) -> Iterator[bytes]:
    attributes = ""
    if count is not None:
        attributes += f' count="{count}"'
    if unique is not None:
        attributes += f' uniqueCount="{unique}"'
    yield _DECLARATION + f'<sst xmlns="{_MAIN}"{attributes}>'.encode()
    yield from batched(items)
    yield b"</sst>"


def _si(text: str) -> bytes:
    return f"<si><t>{escape(text)}</t></si>".encode()


def _valid_sheet_xml(rows: int = 1) -> bytes:
    """A small valid sheet, whole: the header and `rows` valid rows."""
    return b"".join(sheet([header_row(), *_data_rows(rows)], dimension=f"A1:D{rows + 1}"))


def _data_rows(rows: int, first: int = 2) -> Iterator[bytes]:
    """`rows` valid catalogue rows of inline strings (SKUs HX-1, HX-2, ...)."""
    _sku, title, language, category = VALID_ROW
    for n in range(rows):
        number = first + n
        yield (
            f'<row r="{number}">'
            f'<c r="A{number}" t="inlineStr"><is><t>HX-{n + 1}</t></is></c>'
            f'<c r="B{number}" t="inlineStr"><is><t>{title} type {n + 1}</t></is></c>'
            f'<c r="C{number}" t="inlineStr"><is><t>{language}</t></is></c>'
            f'<c r="D{number}" t="inlineStr"><is><t>{category}</t></is></c>'
            "</row>"
        ).encode()


# --- the attacks -----------------------------------------------------------------------------


def one_huge_shared_string(characters: int = 800_000_000) -> bytes:
    """One shared string of `characters` "a"s (written 1 MB at a time), the title of row 2.
    The real one: 800 million characters, about 817 KB compressed."""
    strings = [*(_si(text) for text in HEADER), _si(VALID_ROW[0])]
    huge = chain([b"<si><t>"], repeated(b"a", characters), [b"</t></si>"])
    tail = [_si(VALID_ROW[2]), _si(VALID_ROW[3])]
    total = len(strings) + 1 + len(tail)
    shared = _shared_strings(chain(strings, huge, tail), count=total, unique=total)
    rows = [shared_row(1, [0, 1, 2, 3]), shared_row(2, [4, 5, 6, 7])]
    return workbook(sheet(rows, dimension="A1:D2"), shared)


def _many_shared(count: int, claimed: int | None) -> bytes:
    strings = [*(_si(text) for text in HEADER), *(_si(text) for text in VALID_ROW)]
    total = len(strings) + count
    declared = total if claimed is None else claimed
    items = chain(strings, repeated(b"<si><t>x</t></si>", count))
    shared = _shared_strings(items, count=declared, unique=declared)
    # Row 2's title is the last string of all.
    rows = [shared_row(1, [0, 1, 2, 3]), shared_row(2, [4, total - 1, 6, 7])]
    return workbook(sheet(rows, dimension="A1:D2"), shared)


def many_shared_strings(count: int = 20_000_000) -> bytes:
    """`count` tiny shared strings ("x"), besides the header's and row 2's; the `<sst>`
    states the true number of `<si>` items (as `count` and `uniqueCount`, as Excel writes)."""
    return _many_shared(count, None)


def lying_shared_string_count(count: int = 20_000_000, claimed: int = 1) -> bytes:
    """As `many_shared_strings`, but the `<sst>` claims `claimed` strings (`count` and
    `uniqueCount`): a reader that trusts it (to size a table, to refuse early) is misled."""
    return _many_shared(count, claimed)


def zip_bomb(
    unpacked: int = 2 * GIB, filler: Literal["whitespace", "comment"] = "whitespace"
) -> bytes:
    """sheet1.xml unpacks to exactly `unpacked` bytes: a header, a valid row, then
    whitespace (or an XML comment) inside `<sheetData>`. The ZIP states the true size, so a
    check of the declared sizes refuses it (the default limit is 1 GiB)."""
    head = _sheet_head("A1:D2") + header_row() + next(_data_rows(1))
    tail = b"</sheetData>" + _SHEET_CLOSE
    opening, closing = (b"<!--", b"-->") if filler == "comment" else (b"", b"")
    fill = unpacked - len(head) - len(tail) - len(opening) - len(closing)
    return workbook(chain([head, opening], padding(max(0, fill)), [closing, tail]))


def _members(data: bytes | bytearray) -> Iterator[tuple[str, int, int]]:
    """(name, offset of its central directory entry, offset of its local header) of each
    member of a ZIP without a ZIP64 end record (the files built here)."""
    end = data.rfind(b"PK\x05\x06")
    size, offset = struct.unpack_from("<II", data, end + 12)
    position = offset
    while position < offset + size:
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, position + 28)
        (local,) = struct.unpack_from("<I", data, position + 42)
        name = bytes(data[position + 46 : position + 46 + name_length]).decode()
        yield name, position, local
        position += 46 + name_length + extra_length + comment_length


def _zip64_extra(data: bytes | bytearray, start: int, length: int) -> int | None:
    """The offset of the ZIP64 extra field's data (id 1) within an extra field."""
    position = start
    while position + 4 <= start + length:
        kind, size = struct.unpack_from("<HH", data, position)
        if kind == 1:
            return position + 4
        position += 4 + size
    return None


def with_declared_size(data: bytes, member: str, *, file_size: int, crc: int | None) -> bytes:
    """`data` (a ZIP) with `member`'s uncompressed size (and CRC-32, unless None) replaced by
    these, in its central directory entry and its local header alike. Each 32-bit field is
    patched in place, or the ZIP64 extra field's 8-byte size where the 32-bit field holds
    0xFFFFFFFF (the local headers written with `force_zip64`). Compressed data, compressed
    size and offsets are left as they are, so the ZIP still opens."""
    patched = bytearray(data)
    for name, central, local in _members(patched):
        if name != member:
            continue
        # The central directory entry: CRC at 16, uncompressed size at 24 (32 bits).
        if crc is not None:
            struct.pack_into("<I", patched, central + 16, crc)
        (stated,) = struct.unpack_from("<I", patched, central + 24)
        if stated == 0xFFFFFFFF:
            name_length, extra_length = struct.unpack_from("<HH", patched, central + 28)
            field = _zip64_extra(patched, central + 46 + name_length, extra_length)
            assert field is not None
            struct.pack_into("<Q", patched, field, file_size)
        else:
            struct.pack_into("<I", patched, central + 24, file_size)
        # The local header: flags at 6 (no data descriptor here), CRC at 14, uncompressed
        # size at 22 (32 bits), else in the ZIP64 extra field (uncompressed size first).
        (flags,) = struct.unpack_from("<H", patched, local + 6)
        assert not flags & 0x08, "a data descriptor would hold the sizes too"
        if crc is not None:
            struct.pack_into("<I", patched, local + 14, crc)
        (stated,) = struct.unpack_from("<I", patched, local + 22)
        if stated == 0xFFFFFFFF:
            name_length, extra_length = struct.unpack_from("<HH", patched, local + 26)
            field = _zip64_extra(patched, local + 30 + name_length, extra_length)
            assert field is not None
            struct.pack_into("<Q", patched, field, file_size)
        else:
            struct.pack_into("<I", patched, local + 22, file_size)
        return bytes(patched)
    raise KeyError(member)


def lying_zip_sizes(unpacked: int = 2 * GIB, matching_crc: bool = True) -> bytes:
    """A small valid workbook whose sheet1.xml is followed, after the root element, by
    whitespace up to `unpacked` bytes, while the ZIP states sheet1.xml's size as that of the
    valid XML alone (under 1 KB): a check of the declared sizes lets it through.

    Built whole, then patched (`with_declared_size`): the size fields of sheet1.xml's central
    directory entry and local header are overwritten. With `matching_crc` the CRC-32 is
    also set to that of the declared bytes, so `zipfile` (which stops at the declared size)
    reads a sound, small sheet without a complaint, and `testzip()` passes; an inflater that
    does not stop at the declared size gets all `unpacked` bytes. Without it, the CRC is the
    true one, and `zipfile` raises "Bad CRC-32" at the end of the declared bytes."""
    valid = _valid_sheet_xml()
    data = workbook(chain([valid], padding(max(0, unpacked - len(valid)), b"\n")))
    crc = zlib.crc32(valid) if matching_crc else None
    return with_declared_size(data, SHEET, file_size=len(valid), crc=crc)


def deep_xml(depth: int = 100_000, inside: Literal["sheetData", "cell"] = "sheetData") -> bytes:
    """Row 2 (or its title cell's value) nested inside `depth` levels of an unknown element
    `<x>`, in `<sheetData>` (or in the `<c>`)."""
    sku, title, language, category = VALID_ROW
    opening, closing = repeated(b"<x>", depth), repeated(b"</x>", depth)
    if inside == "cell":
        row_two = chain(
            [b'<row r="2">', inline_cell("A2", sku), b'<c r="B2" t="inlineStr">'],
            opening,
            [f"<is><t>{escape(title)}</t></is>".encode()],
            closing,
            [b"</c>", inline_cell("C2", language), inline_cell("D2", category), b"</row>"],
        )
    else:
        row_two = chain(opening, [inline_row(2, VALID_ROW)], closing)
    return workbook(
        chain([_sheet_head("A1:D2"), header_row()], row_two, [b"</sheetData>", _SHEET_CLOSE])
    )


def huge_dimensions(last_column: int = MAX_COLUMNS, last_row: int = MAX_ROWS) -> bytes:
    """A sheet that declares itself `A1:XFD1048576` (the largest there is) but holds a
    header, one valid row and a row 3 with a single cell, at the last column (`XFD3`): a
    reader that pads each row to the declared width, or fills the declared rows, makes
    17 billion cells."""
    last = column_letter(last_column)
    rows = [
        header_row(),
        inline_row(2, VALID_ROW),
        row(3, [inline_cell(f"{last}3", "x")]),
    ]
    return workbook(sheet(rows, dimension=f"A1:{last}{last_row}"))


def many_rows(rows: int = 1_000_001, *, dimension: bool = True) -> bytes:
    """A header and `rows` valid data rows (4 inline strings each), streamed, the
    `<dimension>` true (or left out). The real one: 1,000,001 rows, about 14 MB compressed."""
    stated = f"A1:D{rows + 1}" if dimension else None
    return workbook(sheet(chain([header_row()], _data_rows(rows)), dimension=stated))


def many_rows_without_dimension(rows: int = 1_000_001) -> bytes:
    """As `many_rows`, without a `<dimension>` element."""
    return many_rows(rows, dimension=False)


def lying_dimension(rows: int = 200_000) -> bytes:
    """`<dimension ref="A1:D3"/>` (a header and two rows: small enough to be checked during
    the web request), then `rows` data rows."""
    return workbook(sheet(chain([header_row()], _data_rows(rows)), dimension="A1:D3"))


def damaged_zip(keep: float = 0.5) -> bytes:
    """A valid workbook (a header and 200 rows) cut after `keep` of its bytes: its central
    directory is gone."""
    data = many_rows(200)
    return data[: int(len(data) * keep)]


def bad_crc() -> bytes:
    """A valid workbook whose sheet1.xml is stored (not compressed), one byte of its data
    flipped (the "1" of SKU "HX-1" becomes "0"): the XML is still well-formed and the ZIP's
    structure sound, only the CRC-32 tells."""
    data = bytearray(_package(_valid_sheet_xml(), None, None, compression=zipfile.ZIP_STORED))
    marker = data.find(b"<t>HX-1</t>")
    assert marker > 0
    data[marker + len(b"<t>HX-")] ^= 0x01
    return bytes(data)


#: Formulas in the cells of row 2 (as an XLSX stores them, without the leading "="); row 3
#: holds the same as text (a supplier's "formula injection", for exports).
FORMULAS: Final = ("1+1", 'HYPERLINK("http://evil.example","x")', "cmd|' /C calc'!A0")


def formula_cells() -> bytes:
    """Row 2's title, language and category cells are formulas (`=1+1`, a HYPERLINK, a DDE
    command) with cached values; row 3's are text that starts with "=", "+" and "@"."""
    sum_, link, command = FORMULAS
    formulas = row(
        2,
        [
            inline_cell("A2", VALID_ROW[0]),
            f'<c r="B2"><f>{escape(sum_)}</f><v>2</v></c>'.encode(),
            f'<c r="C2" t="str"><f>{escape(link)}</f><v>x</v></c>'.encode(),
            f'<c r="D2" t="str"><f>{escape(command)}</f><v>0</v></c>'.encode(),
        ],
    )
    texts = inline_row(3, ["HX-2", f"={sum_}", f"+{link}", f"@{command}"])
    return workbook(sheet([header_row(), formulas, texts], dimension="A1:D3"))


def _doctype_sheet(doctype: str, title: str) -> bytes:
    sku, _title, language, category = VALID_ROW
    cells = (
        inline_cell("A2", sku)
        + f'<c r="B2" t="inlineStr"><is><t>{title}</t></is></c>'.encode()
        + inline_cell("C2", language)
        + inline_cell("D2", category)
    )
    return (
        b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        + doctype.encode()
        + b"\n"
        + _SHEET_OPEN
        + b'<dimension ref="A1:D2"/><sheetData>'
        + header_row()
        + b'<row r="2">'
        + cells
        + b"</row></sheetData>"
        + _SHEET_CLOSE
    )


def xxe(target: str = "file:///etc/passwd") -> bytes:
    """sheet1.xml declares an external entity (`target`) and row 2's title is that entity:
    a parser that resolves it puts the server's file in the preview."""
    doctype = f'<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "{target}">]>'
    return workbook(_doctype_sheet(doctype, "&xxe;"))


def billion_laughs(levels: int = 9, fanout: int = 10) -> bytes:
    """The classic nested internal entities: `lol0` is "lol", each level `fanout` times the
    one below; row 2's title is the top one (3 billion characters for 9 levels of 10)."""
    entities = ['<!ENTITY lol0 "lol">']
    for level in range(1, levels + 1):
        entities.append(f'<!ENTITY lol{level} "{f"&lol{level - 1};" * fanout}">')
    doctype = "<!DOCTYPE worksheet [" + "".join(entities) + "]>"
    return workbook(_doctype_sheet(doctype, f"&lol{levels};"))


def many_empty_cells(cells: int = 50_000_000, per_row: int = MAX_COLUMNS) -> bytes:
    """A header, a valid row, then rows of `per_row` empty `<c/>` elements (no reference, no
    value), `cells` of them in all, streamed."""

    def rows() -> Iterator[bytes]:
        yield header_row()
        yield inline_row(2, VALID_ROW)
        full, rest = divmod(cells, per_row)
        block = b"<c/>" * per_row
        for n in range(full):
            yield f'<row r="{n + 3}">'.encode()
            yield block
            yield b"</row>"
        if rest:
            yield f'<row r="{full + 3}">'.encode() + b"<c/>" * rest + b"</row>"

    return workbook(sheet(rows()))


def wide_row(columns: int = MAX_COLUMNS) -> bytes:
    """A header, then a row with a value in every column up to `columns` (XFD): the four
    catalogue cells, then numbers."""
    last = column_letter(columns)

    def cells() -> Iterator[bytes]:
        yield b'<row r="2">'
        for number, text in enumerate(VALID_ROW[:columns], 1):
            yield inline_cell(f"{column_letter(number)}2", text)
        for number in range(len(VALID_ROW) + 1, columns + 1):
            yield number_cell(f"{column_letter(number)}2", number)
        yield b"</row>"

    return workbook(sheet(chain([header_row()], cells()), dimension=f"A1:{last}2"))


#: Attacks at small sizes, for unit tests (each built in well under half a second, under
#: 2 MB). The sizes beyond a default limit: one string longer than the 200,000 characters a
#: cell may hold; the rest ask a test to lower the limit it checks (unpacked bytes, rows).
CORPUS: Final[dict[str, Callable[[], bytes]]] = {
    "one_huge_shared_string": functools.partial(one_huge_shared_string, 300_000),
    "many_shared_strings": functools.partial(many_shared_strings, 200_000),
    "lying_shared_string_count": functools.partial(lying_shared_string_count, 200_000),
    "zip_bomb": functools.partial(zip_bomb, 16 * MB),
    "lying_zip_sizes": functools.partial(lying_zip_sizes, 16 * MB),
    "deep_xml": functools.partial(deep_xml, 100_000),
    "huge_dimensions": huge_dimensions,
    "many_rows": functools.partial(many_rows, 2_001),
    "many_rows_without_dimension": functools.partial(many_rows_without_dimension, 2_001),
    "lying_dimension": functools.partial(lying_dimension, 2_000),
    "damaged_zip": damaged_zip,
    "bad_crc": bad_crc,
    "formula_cells": formula_cells,
    "xxe": xxe,
    "billion_laughs": billion_laughs,
    "many_empty_cells": functools.partial(many_empty_cells, 1_000_000),
    "wide_row": wide_row,
}

#: The same attacks at the sizes of the real ones (the builders' defaults), for the benchmark.
FULL: Final[dict[str, Callable[[], bytes]]] = {
    "one_huge_shared_string": one_huge_shared_string,
    "many_shared_strings": many_shared_strings,
    "lying_shared_string_count": lying_shared_string_count,
    "zip_bomb": zip_bomb,
    "lying_zip_sizes": lying_zip_sizes,
    "deep_xml": deep_xml,
    "huge_dimensions": huge_dimensions,
    "many_rows": many_rows,
    "many_rows_without_dimension": many_rows_without_dimension,
    "lying_dimension": lying_dimension,
    "damaged_zip": damaged_zip,
    "bad_crc": bad_crc,
    "formula_cells": formula_cells,
    "xxe": xxe,
    "billion_laughs": billion_laughs,
    "many_empty_cells": many_empty_cells,
    "wide_row": wide_row,
}

#: The files that are no sound ZIP by design (`testzip()` or opening fails).
DAMAGED: Final = frozenset({"damaged_zip", "bad_crc"})
