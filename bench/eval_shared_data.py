"""Search analysis measured on real marketplace text (the shared data folder beside the repo).

When `../shared/data` (relative to the repository root) exists, this indexes
  - the Taobao product titles of `taobao_title_ner/` (one character a line with BIO tags;
    a blank line ends a title), and
  - the Taiwan-marketplace titles of `traditional_titles/test_tcn.csv`,
with the project's own analysis (`analyze_words` for the words field, `analyze_cjk_grams` for
the character-gram field) into a temporary tantivy index with the project's schema, and reports:
  - segmentation: tokens per title, and the share of tagged product words (HCCX), brands
    (HPPX) and models (XH) that come out of a title's segmentation as one whole token (and
    as one token when typed alone, as a query would be);
  - folding: the share of traditional titles whose folded form (OpenCC t2s inside
    `normalize`) differs from the same text without t2s, the characters changed most, examples;
  - zero hits: for a sample of the real Taobao queries of `multi_cpr_ecom/train.query.txt`,
    the share that match no title, with the service's query construction (`text_query`,
    lexicon expansion, spelling variants of unknown words, then the relaxed retry of a
    query nothing matched), and without the gram field for comparison.
The report goes to bench/results/eval_shared_data.md. Without the data folder it says so and
exits 0.

    .venv/bin/python bench/eval_shared_data.py [--queries 5000] [--titles 0] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = REPO_ROOT.parent / "shared" / "data"
DEFAULT_OUT = REPO_ROOT / "bench" / "results" / "eval_shared_data.md"
TAOBAO_FILES = ("train.txt", "dev.txt", "test.txt")
ENTITY_TAGS = {"HCCX": "product words", "HPPX": "brands", "XH": "models"}
EXAMPLES = 12


def _setup_django() -> None:
    if str(REPO_ROOT / "src") not in sys.path:
        sys.path.insert(0, str(REPO_ROOT / "src"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tradepost.config.settings")
    import django

    from tradepost.config.home import prepare_home

    prepare_home()
    django.setup()


# --- reading the data -------------------------------------------------------------------------


@dataclass
class TaggedTitle:
    text: str
    #: (tag, start, end) character spans of the tagged entities.
    spans: list[tuple[str, int, int]] = field(default_factory=list)


def read_bio_titles(path: Path) -> Iterator[TaggedTitle]:
    """Titles rebuilt from a one-character-per-line BIO file (`char TAG`, blank line between
    titles), with their entity spans."""
    chars: list[str] = []
    tags: list[str] = []

    def finish() -> TaggedTitle | None:
        if not chars:
            return None
        title = TaggedTitle("".join(chars))
        start, current = -1, ""
        for position, tag in enumerate([*tags, "O"]):
            inside = tag.startswith("I-") and tag[2:] == current
            if start >= 0 and not inside:
                title.spans.append((current, start, position))
                start, current = -1, ""
            if tag.startswith("B-") or (tag.startswith("I-") and start < 0):
                start, current = position, tag[2:]
        chars.clear()
        tags.clear()
        return title

    with path.open(encoding="utf-8-sig") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if not line.strip():
                title = finish()
                if title is not None:
                    yield title
                continue
            char, _, tag = line.rpartition(" ")
            if not char:  # a line holding only a tag: the character was a space
                char = " "
            chars.append(char)
            tags.append(tag or "O")
    title = finish()
    if title is not None:
        yield title


def read_taobao_titles(data_dir: Path) -> list[TaggedTitle]:
    folder = data_dir / "taobao_title_ner"
    titles: list[TaggedTitle] = []
    for name in TAOBAO_FILES:
        if (folder / name).exists():
            titles.extend(read_bio_titles(folder / name))
    return titles


def read_traditional_titles(data_dir: Path) -> list[str]:
    import csv

    path = data_dir / "traditional_titles" / "test_tcn.csv"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return [row["text"] for row in csv.DictReader(handle) if row.get("text", "").strip()]


def read_queries(data_dir: Path) -> list[str]:
    path = data_dir / "multi_cpr_ecom" / "train.query.txt"
    queries = []
    with path.open(encoding="utf-8-sig") as handle:
        for line in handle:
            _, _, text = line.rstrip("\r\n").partition("\t")
            if text.strip():
                queries.append(text.strip())
    return queries


# --- statistics -------------------------------------------------------------------------------


def _percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Distribution:
    mean: float
    median: float
    p90: float
    maximum: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not values:
            return cls(0.0, 0.0, 0.0, 0.0)
        return cls(
            mean=statistics.fmean(values),
            median=statistics.median(values),
            p90=_percentile(values, 0.9),
            maximum=max(values),
        )


@dataclass
class EntityStats:
    total: int = 0
    whole_in_title: int = 0
    whole_alone: int = 0
    by_length: Counter = field(default_factory=Counter)
    whole_by_length: Counter = field(default_factory=Counter)
    split_examples: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass
class SegmentationReport:
    titles: int
    tokens_taobao: Distribution
    tokens_traditional: Distribution
    grams_taobao: Distribution
    entities: dict[str, EntityStats]


def segmentation_report(
    taobao: Sequence[TaggedTitle], traditional: Sequence[str]
) -> SegmentationReport:
    from tradepost.search.analysis import analyze_cjk_grams, analyze_words, normalize

    entities = {tag: EntityStats() for tag in ENTITY_TAGS}
    token_counts, gram_counts = [], []
    for title in taobao:
        tokens = analyze_words(title.text)
        token_counts.append(len(tokens))
        gram_counts.append(len(analyze_cjk_grams(title.text)))
        token_set = set(tokens)
        for tag, start, end in title.spans:
            stats = entities.get(tag)
            if stats is None:
                continue
            word = normalize(title.text[start:end])
            if not word or " " in word:
                continue
            length_key = min(len(word), 5)
            stats.total += 1
            stats.by_length[length_key] += 1
            if word in token_set:
                stats.whole_in_title += 1
                stats.whole_by_length[length_key] += 1
            elif len(stats.split_examples) < EXAMPLES and len(word) >= 3:
                stats.split_examples.append((title.text[start:end], _covering(tokens, word)))
            if analyze_words(word) == [word]:
                stats.whole_alone += 1
    traditional_counts = [len(analyze_words(text)) for text in traditional]
    return SegmentationReport(
        titles=len(taobao),
        tokens_taobao=Distribution.of(token_counts),
        tokens_traditional=Distribution.of(traditional_counts),
        grams_taobao=Distribution.of(gram_counts),
        entities=entities,
    )


def _covering(tokens: list[str], word: str) -> list[str]:
    """The title's tokens that overlap the tagged word, to show how it was cut."""
    text = "".join(tokens)
    start = text.find(word)
    if start < 0:
        return [t for t in tokens if t in word or word in t][:6]
    out, position = [], 0
    for token in tokens:
        end = position + len(token)
        if end > start and position < start + len(word):
            out.append(token)
        position = end
    return out


