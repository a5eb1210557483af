import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories.accounts import make_user
from tradepost.accounts.models import ApiToken
from tradepost.accounts.tokens import MAX_ACTIVE_TOKENS, hash_token, token_create, user_for_token

pytestmark = pytest.mark.django_db


def _secret_stored_anywhere(secret: str) -> bool:
    for row in ApiToken.objects.values():
        if any(secret in str(value) for value in row.values()):
            return True
    return False


def test_tokens_page_shows_the_secret_once_and_stores_only_its_hash(client):
    user = make_user()
    client.force_login(user)
    response = client.post(reverse("accounts:tokens"), {"name": "ERP sync"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    secret = response.context["new_secret"]
    assert secret.startswith("tp_")
    assert secret.encode() in response.content

    token = ApiToken.objects.get()
    assert token.user == user
    assert token.name == "ERP sync"
    assert token.key_hash == hash_token(secret)
    assert not _secret_stored_anywhere(secret)

    listing = client.get(reverse("accounts:tokens"))
    assert b"ERP sync" in listing.content
    assert secret.encode() not in listing.content


@pytest.mark.parametrize("name", ["", "   ", "n" * 81])
def test_token_name_is_checked(client, name):
    client.force_login(make_user())
    response = client.post(reverse("accounts:tokens"), {"name": name})
    assert response.context["form"].errors["name"]
    assert response.context["new_secret"] is None
    assert not ApiToken.objects.exists()


def test_token_limit():
    user = make_user()
    for n in range(MAX_ACTIVE_TOKENS):
        token_create(user=user, name=f"t{n}")
    from tradepost.accounts.errors import AccountError

    with pytest.raises(AccountError):
        token_create(user=user, name="one too many")


def test_token_works_on_the_api_until_revoked(client):
    user = make_user()
    token, secret = token_create(user=user, name="ci")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    response = client.get("/api/v1/me", **auth)
    assert response.status_code == 200
    assert response.json()["user"]["email"] == user.email

    client.force_login(user)
    response = client.post(reverse("accounts:token_revoke", args=[token.id]))
    assert response.status_code == 302
    client.logout()

    response = client.get("/api/v1/me", **auth)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == 401


def test_a_user_cannot_revoke_someone_elses_token(client):
    owner = make_user()
    token, secret = token_create(user=owner, name="mine")
    client.force_login(make_user())
    client.post(reverse("accounts:token_revoke", args=[token.id]))
    token.refresh_from_db()
    assert token.revoked_at is None
    assert user_for_token(secret) == owner


def test_revoke_needs_post(client):
    user = make_user()
    token, _secret = token_create(user=user, name="mine")
    client.force_login(user)
    assert client.get(reverse("accounts:token_revoke", args=[token.id])).status_code == 405
    token.refresh_from_db()
    assert token.revoked_at is None


def test_api_refuses_garbage_tokens(client):
    for value in ["Bearer nope", "Bearer tp_" + "x" * 300, "Basic abc"]:
        response = client.get("/api/v1/me", HTTP_AUTHORIZATION=value)
        assert response.status_code == 401


def test_cli_token_create_list_revoke():
    user = make_user(email="erp@example.com")
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "token", "create", "--user", "ERP@example.com", "--name", "nightly", stdout=out, stderr=err
    )
    secret = out.getvalue().strip()
    assert user_for_token(secret) == user
    assert "shown only now" in err.getvalue()
    token = ApiToken.objects.get(user=user)
    assert token.name == "nightly"

    out = io.StringIO()
    call_command("token", "list", "--user", "erp@example.com", stdout=out)
    assert "nightly" in out.getvalue()
    assert secret not in out.getvalue()

    call_command(
        "token", "revoke", "--user", "erp@example.com", "--id", str(token.id), stdout=io.StringIO()
    )
    assert user_for_token(secret) is None
    with pytest.raises(CommandError):
        call_command("token", "revoke", "--user", "erp@example.com", "--id", str(token.id))


def test_cli_token_for_an_unknown_user_fails():
    with pytest.raises(CommandError):
        call_command("token", "create", "--user", "ghost@example.com")


def test_createoperator_creates_a_staff_superuser():
    from tradepost.accounts.models import User

    call_command(
        "createoperator",
        "--email",
        "Ops@Example.com",
        "--password",
        "operator-passphrase-99",
        "--noinput",
        stdout=io.StringIO(),
    )
    user = User.objects.get(email="ops@example.com")
    assert user.is_staff and user.is_superuser and user.is_email_verified
    assert user.check_password("operator-passphrase-99")


def test_createoperator_promotes_an_existing_user():
    user = make_user(email="lead@example.com")
    call_command("createoperator", "--email", "lead@example.com", "--noinput", stdout=io.StringIO())
    user.refresh_from_db()
    assert user.is_staff and user.is_superuser


@pytest.mark.parametrize(
    "args",
    [
        ["--email", "not-an-email", "--password", "operator-passphrase-99", "--noinput"],
        ["--email", "ops@example.com", "--password", "123", "--noinput"],
        ["--email", "ops@example.com", "--noinput"],
        ["--noinput"],
    ],
)
def test_createoperator_refuses_bad_input(args):
    from tradepost.accounts.models import User

    with pytest.raises(CommandError):
        call_command("createoperator", *args, stdout=io.StringIO())
    assert not User.objects.exists()


def test_createoperator_prompts_when_missing(monkeypatch):
    from tradepost.accounts.models import User

    monkeypatch.setattr("builtins.input", lambda prompt="": "ops@example.com")
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "operator-passphrase-99")
    call_command("createoperator", stdout=io.StringIO())
    assert User.objects.get(email="ops@example.com").is_superuser
