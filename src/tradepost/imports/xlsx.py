"""Reading the first sheet of an XLSX workbook as a stream, every cost bounded before it is paid.

An XLSX file is a ZIP of XML parts; what it declares (its sizes, its string counts, its
dimensions) may lie. This reader trusts none of it:

- the ZIP's parts, and what they unpack to, are counted before any is opened; a part is never
  read past the size it declares (Python's `zipfile` stops there and checks the CRC);
- the XML is parsed by expat, chunk by chunk, with no document type allowed (no entities: no
  "billion laughs", no external entity) and a bounded depth;
- the shared strings are counted and their characters summed as they are read, and refused
  past `Limits.shared_strings` and `Limits.shared_characters`; a text is refused as soon as it
  passes `Limits.cell_characters`, before the rest of it is read;
- the sheet's rows are counted, and refused past `Limits.rows`; its cells too, empty ones
  included (`Limits.cells`), and a value beyond `Limits.columns` is refused.

It needs nothing but the standard library: it runs as a process of its own (`python -I
xlsx.py`, see `main`), with a memory and a CPU limit (`resource.setrlimit`) set by itself, so
that a file that still costs too much ends its own process, not a server's
(`imports.reading.xlsx_rows` starts it and reads its rows). A refusal is a `Refused` with a
code and its numbers; the caller words it in the uploader's language.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import IO, Any
from xml.parsers import expat

#: Bytes fed to the XML parser at a time.
CHUNK = 64 * 1024
#: The deepest an element may be nested (a sheet's cells are at depth 4, rich text at 5).
MAX_DEPTH = 32
#: The workbook's small parts (the workbook, its relationships) may unpack to this much.
SMALL_PART_BYTES = 4 * 1024 * 1024
_MAIN_RELATIONSHIP = "officeDocument"
_SHARED_STRINGS = "/sharedStrings"
_CELL = re.compile(r"([A-Z]{1,3})([0-9]*)$")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")


@dataclass(frozen=True)
class Limits:
    """What one reading may cost; the defaults are those of the catalogue import."""

    rows: int = 100_000
    columns: int = 256
    cell_characters: int = 200_000
    shared_strings: int = 1_000_000
    shared_characters: int = 50_000_000
    cells: int = 20_000_000
    parts: int = 10_000
    unpacked_bytes: int = 1024 * 1024 * 1024
    file_bytes: int = 50 * 1024 * 1024
    #: What the sniff (`sniff`) reads of the sheet, and of the shared strings, at most.
    sniff_bytes: int = 1024 * 1024
    #: A workbook whose sheet and shared strings unpack to at most this is read whole by the
    #: sniff, its rows counted.
    count_bytes: int = 2 * 1024 * 1024
    #: The process's own limits (`main`): address space and CPU time.
    memory_bytes: int = 512 * 1024 * 1024
    cpu_seconds: int = 60


@dataclass
class Refused(Exception):
    """The workbook cannot be read within the limits, or is not a workbook: `code` says
    which, `numbers` the row, column or limit concerned."""

    code: str
    numbers: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code} {self.numbers}"


@dataclass
class Sniff:
    """What the first part of a workbook says: its first row (None when it was not reached
    within the bytes allowed), its rows with a value counted (None unless its sheet and
    shared strings unpack to at most `Limits.count_bytes`), the rows its `<dimension>`
    declares (None when it declares none; it may lie), and what its sheet and shared
    strings declare to unpack to."""

    header: list[str] | None
    formulas: list[int]
    rows: int | None
    declared_rows: int | None
    xml_bytes: int


# --- the ZIP --------------------------------------------------------------------------------


class Workbook:
    """The ZIP's parts, checked; the first sheet's and the shared strings' names."""

    def __init__(self, data: IO[bytes], limits: Limits) -> None:
        self.limits = limits
        try:
            self.archive = zipfile.ZipFile(data)
            parts = self.archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
            raise Refused("not_xlsx") from None
        if len(parts) > limits.parts:
            raise Refused("too_many_parts", {"limit": limits.parts})
        if sum(part.file_size for part in parts) > limits.unpacked_bytes:
            raise Refused("unpacks_too_much", {"limit": limits.unpacked_bytes})
        self.sizes = {part.filename: part.file_size for part in parts}
        self.sheet, self.shared = self._locate()

    def _locate(self) -> tuple[str, str | None]:
        relationships = dict(self._relationships("xl/_rels/workbook.xml.rels"))
        first: list[str] = []

        def start(name: str, attributes: dict[str, str]) -> None:
            if name == "sheet" and not first:
                first.append(_attribute(attributes, "id"))

        self.parse("xl/workbook.xml", start=start, limit=SMALL_PART_BYTES)
        target = relationships.get(first[0]) if first else None
        sheet = _part_name(target[0]) if target else "xl/worksheets/sheet1.xml"
        shared = next(
            (_part_name(where) for where, kind in relationships.values() if _is_shared(kind)),
            None,
        )
        if sheet not in self.sizes:
            raise Refused("not_xlsx")
        return sheet, shared if shared in self.sizes else None

    def _relationships(self, name: str) -> Iterator[tuple[str, tuple[str, str]]]:
        found: list[tuple[str, tuple[str, str]]] = []

        def start(tag: str, attributes: dict[str, str]) -> None:
            if tag == "Relationship":
                where = (attributes.get("Target", ""), attributes.get("Type", ""))
                found.append((attributes.get("Id", ""), where))

        if name in self.sizes:
            self.parse(name, start=start, limit=SMALL_PART_BYTES)
        return iter(found)

    def parse(
        self,
        name: str,
        *,
        start: Callable[[str, dict[str, str]], None] | None = None,
        end: Callable[[str], None] | None = None,
        text: Callable[[str], None] | None = None,
        limit: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> bool:
        """Parse one part with the handlers (names without their namespace). Answers
        whether the whole part was read: False when `stop()` said so, or past `limit`
        bytes (a part whose declared size is over the limit is refused when `stop` is
        None)."""
        if limit is not None and self.sizes.get(name, 0) > limit and stop is None:
            raise Refused("unpacks_too_much", {"limit": limit})
        read = 0
        for chunk in self.fed(name, _parser(start, end, text)):
            read += chunk
            if (stop is not None and stop()) or (limit is not None and read >= limit):
                return False
        return True

    def fed(self, name: str, parser: Any) -> Iterator[int]:
        """Feed one part to `parser` a chunk at a time, answering each chunk's size once
        it is parsed (the handlers have seen it); a part that is no sound XML, or whose
        ZIP entry is damaged, is refused."""
        if name not in self.sizes:
            raise Refused("not_xlsx")
        try:
            with self.archive.open(name) as part:
                while chunk := part.read(CHUNK):
                    parser.Parse(chunk, False)
                    yield len(chunk)
            parser.Parse(b"", True)
        except expat.ExpatError:
            raise Refused("not_xlsx") from None
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError):
            raise Refused("not_xlsx") from None


