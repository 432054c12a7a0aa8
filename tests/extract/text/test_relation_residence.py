"""Residence (P551): a court report's "of" or "from", "lives in", "who lives in", and the firms,
teams and workplaces that are no home.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("residence-in-a-court-report", "Gary Holt, 44, of Orchard Road, Wakefield, was jailed for three years.",
            expected={("P551", "Gary Holt", "Wakefield")},
            reason='a court report: "X, 44, of a street, a town" is a home'),
    Reading("residence-from-in-a-court-report", "Leah Munro, 27, from Dundee, admitted the offence.",
            expected={("P551", "Leah Munro", "Dundee")},
            reason='a court report: "X, 27, from a town"'),
    Reading("of-a-firm-is-no-home", "Gary Holt, 44, of Holt Logistics Ltd, was fined.", forbidden=[no("P551")],
            reason='an age and an organisation: "of" the firm is no home'),
    Reading("lives-in", "Nadia Orlov is a painter. She lives in Hackney with her two children.",
            expected={("P551", "Nadia Orlov", "Hackney")},
            reason='"lives in" a place'),
    Reading("works-in-is-no-home", "Nadia Orlov is a painter. She works in Hackney.", forbidden=[no("P551")],
            reason="working somewhere is no home"),
    Reading("described-from", "Gil Avery, a retired plumber from Tucumcari, found the coins.",
            expected={("P551", "Gil Avery", "Tucumcari")},
            reason='"X, a retired plumber from Y": a home'),
    Reading("firm-from-a-city", "Orvane Systems, a spin-off from Leeds University, was sold.", forbidden=[no("P551")],
            reason='a firm "from" a city is no resident'),
    Reading("residence-after-who", "The writer Hanna Gelb, who lives in Edinburgh, won.",
            expected={("P551", "Hanna Gelb", "Edinburgh")},
            reason='"X, who lives in Y,": a home'),
    Reading("lives-for-is-no-home", "The writer Hanna Gelb, who lives for the theatre, won.", forbidden=[no("P551")],
            reason='"lives for" is no home'),
    Reading("a-person-from-a-place", "Lachlan Moore won the title. Moore, from Geelong, began the day two shots behind.",
            expected={("P551", "Lachlan Moore", "Geelong")},
            reason='"Moore, from Geelong,": a home'),
    Reading("a-team-is-no-residence", "Lachlan Moore won the title. Moore, from the Hawks, began the day.",
            forbidden=[no("P551")],
            reason="a team is no residence"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_residence_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
