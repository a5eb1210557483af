"""The shipped reference data (category tree, HS 2022 list), its loader and the HS helpers."""

from __future__ import annotations

import copy
import csv
import io
import json
import re
from typing import Any

import pytest
from django.core.management import call_command

from tests.factories.catalog import make_category, make_product
from tests.shared_data import SHARED_DATA
from tradepost.catalog import reference_data
from tradepost.catalog.hs_codes import (
    hs_code_error,
    hs_code_lookup,
    is_well_formed_hs_code,
    normalise_hs_code,
)
from tradepost.catalog.models import Category, HSCode, Product
from tradepost.catalog.reference_data import (
    CATEGORIES_FILE,
    HS_FILE,
    RETIRED_PATH_PREFIX,
    flatten_category_tree,
    load_reference_data,
    read_category_tree,
    read_hs_codes,
)

TREE: list[dict[str, Any]] = json.loads(CATEGORIES_FILE.read_text(encoding="utf-8"))
ROWS = flatten_category_tree(TREE)
HS_ROWS = read_hs_codes()
HS_CODES = {code for code, _ in HS_ROWS}

# The published data set, next to a checkout of the project (absent from a fresh clone).
SHARED_HS_CSV = SHARED_DATA / "harmonized_system" / "harmonized-system.csv"

REQUIRED_TOP_LEVEL = [
    "machinery", "consumer-electronics", "electrical-equipment", "lighting", "computer-hardware",
    "telecommunications", "apparel", "textiles", "footwear", "bags-luggage", "jewelry-watches",
    "home-garden", "furniture", "home-appliances", "kitchenware", "packaging-printing",
    "chemicals", "plastics-rubber", "metals-minerals", "construction-materials", "auto-parts",
    "agriculture", "food-beverage", "health-medical", "beauty-personal-care", "sports-outdoors",
    "toys-hobbies", "office-school-supplies", "tools-hardware", "security-protection",
    "gifts-crafts", "renewable-energy", "pet-supplies", "baby-products",
]  # fmt: skip

