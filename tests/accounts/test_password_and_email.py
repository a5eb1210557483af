import pytest
from django.urls import reverse

from tests.accounts.helpers import link_path
from tests.factories.accounts import PASSWORD, make_user
from tradepost.accounts.models import User

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another-fine-passphrase-42"


def _can_log_in(client, email, password) -> bool:
    client.logout()
    return client.login(username=email, password=password)


def test_password_reset_flow(client, mailoutbox, django_capture_on_commit_callbacks):
    user = make_user(email="seller@example.com", preferred_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/en/accounts/password-reset/", {"email": "Seller@example.com"})
    assert response.status_code == 302
    assert response["Location"] == "/en/accounts/password-reset/sent/"
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["seller@example.com"]
    # In the user's language, whatever the language of the page that asked.
    assert message.extra_headers["Content-Language"] == "zh-hans"
    path = link_path(message)
    assert path.startswith("/zh-hans/accounts/password-reset/")

    response = client.get(path)  # Django swaps the token for a session and redirects
    assert response.status_code == 302
    set_password_url = response["Location"]
    response = client.post(
        set_password_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert response.status_code == 302
    assert _can_log_in(client, user.email, NEW_PASSWORD)
    assert not _can_log_in(client, user.email, PASSWORD)

    # The link works once.
    response = client.get(path, follow=True)
    assert response.context["validlink"] is False


def test_password_reset_for_an_unknown_address_looks_the_same(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/en/accounts/password-reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert response["Location"] == "/en/accounts/password-reset/sent/"
    assert mailoutbox == []


def test_password_reset_skips_inactive_users(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    make_user(email="gone@example.com", is_active=False)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/en/accounts/password-reset/", {"email": "gone@example.com"})
    assert mailoutbox == []


def test_change_password(client):
    user = make_user()
    client.force_login(user)
    url = reverse("accounts:password_change")
    assert client.get(url).status_code == 200
    response = client.post(
        url,
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["old_password"]
    response = client.post(
        url,
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    # Still signed in after the change.
    assert client.get(reverse("accounts:settings")).status_code == 200
    assert _can_log_in(client, user.email, NEW_PASSWORD)


def test_change_email_applies_only_when_confirmed(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    user = make_user(email="old@example.com", preferred_language="zh-hant")
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("accounts:change_email"),
            {"new_email": "New@Example.com", "password": PASSWORD},
        )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.email == "old@example.com"
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["new@example.com"]
    assert message.extra_headers["Content-Language"] == "zh-hant"
    path = link_path(message)

    assert client.get(path).status_code == 200
    user.refresh_from_db()
    assert user.email == "old@example.com"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(path)
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.email == "new@example.com"
    assert user.is_email_verified
    assert _can_log_in(client, "new@example.com", PASSWORD)

    # The previous address is told.
    notice = mailoutbox[1]
    assert notice.to == ["old@example.com"]
    assert "new@example.com" in notice.body
    assert notice.extra_headers["Content-Language"] == "zh-hant"

    # The same link does nothing more.
    assert client.post(path).status_code == 400


def test_change_email_needs_the_password(client, mailoutbox, django_capture_on_commit_callbacks):
    user = make_user(email="old@example.com")
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("accounts:change_email"),
            {"new_email": "new@example.com", "password": "guess"},
        )
    assert response.status_code == 200
    assert response.context["form"].errors["password"]
    assert mailoutbox == []


@pytest.mark.parametrize("new_email", ["taken@example.com", "OLD@example.com", "bad@", ""])
def test_change_email_refuses_unusable_addresses(
    client, mailoutbox, django_capture_on_commit_callbacks, new_email
):
    make_user(email="taken@example.com")
    user = make_user(email="old@example.com")
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("accounts:change_email"), {"new_email": new_email, "password": PASSWORD}
        )
    assert response.status_code == 200
    assert response.context["form"].errors["new_email"]
    assert mailoutbox == []


def test_change_email_confirmation_refused_when_the_address_was_taken_meanwhile(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    user = make_user(email="old@example.com")
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("accounts:change_email"), {"new_email": "new@example.com", "password": PASSWORD}
        )
    make_user(email="new@example.com")
    response = client.post(link_path(mailoutbox[0]))
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.email == "old@example.com"


def test_settings_update(client):
    user = make_user(full_name="Old Name")
    client.force_login(user)
    response = client.post(
        reverse("accounts:settings"),
        {"full_name": "  Wang   Fang ", "preferred_language": "zh-hans"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.full_name == "Wang Fang"
    assert user.preferred_language == "zh-hans"


@pytest.mark.parametrize(
    "data",
    [
        {"full_name": "x" * 121, "preferred_language": "en"},
        {"full_name": "ok", "preferred_language": "de"},
    ],
)
def test_settings_refuse_bad_input(client, data):
    user = make_user(full_name="Old Name")
    client.force_login(user)
    response = client.post(reverse("accounts:settings"), data)
    assert response.status_code == 200
    assert response.context["form"].errors
    user.refresh_from_db()
    assert user.full_name == "Old Name"
    assert user.preferred_language == "en"


@pytest.mark.parametrize(
    "name",
    ["accounts:dashboard", "accounts:settings", "accounts:tokens", "accounts:change_email"],
)
def test_account_pages_need_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_no_user_created_by_a_get(client):
    client.get("/en/accounts/signup/")
    assert not User.objects.exists()
