"""Daily counters, and nothing about who: no user, address, cookie or whole query is kept.

A product page shown to a visitor adds one to its product's row of the day; a search results
page adds one to the row of the day of each (company whose listings it showed, word of the
query). Rows are written after the response (`insights.counting`), one statement a request.
"""

from __future__ import annotations

from django.db import models

from tradepost.catalog.models import Product
from tradepost.companies.models import Company

#: The longest word counted (longer ones are not words people search for).
WORD_MAX_LENGTH = 40


class ProductViewDay(models.Model):
    """How many times a product's page was shown on one day (UTC)."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    #: The product's company, kept on the row so a company's weeks are read without a join.
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["product", "day"], name="one_view_row_per_product_day")
        ]
        indexes = [models.Index(fields=["company", "day"], name="views_company_day")]

    def __str__(self) -> str:
        return f"{self.product_id} {self.day}: {self.count}"


class SearchWordDay(models.Model):
    """How many search results pages showed a company's listings for a query holding `word`,
    on one day (UTC). The word is normalised (`search.analysis.query_words`)."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    word = models.CharField(max_length=WORD_MAX_LENGTH)
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company", "day", "word"], name="one_word_row_per_company_day"
            )
        ]

    def __str__(self) -> str:
        return f"{self.company_id} {self.day} {self.word}: {self.count}"
