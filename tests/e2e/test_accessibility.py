"""axe-core (through axe-playwright-python) on every page the e2e journeys reach, in the three
languages (#13): no serious or critical violation. Moderate and minor findings (best-practice
rules such as heading order) are printed by the failing report but do not fail the test."""

from __future__ import annotations

import pytest

from tests.e2e.main_pages import LANGUAGES, build_market, visit_all

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

FAILING_IMPACTS = {"serious", "critical"}


def serious_violations(axe_response: dict) -> list[str]:
    """One line per serious or critical rule broken: rule, impact, how many elements, the
    first few selectors and axe's summary of the first."""
    lines = []
    for violation in axe_response["violations"]:
        if violation["impact"] not in FAILING_IMPACTS:
            continue
        nodes = violation["nodes"]
        targets = ", ".join(str(node["target"]) for node in nodes[:3])
        summary = (nodes[0].get("failureSummary") or "").replace("\n", " ")[:200]
        lines.append(
            f"{violation['id']} ({violation['impact']}) on {len(nodes)} element(s): "
            f"{targets} — {summary}"
        )
    return lines


@pytest.mark.parametrize("language", LANGUAGES)
def test_main_pages_have_no_serious_accessibility_violation(
    live_server, browser, reference_data, language
):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    market = build_market()
    found: dict[str, list[str]] = {}
    visited = 0
    for where, page in visit_all(browser, live_server.url, market, language):
        visited += 1
        if lines := serious_violations(axe.run(page).response):
            found[where] = lines
    assert visited == len(market.pages)
    report = "\n".join(f"{where}:\n  " + "\n  ".join(lines) for where, lines in found.items())
    assert not found, f"axe-core found serious or critical violations:\n{report}"