@dataclass
class FoldingReport:
    titles: int
    changed: int
    han_chars: int
    han_changed: int
    top_changes: list[tuple[str, int]]
    examples: list[tuple[str, str]]


def _without_t2s(text: str) -> str:
    """`normalize` minus the traditional-to-simplified step (NFKC, lower case, spaces)."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def folding_report(traditional: Sequence[str]) -> FoldingReport:
    from tradepost.search.analysis import normalize

    changed, han_chars, han_changed = 0, 0, 0
    pairs: Counter = Counter()
    examples = []
    for text in traditional:
        before, after = _without_t2s(text), normalize(text)
        if before == after:
            han_chars += sum(1 for ch in before if _is_han(ch))
            continue
        changed += 1
        if len(examples) < EXAMPLES:
            examples.append((text, after))
        if len(before) == len(after):
            for old, new in zip(before, after, strict=True):
                if _is_han(old):
                    han_chars += 1
                    if old != new:
                        han_changed += 1
                        pairs[f"{old}→{new}"] += 1
        else:  # a phrase conversion changed the length: count its Han characters only
            han_chars += sum(1 for ch in before if _is_han(ch))
    return FoldingReport(
        titles=len(traditional),
        changed=changed,
        han_chars=han_chars,
        han_changed=han_changed,
        top_changes=pairs.most_common(20),
        examples=examples,
    )


def _is_han(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


# --- zero hits over a temporary index ---------------------------------------------------------


@dataclass
class ZeroHitReport:
    indexed: int
    queries: int
    zero_words_and_grams: int
    zero_after_fuzzy: int
    zero_words_only: int
    fuzzy_rescued: int
    expanded: int
    build_seconds: float
    p50_ms: float
    p95_ms: float
    examples: list[str]
    #: name -> (queries, zero-hit queries) for the self-consistency sets
    checks: dict[str, tuple[int, int]] = field(default_factory=dict)
    check_examples: dict[str, list[str]] = field(default_factory=dict)


def build_index(path: Path, titles: Sequence[str]):
    """A tantivy index with the project's schema holding each title as a product document's
    title fields, analysed the way the indexer analyses titles."""
    import tantivy

    from tradepost.search.analysis import analyze_fields
    from tradepost.search.index import KIND_PRODUCT, MAX_TOKEN_CHARS, schema

    index = tantivy.Index(schema(), path=str(path))
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    for number, title in enumerate(titles, start=1):
        words, grams = analyze_fields(title)
        document = tantivy.Document()
        document.add_text("key", f"p:{number}")
        document.add_text("kind", KIND_PRODUCT)
        document.add_unsigned("id", number)
        document.add_text("title_words", " ".join(t for t in words if len(t) <= MAX_TOKEN_CHARS))
        document.add_text("title_grams", " ".join(grams))
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def zero_hit_report(
    titles: Sequence[str],
    queries: Sequence[str],
    checks: dict[str, Sequence[str]] | None = None,
) -> ZeroHitReport:
    from tradepost.search.analysis import analyze_query
    from tradepost.search.querying import RELAXED, fuzzy_terms, text_query
    from tradepost.search.selectors import expand

    word_fields = {"title_words": 3.0}
    gram_fields = {"title_grams": 1.2}
    with tempfile.TemporaryDirectory(prefix="tradepost-eval-") as folder:
        started = time.perf_counter()
        index = build_index(Path(folder), titles)
        build_seconds = time.perf_counter() - started
        searcher = index.searcher()

        def count(query) -> int:
            return searcher.search(query, limit=1).count if query is not None else 0

        zero = zero_after_fuzzy = zero_words_only = rescued = expanded = 0
        timings, examples = [], []
        for text in queries:
            began = time.perf_counter()
            analyzed = analyze_query(text)
            expansion = expand(text, analyzed)
            if expansion.translations:
                expanded += 1
            fuzzy = fuzzy_terms(analyzed, searcher, word_fields, translated=expansion.translations)
            query = text_query(
                analyzed,
                word_fields=word_fields,
                gram_fields=gram_fields,
                phrase_field="title_words",
                expansion=expansion,
                fuzzy=fuzzy,
            )
            hits = count(query)
            if hits == 0:
                relaxed = text_query(
                    analyzed,
                    word_fields=word_fields,
                    gram_fields=gram_fields,
                    phrase_field="title_words",
                    expansion=expansion,
                    fuzzy=fuzzy,
                    breadth=RELAXED,
                )
                if count(relaxed):
                    rescued += 1
                    hits = -1
            timings.append((time.perf_counter() - began) * 1000)
            if hits == 0:
                zero += 1
                zero_after_fuzzy += 1
                if len(examples) < EXAMPLES * 2:
                    examples.append(text)
            elif hits < 0:
                zero += 1
            words_only = text_query(
                analyzed,
                word_fields=word_fields,
                gram_fields={},
                phrase_field="title_words",
                expansion=expansion,
            )
            if count(words_only) == 0:
                zero_words_only += 1
        check_results: dict[str, tuple[int, int]] = {}
        check_examples: dict[str, list[str]] = {}
        for name, texts in (checks or {}).items():
            missed = []
            for text in texts:
                analyzed = analyze_query(text)
                query = text_query(
                    analyzed,
                    word_fields=word_fields,
                    gram_fields=gram_fields,
                    phrase_field="title_words",
                    expansion=expand(text, analyzed),
                )
                if count(query) == 0:
                    missed.append(text)
            check_results[name] = (len(texts), len(missed))
            check_examples[name] = missed[:EXAMPLES]
    return ZeroHitReport(
        indexed=len(titles),
        queries=len(queries),
        zero_words_and_grams=zero,
        zero_after_fuzzy=zero_after_fuzzy,
        zero_words_only=zero_words_only,
        fuzzy_rescued=rescued,
        expanded=expanded,
        build_seconds=build_seconds,
        p50_ms=_percentile(timings, 0.5),
        p95_ms=_percentile(timings, 0.95),
        examples=examples,
        checks=check_results,
        check_examples=check_examples,
    )


def tagged_word_queries(
    taobao: Sequence[TaggedTitle], limit: int, seed: int
) -> dict[str, list[str]]:
    """Self-consistency query sets: distinct tagged product words (HCCX) of the indexed
    titles, typed alone, in simplified and converted to traditional characters. Each is in
    some indexed title, so each should find at least one."""
    import opencc

    words = sorted(
        {
            title.text[start:end].strip()
            for title in taobao
            for tag, start, end in title.spans
            if tag == "HCCX" and end - start >= 2
        }
    )
    if limit and limit < len(words):
        words = random.Random(seed).sample(words, limit)
    to_traditional = opencc.OpenCC("s2t")
    return {
        "tagged product words (simplified, as in the titles)": words,
        "the same words typed in traditional characters": [
            to_traditional.convert(word) for word in words
        ],
    }


# --- the report -------------------------------------------------------------------------------


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _dist_row(name: str, dist: Distribution) -> str:
    return f"| {name} | {dist.mean:.1f} | {dist.median:.0f} | {dist.p90:.0f} | {dist.maximum:.0f} |"


def render(
    *,
    args: argparse.Namespace,
    segmentation: SegmentationReport,
    folding: FoldingReport,
    zero_hits: ZeroHitReport,
    seconds: float,
) -> str:
    lines = [
        "# Search analysis on real marketplace text",
        "",
        "Written by `bench/eval_shared_data.py` from the shared data folder "
        "(`../shared/data`): Taobao titles with entity tags (`taobao_title_ner`), Taiwan "
        "marketplace titles (`traditional_titles/test_tcn.csv`) and real Taobao search queries "
        f"(`multi_cpr_ecom/train.query.txt`, a sample of {zero_hits.queries:,} drawn with seed "
        f"{args.seed}). Analysis is the project's own (`tradepost.search.analysis`); the index "
        "uses the project's schema and query construction. "
        f"Run time {seconds:.0f} s.",
        "",
        "## Segmentation",
        "",
        f"{segmentation.titles:,} Taobao titles and {folding.titles:,} traditional titles.",
        "",
        "| tokens per title (words field) | mean | median | p90 | max |",
        "|---|---|---|---|---|",
        _dist_row("Taobao", segmentation.tokens_taobao),
        _dist_row("traditional (Taiwan)", segmentation.tokens_traditional),
        _dist_row("Taobao, gram field (uni+bigrams)", segmentation.grams_taobao),
        "",
        "Tagged entities that come out as one whole token: *in title* when the title is "
        "segmented (what the words field indexes), *alone* when the entity is typed by itself "
        "(what a query gives).",
        "",
        "| entity | tagged | whole token in title | whole token alone |",
        "|---|---|---|---|",
    ]
    for tag, label in ENTITY_TAGS.items():
        stats = segmentation.entities[tag]
        lines.append(
            f"| {label} ({tag}) | {stats.total:,} | {_share(stats.whole_in_title, stats.total)} "
            f"| {_share(stats.whole_alone, stats.total)} |"
        )
    product = segmentation.entities["HCCX"]
    lines += [
        "",
        "Product words (HCCX) whole in the title, by length in characters:",
        "",
        "| length | tagged | whole token in title |",
        "|---|---|---|",
    ]
    for length in sorted(product.by_length):
        label = f"{length}+" if length == 5 else str(length)
        lines.append(
            f"| {label} | {product.by_length[length]:,} | "
            f"{_share(product.whole_by_length[length], product.by_length[length])} |"
        )
    lines += ["", "Product words the segmenter cut (first examples; the tokens covering them):", ""]
    for word, tokens in product.split_examples:
        lines.append(f"- {word} → {' / '.join(tokens)}")
    lines += [
        "",
        "A product word that is not a whole token is still found: its bigrams are in the "
        "gram field, which the query also searches.",
        "",
        "## Folding (traditional → simplified)",
        "",
        f"- Titles whose folded form differs from the text without t2s: "
        f"{folding.changed:,} of {folding.titles:,} ({_share(folding.changed, folding.titles)}).",
        f"- Han characters changed: {folding.han_changed:,} of {folding.han_chars:,} "
        f"({_share(folding.han_changed, folding.han_chars)}).",
        "- Characters changed most: "
        + ", ".join(f"{pair} ({count:,})" for pair, count in folding.top_changes),
        "",
        "Examples (as written → as indexed):",
        "",
    ]
    for text, folded in folding.examples:
        lines.append(f"- {text} → {folded}")
    z = zero_hits
    lines += [
        "",
        "## Zero-hit rate of real queries",
        "",
        f"{z.indexed:,} titles (Taobao and traditional) indexed in {z.build_seconds:.1f} s; "
        f"{z.queries:,} queries. The queries were not written against these titles (other "
        "products, other years), so many have no answer among them: the figure compares "
        "analysis choices, it is not the zero-hit rate of a marketplace.",
        "",
        "| how | zero-hit queries | rate |",
        "|---|---|---|",
        f"| words + grams, glossary expansion (the service) | {z.zero_words_and_grams:,} | "
        f"{_share(z.zero_words_and_grams, z.queries)} |",
        f"| the same, then the relaxed retry (any word or gram) | {z.zero_after_fuzzy:,} | "
        f"{_share(z.zero_after_fuzzy, z.queries)} |",
        f"| words field only (no gram field) | {z.zero_words_only:,} | "
        f"{_share(z.zero_words_only, z.queries)} |",
        "",
        f"- Queries with a glossary expansion: {z.expanded:,} "
        f"({_share(z.expanded, z.queries)}); rescued by the relaxed retry: {z.fuzzy_rescued:,}.",
        f"- Time per query (analysis, expansion, count): p50 {z.p50_ms:.2f} ms, "
        f"p95 {z.p95_ms:.2f} ms.",
        "",
        "Zero-hit examples:",
        "",
    ]
    for text in z.examples:
        lines.append(f"- {text}")
    if z.checks:
        lines += [
            "",
            "Self-consistency: queries that are in some indexed title must find it (index and "
            "query analysis agree, traditional input folds to the simplified titles).",
            "",
            "| query set | queries | zero-hit | rate |",
            "|---|---|---|---|",
        ]
        for name, (total, missed) in z.checks.items():
            lines.append(f"| {name} | {total:,} | {missed:,} | {_share(missed, total)} |")
        lines += [
            "",
            "A word typed alone misses when its tag cuts through a longer Latin token (psp of "
            "psp3000), or when OpenCC's t2s leaves a variant character as it is (揹 for 背, "
            "薰 for 熏), so the traditional form does not fold to the title's simplified one.",
        ]
        for name, missed_texts in z.check_examples.items():
            if missed_texts:
                lines.append("")
                lines.append(f"Missed ({name}): " + ", ".join(missed_texts))
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="shared data folder")
    parser.add_argument("--queries", type=int, default=5000, help="queries sampled (0 = all)")
    parser.add_argument("--titles", type=int, default=0, help="titles of each source (0 = all)")
    parser.add_argument("--seed", type=int, default=20250601, help="seed of the query sample")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="report file")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"No shared data folder at {args.data}: nothing to evaluate.")
        return 0
    started = time.perf_counter()
    _setup_django()
    taobao = read_taobao_titles(args.data)
    traditional = read_traditional_titles(args.data)
    queries = read_queries(args.data)
    if args.titles:
        taobao, traditional = taobao[: args.titles], traditional[: args.titles]
    if args.queries and args.queries < len(queries):
        queries = random.Random(args.seed).sample(queries, args.queries)
    print(f"{len(taobao):,} Taobao titles, {len(traditional):,} traditional titles, "
          f"{len(queries):,} queries")  # fmt: skip
    segmentation = segmentation_report(taobao, traditional)
    folding = folding_report(traditional)
    checks = tagged_word_queries(taobao, args.queries, args.seed)
    zero_hits = zero_hit_report([t.text for t in taobao] + list(traditional), queries, checks)
    report = render(
        args=args,
        segmentation=segmentation,
        folding=folding,
        zero_hits=zero_hits,
        seconds=time.perf_counter() - started,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)
    print(f"Written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