def _attribute(attributes: dict[str, str], local: str) -> str:
    for name, value in attributes.items():
        if name.rpartition(" ")[2] == local:
            return value
    return ""


def _part_name(target: str) -> str:
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join("xl", target))


def _is_shared(kind: str) -> bool:
    return kind.endswith(_SHARED_STRINGS)


def _refuse_declarations(*_args: Any) -> int:
    raise Refused("not_xlsx")


def _parser(
    start: Callable[[str, dict[str, str]], None] | None,
    end: Callable[[str], None] | None,
    text: Callable[[str], None] | None,
) -> Any:
    """An expat parser that refuses any document type (so no entity is ever declared or
    expanded), bounds the depth, and gives the handlers each element's local name."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.StartDoctypeDeclHandler = _refuse_declarations
    parser.EntityDeclHandler = _refuse_declarations
    parser.ExternalEntityRefHandler = _refuse_declarations
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    depth = [0]

    def started(name: str, attributes: dict[str, str]) -> None:
        depth[0] += 1
        if depth[0] > MAX_DEPTH:
            raise Refused("too_deep", {"limit": MAX_DEPTH})
        if start is not None:
            start(name.rpartition(" ")[2], attributes)

    def ended(name: str) -> None:
        depth[0] -= 1
        if end is not None:
            end(name.rpartition(" ")[2])

    parser.StartElementHandler = started
    parser.EndElementHandler = ended
    if text is not None:
        parser.CharacterDataHandler = text
    return parser


# --- text -----------------------------------------------------------------------------------


def _unescaped(text: str) -> str:
    """OOXML writes characters XML cannot hold as `_xHHHH_` (a tab, a carriage return)."""
    if "_x" not in text:
        return text
    return _ESCAPED.sub(lambda match: chr(int(match.group(1), 16)), text)


def number_text(value: str) -> str:
    """A number cell as a person writes it: 12 for 12.0, 1500 for 1.5E3."""
    try:
        if "." not in value and "E" not in value and "e" not in value:
            return str(int(value))
        number = float(value)
    except ValueError:
        return value
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


class _Text:
    """Text being read, refused as soon as it passes the cell limit."""

    def __init__(self, limit: int, row: Callable[[], int]) -> None:
        self.limit = limit
        self.row = row
        self.parts: list[str] = []
        self.length = 0

    def add(self, data: str) -> None:
        self.length += len(data)
        if self.length > self.limit:
            raise Refused("cell_too_long", {"row": self.row(), "limit": self.limit})
        self.parts.append(data)

    def take(self) -> str:
        text = "".join(self.parts)
        self.parts.clear()
        self.length = 0
        return text


# --- shared strings -------------------------------------------------------------------------


class SharedStrings:
    """The workbook's shared strings, read up to `wanted` (all when None), each refused past
    the cell limit, all of them past the count and characters limits."""

    def __init__(self, book: Workbook, *, wanted: int | None = None, limit: int | None = None):
        self.strings: list[str] = []
        self.complete = True
        if book.shared is None:
            return
        limits = book.limits
        text = _Text(limits.cell_characters, lambda: 0)
        state = {"in_item": False, "in_text": False, "phonetic": 0, "characters": 0}

        def start(name: str, attributes: dict[str, str]) -> None:
            if name == "si":
                state["in_item"] = True
            elif name == "rPh":
                state["phonetic"] += 1
            elif name == "t" and state["in_item"] and not state["phonetic"]:
                state["in_text"] = True
            elif name == "sst":
                declared = attributes.get("uniqueCount") or attributes.get("count") or "0"
                if declared.isdigit() and int(declared) > limits.shared_strings:
                    raise Refused("too_many_strings", {"limit": limits.shared_strings})

        def end(name: str) -> None:
            if name == "t":
                state["in_text"] = False
            elif name == "rPh":
                state["phonetic"] -= 1
            elif name == "si":
                state["in_item"] = False
                value = text.take()
                state["characters"] += len(value)
                if state["characters"] > limits.shared_characters:
                    raise Refused("strings_too_long", {"limit": limits.shared_characters})
                self.strings.append(_unescaped(value))
                if len(self.strings) > limits.shared_strings:
                    raise Refused("too_many_strings", {"limit": limits.shared_strings})

        def data(chunk: str) -> None:
            if state["in_text"]:
                text.add(chunk)

        def enough() -> bool:
            return wanted is not None and len(self.strings) > wanted

        self.complete = book.parse(
            book.shared,
            start=start,
            end=end,
            text=data,
            limit=limit,
            stop=enough if wanted is not None else None,
        )

    def get(self, index: str) -> str:
        try:
            return self.strings[int(index)]
        except (ValueError, IndexError):
            if not self.complete:
                raise _NotYet() from None
            raise Refused("not_xlsx") from None


class _NotYet(Exception):
    """A shared string past those read (the sniff reads only the first ones)."""


# --- the sheet ------------------------------------------------------------------------------


def _column(reference: str) -> int:
    """The column of a cell reference (A1 -> 1, XFD3 -> 16384); 0 when it has none."""
    match = _CELL.match(reference)
    if not match:
        return 0
    number = 0
    for letter in match.group(1):
        number = number * 26 + ord(letter) - 64
    return number


def _declared_rows(reference: str) -> int | None:
    last = reference.rpartition(":")[2]
    match = _CELL.match(last)
    return int(match.group(2)) if match and match.group(2) else None


@dataclass
class _Cell:
    column: int = 0
    kind: str = "n"
    formula: bool = False
    value: str | None = None


#: A row as read: its number, its cells by column, its formula positions.
RawRow = tuple[int, dict[int, _Cell], list[int]]


class _Sheet:
    """The sheet's rows with a value or a formula, as read (`ready`, each cell's value not
    yet turned into text: a shared string is looked up after); rows without either are left
    out, their numbers kept."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.ready: list[RawRow] = []
        self.declared_rows: int | None = None
        self.line = 0
        self.rows = 0
        self.cells_seen = 0
        self.last_column = 0
        self.values: dict[int, _Cell] = {}
        self.formulas: list[int] = []
        self.cell: _Cell | None = None
        self.in_value = False
        self.in_inline = 0
        self.phonetic = 0
        self.text = _Text(limits.cell_characters, lambda: self.line)

    def start(self, name: str, attributes: dict[str, str]) -> None:
        if name == "c":
            self._start_cell(attributes)
        elif name == "v" or (name == "t" and self.in_inline and not self.phonetic):
            self.in_value = self.cell is not None
        elif name == "f" and self.cell is not None:
            self.cell.formula = True
        elif name == "is":
            self.in_inline += 1
        elif name == "rPh":
            self.phonetic += 1
        elif name == "row":
            number = attributes.get("r", "")
            self.line = int(number) if number.isdigit() else self.line + 1
            self.values = {}
            self.formulas = []
            self.last_column = 0
        elif name == "dimension":
            self.declared_rows = _declared_rows(attributes.get("ref", ""))

    def _start_cell(self, attributes: dict[str, str]) -> None:
        self.cells_seen += 1
        if self.cells_seen > self.limits.cells:
            raise Refused("too_many_cells", {"limit": self.limits.cells})
        column = _column(attributes.get("r", "")) or self.last_column + 1
        self.last_column = column
        self.cell = _Cell(column=column, kind=attributes.get("t", "n"))

    def end(self, name: str) -> None:
        if name in ("v", "t"):
            if self.in_value and self.cell is not None:
                self.cell.value = (self.cell.value or "") + self.text.take()
            self.in_value = False
        elif name == "c" and self.cell is not None:
            self._end_cell(self.cell)
            self.cell = None
        elif name == "is":
            self.in_inline -= 1
        elif name == "rPh":
            self.phonetic -= 1
        elif name == "row":
            self._end_row()

    def _end_cell(self, cell: _Cell) -> None:
        if (cell.formula or cell.value is not None) and cell.column > self.limits.columns:
            numbers = {"row": self.line, "column": cell.column, "limit": self.limits.columns}
            raise Refused("too_many_columns", numbers)
        if cell.formula:
            self.formulas.append(cell.column - 1)
        elif cell.value is not None and (cell.kind == "s" or cell.value.strip()):
            self.values[cell.column] = cell

    def _end_row(self) -> None:
        if not self.values and not self.formulas:
            return
        self.rows += 1
        if self.rows > self.limits.rows + 1:
            raise Refused("too_many_rows", {"limit": self.limits.rows})
        self.ready.append((self.line, self.values, self.formulas))

    def data(self, chunk: str) -> None:
        if self.in_value:
            self.text.add(chunk)


