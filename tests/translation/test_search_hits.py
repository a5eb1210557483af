"""A search hit (a listing, a buying request) reads in the viewer's language; when its title is a
machine translation it shows the writer's own title too, highlighted, when the query matched
only the original words."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.sourcing import make_request
from tradepost.search.highlight import matched_original
from tradepost.search.indexer import apply_outbox
from tradepost.search.selectors import search_requests
from tradepost.sourcing.machine_texts import requests_translate


def test_the_original_is_shown_when_only_it_matched():
    html = matched_original("Texture of Timber Flask", "保温杯 <b>", ["保温杯"], machine=True)
    assert str(html) == "<mark>保温杯</mark> &lt;b&gt;"


def test_nothing_more_when_the_translation_matched_or_it_is_not_a_machine_translation():
    assert matched_original("Vacuum Flask", "保温杯", ["flask"], machine=True) is None
    assert matched_original("保温杯", "保温杯", ["保温杯"], machine=False) is None
    assert matched_original("Vacuum Flask", "保温杯", [], machine=True) is None


@pytest.fixture
def chinese_request(db):
    """A request written in simplified Chinese, translated and indexed."""
    item = make_request(
        title="不锈钢保温杯 500ml", description="<p>双层</p>", original_language="zh-hans"
    )
    requests_translate([item.pk])
    apply_outbox()  # the request's outbox row, written when it was posted
    return item


def test_a_request_hit_reads_in_the_viewers_language(chinese_request):
    [hit] = search_requests(query="不锈钢保温杯", language="en").hits
    assert hit.request.text.machine and "Stainless Steel" in hit.request.text.title
    # The query's translations matched the translated title: it is highlighted there.
    assert "<mark>Stainless</mark>" in str(hit.title_html) and hit.original_html is None
    [hit] = search_requests(query="保温杯", language="zh-hant").hits
    assert hit.request.text.title == "不鏽鋼保溫杯 500ml" and not hit.request.text.machine
    assert str(hit.title_html) == "不鏽鋼<mark>保溫杯</mark> 500ml"


def test_request_hits_on_the_page_and_in_the_api_carry_the_translation(client, chinese_request):
    page = client.get("/en/search/?tab=requests&q=vacuum+flask").content.decode()
    hit = page.split('class="search-hit request-hit"')[1].split("</article>")[0]
    assert "Stainless Steel" in hit and "Machine translation" in hit and 'lang="en"' in hit
    body = ApiClient().get("/api/v1/search/requests", q="vacuum flask", lang="zh-hans").json()
    [item] = body["items"]
    assert item["machine_translated"] is False and item["title"] == "不锈钢保温杯 500ml"
    body = ApiClient().get("/api/v1/search/requests", q="vacuum flask", lang="en").json()
    [item] = body["items"]
    assert item["machine_translated"] is True and item["language"] == "en"
    assert "Stainless Steel" in item["title"] and item["original_html"] is None
