"""Machine translation measured on real title pairs (`../shared/data/relevance/
en_query_zh_hant_title/`: an English title and the traditional-Chinese title of the same
product, written by different people).

Each pair is translated both ways through `translation.engines.translate` (kind "title"),
and scored with sacrebleu's corpus chrF and BLEU against the other side. In the same run,
for reference: the text left untranslated, and the plain one-sense gloss (greedy longest
match of the same lexicon, the best-weighted sense, Latin runs kept as written, nothing else).
English to Chinese is scored against the reference converted to simplified Chinese, the
script the engine writes (a traditional reader gets it converted by OpenCC). Also reported:
the time per title (p50, p95) and the share of words the engine had no translation for.

Used by `tradepost bench translation` (results under bench/results/) and by its test.
"""

from __future__ import annotations

import csv
import json
import statistics
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PAIRS = (
    REPO_ROOT.parent / "shared" / "data" / "relevance" / "en_query_zh_hant_title" / "pairs.dev.tsv"
)
RESULTS_DIR = REPO_ROOT / "bench" / "results"

#: The goals of issue #28 on the dev pairs (chrF; milliseconds per title, p50).
GOALS = {"zh-hant>en": 42.0, "en>zh-hans": 32.0}
GOAL_MS_P50 = 2.0


@dataclass
class Pair:
    english: str
    chinese: str


@dataclass
class Direction:
    name: str
    #: system -> {"chrF": ..., "BLEU": ...}
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    ms_p50: float = 0.0
    ms_p95: float = 0.0
    untranslated_share: float = 0.0
    examples: list[tuple[str, str, str]] = field(default_factory=list)


def load_pairs(path: Path) -> list[Pair]:
    """The pairs of a TSV file whose first column is English and second Chinese (a header
    line naming them is skipped); lines without both are left out."""
    pairs: list[Pair] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)):
            if len(row) < 2 or not row[0].strip() or not row[1].strip():
                continue
            if number == 0 and row[0].strip().lower().startswith("english"):
                continue
            pairs.append(Pair(row[0].strip(), row[1].strip()))
    return pairs


def plain_gloss(text: str, *, to_english: bool) -> str:
    """The reference gloss: greedy longest match of the lexicon, left to right, the
    best-weighted sense of each match, Latin runs kept as written, unknown Han dropped."""
    from tradepost.core.chinese_scripts import SIMPLIFIED, TRADITIONAL, convert_script
    from tradepost.search.analysis import analyze_words
    from tradepost.search.glossary import load_glossary

    glossary = load_glossary()
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    if to_english:
        folded = convert_script(text, written_in=TRADITIONAL, reader=SIMPLIFIED)
        if len(folded) != len(text):
            folded = text
        index = 0
        while index < len(folded):
            if not _is_han(folded[index]):
                end = index
                while end < len(folded) and not _is_han(folded[end]):
                    end += 1
                out.append(text[index:end])
                index = end
                continue
            for size in range(min(glossary.max_chinese_chars, len(folded) - index), 0, -1):
                entry = glossary.chinese.get(folded[index : index + size])
                if entry is not None:
                    out.append(max(entry[1], key=lambda sense: sense.weight).label)
                    index += size
                    break
            else:
                index += 1
        return " ".join(" ".join(out).split())
    words = text.split()
    index = 0
    while index < len(words):
        for size in range(min(glossary.max_english_tokens, len(words) - index), 0, -1):
            key = tuple(t for word in words[index : index + size] for t in analyze_words(word))
            entry = glossary.english.get(key) if key else None
            if entry is not None:
                out.append(max(entry[1], key=lambda sense: sense.weight).label)
                index += size
                break
        else:
            out.append(words[index])
            index += 1
    return "".join(out)


def _is_han(character: str) -> bool:
    return "\u3400" <= character <= "\u9fff" or "\uf900" <= character <= "\ufaff"


