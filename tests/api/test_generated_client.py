"""A client generated from the served schema works (#26: the schema is the truth): the
`openapi-python-client` of requirements-codegen.lock writes a Python client from
/api/v1/openapi.json, and one RFQ journey runs through it against the live site
(tests/api/generated/journey.py), every answer parsed by the generated models."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.factories.catalog import leaf_category
from tests.factories.companies import make_trader
from tradepost.accounts.tokens import token_create

ROOT = Path(__file__).resolve().parents[2]
CODEGEN = ROOT / ".venv-codegen" / "bin"
JOURNEY = Path(__file__).parent / "generated" / "journey.py"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_client_generated_from_the_schema_runs_an_rfq_journey(live_server, tmp_path):
    if not (CODEGEN / "openapi-python-client").exists():
        pytest.fail("the generator is missing: run `make codegen-tools` (make test does)")
    schema = tmp_path / "openapi.json"
    schema.write_bytes(_get(live_server.url + "/api/v1/openapi.json"))
    generated = subprocess.run(
        [
            str(CODEGEN / "openapi-python-client"),
            "generate",
            "--path",
            str(schema),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / "tradepost_client"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": f"{CODEGEN}:/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    # Only the invoice's PDF (a binary answer) is left out of the generated client.
    warned = [line for line in generated.stdout.splitlines() if line.startswith("WARNING")]
    assert all("/pdf" in line for line in warned), warned

    buyer, _buyer_company = make_trader(country="NL")
    supplier, _supplier_company = make_trader(country="CN")
    journey = subprocess.run(
        [
            str(CODEGEN / "python"),
            str(JOURNEY),
            live_server.url,
            token_create(user=buyer, name="generated client")[1],
            token_create(user=supplier, name="generated client")[1],
            str(leaf_category().pk),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert journey.returncode == 0, journey.stderr
    steps = json.loads(journey.stdout.strip().splitlines()[-1])
    assert steps == {
        "create": [201, "RequestOut"],
        "quote": [201, "QuotationOut"],
        "list": [200, 1, 7.5],
        "award": [200, "awarded"],
        "award again": [409, "Problem"],
        "request": [200, "awarded"],
    }


def _get(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()
