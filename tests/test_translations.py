"""The Chinese catalogues: complete, placeholders intact, and really used by the pages."""

from __future__ import annotations

import io
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management import call_command
from django.template.loader import get_template
from django.utils import translation

from tradepost.messaging.forms import ReplyForm

CODES = ("zh_Hans", "zh_Hant")
URL_PREFIX = {"zh_Hans": "zh-hans", "zh_Hant": "zh-hant"}

# A printf conversion as Python's % operator reads it: "%%", "%s", "%(name)s", "%5.2f", ...
PLACEHOLDER = re.compile(r"%(?:\((?P<name>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z%]")
TAG = re.compile(r"</?[A-Za-z][^<>]*>")

# Characters that exist in only one of the two scripts (这/這, 个/個, ...): a Simplified one in the
# Traditional catalogue, or the reverse, means a string was left unconverted.
SIMPLIFIED_ONLY = set(
    "这们个说时会为国发对现关应该务产业东门问间题车长写认证输选择页设删编辑链邮码户账号价"
)
TRADITIONAL_ONLY = set(
    "這們個說時會為國發對現關應該務產業東門問間題車長寫認證輸選擇頁設刪編輯鏈郵碼戶帳號價"
)


def po_path(code: str) -> Path:
    return Path(settings.LOCALE_PATHS[0]) / code / "LC_MESSAGES" / "django.po"


@cache
def load(code: str) -> Catalog:
    with po_path(code).open("rb") as po_file:
        return read_po(po_file, locale=code)


def messages(code: str) -> list[Message]:
    return [message for message in load(code) if message.id]


def forms(value: str | tuple[str, ...] | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def placeholders(text: str) -> Counter[str]:
    return Counter(match.group(0) for match in PLACEHOLDER.finditer(text))


def edges(text: str) -> tuple[str, str]:
    """The leading and the trailing whitespace (newlines included)."""
    return text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]


def message_id(message: Message) -> str:
    return forms(message.id)[0]


@pytest.mark.parametrize("code", CODES)
def test_catalogue_header(code):
    catalog = load(code)
    assert not catalog.fuzzy, "the header is still marked fuzzy"
    assert catalog.mime_headers and dict(catalog.mime_headers)["Language"] == code
    assert catalog.num_plurals == 1


@pytest.mark.parametrize("code", CODES)
def test_every_message_is_translated(code):
    found = messages(code)
    assert len(found) > 500
    fuzzy = [message_id(m) for m in found if m.fuzzy]
    assert not fuzzy, f"fuzzy entries in {code}: {fuzzy}"
    empty = [message_id(m) for m in found if not all(s.strip() for s in forms(m.string))]
    assert not empty, f"untranslated entries in {code}: {empty}"
    plurals = [m for m in found if m.pluralizable]
    assert all(len(forms(m.string)) == 1 for m in plurals), "Chinese has one plural form"


def test_both_catalogues_hold_the_same_messages():
    hans = {(m.id, m.context) for m in messages("zh_Hans")}
    hant = {(m.id, m.context) for m in messages("zh_Hant")}
    assert hans == hant


@pytest.mark.parametrize("code", CODES)
def test_placeholders_tags_and_edges_are_kept(code):
    problems = []
    for message in messages(code):
        ids = forms(message.id)
        # A translation follows the plural msgid (it names the number the singular may leave out).
        source = ids[-1]
        for text in forms(message.string):
            if "python-format" in message.flags and placeholders(text) != placeholders(source):
                problems.append(f"placeholders: {source!r} -> {text!r}")
            if Counter(TAG.findall(text)) != Counter(TAG.findall(source)):
                problems.append(f"markup: {source!r} -> {text!r}")
            if edges(text) != edges(source):
                problems.append(f"edge whitespace: {source!r} -> {text!r}")
    assert not problems, "\n".join(problems)


def test_each_catalogue_is_written_in_its_own_script():
    mixed = {}
    for code, wrong in (("zh_Hant", SIMPLIFIED_ONLY), ("zh_Hans", TRADITIONAL_ONLY)):
        for message in messages(code):
            for text in forms(message.string):
                if found := set(text) & wrong:
                    mixed[(code, message_id(message))] = "".join(sorted(found))
    assert not mixed
    hans = {message_id(m): forms(m.string)[0] for m in messages("zh_Hans")}
    hant = {message_id(m): forms(m.string)[0] for m in messages("zh_Hant")}
    differ = sum(hans[key] != hant[key] for key in hans)
    assert differ > len(hans) * 0.6, "most strings should differ between the two scripts"


@pytest.fixture
def compiled_catalogues(settings):
    """Compile the .mo files when missing or stale, and let Django load them afresh."""
    stale = [
        code
        for code in CODES
        if not po_path(code).with_suffix(".mo").exists()
        or po_path(code).with_suffix(".mo").stat().st_mtime < po_path(code).stat().st_mtime
    ]
    if stale:
        call_command("compiletranslations", stdout=io.StringIO())
    # Setting LOCALE_PATHS makes Django drop its cached translations (and again on restore).
    settings.LOCALE_PATHS = list(settings.LOCALE_PATHS)


def login_title_msgid() -> str:
    source = Path(get_template("accounts/login.html").origin.name).read_text(encoding="utf-8")
    match = re.search(r'{% block title %}{% translate "([^"]+)" %}', source)
    assert match, "the login page title is no longer a plain {% translate %}"
    return match.group(1)


def page_title(html: str) -> str:
    match = re.search(r"<title>(.*?)</title>", html, re.S)
    assert match
    return match.group(1).strip()


@pytest.mark.django_db
def test_login_page_is_shown_in_each_script(client, compiled_catalogues):
    msgid = login_title_msgid()
    titles = {}
    for code in CODES:
        expected = load(code)[msgid].string
        assert expected and expected != msgid
        response = client.get(f"/{URL_PREFIX[code]}/accounts/login/")
        assert response.status_code == 200
        html = response.content.decode()
        assert f'<html lang="{URL_PREFIX[code]}">' in html
        assert page_title(html) == f"{expected} · Tradepost"
        assert f"<h1>{expected}</h1>" in html
        titles[code] = page_title(html)
    assert titles["zh_Hans"] != titles["zh_Hant"]
    english = client.get("/en/accounts/login/").content.decode()
    assert page_title(english) == f"{msgid} · Tradepost"


@pytest.mark.parametrize("code", CODES)
def test_chinese_text_ends_with_a_full_width_colon(code, compiled_catalogues):
    latin = [
        message_id(message)
        for message in messages(code)
        for text in forms(message.string)
        if text.rstrip().endswith(":")
    ]
    assert not latin, f"a Latin colon ends these {code} strings: {latin}"
    # The colon Django adds after a form's labels ("您的回复："), which Django's own
    # Simplified Chinese catalogue leaves Latin.
    with translation.override(URL_PREFIX[code]):
        label = ReplyForm()["body"].label_tag()
    assert label.endswith("：</label>"), label
