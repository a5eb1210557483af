"""Reads for the demo marketplace: is the database empty, the category leaves, the logins."""

from __future__ import annotations

from typing import Any

from tradepost.accounts.models import User
from tradepost.catalog.models import Category, Product
from tradepost.companies.models import Company
from tradepost.demo.generator import LeafCategory


def database_has_data() -> bool:
    """True when the site already has people, companies or products (the demo stays out)."""
    return User.objects.exists() or Company.objects.exists() or Product.objects.exists()


def leaf_categories() -> list[LeafCategory]:
    """Every leaf of the category tree in tree order, with the HS codes of the nearest node
    (itself or an ancestor) that has a mapping."""
    rows = list(
        Category.objects.order_by("path").values(
            "id", "slug", "name_en", "path", "parent_id", "hs_codes", "is_leaf"
        )
    )
    by_id: dict[int, dict[str, Any]] = {row["id"]: dict(row) for row in rows}
    leaves: list[LeafCategory] = []
    for row in rows:
        if not row["is_leaf"]:
            continue
        top: dict[str, Any] = dict(row)
        hs_codes = None
        node: dict[str, Any] | None = top
        while node is not None:
            if hs_codes is None and node["hs_codes"]:
                hs_codes = node["hs_codes"]
            top = node
            node = by_id.get(node["parent_id"]) if node["parent_id"] else None
        leaves.append(
            LeafCategory(
                id=row["id"],
                slug=row["slug"],
                name_en=row["name_en"],
                path=row["path"],
                top_slug=top["slug"],
                hs_codes=tuple(str(code) for code in (hs_codes or [])),
            )
        )
    return leaves


def demo_users(emails: list[str]) -> dict[str, User]:
    return {user.email: user for user in User.objects.filter(email__in=emails)}
