"""Amounts: employees (P1128), population (P1082), revenue (P2139) and cost (P2130); an amount
needs an organisation or money.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("employees-population-revenue", "Caldera Rail, which is based in Derby, employs about 6,000 people. "
                                            "Wexford has a population of about 23,000. "
                                            "Harbourline Group reported revenue of £14.6bn last year.",
            expected={("P1128", "Caldera Rail", "6,000"), ("P159", "Caldera Rail", "Derby"),
                      ("P1082", "Wexford", "23,000"), ("P2139", "Harbourline Group", "£14.6bn")},
            reason="employees, a home, a population and a revenue"),
    Reading("a-place-employs-nobody", "A factory near Lisbon is expected to employ 400 people.", forbidden=[no("P1128")],
            reason="an amount needs an organisation: a place employs nobody"),
    Reading("a-cost-is-money", "The Orla Bridge will cost 40 days of work.", forbidden=[no("P2130")],
            reason="an amount needs money: a cost is money, not days"),
    Reading("cost-in-money", "The Orla Bridge is expected to cost £18 million.",
            expected={("P2130", "Orla Bridge", "£18 million")},
            reason="a cost in money"),
    Reading("workforce-of", "Quillmark plans to double its workforce of 310 by next year.",
            expected={("P1128", "Quillmark", "310")},
            reason='"its workforce of N": the firm\'s employees'),
    Reading("sales-are-no-workforce", "Quillmark plans to double its sales of 310 units by next year.",
            forbidden=[no("P1128")],
            reason="sales are no workforce"),
    Reading("cost-before-a-name", "The £6.5 million Fenby Hub, on Mill Road, opened on Saturday.",
            expected={("P2130", "Fenby Hub", "£6.5 million")},
            reason="an amount of money before a name is its cost"),
    Reading("count-before-a-name", "The 6,000 Fenby Rovers fans sang throughout.", forbidden=[no("P2130")],
            reason="a count of people before a name is no cost"),
    Reading("organisation-word-outweighs-a-place-word",
            "Mount Sinai Hospital, which employs 4,000 people, was founded in 1852.",
            expected={("P1128", "Mount Sinai Hospital", "4,000")},
            reason='an organisation word ("Hospital") outweighs a place word ("Mount") (wrong before its fix)'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_amounts_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