# Everyday trade goods the demo data and the search tests file products under.
EVERYDAY_LEAVES = {
    "home-garden-vacuum-flasks": "9617",
    "office-school-supplies-ballpoint-pens": "960810",
    "office-school-supplies-fountain-pens": "960830",
    "lighting-led-bulbs": "853952",
    "lighting-led-strip-lights": "940542",
    "renewable-energy-solar-panels": "854143",
    "renewable-energy-lithium-batteries": "850760",
    "consumer-electronics-power-banks": "850760",
    "consumer-electronics-mobile-phone-cases": "3926",
    "consumer-electronics-usb-cables": "854442",
    "consumer-electronics-bluetooth-speakers": "8518",
    "consumer-electronics-earphones": "851830",
    "apparel-t-shirts": "6109",
    "apparel-hoodies": "6110",
    "apparel-jeans": "6203",
    "apparel-dresses": "6204",
    "apparel-socks": "6115",
    "footwear-sneakers": "6404",
    "bags-luggage-backpacks": "4202",
    "bags-luggage-handbags": "4202",
    "textiles-cotton-fabric": "5208",
    "textiles-polyester-yarn": "5402",
    "furniture-office-chairs": "9401",
    "furniture-sofas": "9401",
    "kitchenware-cookware-sets": "7323",
    "kitchenware-kitchen-knives": "8211",
    "kitchenware-ceramic-mugs": "6912",
    "kitchenware-cutting-boards": "4419",
    "home-appliances-electric-kettles": "851679",
    "home-appliances-air-fryers": "851660",
    "packaging-printing-corrugated-boxes": "481910",
    "packaging-printing-paper-bags": "481930",
    "packaging-printing-plastic-bottles": "392330",
    "plastics-rubber-pet-resin": "390761",
    "chemicals-titanium-dioxide": "282300",
    "metals-minerals-stainless-steel-pipes": "7306",
    "metals-minerals-aluminium-profiles": "7604",
    "metals-minerals-steel-wire": "7217",
    "construction-materials-ceramic-tiles": "6907",
    "construction-materials-glass": "7005",
    "auto-parts-brake-pads": "870830",
    "auto-parts-tyres": "4011",
    "auto-parts-led-headlights": "851220",
    "food-beverage-tea": "0902",
    "food-beverage-coffee-beans": "0901",
    "food-beverage-rice": "1006",
    "food-beverage-cashew-nuts": "080132",
    "food-beverage-frozen-seafood": "0306",
    "food-beverage-olive-oil": "1509",
    "health-medical-face-masks": "630790",
    "health-medical-nitrile-gloves": "401519",
    "health-medical-syringes": "901831",
    "beauty-personal-care-lipstick": "330410",
    "beauty-personal-care-makeup": "3304",
    "beauty-personal-care-shampoo": "330510",
    "sports-outdoors-yoga-mats": "950691",
    "sports-outdoors-bicycles": "8712",
    "sports-outdoors-camping-tents": "630622",
    "toys-hobbies-plush-toys": "9503",
    "toys-hobbies-building-blocks": "9503",
    "office-school-supplies-notebooks": "482010",
    "tools-hardware-drills": "846721",
    "tools-hardware-hand-tools": "8205",
    "security-protection-cctv-cameras": "852589",
    "security-protection-safety-helmets": "650610",
    "pet-supplies-pet-food": "230910",
    "baby-products-baby-strollers": "871500",
    "machinery-cnc-machines": "8458",
    "machinery-injection-moulding-machines": "847710",
    "machinery-water-pumps": "8413",
    "electrical-equipment-generators": "8502",
    "electrical-equipment-electric-motors": "8501",
    "electrical-equipment-transformers": "8504",
    "electrical-equipment-circuit-breakers": "853620",
    "electrical-equipment-wires-cables": "8544",
}

# Characters that exist only in simplified form (their traditional forms differ), and the
# other way round: a traditional name holding one of the first was not converted.
SIMPLIFIED_ONLY = set(
    "电机车门钢铁铝锂纸灯发时宝饰装饮鲜运动类袜书线纺织脑设备气压录监头业农产药"
    "护肤妆红须鸟猫宠婴儿锅炉壶厨卫扫尘热风饭调节锁链钉锤钻锯测劳亚绸"
)
TRADITIONAL_ONLY = set(
    "電機車門鋼鐵鋁鋰紙燈發時寶飾裝飲鮮運動類襪書線紡織腦設備氣壓錄監頭業農產藥"
    "護膚妝紅髮鬚鳥貓寵嬰兒鍋爐壺廚衛掃塵熱風飯調節鎖鏈釘錘鑽鋸測勞亞綢"
)
CJK = re.compile(r"[\u4e00-\u9fff]")
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _walk(nodes: list[dict[str, Any]], depth: int = 0, top: str | None = None):
    for node in nodes:
        yield node, depth, top or node["slug"]
        yield from _walk(node.get("children") or [], depth + 1, top or node["slug"])


NODES = list(_walk(TREE))
LEAVES = [(node, depth, top) for node, depth, top in NODES if not node.get("children")]


# --- the category file -------------------------------------------------------------------


def test_tree_is_big_enough_for_a_b2b_marketplace():
    assert len(TREE) >= 30
    assert len(LEAVES) >= 400


def test_tree_has_the_agreed_top_level_industries():
    top_slugs = {node["slug"] for node in TREE}
    assert set(REQUIRED_TOP_LEVEL) <= top_slugs


def test_everyday_trade_goods_are_leaves_with_their_hs_codes():
    leaves = {node["slug"]: node for node, _, _ in LEAVES}
    missing = sorted(set(EVERYDAY_LEAVES) - set(leaves))
    assert missing == []
    for slug, code in EVERYDAY_LEAVES.items():
        assert code in leaves[slug]["hs"], slug


