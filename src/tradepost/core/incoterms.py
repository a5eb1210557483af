"""The Incoterms 2020 rules a price or quotation is given under (ICC): reference data shared
by listings, buying requests, quotations and the search index's facets."""

from __future__ import annotations

from django.db import models


class Incoterm(models.TextChoices):
    EXW = "EXW", "EXW"
    FCA = "FCA", "FCA"
    CPT = "CPT", "CPT"
    CIP = "CIP", "CIP"
    DAP = "DAP", "DAP"
    DPU = "DPU", "DPU"
    DDP = "DDP", "DDP"
    FAS = "FAS", "FAS"
    FOB = "FOB", "FOB"
    CFR = "CFR", "CFR"
    CIF = "CIF", "CIF"
