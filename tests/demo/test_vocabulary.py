"""The demo's word lists hang together: every key used exists, every language is filled."""

from __future__ import annotations

import re

from tradepost.catalog.models import Unit
from tradepost.core.currencies import is_currency
from tradepost.demo.images import SHAPES
from tradepost.demo.vocabulary import LANGUAGES, load_vocabulary

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_templates_cover_every_industry_in_six_languages():
    vocab = load_vocabulary()
    assert len(vocab.templates) >= 120
    assert len({t.key for t in vocab.templates}) == len(vocab.templates)
    assert len(vocab.industries) >= 34
    for template in vocab.templates:
        assert len(template.names) == len(LANGUAGES), template.key
        assert all(template.names), template.key
        assert CJK.search(template.names[1]) and CJK.search(template.names[2]), template.key
        assert not CJK.search(template.names[0]), template.key
        assert template.unit in Unit.values, template.key
        assert template.shape in SHAPES, template.key
        assert 0 < template.price[0] < template.price[1], template.key
        assert 0 < template.moq[0] <= template.moq[1], template.key
        assert template.spec_attribute in vocab.attribute_names, template.key
        for name, _values in template.attributes:
            assert name in vocab.attribute_names, (template.key, name)
        for colour in template.colours:
            assert colour in vocab.colours, (template.key, colour)
        for words in (*template.modifiers, *template.extras):
            assert len(words) == 3 and all(words), template.key
        assert template.top in vocab.names["industries"], template.key


def test_traditional_and_simplified_forms_differ_where_the_characters_do():
    vocab = load_vocabulary()
    differing = [t for t in vocab.templates if t.names[1] != t.names[2]]
    assert len(differing) > len(vocab.templates) / 2
    flask = next(t for t in vocab.templates if t.key == "vacuum-flask")
    assert flask.names[1:3] == ("不锈钢保温杯", "不鏽鋼保溫杯")


def test_countries_have_regions_ports_and_known_currencies():
    vocab = load_vocabulary()
    for country in vocab.countries:
        assert country.regions and country.forms, country.code
        assert all(region.cities and region.ports for region in country.regions), country.code
        assert all(is_currency(code) for code, _weight in country.currencies), country.code
        assert country.style in {"cn", "tw", "hk", "vi", "tr", "es", "en"}
        if country.style in ("en", "es"):
            assert country.stems, country.code
        for industry in country.industries:
            assert industry in vocab.industries, (country.code, industry)
    assert len(vocab.countries) >= 25
