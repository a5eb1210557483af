import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_language_switcher_changes_interface_language(live_server, page):
    page.goto(f"{live_server.url}/en/")
    assert page.locator("html").get_attribute("lang") == "en"
    page.select_option("#language-select", "zh-hant")
    page.wait_for_url("**/zh-hant/**")
    assert page.locator("html").get_attribute("lang") == "zh-hant"
