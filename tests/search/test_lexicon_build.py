"""The bilingual lexicon: the shipped file, and the script that builds it."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import defaultdict
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
HAN = re.compile("[\u3400-\u9fff]")
WEIGHT = re.compile(r"^(?:0\.\d\d|1\.00)$")
SOURCES = {"glossary", "category", "taxonomy", "cedict"}


def _load_script() -> ModuleType:
    path = REPO / "scripts" / "build_lexicon.py"
    spec = importlib.util.spec_from_file_location("build_lexicon", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_lexicon", module)
    spec.loader.exec_module(module)
    return module


build_lexicon = _load_script()


def _shipped_text() -> str:
    return resources.files("tradepost.search").joinpath("data/lexicon.tsv").read_text("utf-8")


def _rows(text: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        assert len(fields) == 4, f"line {number}: {line!r}"
        rows.append((fields[0], fields[1], fields[2], fields[3]))
    return rows


@pytest.fixture(scope="module")
def shipped() -> list[tuple[str, str, str, str]]:
    return _rows(_shipped_text())


@pytest.fixture(scope="module")
def translations(shipped) -> dict[str, list[tuple[str, float, str]]]:
    table: dict[str, list[tuple[str, float, str]]] = defaultdict(list)
    for english, chinese, weight, source in shipped:
        table[english].append((chinese, float(weight), source))
    return table


# ---------------------------------------------------------------------------------------
# The shipped file.


def test_shipped_file_says_where_it_comes_from():
    header = [line for line in _shipped_text().splitlines() if line.startswith("#")]
    text = "\n".join(header)
    assert 3 <= len(header) <= 15
    assert "scripts/build_lexicon.py" in text
    assert "CC-CEDICT" in text and "CC BY-SA 4.0" in text
    assert "taxonomy" in text and "glossary" in text


def test_shipped_file_is_well_formed(shipped):
    assert len(shipped) >= 20_000
    size = len(_shipped_text().encode("utf-8"))
    assert size < 4_000_000
    seen = set()
    for english, chinese, weight, source in shipped:
        assert english == " ".join(english.lower().split()), english
        assert not HAN.search(english), english
        assert HAN.search(chinese), chinese
        assert len(chinese) <= 8 and " " not in chinese and chinese == chinese.lower(), chinese
        assert WEIGHT.match(weight) and 0 < float(weight) <= 1, weight
        assert source in SOURCES, source
        assert (english, chinese) not in seen, (english, chinese)
        seen.add((english, chinese))
        if source in ("glossary", "category"):
            assert weight == "1.00"
        elif source == "taxonomy":
            assert 0.8 <= float(weight) <= 0.9
        else:
            assert float(weight) <= 0.7
    assert {source for *_, source in shipped} == SOURCES


def test_shipped_file_is_sorted(shipped):
    keys = [(english, -float(weight)) for english, _, weight, _ in shipped]
    assert keys == sorted(keys)


def test_glossary_translations_keep_their_order(shipped):
    glossary = resources.files("tradepost.search").joinpath("data/glossary.tsv")
    order: dict[str, list[str]] = defaultdict(list)
    for line in glossary.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            english, _, chinese = line.partition("\t")
            order[" ".join(english.lower().split())].append(chinese.strip().lower())
    in_file: dict[str, list[str]] = defaultdict(list)
    for english, chinese, _, source in shipped:
        if source == "glossary":
            in_file[english].append(chinese)
    assert len(in_file) > 5_000
    for english, chineses in in_file.items():
        expected = [chinese for chinese in dict.fromkeys(order[english]) if chinese in chineses]
        assert chineses == expected, english


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("japan", "日本"),
        ("japanese", "日本"),
        ("japanese style", "日式"),
        ("korean", "韩国"),
        ("korean", "韩版"),
        ("phone case", "手机壳"),
        ("mobile phone case", "手机壳"),
        ("japanese version", "日版"),
        ("series", "系列"),
        ("new", "新"),
        ("magic", "魔术"),
        ("case", "盒子"),
        ("huawei", "华为"),
        ("green tea", "绿茶"),
    ],
)
def test_well_known_pairs(translations, english, chinese):
    assert chinese in [c for c, _, _ in translations[english]]


def test_vacuum_flask_is_a_phrase_not_a_vacuum_cleaner(translations):
    found = [chinese for chinese, _, _ in translations["vacuum flask"]]
    assert found[:2] == ["保温杯", "保温瓶"]
    assert not any("吸尘器" in chinese for chinese in found)


def test_small_and_medium_enterprise_is_a_phrase_not_sizes(translations):
    found = [chinese for chinese, _, _ in translations["small and medium enterprise"]]
    assert "中小企业" in found
    assert not {"小号", "中号"} & set(found)


def test_dictionary_senses_are_ranked_for_shopping(translations):
    case = [chinese for chinese, _, source in translations["case"] if source == "cedict"]
    assert case[0] == "盒子"  # a box or case, before 案 (a legal case)
    weights = [weight for chinese, weight, _ in translations["case"] if chinese == "案件"]
    assert all(weight <= 0.3 for weight in weights)


# ---------------------------------------------------------------------------------------
# The build, on a tiny synthetic copy of the shared data.

CEDICT = """\
# CC-CEDICT
#! date=2026-01-02T00:00:00Z
案 案 [an4] /(legal) case/incident/record/
案件 案件 [an4 jian4] /(legal) case/judicial case/CL:宗[zong1],樁|桩[zhuang1]/
盒子 盒子 [he2 zi5] /box; case/
外殼 外壳 [wai4 ke2] /envelope/outer shell/hull/cover/case/
手機殼 手机壳 [shou3 ji1 ke2] /cell phone case/
日本 日本 [Ri4 ben3] /Japan/
日本人 日本人 [Ri4 ben3 ren2] /Japanese person/
日式 日式 [Ri4 shi4] /Japanese style/
張三 张三 [Zhang1 San1] /John Doe/
華為 华为 [Hua2 wei2] /Huawei (brand)/
暖壺 暖壶 [nuan3 hu2] /vacuum flask/thermos flask/
吸塵器 吸尘器 [xi1 chen2 qi4] /vacuum cleaner/dust catcher/
真空 真空 [zhen1 kong1] /(physics) vacuum/(slang) to not wear underwear/
中小企業 中小企业 [zhong1 xiao3 qi3 ye4] /small and medium enterprise/
企業 企业 [qi3 ye4] /company; firm; enterprise/
裏 裏 [li3] /variant of 裡|里[li3]/
覆蓋 覆盖 [fu4 gai4] /to cover/
"""
QUERIES = """\
1\t手机壳 苹果
2\t盒子 收纳
3\t日本进口 外壳
4\t日式 餐具
5\t华为 手机壳
6\t暖壶 保温
7\t吸尘器 家用
8\t企业 定制
9\t盒子 大号
"""
# One character a line with its BIO tag, a blank line between titles.
TITLES = "\n\n".join(
    "\n".join(f"{char} O" for char in title) for title in ["日本原装收纳盒子", "真空压缩袋"]
)
GLOSSARY = """\
# test glossary
vacuum flask\t保温杯
vacuum flask\t保温瓶
small\t小号
medium\t中号
fruit\t水果
"""
TAXONOMY_EN = """\
# Google_Product_Taxonomy_Version: test
1 - Electronics
2 - Electronics > Mobile Phone Cases
3 - Bags & Cases
4 - Fruits & Vegetables
5 - Platform & Paddle Tennis
"""
TAXONOMY_ZH = """\
# Google_Product_Taxonomy_Version: test
1 - 电子产品
2 - 电子产品 > 手机壳
3 - 箱包/皮具
4 - 蔬菜/水果
5 - 平台网球/板网球
"""


@pytest.fixture
def synthetic(tmp_path) -> tuple[Path, Path, Path]:
    data = tmp_path / "data"
    files = {
        "cc_cedict/cedict_ts.txt": CEDICT,
        "multi_cpr_ecom/train.query.txt": QUERIES,
        "taobao_title_ner/train.txt": TITLES,
        "google_product_taxonomy/taxonomy-with-ids.en-US.txt": TAXONOMY_EN,
        "google_product_taxonomy/taxonomy-with-ids.zh-CN.txt": TAXONOMY_ZH,
    }
    for name, text in files.items():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text(text, encoding="utf-8")
    glossary = tmp_path / "glossary.tsv"
    glossary.write_text(GLOSSARY, encoding="utf-8")
    categories = tmp_path / "categories.json"
    tree = [{"en": "Shoes & Bags", "zh_hans": "鞋/包", "children": []}]
    categories.write_text(json.dumps(tree, ensure_ascii=False), encoding="utf-8")
    return data, glossary, categories


def _built(synthetic) -> tuple[list, dict[str, list[tuple[str, float, str]]]]:
    entries, date = build_lexicon.build(*synthetic)
    assert date == "2026-01-02"
    table: dict[str, list[tuple[str, float, str]]] = defaultdict(list)
    for entry in entries:
        table[entry.english].append((entry.chinese, entry.weight, entry.source))
    return entries, table


def test_build_ranks_dictionary_senses_by_shopping_frequency(synthetic):
    _, table = _built(synthetic)
    case = [chinese for chinese, _, _ in table["case"]]
    assert case[0] == "盒子"  # seen three times, before 外壳 (once, and its fifth gloss)
    assert "外壳" in case
    assert "案件" not in case and "案" not in case  # never seen in shopping text
    weights = [weight for _, weight, _ in table["case"]]
    assert weights == sorted(weights, reverse=True)
    assert 0.4 <= weights[0] <= 0.7
    assert [(c, s) for c, _, s in table["cell phone case"]] == [("手机壳", "cedict")]


def test_build_keeps_countries_and_brands_but_no_people(synthetic):
    entries, table = _built(synthetic)
    assert [c for c, _, _ in table["japan"]] == ["日本"]
    assert "日本" in [c for c, _, _ in table["japanese"]]
    assert "日式" in [c for c, _, _ in table["japanese style"]]
    assert [c for c, _, _ in table["huawei"]] == ["华为"]
    assert all(entry.chinese != "张三" for entry in entries)
    assert "john doe" not in table


def test_build_keeps_curated_lines_first_and_phrases_whole(synthetic):
    _, table = _built(synthetic)
    assert table["vacuum flask"][:2] == [("保温杯", 1.0, "glossary"), ("保温瓶", 1.0, "glossary")]
    assert ("暖壶", "cedict") in [(c, s) for c, _, s in table["vacuum flask"]]
    assert not any("吸尘器" in c for c, _, _ in table["vacuum flask"])
    assert [c for c, _, _ in table["vacuum cleaner"]] == ["吸尘器"]
    # the "(slang)" sense of 真空 and the verb 覆盖 (never seen) are not offered
    assert all(c != "真空" for c, _, _ in table["not wear underwear"])
    assert "cover" not in table or all(c != "覆盖" for c, _, _ in table["cover"])
    # unseen, but a phrase made of translated words: kept whole, at a low weight
    assert table["small and medium enterprise"] == [("中小企业", 0.3, "cedict")]
    assert ("鞋", 1.0, "category") in table["shoes"]
    assert ("包", 1.0, "category") in table["bags"]


def test_build_pairs_taxonomy_names_part_by_part(synthetic):
    _, table = _built(synthetic)
    assert table["mobile phone cases"] == [("手机壳", 0.9, "taxonomy")]
    assert table["electronics"] == [("电子产品", 0.9, "taxonomy")]
    assert table["bags"][-1] == ("箱包", 0.85, "taxonomy")
    assert table["cases"] == [("皮具", 0.85, "taxonomy")]
    # aligned by the glossary's fruit/水果, though listed the other way round
    assert ("蔬菜", 0.85, "taxonomy") in table["vegetables"]
    assert "fruits" not in table  # same as the glossary's "fruit" 水果, which wins
    # "Platform" is platform tennis: a one-word part of a shared name is not paired
    assert "platform" not in table
    assert table["paddle tennis"] == [("板网球", 0.85, "taxonomy")]


def test_build_output_is_valid_and_deterministic(synthetic, tmp_path):
    first = tmp_path / "first.tsv"
    second = tmp_path / "second.tsv"
    for out in (first, second):
        entries, date = build_lexicon.build(*synthetic)
        build_lexicon.write_lexicon(entries, out, date)
    text = first.read_text("utf-8")
    assert text == second.read_text("utf-8")
    assert "2026-01-02" in text and "CC BY-SA 4.0" in text
    rows = _rows(text)
    assert len({(e, c) for e, c, _, _ in rows}) == len(rows)
    for _, chinese, weight, source in rows:
        assert HAN.search(chinese) and WEIGHT.match(weight) and source in SOURCES


@pytest.mark.parametrize(
    ("gloss", "terms"),
    [
        ("(legal) case", ["case"]),
        ("box; case", ["box", "case"]),
        ("to cover; to wrap", ["cover", "wrap"]),
        ("a bag", ["bag"]),
        ("in the European style", ["european style"]),
        ("CL:個|个[ge4]", []),
        ("variant of 裡|里[li3]", []),
        ("see 什麼|什么[shen2 me5]", []),
        ("surname Li", []),
        ("abbr. for 日本[Ri4 ben3]", []),
        ("(slang) to not wear underwear", []),
        ("to give sb a hand", []),
        ("a long explanation that is certainly not a term", []),
    ],
)
def test_gloss_terms(gloss, terms):
    assert [term.english for term in build_lexicon.gloss_terms(gloss)] == terms


def test_gloss_terms_mark_verbs():
    found = build_lexicon.gloss_terms("to cover; lid")
    assert [(term.english, term.verb) for term in found] == [("cover", True), ("lid", False)]


def test_frequencies_count_words_not_accidents():
    texts = ["衣服服装", "手机壳", "不锈钢保温杯", "图案", "收纳 盒 大号"]
    counts = build_lexicon.headword_frequencies(
        texts, {"服服", "手机壳", "保温", "钢保", "案", "盒"}
    )
    assert counts["手机壳"] == 1 and counts["保温"] == 1  # a word, or inside one
    assert counts["盒"] == 1  # a character used alone
    assert counts["服服"] == 0 and counts["钢保"] == 0  # across a word boundary
    assert counts["案"] == 0  # inside 图案


# ---------------------------------------------------------------------------------------
# The real build (needs the shared data folder).

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "cc_cedict" / "cedict_ts.txt").is_file(),
    reason=f"shared reference data not found at {SHARED_DATA} (a fresh clone)",
)


@pytest.mark.slow
@needs_shared_data
def test_shipped_file_is_what_the_script_builds(tmp_path):
    out = tmp_path / "lexicon.tsv"
    assert build_lexicon.main(["--data-dir", str(SHARED_DATA), "--out", str(out)]) == 0
    assert out.read_text("utf-8") == _shipped_text(), (
        "lexicon.tsv is stale: run .venv/bin/python scripts/build_lexicon.py"
    )