def _cell_text(cell: _Cell, strings: SharedStrings | None) -> str:
    raw = cell.value or ""
    if cell.kind == "s":
        if strings is None:
            raise Refused("not_xlsx")
        return strings.get(raw.strip())
    if cell.kind == "b":
        return "TRUE" if raw.strip() in ("1", "true") else "FALSE"
    if cell.kind in ("inlineStr", "str"):
        return _unescaped(raw)
    if cell.kind in ("e", "d"):
        return raw
    return number_text(raw.strip())


def _cells(row: RawRow, strings: SharedStrings | None) -> list[str]:
    _line, values, formulas = row
    width = max([*values, *(position + 1 for position in formulas)])
    return [
        _cell_text(values[column], strings) if column in values else ""
        for column in range(1, width + 1)
    ]


def read_rows(data: IO[bytes], limits: Limits) -> Iterator[tuple[int, list[str], list[int]]]:
    """Every row of the first sheet with a value or a formula: (its number as the sheet
    shows it, its cells as text, the positions of its formula cells). The shared strings are
    read first, then the sheet a chunk at a time, each chunk's rows handed on before the
    next chunk is read."""
    book = Workbook(data, limits)
    strings = SharedStrings(book)
    sheet = _Sheet(limits)
    for _chunk in book.fed(book.sheet, _parser(sheet.start, sheet.end, sheet.data)):
        for row in sheet.ready:
            yield row[0], _cells(row, strings), row[2]
        sheet.ready.clear()
    for row in sheet.ready:  # those the end of the part completed
        yield row[0], _cells(row, strings), row[2]


