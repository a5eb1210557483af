"""The LibreTranslate engine against a local fake that speaks its documented HTTP API
(`POST /translate` with q, source, target, format and api_key; `{"translatedText": ...}`),
and the gloss taking over whenever the server is down, slow, refuses or answers garbage."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tradepost.translation.engines import Kind, translate


class FakeLibreTranslate:
    """What the fake answers next (`mode`), and the requests it got."""

    def __init__(self) -> None:
        self.mode = "translate"
        self.requests: list[dict] = []


@pytest.fixture
def server(settings) -> Iterator[FakeLibreTranslate]:
    fake = FakeLibreTranslate()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append({"path": self.path, **body})
            mode = fake.mode
            if mode == "slow":
                time.sleep(1.5)
            if mode == "refuse":
                self._answer(403, {"error": "Invalid API key"})
            elif mode == "garbage":
                self._answer(200, b"<html>proxy error</html>")
            elif mode == "empty":
                self._answer(200, {"translatedText": "  "})
            elif mode == "huge":
                self._answer(200, {"translatedText": "x" * 200_000})
            else:
                self._answer(200, {"translatedText": f"[{body['target']}] {body['q']}"})

        def _answer(self, status: int, payload) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped waiting

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    settings.TRADEPOST_LIBRETRANSLATE_URL = f"http://127.0.0.1:{httpd.server_port}/"
    settings.TRADEPOST_LIBRETRANSLATE_API_KEY = "secret-key"
    settings.TRADEPOST_LIBRETRANSLATE_TIMEOUT = 0.5
    yield fake
    httpd.shutdown()
    httpd.server_close()


def test_the_server_gets_the_documented_request_and_its_translation_is_used(server):
    result = translate("Stainless steel vacuum flask", source="en", target="zh-hans", kind="title")
    assert result == result.__class__("[zh] Stainless steel vacuum flask", "libretranslate", 0.0)
    assert server.requests == [
        {
            "path": "/translate",
            "q": "Stainless steel vacuum flask",
            "source": "en",
            "target": "zh",
            "format": "text",
            "api_key": "secret-key",
        }
    ]


def test_chinese_goes_to_the_server_in_simplified_and_comes_back_in_the_readers_script(server):
    server.mode = "translate"
    back = translate("Vacuum flask 保温杯", source="en", target="zh-hant", kind=Kind.TITLE)
    assert back.text == "[zh] Vacuum flask 保溫杯" and back.engine == "libretranslate"
    translate("不鏽鋼保溫杯", source="zh-hant", target="en", kind=Kind.TITLE)
    asked = server.requests[-1]
    assert (asked["q"], asked["source"], asked["target"]) == ("不锈钢保温杯", "zh", "en")


@pytest.mark.parametrize("mode", ["refuse", "garbage", "empty", "huge", "slow"])
def test_a_server_that_fails_leaves_the_translation_to_the_gloss(server, mode, caplog):
    server.mode = mode
    started = time.perf_counter()
    result = translate("不锈钢保温杯", source="zh-hans", target="en", kind=Kind.TITLE)
    assert result.engine == "gloss"
    assert "Stainless" in result.text
    assert time.perf_counter() - started < 1.4  # the timeout (0.5 s), not the server's pace
    assert "translation server not used" in caplog.text


def test_a_server_that_is_down_leaves_the_translation_to_the_gloss(settings):
    settings.TRADEPOST_LIBRETRANSLATE_URL = "http://127.0.0.1:9/"  # nothing listens there
    settings.TRADEPOST_LIBRETRANSLATE_TIMEOUT = 0.5
    result = translate("保温杯", source="zh-hans", target="en", kind=Kind.TITLE)
    assert result.engine == "gloss" and result.text


def test_with_a_server_other_languages_are_translated_and_without_it_are_not(server, settings):
    french = translate("Bouteille isotherme", source="fr", target="en", kind=Kind.TITLE)
    assert french.engine == "libretranslate"
    assert server.requests[-1]["source"] == "fr"
    server.mode = "refuse"
    refused = translate("Bouteille isotherme", source="fr", target="en", kind=Kind.TITLE)
    assert (refused.text, refused.engine) == ("Bouteille isotherme", "")
    settings.TRADEPOST_LIBRETRANSLATE_URL = ""
    alone = translate("Bouteille isotherme", source="fr", target="en", kind=Kind.TITLE)
    assert alone.engine == ""
