"""Dates and times in the viewer's language, through Babel (#13): every template writes a date
with `day` and a date with its time with `moment`, never with Django's own formats ("Dec. 17,
2026, midnight"); the pages of API tokens, company members, the inbox, a conversation and the
notifications show them in Chinese on a Chinese page."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.utils import translation

from tests.factories.accounts import make_user
from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.pages import log_in, page_url
from tradepost import web
from tradepost.accounts.models import ApiToken
from tradepost.accounts.tokens import token_create
from tradepost.companies import services as companies
from tradepost.companies.models import Invitation, Membership
from tradepost.messaging.models import Conversation, Message
from tradepost.notify.models import Notification
from tradepost.web.templatetags.tradepost_i18n import format_moment, moment

TEMPLATES = Path(web.__file__).parent / "templates"
#: A moment set on the records the pages show: 17 December 2026, 14:05 in the site's zone.
WHEN = datetime(2026, 12, 17, 14, 5, tzinfo=UTC)
ON_THE_DAY = {"en": "17 Dec 2026", "zh-hans": "2026年12月17日", "zh-hant": "2026年12月17日"}
AT_THE_MOMENT = {
    "en": "17 Dec 2026, 2:05\u202fpm",
    "zh-hans": "2026年12月17日 14:05",
    "zh-hant": "2026年12月17日 下午2:05",
}
#: What Django's own date formats write (English month abbreviations, "midnight", "p.m.").
DJANGO_FORMAT = re.compile(
    r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.|midnight|noon|[ap]\.m\."
)

# `|date:"c"` writes the machine-readable moment of a <time datetime="..."> attribute; any other
# use of Django's date filters (or a moment written out raw) is shown to a person.
DATE_FILTER = re.compile(
    r"\|\s*(?:date|time|naturaltime|naturalday|timesince|timeuntil)\b(?::\"[^\"]*\")?"
)
MACHINE_READABLE = re.compile(r'datetime="\{\{[^}]*\|date:"c" \}\}"')
RAW_MOMENT = re.compile(r"\{\{\s*[\w.]+(?:_at|_until|deadline)\s*\}\}")


def _templates() -> list[Path]:
    return sorted(path for path in TEMPLATES.rglob("*") if path.suffix in {".html", ".txt"})


def test_no_template_writes_a_date_with_djangos_formats():
    assert _templates()
    found = []
    for path in _templates():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            shown = MACHINE_READABLE.sub("", line)
            for match in [*DATE_FILTER.finditer(shown), *RAW_MOMENT.finditer(shown)]:
                found.append(f"{path.relative_to(TEMPLATES)}:{number}: {match.group(0)}")
    assert not found, "use the day or moment filter:\n" + "\n".join(found)


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_a_moment_is_written_in_the_viewers_language(language):
    assert format_moment(WHEN, language) == AT_THE_MOMENT[language]
    with translation.override(language):
        assert moment(WHEN) == AT_THE_MOMENT[language]
        assert moment(None) == ""


def _chinese_page(client, name: str, **kwargs) -> str:
    response = client.get(page_url(name, "zh-hans", **kwargs))
    assert response.status_code == 200
    html = response.content.decode()
    assert not DJANGO_FORMAT.search(html), DJANGO_FORMAT.search(html)
    return html


@pytest.mark.django_db
def test_api_tokens_show_chinese_dates(client):
    user = make_user()
    token, _secret = token_create(user=user, name="ERP")
    ApiToken.objects.filter(pk=token.pk).update(created_at=WHEN, last_used_at=WHEN)
    html = _chinese_page(log_in(client, user), "accounts:tokens")
    assert f"<td>{ON_THE_DAY['zh-hans']}</td>" in html
    assert f">{AT_THE_MOMENT['zh-hans']}</time>" in html


@pytest.mark.django_db
def test_company_members_show_chinese_dates(client):
    owner, company = make_trader()
    invitation, _secret = companies.invitation_create(
        actor=owner, company=company, email="new@example.com", role="member"
    )
    Membership.objects.filter(company=company).update(created_at=WHEN)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=WHEN)
    html = _chinese_page(log_in(client, owner), "companies:members")
    assert f"<td>{ON_THE_DAY['zh-hans']}</td>" in html
    assert f">{AT_THE_MOMENT['zh-hans']}</time>" in html


@pytest.mark.django_db
def test_inbox_conversation_and_notifications_show_chinese_moments(client):
    parties = make_parties()
    conversation = make_conversation(parties)
    Conversation.objects.filter(pk=conversation.pk).update(last_message_at=WHEN)
    Message.objects.filter(conversation=conversation).update(created_at=WHEN)
    Notification.objects.update(created_at=WHEN)
    expected = f">{AT_THE_MOMENT['zh-hans']}</time>"
    log_in(client, parties.buyer)
    assert expected in _chinese_page(client, "messaging:inbox")
    assert expected in _chinese_page(client, "messaging:detail", conversation_id=conversation.pk)
    client.logout()
    log_in(client, parties.supplier_owner)
    assert Notification.objects.filter(recipient=parties.supplier_owner).exists()
    assert expected in _chinese_page(client, "messaging:notifications")