def test_leaves_sit_at_depth_two_or_three():
    # depth counts from 0 at the top level, so "depth 2 or 3" of the tree is 1 or 2 here.
    assert {depth for _, depth, _ in LEAVES} <= {1, 2}
    assert all(node.get("children") for node in TREE)


def test_every_node_is_named_in_english_simplified_and_traditional_chinese():
    for node, _, _ in NODES:
        assert node["en"].strip() and node["en"].isascii(), node["slug"]
        assert CJK.search(node["zh_hans"]), node["slug"]
        assert CJK.search(node["zh_hant"]), node["slug"]
        for field in ("en", "zh_hans", "zh_hant"):
            assert node[field] == node[field].strip()
            assert len(node[field]) <= 150


def test_traditional_names_are_written_in_traditional_characters():
    for node, _, _ in NODES:
        assert not SIMPLIFIED_ONLY & set(node["zh_hant"]), (node["slug"], node["zh_hant"])
        assert not TRADITIONAL_ONLY & set(node["zh_hans"]), (node["slug"], node["zh_hans"])
    differing = sum(1 for node, _, _ in NODES if node["zh_hant"] != node["zh_hans"])
    assert differing >= 0.7 * len(NODES)
    names = {node["slug"]: node for node, _, _ in NODES}
    assert names["machinery"]["zh_hant"] == "機械設備"
    assert names["office-school-supplies-fountain-pens"]["zh_hans"] == "钢笔"
    assert names["office-school-supplies-fountain-pens"]["zh_hant"] == "鋼筆"


def test_slugs_are_unique_lowercase_ascii_and_prefixed_by_their_industry():
    slugs = [node["slug"] for node, _, _ in NODES]
    assert len(slugs) == len(set(slugs))
    for node, depth, top in NODES:
        assert SLUG.fullmatch(node["slug"]), node["slug"]
        assert len(node["slug"]) <= 120
        if depth > 0:
            assert node["slug"].startswith(f"{top}-"), node["slug"]


def test_every_hs_code_in_the_tree_is_in_the_hs_list():
    for node, _, _ in NODES:
        for code in node.get("hs") or []:
            assert len(code) in (2, 4, 6) and code.isdigit(), (node["slug"], code)
            assert code in HS_CODES, (node["slug"], code)
    assert sum(1 for node, _, _ in LEAVES if node.get("hs")) >= 0.95 * len(LEAVES)


# --- the HS file -------------------------------------------------------------------------


def test_hs_list_holds_every_chapter_heading_and_subheading_once():
    codes = [code for code, _ in HS_ROWS]
    assert len(codes) == len(set(codes))
    assert 6900 <= len(codes) <= 6960
    by_length = {n: sum(1 for code in codes if len(code) == n) for n in (2, 4, 6)}
    assert by_length[2] == 96  # chapters 01-97 less 77, reserved
    assert by_length[4] > 1200 and by_length[6] > 5500
    for code, description in HS_ROWS:
        assert code.isdigit() and len(code) in (2, 4, 6)
        assert description and "\t" not in description
        if len(code) > 2:
            assert code[:-2] in HS_CODES, code
    assert dict(HS_ROWS)["851610"].startswith("Heaters; electric")


def test_hs_file_is_plain_utf8_tab_separated_without_a_header():
    text = HS_FILE.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.split("\t")[0] == "01"
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert all(len(row) == 2 for row in rows)


@pytest.mark.skipif(not SHARED_HS_CSV.exists(), reason="the shared HS 2022 data set is absent")
def test_hs_list_matches_the_published_nomenclature():
    with SHARED_HS_CSV.open(encoding="utf-8-sig", newline="") as handle:
        published = {
            row["hscode"]: row["description"]
            for row in csv.DictReader(handle)
            if row["section"] != "TOTAL"
        }
    assert set(published) == HS_CODES
    ours = dict(HS_ROWS)
    assert all(" ".join(published[code].split()) == ours[code] for code in published)


