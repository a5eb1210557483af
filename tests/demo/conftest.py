"""Fixtures of the demo marketplace tests."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_category
from tradepost.catalog.models import Category
from tradepost.demo.vocabulary import load_vocabulary


@pytest.fixture
def category_tree(db):
    """The shipped category tree (loaded by the migrations); a small stand-in when it is empty,
    one top level per industry of the demo's product templates, each with two leaves."""
    if not Category.objects.filter(is_leaf=True, depth__gt=0).exists():
        for top_slug in load_vocabulary().industries:
            top = make_category(slug=top_slug, name_en=top_slug.replace("-", " ").title())
            for word in ("general", "other"):
                make_category(parent=top, slug=f"{top_slug}-{word}", name_en=f"{word} goods")
    return Category.objects.filter(is_leaf=True)


@pytest.fixture(scope="session")
def _demo_media_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("demo-media")


@pytest.fixture
def shared_media(_isolated_media, settings, _demo_media_dir):
    """One media folder for every test that loads the demo, so its pictures are drawn once
    (the loader reuses picture files that exist)."""
    settings.MEDIA_ROOT = _demo_media_dir
    return _demo_media_dir
