"""Supplier responsiveness: conversations and quotations, rate within 24 hours, median delay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tradepost.messaging.models import Conversation
from tradepost.sourcing.models import BuyingRequest, Quotation
from tradepost.sourcing.responsiveness import (
    supplier_responsiveness,
    supplier_responsiveness_many,
)

pytestmark = pytest.mark.django_db


def _age_conversation(conversation, *, days_ago, replied_after=None):
    now = timezone.now()
    created = now - timedelta(days=days_ago)
    Conversation.objects.filter(pk=conversation.pk).update(
        created_at=created,
        supplier_first_reply_at=created + replied_after if replied_after is not None else None,
    )


def _age_quotation(quotation, *, request_days_ago, quoted_after):
    now = timezone.now()
    posted = now - timedelta(days=request_days_ago)
    BuyingRequest.objects.filter(pk=quotation.request_id).update(created_at=posted)
    Quotation.objects.filter(pk=quotation.pk).update(created_at=posted + quoted_after)


def test_quotations_count_as_answers_to_requests():
    p = make_parties()
    supplier = p.supplier_owner
    fast_conversation = make_conversation(p)
    _age_conversation(fast_conversation, days_ago=5, replied_after=timedelta(hours=1))
    fast_quote = make_quotation(make_request(), actor=supplier)
    _age_quotation(fast_quote, request_days_ago=4, quoted_after=timedelta(hours=3))
    slow_quote = make_quotation(make_request(), actor=supplier)
    _age_quotation(slow_quote, request_days_ago=4, quoted_after=timedelta(hours=50))
    unanswered = make_conversation(p, message="anyone?")
    _age_conversation(unanswered, days_ago=2)

    result = supplier_responsiveness(p.supplier_company)
    assert result.conversations == 2
    assert result.quotations == 2
    assert result.asks == 4
    assert result.answered_in_time == 2
    assert result.response_rate == 0.5
    assert result.response_rate_percent == 50
    # delays 1 h, 3 h, 50 h: the median is 3 h
    assert result.median_first_response == timedelta(hours=3)
    assert result.median_hours == 3


def test_old_asks_fall_out_of_the_period():
    p = make_parties()
    old = make_quotation(make_request(), actor=p.supplier_owner)
    _age_quotation(old, request_days_ago=100, quoted_after=timedelta(hours=1))
    conversation = make_conversation(p)
    _age_conversation(conversation, days_ago=120, replied_after=timedelta(hours=1))
    result = supplier_responsiveness(p.supplier_company)
    assert result.asks == 0
    assert result.response_rate is None
    assert result.median_first_response is None
    assert supplier_responsiveness(p.supplier_company, days=365).asks == 2


def test_many_companies_in_one_query(django_assert_num_queries):
    p = make_parties()
    conversation = make_conversation(p)
    _age_conversation(conversation, days_ago=3, replied_after=timedelta(hours=30))
    quiet = make_company()
    with django_assert_num_queries(1):
        result = supplier_responsiveness_many([p.supplier_company.pk, quiet.pk, quiet.pk])
    assert set(result) == {p.supplier_company.pk, quiet.pk}
    assert result[p.supplier_company.pk].response_rate == 0.0
    assert result[p.supplier_company.pk].median_days == 2
    assert result[quiet.pk].response_rate is None
    assert supplier_responsiveness_many([]) == {}
