"""Loading of the project's reference data: the category tree and the HS 2022 code list.

Both live in `catalog/data/` as files the project ships:
  categories.json  [{"slug", "en", "zh_hans", "zh_hant", "hs": [codes], "children": [...]}, ...]
  hs2022.tsv       code<TAB>description, codes of 2, 4 or 6 digits, no header

Loading is idempotent (upsert by slug / code) so it runs from a data migration and again from
`tradepost loadreferencedata` after the files change. The functions take the model classes as
arguments because the migration passes its historical models.

A category that is no longer in the file is deleted when nothing refers to it; otherwise it is
retired: it keeps its row (and its products) but leaves the tree, its path becoming
`~~<slug>`, which sorts after every live path and matches no live subtree prefix.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import F, ProtectedError, RestrictedError, Value
from django.db.models.functions import Concat

DATA_DIR = Path(__file__).resolve().parent / "data"
CATEGORIES_FILE = DATA_DIR / "categories.json"
HS_FILE = DATA_DIR / "hs2022.tsv"

RETIRED_PATH_PREFIX = "~~"
_TEMPORARY_PATH_PREFIX = "~"


@dataclass(frozen=True)
class CategoryRow:
    """One node of the file, flattened, with the place the loader gives it in the tree."""

    slug: str
    parent_slug: str | None
    path: str
    depth: int
    position: int
    name_en: str
    name_zh_hans: str
    name_zh_hant: str
    hs_codes: list[str]
    is_leaf: bool


def read_category_tree() -> list[dict[str, Any]]:
    if not CATEGORIES_FILE.exists():
        return []
    return json.loads(CATEGORIES_FILE.read_text(encoding="utf-8"))


def read_hs_codes() -> list[tuple[str, str]]:
    if not HS_FILE.exists():
        return []
    with HS_FILE.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row[0].strip(), row[1].strip()) for row in reader if row and row[0].strip()]


def flatten_category_tree(tree: list[dict[str, Any]]) -> list[CategoryRow]:
    """The tree as rows in depth-first order; paths are zero-padded positions ("0003.0012")."""
    rows: list[CategoryRow] = []

    def visit(nodes: list[dict[str, Any]], parent_slug: str | None, parent_path: str) -> None:
        for position, node in enumerate(nodes, start=1):
            path = f"{parent_path}.{position:04d}" if parent_path else f"{position:04d}"
            children = node.get("children") or []
            rows.append(
                CategoryRow(
                    slug=node["slug"],
                    parent_slug=parent_slug,
                    path=path,
                    depth=path.count("."),
                    position=position,
                    name_en=node["en"],
                    name_zh_hans=node["zh_hans"],
                    name_zh_hant=node["zh_hant"],
                    hs_codes=list(node.get("hs") or []),
                    is_leaf=not children,
                )
            )
            visit(children, node["slug"], path)

    visit(tree, None, "")
    return rows


def load_hs_codes(hs_model) -> int:
    """Insert new codes and update changed descriptions; codes missing from the file stay."""
    rows = read_hs_codes()
    codes = {code for code, _description in rows}
    existing = {
        code: (description, level, parent_id)
        for code, description, level, parent_id in hs_model.objects.values_list(
            "code", "description", "level", "parent_id"
        )
    }
    to_create, to_update = [], []
    # Parents first: sorted by length, and bulk_create keeps that order.
    for code, description in sorted(rows, key=lambda row: (len(row[0]), row[0])):
        parent = code[:-2] if len(code) > 2 and code[:-2] in codes else None
        values = (description[:600], len(code), parent)
        if code not in existing:
            to_create.append(
                hs_model(code=code, description=values[0], level=values[1], parent_id=parent)
            )
        elif existing[code] != values:
            to_update.append(
                hs_model(code=code, description=values[0], level=values[1], parent_id=parent)
            )
    hs_model.objects.bulk_create(to_create, batch_size=500)
    if to_update:
        hs_model.objects.bulk_update(to_update, ["description", "level", "parent"], batch_size=500)
    return len(rows)


def load_categories(category_model) -> int:
    """Upsert every node of the file by slug, then delete or retire the nodes it no longer has.

    Only rows that differ from the file are written, so reloading an unchanged file is a few
    reads.
    """
    rows = flatten_category_tree(read_category_tree())
    in_file = {row.slug for row in rows}
    current = {category.slug: category for category in category_model.objects.all()}
    stale = [category for slug, category in current.items() if slug not in in_file]

    # `path` is unique and a node may take over the place of one that moved or left the file,
    # so every path about to change is first moved out of the way, in one statement per chunk.
    moving = [category.pk for category in stale]
    moving += [
        current[row.slug].pk
        for row in rows
        if row.slug in current and current[row.slug].path != row.path
    ]
    for start in range(0, len(moving), 500):
        category_model.objects.filter(pk__in=moving[start : start + 500]).update(
            path=Concat(Value(_TEMPORARY_PATH_PREFIX), F("path"))
        )

    pk_by_slug = {slug: category.pk for slug, category in current.items()}
    # One level at a time, so that every parent has its primary key before its children.
    for depth in sorted({row.depth for row in rows}):
        to_create = []
        for row in rows:
            if row.depth != depth:
                continue
            values = _category_values(row, pk_by_slug)
            category = current.get(row.slug)
            if category is None:
                to_create.append(category_model(slug=row.slug, **values))
            elif any(getattr(category, field) != value for field, value in values.items()):
                category_model.objects.filter(pk=category.pk).update(**values)
        if to_create:
            category_model.objects.bulk_create(to_create, batch_size=500)
            # Read the keys back: not every database returns them from a bulk insert.
            created = category_model.objects.filter(slug__in=[c.slug for c in to_create])
            pk_by_slug.update(created.values_list("slug", "pk"))

    _delete_or_retire(category_model, stale)
    return len(rows)


def _category_values(row: CategoryRow, pk_by_slug: dict[str, int]) -> dict[str, Any]:
    return {
        "parent_id": pk_by_slug[row.parent_slug] if row.parent_slug else None,
        "path": row.path,
        "depth": row.depth,
        "position": row.position,
        "name_en": row.name_en,
        "name_zh_hans": row.name_zh_hans,
        "name_zh_hant": row.name_zh_hant,
        "hs_codes": row.hs_codes,
        "is_leaf": row.is_leaf,
    }


def _delete_or_retire(category_model, stale: list) -> None:
    # Deepest first, so a removed branch goes leaf by leaf.
    for category in sorted(stale, key=lambda c: c.depth, reverse=True):
        try:
            with transaction.atomic():
                category_model.objects.filter(pk=category.pk).delete()
        except (ProtectedError, RestrictedError):
            category_model.objects.filter(pk=category.pk).update(
                path=RETIRED_PATH_PREFIX + category.slug
            )


def load_reference_data(category_model=None, hs_model=None) -> tuple[int, int]:
    """Load both files; returns (categories in the file, HS codes in the file)."""
    if category_model is None or hs_model is None:
        from tradepost.catalog.models import Category, HSCode

        category_model, hs_model = Category, HSCode
    with transaction.atomic():
        return load_categories(category_model), load_hs_codes(hs_model)
