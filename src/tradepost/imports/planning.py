"""What each row of a catalogue file would do: add a product, change one (and which fields),
change nothing, or nothing because it is refused, with every reason.

The preview and the import plan rows alike, chunk by chunk, with the same code: the preview
counts and keeps the plans' outcomes; the import plans a chunk again just before writing it,
so it works on the products as they are then. The product's own rules are the catalogue's
(`catalog.services.product_check`, `product_translation_check`, `product_images_check`; the
pictures' checks are `core.images`'): a row's reasons are the messages the product form would
show, named by the file's column. What is this module's own is the file's: the SKU that
identifies a row, a SKU twice in a file, cells that are formulas or look garbled, a picture
the ZIP lacks.

A product is found by its SKU among the company's products that are not deleted. A column the
file lacks leaves the field as it is; an empty cell empties it (but the currency, the listing
language, the status and the pictures, which stay). Pictures are only added (or replaced,
when a file of the same name comes with other content) and put in the row's order, never
removed: removing a photo is done on the product's page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

from django.db.models import DecimalField
from django.utils.translation import gettext as _

from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import Category, Product, ProductImage, ProductStatus
from tradepost.catalog.services import (
    CheckedDraft,
    product_check,
    product_draft_check,
    product_images_check,
    product_translation_check,
)
from tradepost.companies.models import Company
from tradepost.core.cleaning import one_line
from tradepost.core.errors import NON_FIELD
from tradepost.core.garbled import check_text
from tradepost.core.images import ImageRejected, check_image
from tradepost.imports import columns
from tradepost.imports.columns import (
    EMPTY_KEEPS,
    PLAIN_FIELDS,
    TRANSLATION_KEYS,
    AttributeLineError,
    Categories,
)
from tradepost.imports.models import ImportedPicture, RowOutcome
from tradepost.imports.pictures import Picture, PictureBox, digest
from tradepost.imports.reading import FileRejected, Row

#: The longest SKU a row may carry (the product's field; longer is refused by the service).
SKU_SHOWN_MAX = 200
#: Service fields named differently from the file's columns.
_FIELD_COLUMNS = {"category_id": "category", "image": "pictures", "images": "pictures"}
_MODEL_FIELDS = {"category_id": "category"}


# --- the file's layout -----------------------------------------------------------------------


@dataclass
class Layout:
    """Which column of the file is which, from its header row."""

    headings: list[str]
    positions: dict[str, int]
    language: str
    unknown: list[str]

    @classmethod
    def from_header(cls, row: Row) -> Layout:
        positions: dict[str, int] = {}
        unknown: list[str] = []
        languages: dict[str, int] = {}
        for position, heading in enumerate(row.cells):
            if not heading.strip():
                continue
            found = columns.read_heading(heading)
            if found is None:
                unknown.append(heading.strip())
                continue
            key, language = found
            if key in positions:
                raise FileRejected(
                    _("The column “%(column)s” appears twice in the header row.")
                    % {"column": heading.strip()}
                )
            positions[key] = position
            if language:
                languages[language] = languages.get(language, 0) + 1
        if "sku" not in positions:
            raise FileRejected(
                _(
                    "The first row must name the columns, and one must be the SKU: download "
                    "the template to see them."
                )
            )
        language = max(languages, key=lambda code: languages[code]) if languages else "en"
        return cls(list(row.cells), positions, language, unknown)

    @cached_property
    def keys(self) -> dict[int, str]:
        """The column's key at each position of the file's known columns."""
        return {position: key for key, position in self.positions.items()}

    def has(self, key: str) -> bool:
        return key in self.positions

    def name(self, key: str) -> str:
        """The column as the file names it (as the file's language would, when absent)."""
        if key in self.positions:
            return self.headings[self.positions[key]].strip()
        return columns.column(key).name(self.language) if key else ""

    def cell(self, row: Row, key: str) -> str | None:
        """The cell of `key` in `row` ("" when the row is short), None without the column
        (or when the cell is a formula, which is refused, not read as empty)."""
        position = self.positions.get(key)
        if position is None or position in row.formulas:
            return None
        return row.cells[position] if position < len(row.cells) else ""


# --- plans -----------------------------------------------------------------------------------


@dataclass
class PictureStep:
    """A picture to add from the ZIP (replacing `replaces`, a picture of the same name with
    other content)."""

    name: str
    picture: Picture
    sha256: str
    replaces: int | None = None


@dataclass
class RowPlan:
    row: Row
    sku: str
    outcome: str = RowOutcome.UNCHANGED
    product: Product | None = None
    #: Service fields: all of them for a new product, the changed ones for another.
    fields: dict[str, Any] = field(default_factory=dict)
    #: A new product's fields as the catalogue checked them (`product_draft_check`): what
    #: its batch writes, without cleaning them again.
    checked: CheckedDraft | None = None
    translations: dict[str, tuple[str, str]] = field(default_factory=dict)
    untranslate: list[str] = field(default_factory=list)
    publish: bool | None = None
    pictures: list[PictureStep] = field(default_factory=list)
    picture_names: list[str] = field(default_factory=list)
    reorder: bool = False
    #: [{"column", "message"}]: the reasons of a rejected row.
    problems: list[dict[str, str]] = field(default_factory=list)
    #: [{"column", "damage", "text", "suggestion"}]: cells that look garbled.
    flags: list[dict[str, Any]] = field(default_factory=list)

    def refuse(self, column: str, message: str) -> None:
        self.problems.append({"column": column, "message": str(message)})

    @property
    def rejected(self) -> bool:
        return bool(self.problems)


@dataclass
class _Known:
    """A product's pictures, by the names a row may give them: the file name it was
    imported from, and the stored file's own name (what the export writes)."""

    names: dict[str, tuple[int, str | None]]  # name -> (image id, SHA-256 when imported)
    order: list[int]  # image ids by position


def _category_of(record: Mapping[str, Any]) -> int | None:
    """The category id of a kept new row's draft (None for any other record)."""
    try:
        pk = record["draft"]["values"]["category"]
    except (KeyError, TypeError):
        return None
    return pk if type(pk) is int else None


def state_of(product: Product) -> str:
    """A digest of what a row is compared with: the product's fields and its translations
    (prefetched). Equal digests, the same product as far as a row without pictures goes."""
    fields = [getattr(product, field.attname) for field in Product._meta.concrete_fields]
    translations = sorted(
        (item.language, item.title, item.description) for item in product.translations.all()
    )
    text = repr((fields, translations)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def _same(product: Product, model_field: str, value: Any) -> bool:
    if model_field == "category":
        return product.category_id == getattr(value, "pk", value)
    current = getattr(product, model_field)
    definition = Product._meta.get_field(model_field)
    if isinstance(definition, DecimalField) and current is not None and value is not None:
        step = Decimal(1).scaleb(-definition.decimal_places)
        return Decimal(current).quantize(step) == Decimal(value).quantize(step)
    return bool(current == value)


class Planner:
    """Plans the rows of one file for one company, chunk after chunk, remembering the SKUs of
    the rows before (a SKU twice in a file is refused the second time)."""

    def __init__(
        self,
        *,
        company: Company,
        layout: Layout,
        pictures: PictureBox | None,
        categories: Categories | None = None,
    ) -> None:
        self.company = company
        self.layout = layout
        self.box = pictures
        self.categories = categories or Categories()
        self.seen: dict[str, int] = {}
        self._checked: dict[str, tuple[str, str | None]] = {}  # picture name -> (sha, refusal)
        self._probes: dict[str, Product] = {}

    # -- chunks ----------------------------------------------------------------------------

    def sku_of(self, row: Row) -> str:
        return one_line(self.layout.cell(row, "sku") or "")

    def note(self, rows: Iterable[Row]) -> None:
        """Remember the SKUs of rows that are not planned again (an import resumed)."""
        for row in rows:
            sku = self.sku_of(row)
            if sku and sku not in self.seen:
                self.seen[sku] = row.line

    def plan(
        self, rows: Sequence[Row], kept: Mapping[int, Mapping[str, Any]] | None = None
    ) -> list[RowPlan]:
        """The rows' plans; `kept`, by line, the rows the check kept (`imports.kept`): each
        is taken as the check planned it while that still holds (`_restore`)."""
        skus = {self.sku_of(row) for row in rows} - {""}
        products = self._products(skus)
        known = self._pictures(products.values()) if self.layout.has("pictures") else {}
        categories = self._categories_of(kept) if kept else {}
        plans = []
        for row in rows:
            record = kept.get(row.line) if kept else None
            restored = None
            if record:
                try:
                    restored = self._restore(row, record, products, categories)
                except (KeyError, TypeError, ValueError, ArithmeticError):  # a damaged record
                    restored = None
            plans.append(restored or self._plan(row, products, known))
        return plans

    @staticmethod
    def _categories_of(kept: Mapping[int, Mapping[str, Any]]) -> dict[int, Category]:
        ids = [_category_of(record) for record in kept.values()]
        return Category.objects.in_bulk({pk for pk in ids if pk is not None})

    def _restore(
        self,
        row: Row,
        record: Mapping[str, Any],
        products: Mapping[str, Product],
        categories: Mapping[int, Category],
    ) -> RowPlan | None:
        """The row as the check planned it — a new product, or a product it changes nothing
        of — or None when that no longer holds (a product has its SKU now, or another one; the
        product changed; the SKU is on an earlier row; the category changed)."""
        sku = self.sku_of(row)
        if not sku or record["sku"] != sku or self.seen.get(sku, row.line) != row.line:
            return None
        if "state" in record:
            product = products.get(sku)
            if product is None or state_of(product) != record["state"]:
                return None
            self.seen[sku] = row.line
            return RowPlan(row=row, sku=sku, product=product, flags=record["flags"])
        if sku in products:
            return None
        draft = CheckedDraft.load(self.company, record["draft"], categories)
        if draft is None:
            return None
        self.seen[sku] = row.line
        return RowPlan(
            row=row,
            sku=sku,
            outcome=RowOutcome.NEW,
            checked=draft,  # written by its batch only, which takes the draft, not fields
            translations={
                language: (title, description)
                for language, (title, description) in record["translations"].items()
            },
            publish=record["publish"],
            flags=record["flags"],
        )

    def _products(self, skus: set[str]) -> dict[str, Product]:
        if not skus:
            return {}
        found = (
            Product.objects.filter(company=self.company, sku__in=skus)
            .exclude(sku="")
            .exclude(status=ProductStatus.DELETED)
            .order_by()
            .prefetch_related("translations")
        )
        return {product.sku: product for product in found}

    def _pictures(self, products: Iterable[Product]) -> dict[int, _Known]:
        ids = [product.pk for product in products]
        known = {pk: _Known({}, []) for pk in ids}
        images = ProductImage.objects.filter(product_id__in=ids).order_by("position", "id")
        for image in images.only("id", "product_id", "image"):
            entry = known[image.product_id]
            entry.order.append(image.pk)
            stored = (image.image.name or "").rsplit("/", 1)[-1]
            if stored:
                entry.names[stored] = (image.pk, None)
        imported = ImportedPicture.objects.filter(product_id__in=ids).values_list(
            "product_id", "image_id", "name", "sha256"
        )
        for product_id, image_id, name, sha in imported:
            known[product_id].names[name] = (image_id, sha)
        return known

    # -- one row ---------------------------------------------------------------------------

    def _plan(
        self, row: Row, products: Mapping[str, Product], known: Mapping[int, _Known]
    ) -> RowPlan:
        layout = self.layout
        sku = self.sku_of(row)
        plan = RowPlan(row=row, sku=sku[:SKU_SHOWN_MAX], product=products.get(sku))
        self._flag(plan)
        if not sku:
            plan.refuse(
                layout.name("sku"),
                _(
                    "Enter the product's SKU, your own code for it: uploading the file again "
                    "then changes the product instead of adding another."
                ),
            )
        elif sku in self.seen and self.seen[sku] != row.line:
            plan.refuse(
                layout.name("sku"),
                _("This SKU is on row %(row)d already.") % {"row": self.seen[sku]},
            )
        elif sku:
            self.seen[sku] = row.line
        fields = self._fields(plan)
        clean = self._check(plan, fields)
        language = str(
            (clean or {}).get("original_language")
            or (plan.product.original_language if plan.product else "")
            or "en"
        )
        self._translations(plan, language)
        self._status(plan)
        if layout.has("pictures"):
            product_known = known.get(plan.product.pk) if plan.product else None
            self._plan_pictures(plan, product_known or _Known({}, []))
        if plan.rejected:
            plan.outcome = RowOutcome.REJECTED
        elif plan.product is None:
            plan.outcome = RowOutcome.NEW
            plan.fields = fields
        else:
            plan.fields = {
                name: value
                for name, value in fields.items()
                if clean is not None
                and not _same(
                    plan.product,
                    _MODEL_FIELDS.get(name, name),
                    clean[_MODEL_FIELDS.get(name, name)],
                )
            }
            changed = (
                plan.fields
                or plan.translations
                or plan.untranslate
                or plan.pictures
                or plan.reorder
                or plan.publish is not None
            )
            plan.outcome = RowOutcome.CHANGED if changed else RowOutcome.UNCHANGED
        return plan

    def _flag(self, plan: RowPlan) -> None:
        """Cells that are formulas (refused) or look garbled (flagged, never changed)."""
        layout = self.layout
        names = layout.keys
        for position in plan.row.formulas:
            if position in names and names[position] != "reason":
                plan.refuse(
                    layout.name(names[position]),
                    _("This cell holds a formula; paste its value instead."),
                )
        for position, text in enumerate(plan.row.cells):
            key = names.get(position)
            if key is None or key == "reason":
                continue
            garbled = check_text(text)
            if garbled is not None:
                plan.flags.append(
                    {
                        "column": layout.name(key),
                        "damage": str(garbled.damage),
                        "text": text[:500],
                        "suggestion": garbled.suggestion[:500] if garbled.suggestion else None,
                    }
                )

    def _fields(self, plan: RowPlan) -> dict[str, Any]:
        """The row's cells as the product services' fields (only the file's columns)."""
        layout, row = self.layout, plan.row
        fields: dict[str, Any] = {}
        for key in PLAIN_FIELDS:
            value = layout.cell(row, key)
            if value is None or (not value.strip() and key in EMPTY_KEEPS):
                continue
            fields[key] = value
        value = layout.cell(row, "original_language")
        if value is not None and value.strip():
            fields["original_language"] = columns.choice_code("language", value)
        value = layout.cell(row, "category")
        if value is not None:
            fields["category_id"] = self.categories.find(value) if value.strip() else None
        for key, kind in (("moq_unit", "unit"), ("supply_capacity_unit", "unit")):
            value = layout.cell(row, key)
            if value is not None:
                fields[key] = columns.choice_code(kind, value) if value.strip() else ""
        for key, kind in (("incoterms", "incoterm"), ("payment_terms", "payment_term")):
            value = layout.cell(row, key)
            if value is not None:
                fields[key] = columns.choice_codes(kind, value)
        value = layout.cell(row, "origin_country")
        if value is not None:
            fields["origin_country"] = (
                columns.choice_code("country", value) if value.strip() else ""
            )
        value = layout.cell(row, "attributes")
        if value is not None:
            try:
                fields["attributes"] = columns.parse_attributes(value)
            except AttributeLineError as refusal:
                plan.refuse(layout.name("attributes"), str(refusal))
        return fields

    def _column_of(self, field_name: str) -> str:
        if field_name == NON_FIELD:
            return ""
        return self.layout.name(_FIELD_COLUMNS.get(field_name, field_name))

    def problems_of(
        self, refusal: ProductError, rename: Mapping[str, str] | None = None
    ) -> list[dict[str, str]]:
        """A service's refusal as a row's reasons, each named by the file's column."""
        rename = rename or {}
        return [
            {"column": rename.get(name) or self._column_of(name), "message": str(message)}
            for name, messages in refusal.message_dict.items()
            for message in messages
        ]

    def _refused(self, plan: RowPlan, refusal: ProductError, rename: Mapping[str, str]) -> None:
        # A formula cell is refused for being one, not again for being empty.
        headings = self.layout.headings
        formulas = {headings[at].strip() for at in plan.row.formulas if at < len(headings)}
        plan.problems.extend(
            problem
            for problem in self.problems_of(refusal, rename)
            if problem["column"] not in formulas
        )

    def _check(self, plan: RowPlan, fields: dict[str, Any]) -> dict[str, Any] | None:
        """The values the catalogue would store (None when it refuses them)."""
        try:
            if plan.product is None:
                plan.checked = product_draft_check(company=self.company, **fields)
                return plan.checked.values
            return product_check(company=self.company, product=plan.product, **fields)
        except ProductError as refusal:
            self._refused(plan, refusal, {})
            return None

    def _translations(self, plan: RowPlan, original_language: str) -> None:
        layout, row = self.layout, plan.row
        existing = (
            {item.language: item for item in plan.product.translations.all()}
            if plan.product
            else {}
        )
        probe = self._probe(original_language)
        for language, (title_key, description_key) in TRANSLATION_KEYS.items():
            title = layout.cell(row, title_key)
            description = layout.cell(row, description_key)
            if title is None and description is None:
                continue
            current = existing.get(language)
            if not (title or "").strip() and not (description or "").strip():
                if current is not None and title is not None:
                    plan.untranslate.append(language)
                continue
            if title is None:  # only the description's column: the title stays
                title = current.title if current else ""
            if description is None:
                description = current.description if current else ""
            try:
                if plan.checked is not None:  # a new product's: its batch writes it as checked
                    _code, clean_title, clean_description = plan.checked.translation_check(
                        language=language, title=title, description=description
                    )
                else:
                    _code, clean_title, clean_description = product_translation_check(
                        product=probe, language=language, title=title, description=description
                    )
            except ProductError as refusal:
                rename = {
                    "title": layout.name(title_key),
                    "description": layout.name(description_key),
                    "language": layout.name(title_key),
                }
                self._refused(plan, refusal, rename)
                continue
            if current is None or (current.title, current.description) != (
                clean_title,
                clean_description,
            ):
                plan.translations[language] = (clean_title, clean_description)

    def _probe(self, original_language: str) -> Product:
        """A product written in `original_language`, all `product_translation_check` reads
        of it: one per language for the file, not one a row."""
        if original_language not in self._probes:
            self._probes[original_language] = Product(original_language=original_language)
        return self._probes[original_language]

    def _status(self, plan: RowPlan) -> None:
        value = self.layout.cell(plan.row, "status")
        if value is None or not value.strip():
            return
        code = columns.choice_code("status", value)
        if code not in (ProductStatus.DRAFT, ProductStatus.PUBLISHED):
            if code in (ProductStatus.HELD, ProductStatus.HIDDEN):
                return  # as the export writes it: the operators' to change, not the file's
            plan.refuse(
                self.layout.name("status"),
                _("Write “published” to publish the product, or “draft”."),
            )
            return
        current = plan.product.status if plan.product else ProductStatus.DRAFT
        if code == ProductStatus.PUBLISHED and current == ProductStatus.DRAFT:
            plan.publish = True
        elif code == ProductStatus.DRAFT and current in (
            ProductStatus.PUBLISHED,
            ProductStatus.HELD,
        ):
            plan.publish = False

    def _picture_refusal(self, picture: Picture) -> tuple[str, str | None]:
        """A ZIP picture's SHA-256 and, when it fails the picture checks, why."""
        if picture.name not in self._checked:
            assert self.box is not None
            data = self.box.read(picture)
            try:
                check_image(data)
            except ImageRejected as refusal:
                self._checked[picture.name] = (digest(data), str(refusal))
            else:
                self._checked[picture.name] = (digest(data), None)
        return self._checked[picture.name]

    def _plan_pictures(self, plan: RowPlan, known: _Known) -> None:
        value = self.layout.cell(plan.row, "pictures") or ""
        names = columns.picture_names(value)
        if not names:
            return
        column = self.layout.name("pictures")
        wanted: list[int | None] = []
        for name in names:
            picture = self.box.find(name) if self.box is not None else None
            have = known.names.get(name)
            if picture is None:
                if have is None:
                    plan.refuse(
                        column,
                        _("%(name)s is not in the ZIP file of pictures.") % {"name": name}
                        if self.box is not None
                        else _("%(name)s: send the pictures in a ZIP file with the sheet.")
                        % {"name": name},
                    )
                wanted.append(have[0] if have else None)
                continue
            sha, refusal = self._picture_refusal(picture)
            if refusal:
                plan.refuse(column, _("%(name)s: %(problem)s") % {"name": name, "problem": refusal})
                continue
            if have is not None and (have[1] is None or have[1] == sha):
                wanted.append(have[0])  # the same picture again (or one added by hand)
                continue
            plan.pictures.append(
                PictureStep(name, picture, sha, replaces=have[0] if have is not None else None)
            )
            wanted.append(None)
        added = sum(1 for step in plan.pictures if step.replaces is None)
        if added:
            try:
                product_images_check(count=len(known.order) + added)
            except ProductError as refusal:
                self._refused(plan, refusal, {"image": column})
        plan.picture_names = names
        kept = [image_id for image_id in wanted if image_id is not None]
        plan.reorder = bool(plan.pictures) or known.order[: len(kept)] != kept
