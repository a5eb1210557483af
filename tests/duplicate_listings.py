"""Two titles of one listing, the second reworded from the first: the case the
near-duplicate check of publishing catches (ADR 0024). The `original` and `copy` fixtures of
tests/conftest.py list them."""

FLASK = "Stainless steel vacuum flask 500 ml, double wall, 12 hours hot"
FLASK_COPY = "Double wall vacuum flask in stainless steel 500ml, hot 12 hours, new"
