"""Helpers for the company tests: a company with one person in each role, test images."""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from tests.factories import add_member, make_company, make_operator, make_user
from tradepost.accounts.models import User
from tradepost.companies.models import Company, Role


@dataclass
class Cast:
    company: Company
    owner: User
    admin: User
    member: User
    outsider: User  # owner of another company
    other_company: Company
    operator: User
    loner: User  # signed in, no company

    def user(self, who: str) -> User | None:
        return None if who == "anonymous" else getattr(self, who)


def make_cast() -> Cast:
    owner = make_user(full_name="Olivia Owner")
    company = make_company(owner=owner, legal_name="Acme Trading", english_name="Acme Trading")
    admin = add_member(company, role=Role.ADMIN)
    member = add_member(company, role=Role.MEMBER)
    outsider = make_user()
    other_company = make_company(owner=outsider)
    return Cast(
        company=company,
        owner=owner,
        admin=admin,
        member=member,
        outsider=outsider,
        other_company=other_company,
        operator=make_operator(),
        loner=make_user(),
    )


def png_upload(name: str = "logo.png", size: tuple[int, int] = (64, 48)) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 80, 20)).save(buffer, format="PNG")
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/png")
