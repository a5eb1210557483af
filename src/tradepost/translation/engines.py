"""One interface for machine translation: `translate(text, source, target, kind)`.

`kind` says what the text is (a listing's title, its keywords, an attribute value, a
description, a message), so that an engine can write it as such: titles come out in title
case, and descriptions and messages keep their paragraphs (each line is translated on its own).

Two engines:

- the embedded lexicon gloss (`translation.gloss`): no network, no download, about a tenth of
  a millisecond a title; English and both Chinese scripts;
- a LibreTranslate server, where the site runs one (`TRADEPOST_LIBRETRANSLATE_URL`): its
  HTTP API (`POST /translate` with `q`, `source`, `target`, `format` and `api_key`, answered
  with `translatedText`). Chinese is sent and received in simplified characters ("zh", which
  every release of the server knows) and converted with OpenCC here. A server that is down,
  slow (`TRADEPOST_LIBRETRANSLATE_TIMEOUT`), refuses, or answers anything but a translation
  is logged and the gloss is used: a translation is written in the background, so nothing
  ever waits on the server for long, and never gets nothing where the gloss can help.

Text that looks garbled (mojibake, characters lost to a wrong encoding; `core.garbled`) is
left as it is: translating it would only turn nonsense into other nonsense.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import httpx
from django.conf import settings

from tradepost.core.chinese_scripts import CHINESE_SCRIPTS, SIMPLIFIED, convert_script
from tradepost.core.garbled import check_text
from tradepost.translation import gloss

logger = logging.getLogger(__name__)


class Kind(StrEnum):
    TITLE = "title"
    KEYWORDS = "keywords"
    ATTRIBUTE = "attribute"
    DESCRIPTION = "description"
    MESSAGE = "message"


#: Kinds written in paragraphs: each line is translated on its own and the lines are kept.
_PARAGRAPHED = frozenset({Kind.DESCRIPTION, Kind.MESSAGE})
#: Characters of an answer read at most, against the length of the question: a server that
#: answers far more than it was asked is answering something else.
_ANSWER_GROWTH = 8


@dataclass(frozen=True)
class Translated:
    text: str
    #: The engine that wrote it ("gloss", "libretranslate"); "" when the text was left as it
    #: was (a pair no engine translates, nothing to translate, garbled text).
    engine: str
    #: The share of the source's words the engine had no translation for (0 to 1; 0 for a
    #: server, which does not say).
    untranslated_share: float


class ServerUnavailable(Exception):
    """The translation server did not give a usable translation (why, for the log)."""


def supported(source: str, target: str) -> bool:
    """Whether text in `source` can be machine-translated into `target`: by the gloss, or by
    the site's translation server (any two languages but the two Chinese scripts, which are
    converted, not translated)."""
    if gloss.supported(source, target):
        return True
    both_chinese = source in CHINESE_SCRIPTS and target in CHINESE_SCRIPTS
    return bool(settings.TRADEPOST_LIBRETRANSLATE_URL) and source != target and not both_chinese


def translate(text: str, *, source: str, target: str, kind: Kind | str) -> Translated:
    """`text`, written in `source`, in `target`; unchanged (engine "") for a pair no engine
    translates, a text with nothing to translate or a text that looks garbled."""
    text = text[: gloss.MAX_CHARS]
    if not text.strip() or not supported(source, target) or check_text(text) is not None:
        return Translated(text, "", 0.0)
    kind = Kind(kind)
    if settings.TRADEPOST_LIBRETRANSLATE_URL:
        try:
            return Translated(_from_server(text, source, target), "libretranslate", 0.0)
        except ServerUnavailable as problem:
            logger.warning("translation server not used (%s); the gloss translates", problem)
    if not gloss.supported(source, target):
        return Translated(text, "", 0.0)
    return _glossed(text, source=source, target=target, kind=kind)


def _glossed(text: str, *, source: str, target: str, kind: Kind) -> Translated:
    if kind not in _PARAGRAPHED:
        result = gloss.gloss(text, source=source, target=target, title=kind == Kind.TITLE)
        return Translated(result.text, "gloss", result.untranslated_share)
    lines, known, wanted = [], 0, 0
    for line in text.splitlines():
        if not line.strip():
            lines.append("")
            continue
        result = gloss.gloss(line, source=source, target=target)
        lines.append(result.text)
        known, wanted = known + result.known, wanted + result.wanted
    share = 0.0 if not wanted else 1 - known / wanted
    return Translated("\n".join(lines).strip("\n"), "gloss", share)


# --- a LibreTranslate server -------------------------------------------------------------------


def _server_code(language: str) -> str:
    return "zh" if language in CHINESE_SCRIPTS else language.split("-")[0]


def _from_server(text: str, source: str, target: str) -> str:
    """The server's translation, or `ServerUnavailable`. Chinese goes both ways in simplified
    characters; the reader's script is written here."""
    question = convert_script(text, written_in=source, reader=SIMPLIFIED)
    payload = {
        "q": question,
        "source": _server_code(source),
        "target": _server_code(target),
        "format": "text",
    }
    if settings.TRADEPOST_LIBRETRANSLATE_API_KEY:
        payload["api_key"] = settings.TRADEPOST_LIBRETRANSLATE_API_KEY
    url = settings.TRADEPOST_LIBRETRANSLATE_URL.rstrip("/") + "/translate"
    timeout = float(settings.TRADEPOST_LIBRETRANSLATE_TIMEOUT)
    limit = _ANSWER_GROWTH * len(question) + 1024
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False) as client,
            client.stream("POST", url, json=payload) as response,
        ):
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > 4 * limit:
                    raise ServerUnavailable("an answer far longer than the question")
    except httpx.HTTPError as error:
        raise ServerUnavailable(f"{type(error).__name__}: {error}") from None
    if response.status_code != 200:
        raise ServerUnavailable(f"status {response.status_code}")
    try:
        answer = httpx.Response(200, content=body).json()
    except ValueError:
        raise ServerUnavailable("an answer that is not JSON") from None
    translated = answer.get("translatedText") if isinstance(answer, dict) else None
    if not isinstance(translated, str) or not translated.strip() or len(translated) > limit:
        raise ServerUnavailable("no translation in the answer")
    if "\x00" in translated or any(0xD800 <= ord(char) <= 0xDFFF for char in translated):
        raise ServerUnavailable("text that cannot be stored")
    return convert_script(translated.strip(), written_in=SIMPLIFIED, reader=target)
