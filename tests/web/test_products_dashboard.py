"""The supplier's product dashboard, through HTTP."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import make_user
from tests.factories.catalog import leaf_category, make_category, make_product, snapshot
from tests.factories.companies import ALLOWED_ROLES, ROLES
from tests.factories.images import image_upload, png_bytes, real_png
from tradepost.catalog import services
from tradepost.catalog.models import Product, ProductImage, ProductStatus, ProductTranslation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    # Requests activate their page's language; reverse() here must not inherit it.
    with translation.override("en"):
        yield


def login(client: Client, user) -> Client:
    if user.is_authenticated:
        client.force_login(user)
    return client


def form_data(**overrides):
    data = {
        "title": "Bamboo cutting board",
        "original_language": "en",
        "category_id": str(leaf_category().pk),
        "description": "<p>Solid bamboo.</p>",
        "attributes": "Material: bamboo\nSize：30 x 20 cm",
        "keywords": "chopping board",
        "moq": "200",
        "moq_unit": "pieces",
        "price_min": "1.20",
        "price_max": "1.80",
        "currency": "USD",
        "incoterms": ["FOB", "CIF"],
        "port_of_loading": "Xiamen",
        "payment_terms": ["tt"],
        "lead_time_days": "25",
        "supply_capacity": "",
        "supply_capacity_unit": "",
        "hs_code": "",
        "origin_country": "CN",
    }
    data.update(overrides)
    return data


def is_login_redirect(response) -> bool:
    return response.status_code == 302 and reverse("accounts:login") in response["Location"]


# --- list --------------------------------------------------------------------------------------


def test_list_needs_login(client):
    response = client.get(reverse("products:list"))
    assert is_login_redirect(response)


def test_list_without_company_redirects_to_company_creation(client):
    login(client, make_user())
    response = client.get(reverse("products:list"))
    assert response.status_code == 302
    assert response["Location"] == reverse("companies:create")
    response = client.get(reverse("products:create"))
    assert response["Location"] == reverse("companies:create")


def test_list_shows_own_products_with_status_and_filter(client, cast):
    login(client, cast.actor("member"))
    draft = make_product(company=cast.company, status=ProductStatus.DRAFT, title="Draft kettle")
    make_product(company=cast.company, status=ProductStatus.PUBLISHED, title="Listed kettle")
    make_product(company=cast.company, status=ProductStatus.DELETED, title="Gone kettle")
    make_product(company=cast.other_company, title="Foreign kettle")
    services.product_image_add(actor=cast.actor("owner"), product=draft, upload=image_upload())

    response = client.get(reverse("products:list"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Draft kettle" in body and "Listed kettle" in body
    assert "Gone kettle" not in body and "Foreign kettle" not in body
    assert draft.images.get().thumbnail.url in body

    response = client.get(reverse("products:list") + "?status=draft")
    body = response.content.decode()
    assert "Draft kettle" in body and "Listed kettle" not in body

    # Unknown filters and pages are ignored rather than failing.
    response = client.get(reverse("products:list") + "?status=<script>&page=abc")
    assert response.status_code == 200
    assert "<script>" not in response.content.decode()


def test_list_is_translated(client, cast):
    login(client, cast.actor("owner"))
    make_product(company=cast.company)
    response = client.get("/zh-hans/dashboard/products/")
    assert response.status_code == 200
    assert 'lang="zh-hans"' in response.content.decode()


def test_list_paginates_with_a_bounded_number_of_queries(
    client, cast, django_assert_max_num_queries
):
    login(client, cast.actor("owner"))
    for n in range(25):
        product = make_product(company=cast.company, title=f"Lamp {n:02d}")
        if n % 5 == 0:
            services.product_image_add(
                actor=cast.actor("owner"), product=product, upload=image_upload()
            )
    # The limits include the header's unread badge (up to 3 queries on signed-in pages).
    with django_assert_max_num_queries(15):
        first = client.get(reverse("products:list"))
    assert first.status_code == 200
    assert first.content.decode().count('href="/en/dashboard/products/') >= 20
    assert "page=2" in first.content.decode()
    with django_assert_max_num_queries(15):
        second = client.get(reverse("products:list") + "?page=2")
    assert second.content.decode().count("Lamp ") == 5


# --- create and edit ---------------------------------------------------------------------------


def test_create_page_groups_leaf_categories_in_the_ui_language(client, cast):
    top = make_category(name_en="Home and garden", name_zh_hans="家居园艺")
    make_category(parent=top, name_en="Kitchen boards", name_zh_hans="砧板")
    login(client, cast.actor("member"))
    response = client.get("/zh-hans/dashboard/products/create/")
    body = response.content.decode()
    assert response.status_code == 200
    assert '<optgroup label="家居园艺">' in body
    assert "砧板" in body
    assert 'type="checkbox" name="incoterms"' in body
    assert 'name="payment_terms"' in body


def test_create_saves_a_draft_and_redirects_to_edit(client, cast):
    login(client, cast.actor("member"))
    response = client.post(reverse("products:create"), form_data())
    product = Product.objects.get(company=cast.company)
    assert response.status_code == 302
    assert response["Location"] == reverse("products:update", kwargs={"pk": product.pk})
    assert product.status == ProductStatus.DRAFT
    assert product.attributes == [
        {"name": "Material", "value": "bamboo"},
        {"name": "Size", "value": "30 x 20 cm"},
    ]
    assert product.incoterms == ["FOB", "CIF"]
    assert product.moq == Decimal("200")


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"title": "t" * 201}, "title", "Use at most 200 characters."),
        ({"moq": "0"}, "moq", "Enter a number greater than zero."),
        ({"moq": "-5"}, "moq", "Enter a number greater than zero."),
        ({"moq": "lots"}, "moq", "Enter a number."),
        ({"price_min": "9", "price_max": "2"}, "price_max", "must not be lower"),
        # The service's refusal (the form only parses, ADR 0020).
        ({"category_id": "987654"}, "category_id", "Choose a category from the list."),
        ({"attributes": "no separator here"}, "attributes", "name: value"),
        ({"lead_time_days": "99999"}, "lead_time_days", "between 0 and 3650"),
    ],
)
def test_create_shows_errors_next_to_fields_and_saves_nothing(
    client, cast, overrides, field, message
):
    login(client, cast.actor("member"))
    response = client.post(reverse("products:create"), form_data(**overrides))
    assert response.status_code == 200
    assert not Product.objects.exists()
    form = response.context["form"]
    assert field in form.errors
    assert message in " ".join(form.errors[field])
    assert message in response.content.decode().replace("&quot;", '"')


def test_non_leaf_category_is_refused(client, cast):
    parent = make_category()
    make_category(parent=parent)
    login(client, cast.actor("member"))
    response = client.post(reverse("products:create"), form_data(category_id=str(parent.pk)))
    assert response.status_code == 200
    assert not Product.objects.exists()


def test_script_in_description_is_stored_sanitised_and_inert_on_the_edit_page(client, cast):
    login(client, cast.actor("member"))
    client.post(
        reverse("products:create"),
        form_data(description='<p>Fine</p><script>alert("pwned")</script><b onmouseover=x()>b</b>'),
    )
    product = Product.objects.get()
    assert "<script" not in product.description
    assert "onmouseover" not in product.description
    response = client.get(reverse("products:update", kwargs={"pk": product.pk}))
    body = response.content.decode()
    assert response.status_code == 200
    assert 'alert("pwned")' not in body
    assert "<script>alert" not in body
    assert "onmouseover" not in body
    assert "<p>Fine</p>" in body  # the preview shows the sanitised HTML


def test_edit_page_shows_the_product_and_saves_changes(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, cast.actor("admin"))
    url = reverse("products:update", kwargs={"pk": product.pk})
    response = client.get(url)
    assert response.status_code == 200
    assert product.title in response.content.decode()
    response = client.post(url, form_data(title="Renamed board"))
    assert response.status_code == 302
    product.refresh_from_db()
    assert product.title == "Renamed board"


def test_edit_errors_change_nothing(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    before = snapshot(product)
    login(client, cast.actor("owner"))
    response = client.post(
        reverse("products:update", kwargs={"pk": product.pk}),
        form_data(title="", currency="USD", moq="0"),
    )
    assert response.status_code == 200
    assert {"title", "moq"} <= set(response.context["form"].errors)
    assert snapshot(product) == before


def test_publish_unpublish_and_delete_buttons(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT, slug="board")
    login(client, cast.actor("member"))
    page = client.get(reverse("products:update", kwargs={"pk": product.pk})).content.decode()
    assert reverse("products:publish", kwargs={"pk": product.pk}) in page
    client.post(reverse("products:publish", kwargs={"pk": product.pk}))
    product.refresh_from_db()
    assert product.status == ProductStatus.PUBLISHED
    page = client.get(reverse("products:update", kwargs={"pk": product.pk})).content.decode()
    public_url = reverse("catalog:product_detail", kwargs={"pk": product.pk, "slug": product.slug})
    assert public_url in page
    client.post(reverse("products:unpublish", kwargs={"pk": product.pk}))
    product.refresh_from_db()
    assert product.status == ProductStatus.DRAFT
    confirm = client.get(reverse("products:delete", kwargs={"pk": product.pk}))
    assert confirm.status_code == 200
    response = client.post(reverse("products:delete", kwargs={"pk": product.pk}))
    assert response["Location"] == reverse("products:list")
    product.refresh_from_db()
    assert product.status == ProductStatus.DELETED
    assert client.get(reverse("products:update", kwargs={"pk": product.pk})).status_code == 404


def test_publish_refusal_is_shown(client, cast):
    unverified = make_user(verified=False)
    from tests.factories.companies import add_member

    add_member(cast.company, user=unverified)
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, unverified)
    response = client.post(reverse("products:publish", kwargs={"pk": product.pk}), follow=True)
    assert "Confirm your email address" in response.content.decode()
    product.refresh_from_db()
    assert product.status == ProductStatus.DRAFT


def test_actions_need_post(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, cast.actor("owner"))
    assert client.get(reverse("products:publish", kwargs={"pk": product.pk})).status_code == 405
    product.refresh_from_db()
    assert product.status == ProductStatus.DRAFT


def test_actions_need_csrf(cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    client = login(Client(enforce_csrf_checks=True), cast.actor("owner"))
    response = client.post(reverse("products:publish", kwargs={"pk": product.pk}))
    assert response.status_code == 403
    product.refresh_from_db()
    assert product.status == ProductStatus.DRAFT


# --- photos and translations ---------------------------------------------------------------


def test_photo_upload_remove_and_reorder(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, cast.actor("member"))
    url = reverse("products:image_add", kwargs={"pk": product.pk})
    for _ in range(2):
        response = client.post(url, {"image": image_upload(data=png_bytes(120, 90))})
        assert response.status_code == 302
    first, second = product.images.all()
    page = client.get(reverse("products:update", kwargs={"pk": product.pk})).content.decode()
    assert first.thumbnail.url in page
    client.post(
        reverse("products:image_reorder", kwargs={"pk": product.pk}),
        {"order": f"{second.pk},{first.pk}"},
    )
    assert list(product.images.values_list("id", flat=True)) == [second.pk, first.pk]
    client.post(reverse("products:image_remove", kwargs={"pk": product.pk, "image_id": second.pk}))
    assert list(product.images.values_list("id", flat=True)) == [first.pk]


def test_photo_errors_are_shown_and_nothing_saved(client, cast, settings):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, cast.actor("member"))
    url = reverse("products:image_add", kwargs={"pk": product.pk})
    response = client.post(url, {"image": image_upload("notes.jpg", b"just some text" * 20)})
    assert response.status_code == 200
    assert "not a valid image" in response.content.decode()
    assert not ProductImage.objects.exists()

    settings.TRADEPOST_PRODUCT_MAX_IMAGES = 1
    client.post(url, {"image": image_upload()})
    response = client.post(url, {"image": image_upload()})
    assert "at most 1 image" in response.content.decode()
    assert product.images.count() == 1


def test_translation_page(client, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    login(client, cast.actor("member"))
    url = reverse("products:translation", kwargs={"pk": product.pk, "language": "zh-hant"})
    assert client.get(url).status_code == 200
    response = client.post(url, {"title": "", "description": ""})
    assert response.status_code == 200
    assert "title" in response.context["form"].errors
    response = client.post(
        url, {"title": "竹砧板", "description": "<p>實心竹</p><script>x</script>"}
    )
    assert response.status_code == 302
    translation = ProductTranslation.objects.get(product=product)
    assert (translation.language, translation.title) == ("zh-hant", "竹砧板")
    assert translation.description == "<p>實心竹</p>"
    # The listing's own language and unknown languages have no translation page.
    assert (
        client.get(
            reverse("products:translation", kwargs={"pk": product.pk, "language": "en"})
        ).status_code
        == 404
    )
    assert (
        client.get(
            reverse("products:translation", kwargs={"pk": product.pk, "language": "xx"})
        ).status_code
        == 404
    )
    client.post(
        reverse("products:translation_remove", kwargs={"pk": product.pk, "language": "zh-hant"})
    )
    assert not ProductTranslation.objects.exists()


# --- permission matrix -------------------------------------------------------------------------


def _request(client, action, product, image):
    pk = product.pk
    if action == "update":
        return client.post(reverse("products:update", kwargs={"pk": pk}), form_data(title="Hacked"))
    if action == "image_add":
        return client.post(
            reverse("products:image_add", kwargs={"pk": pk}), {"image": image_upload()}
        )
    if action == "image_remove":
        return client.post(
            reverse("products:image_remove", kwargs={"pk": pk, "image_id": image.pk})
        )
    if action == "translation":
        return client.post(
            reverse("products:translation", kwargs={"pk": pk, "language": "zh-hans"}),
            {"title": "标题"},
        )
    return client.post(reverse(f"products:{action}", kwargs={"pk": pk}))


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    "action",
    ["update", "publish", "unpublish", "delete", "image_add", "image_remove", "translation"],
)
def test_web_permission_matrix(client, cast, role, action):
    status = ProductStatus.PUBLISHED if action == "unpublish" else ProductStatus.DRAFT
    product = make_product(company=cast.company, status=status)
    image = services.product_image_add(
        actor=cast.actor("owner"), product=product, upload=image_upload()
    )
    before = snapshot(product)
    login(client, cast.actor(role))
    response = _request(client, action, product, image)
    if role == "anonymous":
        assert is_login_redirect(response)
        assert snapshot(product) == before
    elif role == "other_company":
        assert response.status_code == 404
        assert snapshot(product) == before
    else:
        assert role in ALLOWED_ROLES
        assert response.status_code == 302, response.content[:500]
        assert snapshot(product) != before


@pytest.mark.parametrize("role", ROLES)
def test_web_create_matrix(client, cast, role):
    login(client, cast.actor(role))
    url = reverse("products:create") + f"?company={cast.company.pk}"
    response = client.post(url, form_data())
    if role == "anonymous":
        assert is_login_redirect(response)
        assert not Product.objects.exists()
    elif role == "other_company":
        # `?company=` is for operators; anyone else adds to their own company.
        assert response.status_code == 302
        assert not Product.objects.filter(company=cast.company).exists()
        assert Product.objects.filter(company=cast.other_company).count() == 1
    else:
        assert response.status_code == 302
        assert Product.objects.filter(company=cast.company).count() == 1


def test_operator_without_company_param_gets_404(client, cast):
    login(client, cast.actor("operator"))
    assert client.get(reverse("products:list")).status_code == 404
    response = client.get(reverse("products:list") + f"?company={cast.company.pk}")
    assert response.status_code == 200


# --- the form's error summary, listing language, category picker (#13) ---------------------


def test_errors_are_summarised_at_the_top_each_linked_to_its_field(client, cast):
    login(client, cast.actor("member"))
    response = client.post(
        reverse("products:create"),
        form_data(moq="many", lead_time_days="soon"),
    )
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('class="error-summary"')
    assert start < html.index('<form method="post" class="stacked product-form"')
    summary = html[html.rfind("<div", 0, start) : html.index("</div>", start)]
    assert 'role="alert"' in summary and 'tabindex="-1"' in summary
    for target in ("id_moq", "id_lead_time_days"):
        assert f'href="#{target}"' in summary, target
    assert "Minimum order quantity: Enter a number." in summary
    # Each field names its error for assistive technology.
    assert 'aria-describedby="id_moq_error"' in html and 'id="id_moq_error"' in html
    assert 'aria-invalid="true"' in html
    assert "tradepost/forms.js" in html
    assert not Product.objects.exists()
    # What the service refuses is summarised the same way.
    response = client.post(reverse("products:create"), form_data(title="", category_id=""))
    html = response.content.decode()
    summary = html[html.index('class="error-summary"') :]
    summary = summary[: summary.index("</div>")]
    assert 'href="#id_title"' in summary and 'href="#id_category_id"' in summary
    assert not Product.objects.exists()


def test_the_error_summary_speaks_the_viewer_language(client, cast):
    login(client, cast.actor("member"))
    response = client.post("/zh-hant/dashboard/products/create/", form_data(moq="many"))
    html = response.content.decode()
    summary = html[
        html.index('class="error-summary"') : html.index(
            "</div>", html.index('class="error-summary"')
        )
    ]
    assert 'href="#id_moq"' in summary
    assert "problem" not in summary and "Enter a number" not in summary
    assert "：" in summary  # the full-width colon of "label: message"


def test_a_valid_page_has_no_error_summary(client, cast):
    login(client, cast.actor("member"))
    assert "error-summary" not in client.get(reverse("products:create")).content.decode()


def _selected_language(html: str) -> str:
    select = html[html.index('name="original_language"') :]
    select = select[: select.index("</select>")]
    marker = select.index(" selected")
    return select[
        select.rindex('value="', 0, marker) + 7 : select.index(
            '"', select.rindex('value="', 0, marker) + 7
        )
    ]


def test_a_new_listing_is_in_the_company_language_by_default(client, cast):
    cast.company.original_language = "zh-hans"
    cast.company.save(update_fields=["original_language"])
    login(client, cast.actor("member"))
    assert _selected_language(client.get(reverse("products:create")).content.decode()) == (
        "zh-hans"
    )
    cast.company.original_language = "tr"
    cast.company.save(update_fields=["original_language"])
    assert (
        _selected_language(client.get("/zh-hant/dashboard/products/create/").content.decode())
        == "tr"
    )


def test_without_a_known_company_language_the_page_language_is_the_default(client, cast):
    cast.company.original_language = ""
    cast.company.save(update_fields=["original_language"])
    login(client, cast.actor("member"))
    assert _selected_language(
        client.get("/zh-hant/dashboard/products/create/").content.decode()
    ) == ("zh-hant")


def test_the_category_field_is_a_picker_over_a_plain_select(client, cast):
    login(client, cast.actor("member"))
    html = client.get(reverse("products:create")).content.decode()
    # Without the script the grouped <select> still works.
    assert '<select name="category_id"' in html and "<optgroup" in html
    assert "data-category-picker" in html
    assert f'data-categories-url="{reverse("products:category_options")}"' in html
    assert f'data-suggest-url="{reverse("products:category_suggestions")}"' in html
    assert 'data-title-field="id_title"' in html


def test_category_options_give_every_leaf_with_its_full_path_in_the_page_language(client, cast):
    top = make_category(name_en="Home <b>and</b> garden", name_zh_hant="家居<b>園藝</b>")
    leaf = make_category(parent=top, name_en="Kettles", name_zh_hans="水壶", name_zh_hant="水壺")
    assert is_login_redirect(client.get(reverse("products:category_options")))
    login(client, cast.actor("member"))
    response = client.get("/zh-hant/dashboard/products/categories/")
    assert response.status_code == 200
    # JSON (the script puts it in the page as text, never as markup).
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    options = {row["id"]: row for row in response.json()["categories"]}
    assert options[leaf.pk]["path"] == "家居<b>園藝</b> › 水壺"
    assert "kettles" in options[leaf.pk]["terms"] and "水壶" in options[leaf.pk]["terms"]
    assert top.pk not in options  # only leaves take products


def test_category_suggestions_for_a_title(client, cast):
    assert is_login_redirect(client.get(reverse("products:category_suggestions")))
    login(client, cast.actor("member"))
    url = reverse("products:category_suggestions")
    answer = client.get(url, {"title": "Stainless steel vacuum flask 500 ml"}).json()
    assert 1 <= len(answer["suggestions"]) <= 5
    assert answer["suggestions"][0]["path"].endswith("Vacuum Flasks and Insulated Bottles")
    chinese = client.get(
        "/zh-hans/dashboard/products/categories/suggestions/", {"title": "不锈钢保温杯"}
    )
    assert chinese.json()["suggestions"][0]["path"].endswith("保温瓶")
    assert client.get(url, {"title": "<script>alert(1)</script>"}).json() == {"suggestions": []}
    assert client.get(url).json() == {"suggestions": []}
    assert client.get(url, {"title": "x" * 5000}).status_code == 200


# --- a refused photo: a banner at the top, the reason at the photos (#13) -------------------


def test_a_refused_photo_says_so_at_the_top_and_at_the_photos(client, cast):
    login(client, cast.actor("member"))
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    url = reverse("products:image_add", kwargs={"pk": product.pk})
    response = client.post(url, {"image": image_upload("notes.png", b"just some text" * 20)})
    assert response.status_code == 200
    html = response.content.decode()
    banner = html.index('id="photo-refused-banner"')
    assert banner < html.index("<h1>")
    assert 'role="alert"' in html[html.rfind("<div", 0, banner) : banner + 200]
    assert html.index("not a valid image", banner) < html.index('id="photos"')
    assert html.index("not a valid image", html.index('id="photos"'))  # and at the upload
    # The form sends the browser back to the photos, where the reason is.
    assert f'action="{url}#photos"' in html
    assert 'href="#photos"' in html
    assert not product.images.exists()


def test_a_real_20000_by_20000_png_is_refused_for_its_pixels_not_as_not_an_image(client, cast):
    login(client, cast.actor("member"))
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    data = real_png(20_000, 20_000)
    assert len(data) < 1024 * 1024  # a small file: only its pixels are too many
    url = reverse("products:image_add", kwargs={"pk": product.pk})
    response = client.post(url, {"image": image_upload("huge.png", data)})
    html = response.content.decode()
    assert response.status_code == 200
    assert "not a valid image" not in html
    assert "too many pixels" in html
    assert "photo-refused-banner" in html
    assert not product.images.exists()
    zh = client.post(
        f"/zh-hans/dashboard/products/{product.pk}/images/",
        {"image": image_upload("huge.png", data)},
    )
    assert "pixels" not in zh.content.decode().split('id="photo-refused-banner"')[1][:400]
