"""Every signed-in page of the site's main journeys (tests/e2e/main_pages.py: each person's
dashboard pages and desks, every operator page) opens for the person who reaches it, whichever
task backend runs the site (each backend in one of the three languages; the browser tests open
every page in all three). The operator desk links the database queue's admin pages
only when the database backend runs the side effects, which is the site's default but not the
tests' (they run the immediate one): its link named an admin page that did not exist, and the
desk was a 500 for every operator, in every language, with nothing failing here."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.e2e.main_pages import LANGUAGES, build_market

pytestmark = pytest.mark.django_db

BACKENDS = ("database", "immediate", "rq")


@pytest.mark.parametrize(("backend", "language"), zip(BACKENDS, LANGUAGES, strict=True))
def test_every_signed_in_page_opens_for_its_person_under_each_task_backend(
    settings, backend, language
):
    settings.TASKS_BACKEND_NAME = backend
    market = build_market()
    clients: dict[str, Client] = {}
    failed = []
    for page in market.pages:
        if page.who == "visitor":
            continue
        if page.who not in clients:
            clients[page.who] = Client(raise_request_exception=False)
            clients[page.who].force_login(market.people[page.who])
        response = clients[page.who].get(f"/{language}{page.path}")
        if response.status_code != 200:
            failed.append(f"/{language}{page.path} ({page.who}): {response.status_code}")
    assert not failed, "\n".join(failed)


def test_every_link_of_the_operator_desk_opens_with_the_database_queue(settings):
    settings.TASKS_BACKEND_NAME = "database"
    market = build_market()
    client = Client(raise_request_exception=False)
    client.force_login(market.people["operator"])
    html = client.get("/en/dashboard/operator/").content.decode()
    links = set(re.findall(r'href="(/[^"]*)"', html.replace("&amp;", "&")))
    assert any("/admin/django_tasks_database/dbtaskresult/" in link for link in links)
    failed = []
    for link in sorted(links):
        if link.startswith("/static/"):
            continue
        response = client.get(link)
        if response.status_code != 200:
            failed.append(f"{link}: {response.status_code}")
    assert not failed, "\n".join(failed)
