import pytest
from django.urls import reverse

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tests.pages import log_in as _login
from tradepost.catalog.models import ProductStatus
from tradepost.messaging.models import Conversation, ConversationRead, Message
from tradepost.notify.models import Notification

pytestmark = pytest.mark.django_db


def _state():
    return (
        Conversation.objects.count(),
        list(Message.objects.order_by("pk").values_list("pk", "body")),
        list(ConversationRead.objects.values_list("company_id", "last_read_message_id")),
        Notification.objects.count(),
    )


def test_inquiry_from_product_page(client, mailoutbox, django_capture_on_commit_callbacks):
    p = make_parties()
    _login(client, p.buyer)
    page = client.get(reverse("catalog:product_redirect", args=[p.product.pk]), follow=True)
    link = f"/en/messages/inquire/?product={p.product.pk}"
    assert link in page.content.decode()
    form = client.get(link)
    assert form.status_code == 200
    assert "Vacuum flask 500ml" in form.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            link, {"quantity": "500", "unit": "pieces", "message": "<b>Best price?</b>"}
        )
    conversation = Conversation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/en/messages/{conversation.pk}/"
    assert conversation.product == p.product
    assert len(mailoutbox) == 2  # both supplier members


def test_inquiry_from_company_page(client):
    p = make_parties()
    _login(client, p.buyer)
    page = client.get(reverse("catalog:company_detail", args=[p.supplier_company.slug]))
    link = f"/en/messages/inquire/?company={p.supplier_company.slug}"
    assert link in page.content.decode()
    response = client.post(link, {"message": "Catalogue please"})
    assert response.status_code == 302
    assert Conversation.objects.get().supplier_company == p.supplier_company


def test_inquiry_form_refusals(client):
    p = make_parties()
    url = f"/en/messages/inquire/?product={p.product.pk}"
    # Anonymous: to the login page.
    response = client.get(url)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    # No company: explained, and a post does nothing.
    _login(client, make_user())
    assert "Create a company" in client.get(url).content.decode()
    assert client.post(url, {"message": "Hi"}).status_code == 400
    # Own company.
    _login(client, p.supplier_member)
    assert "your own company" in client.get(url).content.decode()
    assert client.post(url, {"message": "Hi"}).status_code == 400
    # Unknown, draft, huge or malformed targets answer 404.
    _login(client, p.buyer)
    draft = make_product(company=p.supplier_company, status=ProductStatus.DRAFT)
    for query in (
        f"?product={draft.pk}",
        "?product=999999",
        "?product=99999999999999999999999",
        "?product=abc",
        "?company=nope",
        "",
    ):
        assert client.get("/en/messages/inquire/" + query).status_code == 404
    # Empty and too long messages re-show the form.
    assert client.post(url, {"message": "   "}).status_code == 400
    assert client.post(url, {"message": "x" * 5001}).status_code == 400
    assert (
        client.post(url, {"message": "Hi", "quantity": "-3", "unit": "pieces"}).status_code == 400
    )
    assert Conversation.objects.count() == 0


def test_conversation_page_escapes_scripts_and_takes_replies(client):
    p = make_parties()
    conversation = make_conversation(p, message="<script>alert('x')</script>\nsecond line")
    _login(client, p.supplier_member)
    url = f"/en/messages/{conversation.pk}/"
    html = client.get(url).content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;<br>second line" in html
    response = client.post(url, {"body": "We can do USD 2.60"})
    assert response.status_code == 302
    assert conversation.messages.last().body == "We can do USD 2.60"
    assert client.post(url, {"body": ""}).status_code == 400
    assert client.post(url, {"body": "y" * 5001}).status_code == 400
    assert conversation.messages.count() == 2


def test_inbox_shows_unread_counts_shared_by_company_members(client, django_assert_max_num_queries):
    p = make_parties()
    for n in range(5):
        make_conversation(p, message=f"inquiry {n}")
    _login(client, p.supplier_owner)
    # +1: the display currency's exchange-rate table (cold in a test; read once a minute)
    with django_assert_max_num_queries(12):
        html = client.get("/en/messages/").content.decode()
    assert html.count('class="badge unread-count">1<') == 5
    # The colleague opens one; the owner's inbox shows it read.
    first = Conversation.objects.order_by("pk").first()
    _login(client, p.supplier_member)
    client.get(f"/en/messages/{first.pk}/")
    _login(client, p.supplier_owner)
    html = client.get("/en/messages/").content.decode()
    assert html.count('class="badge unread-count">1<') == 4


