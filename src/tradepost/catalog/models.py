from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tradepost.companies.models import Company


class HSCode(models.Model):
    """A Harmonized System 2022 code at 2 (chapter), 4 (heading) or 6 (subheading) digits."""

    code = models.CharField(max_length=6, primary_key=True)
    description = models.CharField(max_length=600)
    level = models.PositiveSmallIntegerField()
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE)

    class Meta:
        verbose_name = _("HS code")
        verbose_name_plural = _("HS codes")
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} {self.description}"


class Category(models.Model):
    """A node of the bilingual category tree. Products are filed under leaves.

    `path` is the materialised path of zero-padded positions ("0003.0012"), so a subtree is
    one indexed prefix query.
    """

    slug = models.SlugField(max_length=120, unique=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    path = models.CharField(max_length=255, unique=True)
    depth = models.PositiveSmallIntegerField(default=0)
    position = models.PositiveIntegerField(default=0)
    name_en = models.CharField(_("name (English)"), max_length=150)
    name_zh_hans = models.CharField(_("name (Simplified Chinese)"), max_length=150)
    name_zh_hant = models.CharField(_("name (Traditional Chinese)"), max_length=150)
    hs_codes = models.JSONField(_("HS codes"), default=list, blank=True)
    is_leaf = models.BooleanField(default=True)

    class Meta:
        verbose_name = _("category")
        verbose_name_plural = _("categories")
        ordering = ["path"]

    def __str__(self) -> str:
        return self.name_en

    def name_for(self, language: str) -> str:
        if language == "zh-hans":
            return self.name_zh_hans
        if language == "zh-hant":
            return self.name_zh_hant
        return self.name_en


class Unit(models.TextChoices):
    PIECES = "pieces", _("pieces")
    SETS = "sets", _("sets")
    PAIRS = "pairs", _("pairs")
    BOXES = "boxes", _("boxes")
    CARTONS = "cartons", _("cartons")
    DOZENS = "dozens", _("dozens")
    ROLLS = "rolls", _("rolls")
    BAGS = "bags", _("bags")
    KILOGRAMS = "kg", _("kilograms")
    GRAMS = "g", _("grams")
    TONNES = "tonnes", _("tonnes")
    METRES = "m", _("metres")
    SQUARE_METRES = "m2", _("square metres")
    CUBIC_METRES = "m3", _("cubic metres")
    LITRES = "l", _("litres")
    BARRELS = "barrels", _("barrels")
    CONTAINERS_20 = "container20", _("20-foot containers")
    CONTAINERS_40 = "container40", _("40-foot containers")
    UNITS = "units", _("units")


class PaymentTerm(models.TextChoices):
    TT = "tt", _("T/T (bank transfer)")
    LC = "lc", _("L/C (letter of credit)")
    DP = "dp", _("D/P (documents against payment)")
    DA = "da", _("D/A (documents against acceptance)")
    PAYPAL = "paypal", "PayPal"
    WESTERN_UNION = "western_union", "Western Union"
    MONEYGRAM = "moneygram", "MoneyGram"
    ESCROW = "escrow", _("Escrow")
    CASH = "cash", _("Cash")
    OTHER = "other", _("Other")


class ProductStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PUBLISHED = "published", _("Published")
    HIDDEN = "hidden", _("Hidden by moderation")
    HELD = "held", _("Held for review")
    DELETED = "deleted", _("Deleted")


class Product(models.Model):
    """A supplier's sell offer, written in its original language."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="products")
    slug = models.SlugField(max_length=80, blank=True)
    original_language = models.CharField(_("listing language"), max_length=10, default="en")
    #: The supplier's own code for the product (its SKU): unique among the company's
    #: products that are not deleted, when given; a catalogue import finds the product by it.
    sku = models.CharField(_("SKU"), max_length=64, blank=True)
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    category = models.ForeignKey(
        Category, on_delete=models.PROTECT, related_name="products", verbose_name=_("category")
    )
    keywords = models.CharField(_("keywords"), max_length=300, blank=True)
    attributes = models.JSONField(_("attributes"), default=list, blank=True)
    moq = models.DecimalField(_("minimum order quantity"), max_digits=14, decimal_places=3)
    moq_unit = models.CharField(_("unit"), max_length=12, choices=Unit.choices)
    price_min = models.DecimalField(
        _("lowest unit price"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    price_max = models.DecimalField(
        _("highest unit price"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    currency = models.CharField(_("currency"), max_length=3, default="USD")
    incoterms = models.JSONField(_("Incoterms"), default=list, blank=True)
    port_of_loading = models.CharField(_("port of loading"), max_length=100, blank=True)
    payment_terms = models.JSONField(_("payment terms"), default=list, blank=True)
    lead_time_days = models.PositiveIntegerField(_("lead time (days)"), null=True, blank=True)
    supply_capacity = models.DecimalField(
        _("supply capacity per month"), max_digits=16, decimal_places=3, null=True, blank=True
    )
    supply_capacity_unit = models.CharField(
        _("supply capacity unit"), max_length=12, choices=Unit.choices, blank=True
    )
    hs_code = models.CharField(_("HS code"), max_length=6, blank=True)
    origin_country = models.CharField(_("country of origin"), max_length=2, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=ProductStatus.choices, default=ProductStatus.DRAFT
    )
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("product")
        verbose_name_plural = _("products")
        ordering = ["-published_at", "-id"]
        indexes = [
            models.Index(fields=["status", "-published_at"], name="product_status_published"),
            models.Index(fields=["category", "status"], name="product_category_status"),
            models.Index(fields=["company", "status"], name="product_company_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(moq__gt=0), name="product_moq_positive"),
            models.CheckConstraint(
                condition=Q(price_min__isnull=True)
                | Q(price_max__isnull=True)
                | Q(price_min__lte=models.F("price_max")),
                name="product_price_range_ordered",
            ),
            models.UniqueConstraint(
                fields=["company", "sku"],
                condition=~Q(sku="") & ~Q(status="deleted"),
                name="product_sku_unique_per_company",
                violation_error_message=_("Another of your products has this SKU."),
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        """The canonical path of the product page in the active language."""
        return reverse("catalog:product_detail", args=[self.pk, self.url_slug])

    @property
    def url_slug(self) -> str:
        """The slug in the product's address ("item" for a title with no Latin letters)."""
        return self.slug or "item"


class ProductTranslation(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=10)
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        verbose_name = _("product translation")
        verbose_name_plural = _("product translations")
        constraints = [
            models.UniqueConstraint(
                fields=["product", "language"], name="one_translation_per_language"
            )
        ]

    def __str__(self) -> str:
        return f"{self.product_id} [{self.language}] {self.title}"


class ProductImage(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="images")
    image = models.ImageField(upload_to="products/", width_field="width", height_field="height")
    thumbnail = models.ImageField(upload_to="products/thumbs/")
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    position = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("product image")
        verbose_name_plural = _("product images")
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.image.name or ""


class Showcase(models.Model):
    """A published product its company chose to show in the labelled, paid showcase block
    (home page, matching search and category pages). Its plan's `showcase_slots` bound how
    many show: the oldest choices first; the others wait (a lower plan, Free) and show again
    on a plan with more slots. Nothing here changes where a product ranks
    (docs/adr/0026-showcase-and-first-look.md). Written by `catalog.showcase_services`."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="showcases")
    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, related_name="showcase", verbose_name=_("product")
    )
    created_at = models.DateTimeField(_("showcased since"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("showcased product")
        verbose_name_plural = _("showcased products")
        ordering = ["company", "created_at", "id"]
        indexes = [models.Index(fields=["company", "created_at"], name="showcase_company_age")]

    def __str__(self) -> str:
        return f"{self.company_id}: {self.product_id}"
