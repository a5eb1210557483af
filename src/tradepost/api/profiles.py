"""A company's profile as the API shows it: to its managers (`/api/v1/me/company`) and to
everybody (`/api/v1/public/companies`), each adding its own fields."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field


class CompanyProfileOut(Schema):
    slug: str
    legal_name: str
    english_name: str
    original_language: str
    country: str
    province: str
    city: str
    business_types: list[str]
    year_established: int | None
    employee_range: str
    main_markets: list[str]
    main_products: str
    certifications: list[str]
    export_share: int | None
    website: str
    logo_url: str | None
    description: str = Field(description="Sanitised HTML")
