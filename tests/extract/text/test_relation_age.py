"""Age at the event (P3629): the age the report gives, as a whole number of years, and the
numbers (head counts, years, scores) that are no age.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("age-after-a-name", "Pensioner Gareth Pugh, 71, from Ebbw Vale, has waited a year.",
            expected={("P3629", "Gareth Pugh", "71")},
            reason='"X, 71,": the age the report gives, as a whole number of years'),
    Reading("age-in-an-apposition", "Dr Ana Ruiz, a 49-year-old former nurse, said so.",
            expected={("P3629", "Ana Ruiz", "49")},
            reason='"X, a 49-year-old ...": an age'),
    Reading("age-before-a-name", "The 52-year-old nurse Ana Ruiz said so.",
            expected={("P3629", "Ana Ruiz", "52")},
            reason='"The 52-year-old nurse X": an age'),
    Reading("age-in-brackets", "Ana Ruiz (34) was fined.",
            expected={("P3629", "Ana Ruiz", "34")},
            reason='"X (34)": an age'),
    Reading("died-aged", "Ana Ruiz has died aged 84 in Lagos.",
            expected={("P3629", "Ana Ruiz", "84")},
            reason='"has died aged 84": an age'),
    Reading("comma-aged", "Mr Kofi Owusu, aged 58, is a native of Kumasi.",
            expected={("P3629", "Kofi Owusu", "58")},
            reason='"X, aged 58,": an age'),
    Reading("at-the-age-of", "Tom Bell, who died in 1968 at the age of 74, was a painter.",
            expected={("P3629", "Tom Bell", "74")},
            reason='"at the age of 74": an age'),
    Reading("a-firms-head-count-is-no-age", "Harlow Foods Ltd, 1,200, said so.", forbidden=[no("P3629")],
            reason="a firm's head count: no age"),
    Reading("a-year-is-no-age", "Ana Ruiz, 2019, won the cup.", forbidden=[no("P3629")],
            reason="a year: no age"),
    Reading("a-firms-number-is-no-age", "Harlow Foods Ltd, 45, was sold.", forbidden=[no("P3629")],
            reason="a number after a firm: no age"),
    Reading("a-score-is-no-age", "Ana Ruiz scored 21 points.", forbidden=[no("P3629")],
            reason="a score: no age"),
    Reading("neighbour-is-cut-off-a-name", "Neighbour Calum Morri, 58, raised the alarm.",
            expected={("P3629", "Calum Morri", "58")},
            reason='neighbours are cut off names: "Neighbour"'),
    Reading("cricket-score-is-no-age", "Shiva Mahar (62) and Ravi Lall (41) put on 98 for the third wicket.",
            forbidden=[no("P3629")],
            reason="found on heldout8 after its measurement: a cricket score in brackets is no age"),
    Reading("age-in-brackets-in-court", "Mary Kell (68) told the court she was shocked.",
            expected={("P3629", "Mary Kell", "68")},
            reason="an age in brackets"),
    Reading("age-between-a-name-and-its-position",
            "Robert Kessler III, 61, Kessler's chief executive, will join the board.",
            expected={("P39", "Robert Kessler III", "chief executive"), ("P3629", "Robert Kessler III", "61")},
            reason="an age between a name and its position"),
    Reading("age-then-position-at", "Paul Ames, 52, chief economist at Tellus Bank, said rates would fall.",
            expected={("P108", "Paul Ames", "Tellus Bank")},
            reason="an age between a name and its position at an organisation"),
    Reading("number-that-is-no-age", "Sales rose to 4,000, chief executive said.", forbidden=[no("P39")],
            reason="a number that is no age between commas leaves the name without a position"),
    Reading("four-word-name-age", "Ana María Ruiz Soto, 44, the bank's chief executive, said it.",
            expected={("P3629", "Ana María Ruiz Soto", "44")},
            reason="a name of four words"),
    Reading("four-words-with-an-organisations-word", "Kessler Precision Tool Company, 44, said it.",
            forbidden=[no("P3629")],
            reason="four capitalised words with an organisation's word are no person"),
    Reading("title-before-an-honorific", "Headmistress Mrs Ama Serwaa, 58, said the school had done well.",
            expected={("P3629", "Ama Serwaa", "58")},
            reason='a title before an honorific is cut off the name: not "Mrs Ama Serwaa"'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_age_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