# --- the data migration and the loader ---------------------------------------------------


@pytest.mark.django_db
def test_the_data_migration_loaded_the_tree_and_the_hs_list():
    assert Category.objects.count() == len(ROWS)
    assert Category.objects.filter(is_leaf=True).count() == len(LEAVES)
    assert Category.objects.filter(depth=0).count() == len(TREE)
    assert HSCode.objects.count() == len(HS_ROWS)

    pens = Category.objects.get(slug="office-school-supplies-fountain-pens")
    assert (pens.name_en, pens.name_zh_hans, pens.name_zh_hant) == ("Fountain Pens", "钢笔", "鋼筆")
    assert pens.hs_codes == ["960830"]
    assert pens.is_leaf and pens.depth == 1
    assert pens.parent is not None and pens.parent.slug == "office-school-supplies"
    assert not pens.parent.is_leaf

    heading = HSCode.objects.get(code="851610")
    assert heading.level == 6 and heading.parent_id == "8516"
    assert HSCode.objects.get(code="8516").parent_id == "85"
    assert HSCode.objects.get(code="85").parent_id is None


@pytest.mark.django_db
def test_paths_encode_the_tree_so_a_subtree_is_one_prefix_query():
    machinery = Category.objects.get(slug="machinery")
    assert machinery.path == "0001" and machinery.depth == 0
    subtree = Category.objects.filter(path__startswith=f"{machinery.path}.")
    expected = [row.slug for row in ROWS if row.slug.startswith("machinery-")]
    assert sorted(subtree.values_list("slug", flat=True)) == sorted(expected)

    cnc = Category.objects.get(slug="machinery-cnc-machines")
    assert cnc.depth == 2 and cnc.path.startswith(f"{cnc.parent.path}.")
    assert cnc.parent.parent == machinery
    for category in Category.objects.select_related("parent"):
        assert category.depth == category.path.count(".")
        if category.parent is not None:
            assert category.path.startswith(f"{category.parent.path}.")
            assert category.path.rsplit(".", 1)[1] == f"{category.position:04d}"


@pytest.mark.django_db
def test_loading_twice_changes_nothing():
    product = make_product(category=Category.objects.get(slug="home-garden-vacuum-flasks"))
    before = list(Category.objects.order_by("pk").values())
    hs_before = HSCode.objects.count()

    assert load_reference_data() == (len(ROWS), len(HS_ROWS))
    assert load_reference_data() == (len(ROWS), len(HS_ROWS))

    assert list(Category.objects.order_by("pk").values()) == before
    assert HSCode.objects.count() == hs_before
    product.refresh_from_db()
    assert product.category.slug == "home-garden-vacuum-flasks"


