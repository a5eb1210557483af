"""What crawlers and browsers ask for at the root: /robots.txt and /favicon.ico; and the
operators' admin, branded Tradepost in their language."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.factories.accounts import make_operator

pytestmark = pytest.mark.django_db


def test_robots_txt_allows_the_public_pages_and_points_to_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert "Allow: /" in lines
    disallowed = {line.removeprefix("Disallow: ") for line in lines if line.startswith("Disallow:")}
    assert {"/admin/", "/api/"} <= disallowed
    for language in ("en", "zh-hans", "zh-hant"):
        assert {
            f"/{language}/accounts/",
            f"/{language}/dashboard/",
            f"/{language}/messages/",
            f"/{language}/requests/mine/",
            f"/{language}/requests/quotations/",
        } <= disallowed
        # The public pages stay open to crawlers.
        for public in ("products/", "companies/", "categories/", "requests/"):
            assert not any(f"/{language}/{public}".startswith(path) for path in disallowed)
    assert f"Sitemap: {settings.SITE_URL}/sitemap.xml" in lines
    assert settings.SITE_URL.startswith("http")


def test_robots_txt_sitemap_line_follows_site_url(client, settings):
    settings.SITE_URL = "https://trade.example.com"
    assert (
        "Sitemap: https://trade.example.com/sitemap.xml"
        in client.get("/robots.txt").content.decode()
    )


def test_favicon_is_the_sites_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file
    icon = Path(settings.PACKAGE_DIR) / "web" / "static" / "tradepost" / "favicon.ico"
    assert body == icon.read_bytes()
    assert "max-age=86400" in response["Cache-Control"]


def test_pages_link_the_svg_icon(client):
    html = client.get("/en/").content.decode()
    assert '<link rel="icon" href="/static/tradepost/favicon.svg" type="image/svg+xml">' in html
    assert client.get("/static/tradepost/favicon.svg").status_code == 200


@pytest.mark.parametrize(
    ("accept_language", "header", "index_title"),
    [
        ("en", "Tradepost administration", "Operator tools"),
        ("zh-CN", "Tradepost 管理后台", "运营工具"),
        ("zh-TW", "Tradepost 管理後台", "營運工具"),
    ],
)
def test_the_admin_is_branded_tradepost_in_the_operators_language(
    client, accept_language, header, index_title
):
    client.force_login(make_operator())
    response = client.get("/admin/", headers={"Accept-Language": accept_language})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Django administration" not in html and "Django site admin" not in html
    assert header in html
    assert index_title in html