@pytest.mark.parametrize("who", ["anonymous", "no_company", "other_company"])
def test_outsiders_never_see_a_conversation(client, who):
    p = make_parties()
    conversation = make_conversation(p)
    if who == "no_company":
        _login(client, make_user())
    elif who == "other_company":
        other = make_user()
        make_company(owner=other)
        _login(client, other)
    before = _state()
    url = f"/en/messages/{conversation.pk}/"
    missing = f"/en/messages/{conversation.pk + 1000}/"
    get, post = client.get(url), client.post(url, {"body": "intrude"})
    if who == "anonymous":
        assert get.status_code == post.status_code == 302
    else:
        # Another company's conversation answers exactly like a missing one.
        assert get.status_code == post.status_code == client.get(missing).status_code == 404
        assert "Price for 1000" not in get.content.decode()
        inbox = client.get("/en/messages/").content.decode()
        assert conversation.subject not in inbox
    assert _state() == before


@pytest.mark.parametrize("who", ["buyer", "buyer_colleague", "supplier_owner", "supplier_member"])
def test_members_of_both_companies_see_and_write(client, who):
    p = make_parties()
    conversation = make_conversation(p)
    _login(client, getattr(p, who))
    assert client.get(f"/en/messages/{conversation.pk}/").status_code == 200
    assert client.post(f"/en/messages/{conversation.pk}/", {"body": who}).status_code == 302
    assert conversation.messages.filter(body=who).exists()


def test_operator_sees_but_does_not_write_or_mark_read(client):
    p = make_parties()
    conversation = make_conversation(p)
    _login(client, make_operator())
    before = _state()
    response = client.get(f"/en/messages/{conversation.pk}/")
    assert response.status_code == 200
    assert "reply-form" not in response.content.decode()
    assert client.post(f"/en/messages/{conversation.pk}/", {"body": "op"}).status_code == 400
    assert _state() == before


def test_notification_centre_lists_and_marks_all_read(client, django_assert_max_num_queries):
    p = make_parties()
    conversation = make_conversation(p)
    make_conversation(p, message="another")
    _login(client, p.supplier_member)
    with django_assert_max_num_queries(11):
        html = client.get("/zh-hans/messages/notifications/").content.decode()
    assert f'href="/zh-hans/messages/{conversation.pk}/"' in html
    assert html.count('class="unread"') == 2
    assert client.post("/en/messages/notifications/read/").status_code == 302
    assert not Notification.objects.filter(recipient=p.supplier_member, read_at=None).exists()
    # The other member's notifications stay unread.
    assert Notification.objects.filter(recipient=p.supplier_owner, read_at=None).count() == 2


def test_header_badge_include(client):
    """The header's Messages link carries the unread count; Notifications is in the account
    menu (the counts are read once per page, in base.html)."""
    p = make_parties()
    make_conversation(p)
    _login(client, p.supplier_member)
    html = client.get("/en/requests/").content.decode()
    header = html.split('<main class="wrap"', 1)[0]
    assert "1 unread message" in header
    assert 'class="messages-link" href="/en/messages/"' in header
    assert 'href="/en/messages/notifications/"' in header


def test_email_preference_switch(client):
    from tradepost.notify.selectors import wants_message_emails

    user = make_user()
    _login(client, user)
    assert "checked" in client.get("/en/messages/notifications/").content.decode()
    assert client.post("/en/messages/notifications/email/", {}).status_code == 302
    assert not wants_message_emails(user)
    html = client.get("/en/messages/notifications/").content.decode()
    assert 'name="email_messages" checked' not in html
    client.post("/en/messages/notifications/email/", {"email_messages": "on"})
    assert wants_message_emails(user)
    assert client.get("/en/messages/notifications/email/").status_code == 405


def test_admin_lists_flagged_messages(client, settings):
    from tradepost.messaging import services

    settings.TRADEPOST_DUPLICATE_MESSAGE_COMPANIES = 2
    p = make_parties()
    services.inquiry_send(actor=p.buyer, company=make_company(), message="Spam text")
    services.inquiry_send(actor=p.buyer, company=make_company(), message="Spam text")
    make_conversation(p, message="Honest question")
    _login(client, make_operator())
    response = client.get("/admin/messaging/message/?flagged__exact=1")
    html = response.content.decode()
    assert response.context["cl"].result_count == 2
    assert "Spam text" in html
    assert "Honest question" not in html
    assert client.get("/admin/messaging/conversation/").status_code == 200


def test_conversation_page_query_count_does_not_grow(client, django_assert_max_num_queries):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tradepost.messaging import services

    p = make_parties()
    conversation = make_conversation(p)
    for n in range(8):
        sender = p.supplier_owner if n % 2 else p.buyer_colleague
        services.message_send(
            actor=sender,
            conversation=conversation,
            body=f"message {n}",
            attachments=[SimpleUploadedFile(f"f{n}.pdf", b"%PDF-1.4 x")],
        )
    _login(client, p.buyer)
    # +1: the display currency's exchange-rate table (cold in a test; read once a minute)
    with django_assert_max_num_queries(20):
        response = client.get(f"/en/messages/{conversation.pk}/")
    assert response.content.decode().count("/attachments/") == 8
