"""Relevance on judged real queries (`../shared/data/relevance/`, the dev half): each set is
indexed as listings through the project's code path and searched with `search_products`
(bench/relevance_bench.py, what `tradepost bench relevance` runs), and the numbers must not
fall below the goals of docs/adr/0008-ranked-retrieval.md. Where a goal is not reached yet,
the test holds the number reached (rounded down), so that no change can lose ground while
the goal is worked on; ADR 0008 lists which.

Skips where the shared data folder is absent (a user's clone); CI always has it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import relevance_bench  # noqa: E402

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        not relevance_bench.available(),
        reason="the judged relevance sets (../shared/data/relevance) are not beside the checkout",
    ),
]

#: (set, subset, measure) -> the number reached where it is still below the goal: the test
#: holds it until the goal (relevance_bench.GOALS) is reached.
REACHED_BELOW_GOAL: dict[tuple[str, str, str], float] = {
    ("zh", "no_shared_word", "mrr10"): 0.33,
}


@pytest.mark.parametrize("name", relevance_bench.SETS)
def test_judged_real_queries_reach_the_goals(name):
    judged = relevance_bench.load_set(name)
    result = relevance_bench.measure(judged)
    failures = []
    for (set_name, subset, measure), goal in relevance_bench.GOALS.items():
        if set_name != name:
            continue
        floor = REACHED_BELOW_GOAL.get((set_name, subset, measure), goal)
        value = result.service[subset][measure]
        if value < floor:
            failures.append(f"{subset} {measure} {value:.4f} < {floor}")
    for (set_name, measure), ceiling in relevance_bench.CEILINGS.items():
        if set_name == name and result.service["all"][measure] > ceiling:
            failures.append(f"{measure} {result.service['all'][measure]:.4f} > {ceiling}")
    # Never worse than plain BM25 measured in the same run.
    service, reference = result.service["all"], result.reference["all"]
    if service["mrr10"] < reference["mrr10"] - 0.01:
        failures.append(f"MRR@10 {service['mrr10']:.4f} below plain BM25 {reference['mrr10']}")
    assert not failures, f"{name}: " + "; ".join(failures)


def test_the_scores_are_computed_as_documented():
    queries = [("a", frozenset({1})), ("b", frozenset({2, 3})), ("c", frozenset({4}))]
    rankings = [[1, 9], [9, 3, 2], []]
    scores = relevance_bench.score(rankings, queries)
    assert scores["mrr10"] == round((1 + 1 / 2 + 0) / 3, 4)
    assert scores["r1"] == round(1 / 3, 4)
    assert scores["r10"] == round((1 + 1 + 0) / 3, 4)
    assert scores["zero"] == round(1 / 3, 4)


def test_the_plain_reference_tokens_are_characters_and_latin_words():
    tokens = relevance_bench.reference_tokens("ＳＯＦＴ 99 鍍膜車蠟")
    assert tokens == ["soft", "99", "鍍", "膜", "車", "蠟"]
