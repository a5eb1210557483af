"""`Idempotency-Key` on the API's POSTs and PATCHes: a retried write is done once
(tradepost.api.idempotency, docs/api.md, ADR 0029)."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.api.test_products_write import new_product_body
from tests.factories.catalog import make_product
from tests.factories.images import image_upload
from tests.races import on_concurrent_writers
from tradepost.accounts.tokens import token_create
from tradepost.api.idempotency import IN_FLIGHT_SECONDS, idempotency_keys_purge
from tradepost.api.models import IdempotencyKey
from tradepost.catalog import services
from tradepost.catalog.models import Product, ProductImage

BASE = "/api/v1/me/products"


class KeyedApi:
    """Bearer-token requests to the API, each with an Idempotency-Key when given one."""

    def __init__(self, user=None, **client_kwargs) -> None:
        self.client = Client(**client_kwargs)
        self.headers: dict[str, str] = {}
        if user is not None:
            _token, secret = token_create(user=user, name="tests")
            self.headers["Authorization"] = f"Bearer {secret}"

    def send(self, method: str, path: str, body=None, *, key=None, raw=None, **headers):
        headers = {**self.headers, **headers}
        if key is not None:
            headers["Idempotency-Key"] = key
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return getattr(self.client, method)(
            BASE + path, data, content_type="application/json", headers=headers
        )

    def post(self, path: str, body=None, **kwargs):
        return self.send("post", path, body, **kwargs)

    def patch(self, path: str, body=None, **kwargs):
        return self.send("patch", path, body, **kwargs)


def _problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/" + code), body
    return body


def _products(cast) -> int:
    return Product.objects.filter(company=cast.company).count()


@pytest.mark.django_db
class TestReplay:
    def test_a_retry_answers_the_first_answer_and_creates_nothing(self, cast):
        api = KeyedApi(cast.member)
        key = str(uuid.uuid4())
        first = api.post("", new_product_body(), key=key)
        assert first.status_code == 201, first.content
        assert "Idempotent-Replayed" not in first
        again = api.post("", new_product_body(), key=key)
        assert again.status_code == 201
        assert again.content == first.content
        assert again["Content-Type"] == first["Content-Type"]
        assert again["Idempotent-Replayed"] == "true"
        assert _products(cast) == 1
        record = IdempotencyKey.objects.get()
        assert (record.status, record.method, record.path) == (201, "POST", BASE)

    def test_the_same_json_spelled_otherwise_is_the_same_request(self, cast):
        api = KeyedApi(cast.member)
        body = new_product_body()
        api.post("", key="k-1", raw=json.dumps(body))
        respelled = json.dumps(dict(reversed(list(body.items()))), indent=2)
        assert api.post("", key="k-1", raw=respelled)["Idempotent-Replayed"] == "true"
        assert _products(cast) == 1

    def test_without_a_key_each_post_creates(self, cast):
        api = KeyedApi(cast.member)
        for _ in range(2):
            assert api.post("", new_product_body()).status_code == 201
        assert _products(cast) == 2
        assert not IdempotencyKey.objects.exists()

    def test_a_key_belongs_to_its_user(self, cast):
        key = "shared-key"
        assert KeyedApi(cast.member).post("", new_product_body(), key=key).status_code == 201
        other = KeyedApi(cast.admin).post("", new_product_body(), key=key)
        assert other.status_code == 201
        assert "Idempotent-Replayed" not in other
        assert _products(cast) == 2
        # ...and to the user, not to one token: a second token of the member sees it.
        again = KeyedApi(cast.member).post("", new_product_body(), key=key)
        assert again["Idempotent-Replayed"] == "true"
        assert _products(cast) == 2

    def test_patch_is_replayed_too(self, cast):
        product = make_product(company=cast.company, title="Old title")
        api = KeyedApi(cast.member)
        first = api.patch(f"/{product.pk}", {"title": "New title"}, key="patch-1")
        assert first.status_code == 200, first.content
        services.product_update(actor=cast.member, product=product, title="Changed meanwhile")
        again = api.patch(f"/{product.pk}", {"title": "New title"}, key="patch-1")
        assert again["Idempotent-Replayed"] == "true"
        assert again.content == first.content
        product.refresh_from_db()
        assert product.title == "Changed meanwhile"  # the retry did not write again

    def test_an_upload_is_replayed_by_its_fields_and_file(self, cast):
        product = make_product(company=cast.company)
        api = KeyedApi(cast.member)
        path = f"{BASE}/{product.pk}/images"

        def upload(data: bytes | None = None):
            return api.client.post(
                path,
                {"image": image_upload(data=data)},
                headers={**api.headers, "Idempotency-Key": "upload-1"},
            )

        first = upload()
        assert first.status_code == 201, first.content
        assert upload()["Idempotent-Replayed"] == "true"
        assert ProductImage.objects.filter(product=product).count() == 1
        other_file = upload(data=image_upload(name="x.png").read() + b"\0")
        _problem(other_file, 422, "idempotency-key-reused")

    def test_a_client_error_is_kept_and_answered_again(self, cast):
        api = KeyedApi(cast.member)
        refused = api.post("", new_product_body(moq="-1"), key="bad-moq")
        assert refused.status_code == 422
        again = api.post("", new_product_body(moq="-1"), key="bad-moq")
        assert again.status_code == 422
        assert again["Idempotent-Replayed"] == "true"
        assert again.content == refused.content

    def test_the_header_is_ignored_on_reads_and_deletes(self, cast):
        product = make_product(company=cast.company)
        api = KeyedApi(cast.member)
        headers = {**api.headers, "Idempotency-Key": "\x00 not even valid"}
        assert api.client.get(f"{BASE}/{product.pk}", headers=headers).status_code == 200
        assert api.client.delete(f"{BASE}/{product.pk}", headers=headers).status_code == 204
        assert not IdempotencyKey.objects.exists()


@pytest.mark.django_db
class TestRefusals:
    def test_the_same_key_with_another_body_is_refused(self, cast):
        api = KeyedApi(cast.member)
        api.post("", new_product_body(), key="k")
        body = _problem(
            api.post("", new_product_body(moq="7"), key="k"), 422, "idempotency-key-reused"
        )
        assert body["title"] and body["detail"]
        assert _products(cast) == 1

    def test_the_same_key_on_another_address_or_query_is_refused(self, cast):
        product = make_product(company=cast.company)
        api = KeyedApi(cast.member)
        assert api.post(f"/{product.pk}/unpublish", key="k").status_code == 200
        _problem(api.post(f"/{product.pk}/publish", key="k"), 422, "idempotency-key-reused")
        _problem(api.post(f"/{product.pk}/unpublish?x=1", key="k"), 422, "idempotency-key-reused")

    def test_the_refusal_is_in_the_clients_language(self, cast):
        api = KeyedApi(cast.member)
        api.post("", new_product_body(), key="k")
        refused = api.post("", new_product_body(moq="7"), key="k", **{"Accept-Language": "zh-hant"})
        body = _problem(refused, 422, "idempotency-key-reused")
        assert body["title"] == "此 Idempotency-Key 已用於另一個請求"

    @pytest.mark.parametrize(
        "key",
        [
            "",
            "x" * 256,
            "with space",
            "nul\x00byte",
            "tab\tkey",
            "ключ",
            "clé",
            "\ud800",
            "emoji-\U0001f600",
            "del\x7f",
        ],
        ids=[
            "empty",
            "too-long",
            "space",
            "nul",
            "tab",
            "cyrillic",
            "latin1",
            "surrogate",
            "emoji",
            "del",
        ],
    )
    def test_a_malformed_key_is_a_400_and_nothing_is_done(self, cast, key):
        api = KeyedApi(cast.member)
        body = _problem(api.post("", new_product_body(), key=key), 400, "idempotency-key-invalid")
        assert "255" in body["detail"]
        assert _products(cast) == 0
        assert not IdempotencyKey.objects.exists()

    def test_the_longest_key_is_taken(self, cast):
        api = KeyedApi(cast.member)
        key = "~" * 255
        assert api.post("", new_product_body(), key=key).status_code == 201
        assert api.post("", new_product_body(), key=key)["Idempotent-Replayed"] == "true"

    def test_a_request_still_being_answered_is_a_409(self, cast, monkeypatch):
        """The second request comes while the first is inside the service (sent from it)."""
        api = KeyedApi(cast.member)
        create = services.product_create
        seen = []

        def create_and_retry(**kwargs):
            seen.append(api.post("", new_product_body(), key="slow"))
            return create(**kwargs)

        monkeypatch.setattr(services, "product_create", create_and_retry)
        assert api.post("", new_product_body(), key="slow").status_code == 201
        body = _problem(seen[0], 409, "idempotency-key-in-progress")
        assert body["detail"]
        assert seen[0]["Retry-After"] == "1"
        assert _products(cast) == 1

    def test_without_credentials_the_key_is_not_kept_for_the_401(self, cast):
        anonymous = KeyedApi()
        _problem(anonymous.post("", new_product_body(), key="k"), 401, "unauthenticated")
        assert not IdempotencyKey.objects.exists()
        # ...so the same key with the token does the work.
        assert KeyedApi(cast.member).post("", new_product_body(), key="k").status_code == 201

    def test_a_server_error_frees_the_key(self, cast, monkeypatch):
        api = KeyedApi(cast.member, raise_request_exception=False)

        def broken(**kwargs):
            raise RuntimeError("boom")

        monkeypatch.setattr(services, "product_create", broken)
        assert api.post("", new_product_body(), key="k").status_code == 500
        assert not IdempotencyKey.objects.exists()
        monkeypatch.undo()
        retried = api.post("", new_product_body(), key="k")
        assert retried.status_code == 201
        assert "Idempotent-Replayed" not in retried


@pytest.mark.django_db
class TestExpiry:
    def test_a_key_older_than_its_lifetime_is_new_again(self, cast, settings):
        settings.TRADEPOST_IDEMPOTENCY_KEY_HOURS = 24
        api = KeyedApi(cast.member)
        api.post("", new_product_body(), key="k")
        IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
        again = api.post("", new_product_body(), key="k")
        assert again.status_code == 201
        assert "Idempotent-Replayed" not in again
        assert _products(cast) == 2
        # ...and a fresh one is replayed.
        assert api.post("", new_product_body(), key="k")["Idempotent-Replayed"] == "true"

    def test_the_lifetime_is_a_setting(self, cast, settings):
        settings.TRADEPOST_IDEMPOTENCY_KEY_HOURS = 1
        api = KeyedApi(cast.member)
        api.post("", new_product_body(), key="k")
        IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(minutes=61))
        assert "Idempotent-Replayed" not in api.post("", new_product_body(), key="k")

    def test_an_answer_never_written_frees_its_key_after_a_while(self, cast, monkeypatch):
        api = KeyedApi(cast.member)
        # The first request's process died inside the service: its row says "in progress".
        monkeypatch.setattr(services, "product_create", lambda **kwargs: 1 / 0)
        monkeypatch.setattr("tradepost.api.idempotency._keep", lambda record, response: None)
        api_errors = KeyedApi(cast.member, raise_request_exception=False)
        api_errors.headers = api.headers
        api_errors.post("", new_product_body(), key="k")
        monkeypatch.undo()
        _problem(api.post("", new_product_body(), key="k"), 409, "idempotency-key-in-progress")
        IdempotencyKey.objects.update(
            created_at=timezone.now() - timedelta(seconds=IN_FLIGHT_SECONDS + 1)
        )
        taken_over = api.post("", new_product_body(), key="k")
        assert taken_over.status_code == 201
        assert api.post("", new_product_body(), key="k")["Idempotent-Replayed"] == "true"
        assert _products(cast) == 1

    def test_the_periodic_purge_deletes_expired_keys_only(self, cast, settings):
        settings.TRADEPOST_IDEMPOTENCY_KEY_HOURS = 24
        api = KeyedApi(cast.member)
        api.post("", new_product_body(), key="old")
        api.post("", new_product_body(), key="new")
        IdempotencyKey.objects.filter(key="old").update(
            created_at=timezone.now() - timedelta(hours=25)
        )
        assert idempotency_keys_purge() == 1
        assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["new"]

    def test_the_purge_is_one_of_the_periodic_jobs(self):
        from tradepost.ops import periodic

        names = [name for name, _interval, _job in periodic.JOBS]
        assert "delete expired idempotency keys and rate-limit counts" in names


@pytest.mark.django_db
def test_the_schema_documents_the_header_on_every_post_and_patch(client):
    schema = client.get("/api/v1/openapi.json").json()
    parameter = schema["components"]["parameters"]["IdempotencyKey"]
    assert (parameter["name"], parameter["in"]) == ("Idempotency-Key", "header")
    assert parameter["schema"]["maxLength"] == 255
    writes = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
            if method in ("post", "patch"):
                writes += 1
                assert "Idempotency-Key" in headers, (method, path)
                for status in ("409", "422"):
                    assert status in operation["responses"], (method, path, status)
                assert "Retry-After" in operation["responses"]["409"]["headers"], path
            else:
                assert "Idempotency-Key" not in headers, (method, path)
    assert writes > 20


# --- two requests at once on real connections ---------------------------------------------


@on_concurrent_writers
def test_two_requests_at_once_with_one_key_do_the_work_once(cast, race, monkeypatch):
    """The first one in holds the key while it works; the other is told 409, then the
    first finishes. Whichever thread wins the insert, exactly one product is made."""
    _token, secret = token_create(user=cast.member, name="race")
    headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": "race-key"}
    body = json.dumps(new_product_body())
    refused = threading.Event()
    create = services.product_create

    def slow_create(**kwargs):
        refused.wait(timeout=10)  # until the other request has been answered
        return create(**kwargs)

    monkeypatch.setattr(services, "product_create", slow_create)

    def send():
        response = Client().post(BASE, body, content_type="application/json", headers=headers)
        if response.status_code == 409:
            refused.set()
        return response

    results = race(send, send)
    statuses = sorted(getattr(r, "status_code", r) for r in results)
    assert statuses == [201, 409], results
    conflict = next(r for r in results if r.status_code == 409)
    assert conflict.json()["type"].endswith("/idempotency-key-in-progress")
    assert Product.objects.filter(company=cast.company).count() == 1
    # Once answered, the same request gets the kept answer.
    again = Client().post(BASE, body, content_type="application/json", headers=headers)
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert Product.objects.filter(company=cast.company).count() == 1
