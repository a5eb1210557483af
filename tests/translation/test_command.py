"""`tradepost translate`: catches up on every missing machine translation, writes nothing
the second time, and writes them all again with --again."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.factories.catalog import make_flask
from tests.factories.sourcing import make_request
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("translate", *args, verbosity=0, stdout=out)
    return out.getvalue()


def test_the_command_catches_up_then_has_nothing_left_then_redoes_all(cast):
    make_flask(cast.company, "不锈钢保温杯", "zh-hans")
    make_request(title="Glass vacuum flasks", original_language="en")
    first = _run()
    written = StoredTranslation.objects.count()
    assert written > 0
    assert "for 1 published listings" in first and "for 1 open buying requests" in first
    assert "Wrote 0 machine translations" in _run().splitlines()[0]
    again = _run("--again")
    assert f"Deleted {written:,} stored machine translations." in again
    assert StoredTranslation.objects.count() == written
