"""Banned-term screening: the time to screen a typical listing against a list of terms.

    .venv/bin/python -m bench.screening_bench [--terms 1000] [--listings 200] [--rounds 5]

The terms are drawn (seeded) from the shipped bilingual lexicon, half English words and
phrases, half Chinese; the listings are written from the same lexicon: an English title
(~60 characters), a description (~1,200), eight attributes, keywords, and a Simplified
Chinese translation (title and ~300 characters), about a dozen texts and 2,000 characters in
all, written from lexicon entries that hold no listed term; one listing in ten gets one.
Measured, in the same process:

- **matcher**: `screening.matching.TermMatcher`, the whole list at once (dictionary look-ups
  of the text's words and Chinese runs, one pattern for mixed-script terms: what publishing
  runs);
- **per-term**: the reference, one compiled pattern per term run over each text in turn
  (the same folding and the same whole-word rules, so both find the same terms).

Prints the median and p95 per listing and the compile time, and writes
`results/screening-<time>.json` and `.md`. The database's part (one aggregate to read the
list's version) is not in these numbers: `tests/screening/test_speed.py` times the whole
`screen` call.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def _lexicon() -> tuple[list[str], list[str]]:
    text = resources.files("tradepost.search").joinpath("data/lexicon.tsv").read_text("utf-8")
    english, chinese = [], []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) >= 2:
            english.append(parts[0])
            chinese.append(parts[1])
    return english, chinese


def make_terms(count: int, rng: random.Random) -> list[str]:
    english, chinese = _lexicon()
    english = [word for word in set(english) if len(word) >= 4]
    chinese = [word for word in set(chinese) if len(word) >= 2]
    return sorted(rng.sample(sorted(english), count // 2)) + sorted(
        rng.sample(sorted(chinese), count - count // 2)
    )


def make_listing(rng: random.Random, english: list[str], chinese: list[str]) -> list[str]:
    def words(n: int) -> str:
        return " ".join(rng.choice(english) for _ in range(n))

    def hanzi(n: int) -> str:
        return "，".join("".join(rng.choice(chinese) for _ in range(4)) for _ in range(n))

    texts = [words(6).capitalize()[:60], ". ".join(words(12) for _ in range(10))[:1200]]
    texts += [f"{rng.choice(english)}: {words(2)}" for _ in range(8)]
    texts += [", ".join(rng.choice(english) for _ in range(5)), hanzi(2)[:30], hanzi(20)[:300]]
    return texts


def per_term_matchers(terms: list[str]) -> list[re.Pattern[str]]:
    """The reference: one pattern per term, with the rules of `TermMatcher`."""
    from tradepost.screening.matching import canonical, list_pattern

    patterns = []
    for term in terms:
        form = canonical(term)
        if form:
            patterns.append(re.compile(list_pattern([form])))
    return patterns


def run(terms: int, listings: int, rounds: int, seed: int = 14) -> dict[str, Any]:
    from tradepost.screening.matching import TermMatcher, canonical, fold

    rng = random.Random(seed)
    listed = make_terms(terms, rng)
    started = time.perf_counter()
    matcher = TermMatcher((number, canonical(term)) for number, term in enumerate(listed))
    compile_ms = (time.perf_counter() - started) * 1000
    # The listings are written from the lexicon's other entries (none holding a listed
    # term), and a tenth of them get one listed term, as a held listing would.
    english, chinese = _lexicon()
    english = [word for word in english if not any(matcher.find(word))]
    chinese = [word for word in chinese if not any(matcher.find(word))]
    corpus = [make_listing(rng, english, chinese) for _ in range(listings)]
    for texts in corpus[::10]:
        texts[1] += " " + rng.choice(listed)
    reference = per_term_matchers(listed)

    def whole_list(texts: list[str]) -> int:
        return sum(1 for text in texts for _match in matcher.find(text))

    def per_term(texts: list[str]) -> int:
        count = 0
        for text in texts:
            folded = fold(text).text
            count += sum(1 for pattern in reference for _match in pattern.finditer(folded))
        return count

    for texts in corpus[:20]:  # warm up the folding memo and the converter
        whole_list(texts)
        per_term(texts)
    samples: dict[str, list[float]] = {"matcher": [], "per-term": []}
    held = {"matcher": 0, "per-term": 0}
    for _round in range(rounds):
        for texts in corpus:
            for name, screen in (("matcher", whole_list), ("per-term", per_term)):
                started = time.perf_counter()
                found = screen(texts)
                samples[name].append((time.perf_counter() - started) * 1000)
                held[name] += bool(found)

    def summary(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "p50_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1], 3),
        }

    characters = statistics.mean(sum(len(text) for text in texts) for texts in corpus)
    return {
        "terms": len(listed),
        "listings": listings,
        "rounds": rounds,
        "characters_per_listing": round(characters),
        "texts_per_listing": len(corpus[0]),
        "compile_ms": round(compile_ms, 1),
        "matcher": summary(samples["matcher"]),
        "per_term": summary(samples["per-term"]),
        "held_listings": {name: count // rounds for name, count in held.items()},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--terms", type=int, default=1000)
    parser.add_argument("--listings", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args(argv)
    result = run(options.terms, options.listings, options.rounds)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"screening-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    ratio = result["per_term"]["p50_ms"] / max(result["matcher"]["p50_ms"], 1e-9)
    lines = [
        f"# Banned-term screening ({stamp})",
        "",
        f"{result['terms']} terms, {result['listings']} listings of "
        f"{result['texts_per_listing']} texts and ~{result['characters_per_listing']} "
        f"characters, {result['rounds']} rounds; list compiled in {result['compile_ms']} ms.",
        "",
        "| per listing | p50 ms | p95 ms |",
        "|---|---|---|",
        f"| matcher (whole list) | {result['matcher']['p50_ms']} | {result['matcher']['p95_ms']} |",
        f"| per-term patterns | {result['per_term']['p50_ms']} | {result['per_term']['p95_ms']} |",
        "",
        f"The matcher is {ratio:.0f}x faster at the median; they held "
        f"{result['held_listings']['matcher']} and {result['held_listings']['per-term']} listings.",
    ]
    (RESULTS / f"screening-{stamp}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
