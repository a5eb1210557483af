"""The benchmark smoke test uses the shipped category tree (or the stand-in); its index
folder is the one every test gets (the root conftest)."""

from __future__ import annotations

from tests.demo.conftest import category_tree  # noqa: F401  (the shipped or stand-in tree)
