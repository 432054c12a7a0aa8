"""Citizenship (P27) of a person and country (P17) of a firm: a demonym or a country's
possessive before a name or a noun, and the nationality words that say neither.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("nationality-and-occupation-before-a-name", "The prize went to the French actress Claire Montand.",
            expected={("P106", "Claire Montand", "actress"), ("P27", "Claire Montand", "France")},
            reason="a nationality and an occupation before a name"),
    Reading("nationality-before-a-team", "The French team won.", forbidden=[no("P27")],
            reason="a nationality before a team is no person's citizenship"),
    Reading("owner-with-no-nationality", "Corby Athletic's owner, Brad Kessell, has faced criticism.",
            forbidden=[no("P27")],
            reason="no nationality word: no citizenship"),
    Reading("nationality-before-a-name", "Kenyan runner Ruth Kamau won. Ethiopia's Almaz Bekele was second. "
                                         "The men's race was won by Ugandan Moses Okello.",
            expected={("P27", "Ruth Kamau", "Kenya"), ("P27", "Almaz Bekele", "Ethiopia"),
                      ("P27", "Moses Okello", "Uganda")},
            reason="a demonym, or a country's possessive, before a person's name"),
    Reading("nationality-before-a-firm", "The German carmaker Voss Motoren Gruppe said profits fell.",
            forbidden=[no("P27")],
            reason="a nationality before a firm says where the firm is from, not a citizenship"),
    Reading("firm-of-a-nationality", "The deal was agreed with the German engineering group Rheinwerk Antriebe on Monday.",
            expected={("P17", "Rheinwerk Antriebe", "Germany")},
            reason="a nationality before a firm's noun gives the firm a country"),
    Reading("firm-of-a-nationality-after", "Its largest customer is Solberg Kraft, the Norwegian turbine maker.",
            expected={("P17", "Solberg Kraft", "Norway")},
            reason="a nationality in the apposition after the firm"),
    Reading("nationality-before-a-persons-noun", "The Irish novelist Maria Keane spoke.",
            forbidden={("P17", "Maria Keane", "Ireland")},
            reason="a nationality before a person's noun gives a firm no country"),
    Reading("nationality-before-a-record-producer", "The American record producer Dave Lomax spoke.",
            forbidden=[no("P17")],
            reason="a nationality before a person's noun gives a firm no country"),
    Reading("description-of-a-person-with-a-nationality",
            "Emi Sato won the final. The Japanese player was born in Kobe in 2002.",
            expected={("P27", "Emi Sato", "Japan"), ("P19", "Emi Sato", "Kobe"), ("P569", "Emi Sato", "2002")},
            reason='"The Japanese player" opening a sentence is the person named before: citizenship, birthplace, birth year'),
    Reading("description-takes-the-person-named-last",
            "Ana Ruiz headed in a corner from Tomas Vidal. The Portuguese winger was a constant threat.",
            expected={("P27", "Tomas Vidal", "Portugal")}, forbidden={("P27", "Ana Ruiz", "Portugal")},
            reason="a description takes the person named last"),
    Reading("backed-is-no-nationality", "The seller is Halvard Capital, a Norwegian-backed real estate fund.",
            forbidden={("P17", "Halvard Capital", "Norway")},
            reason='"Norwegian-backed" is no nationality'),
    Reading("nationality-of-a-fund", "The seller is Halvard Capital, a Norwegian real estate fund.",
            expected={("P17", "Halvard Capital", "Norway")},
            reason='"a Norwegian real estate fund": a firm\'s country'),
    Reading("described-office-holder-is-the-office-holder",
            "President Pierre Blanc met Angela Vogt in Paris. The French president said the talks went well.",
            forbidden={("P27", "Angela Vogt", "France")},
            reason='"The French president" is the president named before, not the last person named (wrong before its fix)'),
    Reading("demonym-before-a-name-american", "American Jake Donnelly shared third place on 15 under.",
            expected={("P27", "Jake Donnelly", "United States")},
            reason="a nationality before a name"),
    Reading("demonym-before-a-name-australian", "Te Whata will helm the boat alongside Australian Jack Morris.",
            expected={("P27", "Jack Morris", "Australia")},
            reason="a nationality before a name"),
    Reading("english-words-firm-british", "British Rail Freight raised prices.", forbidden=[no("P27")],
            reason="an organisation whose words are all English words is no person"),
    Reading("english-words-firm-american", "American Airlines cancelled flights.", forbidden=[no("P27")],
            reason="an organisation whose words are all English words is no person"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_nationality_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
