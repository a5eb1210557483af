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


def test_prune_deletes_what_no_text_asks_for_and_keeps_the_rest(cast):
    from datetime import timedelta

    from django.utils import timezone

    from tests.factories.messaging import make_conversation, make_parties
    from tradepost.catalog.models import Product
    from tradepost.messaging.models import Message
    from tradepost.sourcing.models import BuyingRequest, RequestStatus
    from tradepost.translation.keys import Wanted
    from tradepost.translation.services import translations_prune

    kept = make_flask(cast.company, "不锈钢保温杯", "zh-hans")
    edited = make_flask(cast.company, "玻璃水杯", "zh-hans")
    closed = make_request(title="Glass vacuum flasks", original_language="en")
    parties = make_parties()
    conversation = make_conversation(parties, message="Stainless steel flasks, price?")
    _run()

    Product.objects.filter(pk=edited.pk).update(title="陶瓷水杯")  # its old title is asked no more
    BuyingRequest.objects.filter(pk=closed.pk).update(status=RequestStatus.CLOSED)
    Message.objects.filter(conversation=conversation).update(hidden_at=timezone.now())
    message_rows = StoredTranslation.objects.filter(kind="message").count()
    assert message_rows > 0
    out = _run("--prune")
    assert "machine translations no text asks for" in out
    assert not StoredTranslation.objects.filter(kind="message").exists()  # hidden
    assert not StoredTranslation.objects.filter(text__icontains="glass cup").exists()
    english_titles = set(
        StoredTranslation.objects.filter(kind="title", target_language="en").values_list(
            "text", flat=True
        )
    )
    assert english_titles == {"Stainless Steel Vacuum Flask", "Ceramic Water Bottle"}
    # The closed request's title is kept: its buyer and the suppliers that quoted read it.
    assert StoredTranslation.objects.filter(text__contains="玻璃").exists()
    assert kept.pk and _run("--prune").splitlines()[-1].startswith("Deleted 0 ")

    # A row written after the walk began is kept, even though nothing asked for it yet.
    late = Wanted("刚写的", "zh-hans", "en", "title")
    StoredTranslation.objects.create(
        key=late.key,
        source_language="zh-hans",
        target_language="en",
        kind="title",
        engine="gloss",
        text="Just written",
    )
    assert translations_prune([], now=timezone.now() - timedelta(minutes=1)) == 0
    assert StoredTranslation.objects.filter(key=late.key).exists()
    assert translations_prune([], now=timezone.now() + timedelta(minutes=1)) > 0
    assert not StoredTranslation.objects.exists()
