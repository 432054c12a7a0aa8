"""What an organisation is (P31): a class noun before or after its name, once the name is known
as an organisation's, and the person-shaped names and people's nouns that take no class.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Pattern, Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("no-class-after-a-preposition", "In Norland, the opposition has accused the government of lying.",
            forbidden=[no("P31")],
            reason="no head after a preposition: a place opening the sentence has no apposition class"),
    Reading("class-before-an-organisation", "The shop counts the insurer Halden Mutual among its customers.",
            expected={("P31", "Halden Mutual", "insurer")},
            reason='"the insurer X": what the firm is'),
    Reading("class-and-country-before-an-organisation",
            "It was bought by the Korean conglomerate Daesan Holdings last year.",
            expected={("P31", "Daesan Holdings", "conglomerate"), ("P17", "Daesan Holdings", "South Korea")},
            reason='"the Korean conglomerate X": a class and a country'),
    Reading("persons-noun-is-no-class", "It was bought by the businessman Tomas Ferro last year.",
            forbidden=[no("P31")],
            reason="a noun for people before a name is no class of a firm"),
    Reading("person-shaped-head-takes-a-trade", "The estate was bought in 1887 by Auguste Delmont, a Bordeaux cooper.",
            expected={("P106", "Auguste Delmont", "cooper")}, forbidden=[no("P31")],
            reason="a person-shaped head takes a trade, no class"),
    Reading("a-couple-is-no-class", "The case was brought by Dale and Renee Kubek, a retired couple.",
            forbidden=[Pattern("a class of Renee Kubek", lambda r, h, t: r == "P31" and h == "Renee Kubek")],
            reason='a person-shaped name is no thing of a class ("a couple")'),
    Reading("thing-named-by-an-english-word-keeps-its-class", "Todd Glacier is a glacier in Antarctica.",
            expected={("P31", "Todd Glacier", "glacier")},
            reason="a thing whose name ends in an English word keeps its class"),
    Reading("english-surname-still-makes-a-person",
            "The estate was bought in 1887 by John Smith, a Bordeaux cooper.",
            forbidden={("P31", "John Smith", "bordeaux cooper"), ("P31", "John Smith", "cooper")},
            reason="an English surname still makes a person, who has no class (wrong before its fix)"),
    Reading("english-surname-couple", "The case was brought by Dale and Renee Baker, a retired couple.",
            forbidden=[Pattern("a class of Renee Baker", lambda r, h, t: r == "P31" and h == "Renee Baker")],
            reason="an English surname still makes a person, who has no class (wrong before its fix)"),
    Reading("class-after-an-organisation", "Talbrook Foods, the frozen food chain, has bought a depot.",
            expected={("P31", "Talbrook Foods", "food chain")},
            reason='an organisation\'s class after its name; "frozen", a participle, is cut'),
    Reading("persons-apposition-is-no-class", "Dana Pell, the dance teacher, has opened a studio.",
            forbidden=[no("P31")],
            reason="a person's apposition is a trade, never a class"),
    Reading("class-must-be-an-organisations-noun", "Talbrook Foods, the family favourite, has bought a depot.",
            forbidden={("P31", "Talbrook Foods", "favourite")},
            reason="the class must be an organisation's noun"),
    Reading("class-before-an-organisation-after-a-place",
            "Singapore-listed property group Orchid Peak Holdings has agreed to buy a tower.",
            expected={("P31", "Orchid Peak Holdings", "property group")},
            reason='a class before an organisation, after a place ("Singapore-listed")'),
    Reading("class-after-a-demonym-and-a-dateline", "OSLO — Danish carrier Vestavind Air cancelled 300 flights.",
            expected={("P31", "Vestavind Air", "carrier"), ("P17", "Vestavind Air", "Denmark")},
            reason='"Danish carrier X": a class and a country'),
    Reading("class-after-local", "Volunteers from local nonprofit Breathe Easy Gulf will help.",
            expected={("P31", "Breathe Easy Gulf", "nonprofit")},
            reason='"local nonprofit X": a class'),
    Reading("noun-that-may-name-a-person", "Perth-based teacher Kestrel Dunn has won a prize.", forbidden=[no("P31")],
            reason="a noun that may name a person says nothing of the name after it"),
    Reading("a-countrys-largest", "Banco Meridional, Spain's sixth-largest lender by assets, reported a rise.",
            expected={("P17", "Banco Meridional", "Spain"), ("P31", "Banco Meridional", "lender")},
            reason='"X, Spain\'s sixth-largest lender": a country and a class'),
    Reading("a-country-s-best-person", "Tom Reilly, Ireland's best goalkeeper, retired.", exactly=True,
            reason="a person is no country's lender; a superlative that is no organisation's noun says nothing"),
    Reading("trade-of-a-known-firm", "He joined from copper producer Zambezi Resources in 2022.",
            expected={("P31", "Zambezi Resources", "copper producer")},
            reason="what a firm is by any trade once it is known as one"),
    Reading("shipbroker", "Analysts at Oslo shipbroker Fearnhaug Partners said activity had picked up.",
            expected={("P31", "Fearnhaug Partners", "shipbroker")},
            reason="what a firm is by any trade once it is known as one"),
    Reading("trading-house", "It received an offer from Japanese trading house Tsurugi Corporation on Monday.",
            expected={("P31", "Tsurugi Corporation", "trading house")},
            reason="what a firm is by the noun before its name"),
    Reading("charity-after-a-name", "The Nyame Dua Foundation, a Kumasi-based charity, has donated four machines.",
            expected={("P31", "Nyame Dua Foundation", "charity")},
            reason="what a firm is by the noun after its name"),
    Reading("persons-trade-before-a-name-is-no-class", "She met the novelist Sarah Quinlan.", forbidden=[no("P31")],
            reason="a person's trade before a name is no class"),
    Reading("shirt-sponsor-is-no-class", "The club unveiled a new kit with shirt sponsor Ellerby Homes.",
            forbidden=[no("P31")],
            reason="a misreading a review found: a sponsor is no class"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_org_class_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