def sniff(data: IO[bytes], limits: Limits) -> Sniff:
    """The first row, the rows counted (a small workbook) and declared, and what the sheet
    and its strings declare to unpack to. Reads at most `Limits.sniff_bytes` unpacked bytes
    of the sheet, and as much of the shared strings, or the whole of a workbook within
    `Limits.count_bytes`: a bounded cost, whatever the file."""
    book = Workbook(data, limits)
    sheet = _Sheet(limits)
    xml_bytes = book.sizes[book.sheet] + (book.sizes[book.shared] if book.shared else 0)
    whole = xml_bytes <= limits.count_bytes
    book.parse(
        book.sheet,
        start=sheet.start,
        end=sheet.end,
        text=sheet.data,
        limit=None if whole else limits.sniff_bytes,
        stop=None if whole else (lambda: bool(sheet.ready)),
    )
    rows = sheet.rows if whole else None
    if not sheet.ready:
        return Sniff(None, [], rows, sheet.declared_rows, xml_bytes)
    first = sheet.ready[0]
    shared = [
        int(cell.value or "")
        for cell in first[1].values()
        if cell.kind == "s" and (cell.value or "").strip().isdigit()
    ]
    strings = None
    if shared:
        strings = SharedStrings(book, wanted=max(shared), limit=limits.sniff_bytes)
    try:
        header = _cells(first, strings)
    except _NotYet:
        return Sniff(None, [], rows, sheet.declared_rows, xml_bytes)
    return Sniff(header, first[2], rows, sheet.declared_rows, xml_bytes)