def _score(system: Sequence[str], reference: Sequence[str], *, chinese: bool) -> dict[str, float]:
    import sacrebleu

    return {
        "chrF": round(sacrebleu.corpus_chrf(list(system), [list(reference)]).score, 1),
        "BLEU": round(
            sacrebleu.corpus_bleu(
                list(system), [list(reference)], tokenize="zh" if chinese else "13a"
            ).score,
            1,
        ),
    }


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(pairs: Sequence[Pair], say: Callable[[str], None] = lambda _m: None) -> list[Direction]:
    from tradepost.core.chinese_scripts import SIMPLIFIED, TRADITIONAL, convert_script
    from tradepost.translation.engines import Kind, translate

    translate("暖身", source=TRADITIONAL, target="en", kind=Kind.TITLE)  # load the lexicon
    directions = []
    for name, source, target, sources, references in (
        ("zh-hant>en", TRADITIONAL, "en", [p.chinese for p in pairs], [p.english for p in pairs]),
        (
            "en>zh-hans",
            "en",
            SIMPLIFIED,
            [p.english for p in pairs],
            [convert_script(p.chinese, written_in=TRADITIONAL, reader=SIMPLIFIED) for p in pairs],
        ),
    ):
        say(f"{name}: {len(sources)} titles")
        chinese = target != "en"
        result = Direction(name)
        timings: list[float] = []
        system: list[str] = []
        untranslated: list[float] = []
        for text in sources:
            started = time.perf_counter()
            translated = translate(text, source=source, target=target, kind=Kind.TITLE)
            timings.append((time.perf_counter() - started) * 1000)
            system.append(translated.text)
            untranslated.append(translated.untranslated_share)
        plain = [plain_gloss(text, to_english=not chinese) for text in sources]
        result.scores = {
            "untranslated": _score(sources, references, chinese=chinese),
            "plain gloss": _score(plain, references, chinese=chinese),
            "engine": _score(system, references, chinese=chinese),
        }
        if not chinese:  # what title case adds: the same engine, as it writes attributes
            as_written = [
                translate(text, source=source, target=target, kind=Kind.ATTRIBUTE).text
                for text in sources
            ]
            result.scores["engine, no title case"] = _score(as_written, references, chinese=False)
        result.ms_p50 = round(statistics.median(timings), 3)
        result.ms_p95 = round(_percentile(timings, 0.95), 3)
        result.untranslated_share = round(statistics.mean(untranslated), 3)
        result.examples = list(zip(sources, system, references, strict=True))[:8]
        directions.append(result)
    return directions


def missed_goals(directions: Sequence[Direction]) -> list[str]:
    missed = []
    for direction in directions:
        goal = GOALS.get(direction.name)
        chrf = direction.scores["engine"]["chrF"]
        if goal is not None and chrf < goal:
            missed.append(f"{direction.name}: chrF {chrf} < {goal}")
        if direction.ms_p50 > GOAL_MS_P50:
            missed.append(f"{direction.name}: p50 {direction.ms_p50} ms > {GOAL_MS_P50} ms")
    return missed


def markdown(directions: Sequence[Direction], *, pairs_file: str, count: int, started: str) -> str:
    lines = [
        f"# Translation bench, {started}",
        "",
        f"{count} pairs of `{pairs_file}`, each translated both ways (kind: title).",
        "",
        "| direction | system | chrF | BLEU |",
        "|---|---|---:|---:|",
    ]
    for direction in directions:
        for system, score in direction.scores.items():
            lines.append(f"| {direction.name} | {system} | {score['chrF']} | {score['BLEU']} |")
    lines += [
        "",
        "| direction | ms per title p50 | p95 | words left untranslated |",
        "|---|---:|---:|---:|",
    ]
    for direction in directions:
        lines.append(
            f"| {direction.name} | {direction.ms_p50} | {direction.ms_p95} | "
            f"{direction.untranslated_share:.1%} |"
        )
    missed = missed_goals(directions)
    lines += ["", "Goals missed: " + ("; ".join(missed) if missed else "none"), ""]
    for direction in directions:
        lines += [f"## {direction.name}, first examples", ""]
        lines += [
            f"- {source} → {system} (reference: {reference})"
            for source, system, reference in direction.examples
        ]
        lines.append("")
    return "\n".join(lines)


def write_report(
    directions: Sequence[Direction],
    *,
    pairs_file: str,
    count: int,
    started: str,
    results_dir: Path,
) -> tuple[Path, Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    stamp = started.replace("-", "").replace(":", "")[:15]
    json_path = results_dir / f"translation-{stamp}.json"
    json_path.write_text(
        json.dumps(
            {
                "started": started,
                "pairs_file": pairs_file,
                "pairs": count,
                "directions": [
                    {
                        "name": d.name,
                        "scores": d.scores,
                        "ms_p50": d.ms_p50,
                        "ms_p95": d.ms_p95,
                        "untranslated_share": d.untranslated_share,
                    }
                    for d in directions
                ],
                "missed_goals": missed_goals(directions),
            },
            ensure_ascii=False,
            indent=1,
        ),
        encoding="utf-8",
    )
    md_path = results_dir / "translation-latest.md"
    md_path.write_text(
        markdown(directions, pairs_file=pairs_file, count=count, started=started),
        encoding="utf-8",
    )
    return json_path, md_path