@pytest.mark.django_db
def test_reloading_a_changed_tree_moves_adds_deletes_and_retires(monkeypatch):
    flasks = Category.objects.get(slug="home-garden-vacuum-flasks")
    product = make_product(category=flasks)
    machinery_pk = Category.objects.get(slug="machinery").pk

    tree = copy.deepcopy(read_category_tree())
    tree[0], tree[1] = tree[1], tree[0]  # machinery and consumer electronics swap places
    home = next(node for node in tree if node["slug"] == "home-garden")
    home["children"] = [
        child
        for child in home["children"]
        if child["slug"] not in {"home-garden-vacuum-flasks", "home-garden-umbrellas"}
    ]
    home["children"].insert(
        0,
        {"slug": "home-garden-doormats", "en": "Doormats", "zh_hans": "地垫",
         "zh_hant": "地墊", "hs": ["5705"], "children": []},
    )  # fmt: skip
    monkeypatch.setattr(reference_data, "read_category_tree", lambda: tree)

    load_reference_data()

    machinery = Category.objects.get(slug="machinery")
    assert machinery.pk == machinery_pk and machinery.path == "0002"
    assert Category.objects.get(slug="consumer-electronics").path == "0001"
    assert Category.objects.get(slug="machinery-cnc-machines").path.startswith("0002.")
    doormats = Category.objects.get(slug="home-garden-doormats")
    assert doormats.path == f"{doormats.parent.path}.0001" and doormats.is_leaf
    # Unused and gone: deleted. Used by a product: kept, out of the tree.
    assert not Category.objects.filter(slug="home-garden-umbrellas").exists()
    flasks.refresh_from_db()
    assert flasks.path == f"{RETIRED_PATH_PREFIX}home-garden-vacuum-flasks"
    assert Product.objects.filter(pk=product.pk, category=flasks).exists()

    monkeypatch.undo()
    load_reference_data()

    flasks.refresh_from_db()
    assert not flasks.path.startswith("~")
    assert Category.objects.get(slug="machinery").path == "0001"
    assert Category.objects.filter(slug="home-garden-umbrellas").exists()
    assert not Category.objects.filter(slug="home-garden-doormats").exists()
    assert Category.objects.count() == len(ROWS)


@pytest.mark.django_db
def test_reload_removes_leftover_test_categories_without_products():
    stray = make_category(parent=make_category())
    load_reference_data()
    assert not Category.objects.filter(pk__in=[stray.pk, stray.parent_id]).exists()
    assert Category.objects.count() == len(ROWS)


@pytest.mark.django_db
def test_loadreferencedata_command_reports_counts():
    out = io.StringIO()
    call_command("loadreferencedata", stdout=out)
    assert f"{len(ROWS)} categories" in out.getvalue()
    assert f"{len(HS_ROWS)} HS codes" in out.getvalue()
    assert Category.objects.count() == len(ROWS)


# --- HS code helpers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("8516.10", "851610"),
        (" 8516 10 ", "851610"),
        ("85.16.10", "851610"),
        ("８５１６．１０", "851610"),  # full-width, as typed on a Chinese keyboard
        ("8516", "8516"),
        ("", ""),
        ("   ", ""),
        ("85a6", "85a6"),
    ],
)
def test_normalise_hs_code(raw, expected):
    assert normalise_hs_code(raw) == expected


@pytest.mark.parametrize(
    ("raw", "ok"),
    [("85", True), ("8516", True), ("851610", True), ("8516.10", True), ("851", False),
     ("85161000", False), ("85a6", False), ("", False), ("٨٥١٦", False)],
)  # fmt: skip
def test_is_well_formed_hs_code(raw, ok):
    assert is_well_formed_hs_code(raw) is ok


@pytest.mark.django_db
def test_hs_code_lookup_finds_codes_however_they_are_written():
    found = hs_code_lookup("8516.10")
    assert found is not None and found.code == "851610" and found.level == 6
    assert hs_code_lookup("85") is not None
    assert hs_code_lookup("9617").description.startswith("Vacuum flasks")


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["851699", "7700", "99", "851", "85a6", "", "   ", "<script>"])
def test_hs_code_lookup_returns_none_for_unknown_malformed_or_blank(raw):
    assert hs_code_lookup(raw) is None


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["851610", "8516.10", "8516", "85", "", "  "])
def test_hs_code_error_accepts_known_and_blank_codes(raw):
    assert hs_code_error(raw) is None


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["851", "85161000", "85a6", "<script>alert(1)</script>", "8" * 500])
def test_hs_code_error_explains_the_format(raw):
    message = hs_code_error(raw)
    assert message is not None and "2, 4 or 6 digits" in message
    assert "<script>" not in message


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["851699", "8516.99", "9999", "7700"])
def test_hs_code_error_names_an_unknown_code(raw):
    message = hs_code_error(raw)
    assert message == f"{normalise_hs_code(raw)} is not an HS 2022 code."