# --- the process of its own -----------------------------------------------------------------


def _limit_process(limits: Limits) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))


def _read_input(limits: Limits) -> io.BytesIO:
    data = sys.stdin.buffer.read(limits.file_bytes + 1)
    if len(data) > limits.file_bytes:
        raise Refused("file_too_large", {"limit": limits.file_bytes})
    return io.BytesIO(data)


def _cost() -> dict[str, float]:
    """What this process cost: its peak resident memory (VmHWM: this program's own, not
    the starting process's before it) and its CPU seconds."""
    import resource

    peak_kb = 0
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    peak_kb = int(line.split()[1])
    except OSError:
        pass
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "peak_mb": round(peak_kb / 1024, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
    }


def _emit(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


def main(argv: list[str]) -> int:
    """`xlsx.py rows|sniff LIMITS-JSON`: the workbook on standard input; on standard output,
    one JSON object a line: {"row": n, "cells": [...], "formulas": [...]} for each row (or
    {"sniff": {...}}), then {"end": true}, or {"refused": code, "numbers": {...}}, each with
    what the reading cost ({"cost": {"peak_mb", "cpu_seconds"}})."""
    mode, settings = argv[1], json.loads(argv[2])
    limits = Limits(**settings)
    _limit_process(limits)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="surrogatepass")
    try:
        data = _read_input(limits)
        if mode == "sniff":
            _emit(out, {"sniff": asdict(sniff(data, limits))})
        else:
            for line, cells, formulas in read_rows(data, limits):
                _emit(out, {"row": line, "cells": cells, "formulas": formulas})
        _emit(out, {"end": True, "cost": _cost()})
    except Refused as refusal:
        _emit(out, {"refused": refusal.code, "numbers": refusal.numbers, "cost": _cost()})
    except MemoryError:
        _emit(out, {"refused": "memory", "numbers": {"limit": limits.memory_bytes}})
    except RecursionError:
        _emit(out, {"refused": "too_deep", "numbers": {"limit": MAX_DEPTH}})
    out.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a process by imports.reading
    sys.exit(main(sys.argv))
