from unittest import mock

import pytest
from django.db.utils import OperationalError


@pytest.mark.django_db
def test_healthz_answers_ok_with_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


@pytest.mark.django_db
def test_healthz_answers_503_when_database_fails(client):
    with mock.patch("tradepost.web.views.health.connection") as conn:
        conn.cursor.side_effect = OperationalError("down")
        response = client.get("/healthz")
    assert response.status_code == 503


@pytest.mark.django_db
def test_root_negotiates_language(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-TW,zh;q=0.9")
    assert response.status_code == 302
    assert response["Location"].startswith("/zh-hant/")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response["Location"].startswith("/zh-hans/")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE")
    assert response["Location"].startswith("/en/")
