"""Where things are: located in (P131) for buildings and datelines, headquarters (P159) for
firms, a parent organisation (P749), and what is placed nowhere.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Pattern, Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("headline-word-is-no-antecedent",
            "Councillors approve bridge\n\nThe new bridge will cost £18m. It is based in Derby.",
            forbidden=[Pattern('a fact about "Councillors"', lambda r, h, t: h == "Councillors")],
            reason="a headline's word is no antecedent of a later pronoun"),
    Reading("based-adjective-and-subsidiary", "The film was made by Tbilisi-based Mtsvane Films. "
                                              "Meridian Mobile is a subsidiary of the Dutch group Oranje Telecom.",
            expected={("P159", "Mtsvane Films", "Tbilisi"), ("P749", "Meridian Mobile", "Oranje Telecom")},
            reason='"X-based" says where a firm is; "a subsidiary of" names its parent'),
    Reading("firm-of-a-place", "In 2020 Harbury Foods bought Tillery & Co, a Bristol bakery chain.",
            expected={("P159", "Tillery & Co", "Bristol")},
            reason='"X, a Bristol bakery chain": a place before the firm\'s noun is its home'),
    Reading("firm-of-no-place", "In 2020 Harbury Foods bought Tillery & Co, a bakery chain.", forbidden=[no("P159")],
            reason="no place before the firm's noun: no home"),
    Reading("has-its-headquarters-in", "Vossberg Holding, which has its headquarters in Munich, makes gearboxes.",
            expected={("P159", "Vossberg Holding", "Munich")},
            reason='"which has its headquarters in"'),
    Reading("a-factory-is-no-headquarters", "Vossberg Holding, which has a factory in Munich, makes gearboxes.",
            forbidden=[no("P159")],
            reason="a factory somewhere is no headquarters"),
    Reading("facility-in", "The Harwell Museum in Didcot has named a new curator.",
            expected={("P131", "Harwell Museum", "Didcot")},
            reason='"the X Museum in Y": a building in a place'),
    Reading("party-in-a-place", "The Unity Party in Norland said it would vote against.", forbidden=[no("P131")],
            reason='a party or a firm "in" a place is not located there'),
    Reading("dateline", "VALMORE, Manitoba (CP) — A grain elevator collapsed on Tuesday.",
            expected={("P131", "Valmore", "Manitoba")},
            reason="a dateline: a town, its province and an agency"),
    Reading("name-comma-place-is-no-dateline", "Valmore, Manitoba and Ontario signed the accord.", forbidden=[no("P131")],
            reason="a name, a comma and a place, with no agency after it, is no dateline"),
    Reading("based-in-after-a-plural-noun", "Fishermen based in Porthallow said the turbines would hurt them.",
            forbidden=[no("P159")],
            reason="no head from a plural noun opening the sentence"),
    Reading("place-is-no-short-name-of-an-institution",
            "He studied at Balliol College, Oxford, and was president of the Oxford Union.",
            forbidden={("P131", "Balliol College", "Oxford Union")},
            reason="a place's name is no short name of the institution named after it"),
    Reading("dateline-without-an-agency", "BRADLEY FALLS, Tenn. — Chidi Okon lined a double.",
            expected={("P131", "Bradley Falls", "Tenn.")},
            reason="a wire dateline without an agency"),
    Reading("review-heading-is-no-dateline", "Glass Orchard, Lyceum Playhouse — The play opens with a storm.",
            exactly=True,
            reason="a review's heading in title case is no dateline"),
    Reading("place-before-based", "Perth-based miner Kestrel Basin Resources has posted a profit.",
            expected={("P159", "Kestrel Basin Resources", "Perth")},
            reason='a place before "-based" still says where a firm is'),
    Reading("name-adjective-before-a-hyphen", "The Oslo-based firm Ellerby Homes said it.",
            expected={("P159", "Ellerby Homes", "Oslo")},
            reason="an adjective made of a name before the hyphen is no given name"),
    Reading("abbreviation-in-a-dateline", "STA. CATALINA, Negros Oriental — It reopened.",
            expected={("P131", "Sta. Catalina", "Negros Oriental")},
            reason='fixed after heldout10\'s measurement: an abbreviation before a name ("Sta.") ends no sentence'),
    Reading("held-adjective", "The Kyiv-held town was shelled.", exactly=True,
            reason='a misreading a review found: "Kyiv-held" says nothing'),
    Reading("a-person-is-no-place",
            "The managing director of Halden Cocoa Company, Kwame Boateng, has resigned.", forbidden=[no("P131")],
            reason="a misreading a review found: a person is no place"),
    Reading("building-placed-after-a-preposition",
            "Growers protested outside Kapsimo Tea Factory in Bomet, demanding their bonus.",
            expected={("P131", "Kapsimo Tea Factory", "Bomet")},
            reason="a building placed after a preposition or a verb"),
    Reading("court-is-no-place-of-a-hospital", "The family sued Northfield Hospital in the High Court.", exactly=True,
            reason="a court where a case is heard is no place the hospital lies in"),
    Reading("surname-that-is-a-building-word", "She visited Jessica Hall in Leeds, where she lives.", exactly=True,
            reason="a person whose surname is a building's word is no building"),
    Reading("things-class-and-place-in-an-apposition",
            "Halyard Tower, a 28-storey office building in Marlow Quay, was sold on Monday.",
            expected={("P131", "Halyard Tower", "Marlow Quay")},
            reason='a thing\'s class and place in an apposition ("X, a 28-storey office building in Y")'),
    Reading("condominium-in-a-place",
            "The Ferncliffe Residences, a 360-unit condominium in Bukit Meran, sold 200 units.",
            expected={("P131", "Ferncliffe Residences", "Bukit Meran")},
            reason="a thing's class and place in an apposition"),
    Reading("nurse-in-a-place", "Maria Lopez, a nurse in Leeds, said she was tired.",
            expected={("P106", "Maria Lopez", "nurse")}, forbidden=[no("P131")],
            reason="a person is no thing with a place: a nurse in Leeds works there"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_location_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
