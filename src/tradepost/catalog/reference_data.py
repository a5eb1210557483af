"""Loading of the project's reference data: the category tree and the HS 2022 code list.

Both live in `catalog/data/` as files the project ships:
  categories.json  [{"slug", "en", "zh_hans", "zh_hant", "hs": [codes], "children": [...]}, ...]
  hs2022.tsv       code<TAB>description, codes of 2, 4 or 6 digits

Loading is idempotent (upsert by slug / code) so it runs from a data migration and again from
`tradepost loadreferencedata` after the files change.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
CATEGORIES_FILE = DATA_DIR / "categories.json"
HS_FILE = DATA_DIR / "hs2022.tsv"


def read_category_tree() -> list[dict[str, Any]]:
    if not CATEGORIES_FILE.exists():
        return []
    return json.loads(CATEGORIES_FILE.read_text(encoding="utf-8"))


def read_hs_codes() -> list[tuple[str, str]]:
    if not HS_FILE.exists():
        return []
    with HS_FILE.open(encoding="utf-8", newline="") as handle:
        return [
            (row[0].strip(), row[1].strip()) for row in csv.reader(handle, delimiter="\t") if row
        ]


def load_hs_codes(hs_model) -> int:
    rows = read_hs_codes()
    existing = set(hs_model.objects.values_list("code", flat=True))
    to_create: list[Any] = []
    to_update: list[Any] = []
    for code, description in sorted(rows, key=lambda r: (len(r[0]), r[0])):
        parent = None
        if len(code) == 4:
            parent = code[:2]
        elif len(code) == 6:
            parent = code[:4]
        obj = hs_model(code=code, description=description[:600], level=len(code), parent_id=parent)
        (to_update if code in existing else to_create).append(obj)
    # Parents first: rows are sorted by length, and bulk_create keeps that order.
    hs_model.objects.bulk_create(to_create, batch_size=1000)
    if to_update:
        hs_model.objects.bulk_update(to_update, ["description", "level", "parent"], batch_size=1000)
    return len(rows)


def load_categories(category_model) -> int:
    count = 0

    def visit(nodes: list[dict[str, Any]], parent, parent_path: str, depth: int) -> None:
        nonlocal count
        for position, node in enumerate(nodes, start=1):
            path = f"{parent_path}.{position:04d}" if parent_path else f"{position:04d}"
            children = node.get("children") or []
            category, _created = category_model.objects.update_or_create(
                slug=node["slug"],
                defaults={
                    "parent": parent,
                    "path": f"~{path}",  # temporary, avoids clashes while paths move
                    "depth": depth,
                    "position": position,
                    "name_en": node["en"],
                    "name_zh_hans": node["zh_hans"],
                    "name_zh_hant": node["zh_hant"],
                    "hs_codes": node.get("hs") or [],
                    "is_leaf": not children,
                },
            )
            count += 1
            visit(children, category, path, depth + 1)

    visit(read_category_tree(), None, "", 0)
    for category in category_model.objects.filter(path__startswith="~"):
        category.path = category.path[1:]
        category.save(update_fields=["path"])
    return count


def load_reference_data(category_model=None, hs_model=None) -> tuple[int, int]:
    if category_model is None or hs_model is None:
        from tradepost.catalog.models import Category, HSCode

        category_model, hs_model = Category, HSCode
    return load_categories(category_model), load_hs_codes(hs_model)
