"""Users: verified by default, all with the same password; operators."""

from __future__ import annotations

from typing import Any

import factory
from django.utils import timezone

from tradepost.accounts.models import User

PASSWORD = "correct-horse-battery-9"


class UserFactory(factory.django.DjangoModelFactory):
    """A user who signed up with `PASSWORD` (pass `verified=False` for an unconfirmed email)."""

    class Meta:
        model = User

    class Params:
        verified = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    email_verified_at = factory.Maybe(
        "verified", yes_declaration=factory.LazyFunction(timezone.now), no_declaration=None
    )

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **fields: Any) -> User:
        return model_class.objects.create_user(password=PASSWORD, **fields)


class OperatorFactory(UserFactory):
    is_staff = True
    is_superuser = True


def make_user(**fields: Any) -> User:
    return UserFactory(**fields)


def make_operator(**fields: Any) -> User:
    return OperatorFactory(**fields)
