"""Owners (P127) and operators (P137): "taken over by", "bought by", a largest shareholder, an
owner's position, "run by" a company.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Pattern, Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("owner-with-a-nationality", "Corby Athletic's American owner, Brad Kessell, has faced criticism.",
            expected={("P127", "Corby Athletic", "Brad Kessell"), ("P27", "Brad Kessell", "United States")},
            reason="an organisation's owner, and the nationality said before the position"),
    Reading("taken-over-by", "Tolland Bank, which was taken over by Greystone Bank in 2016, said it would appeal.",
            expected={("P127", "Tolland Bank", "Greystone Bank")},
            reason='"taken over by": the doer of the passive owns the firm'),
    Reading("bought-by", "Marwick Foods was bought by the private equity firm Quarry Capital in 2011.",
            expected={("P127", "Marwick Foods", "Quarry Capital")},
            reason='"bought by" a described firm'),
    Reading("agreed-to-be-bought", "Ostrava Tools has agreed to be bought by Kessel Gruppe for €90m.",
            forbidden=[no("P127")],
            reason="agreed, not done: no owner yet"),
    Reading("largest-shareholder",
            "Corvale Pumps was founded in 1950. Its largest shareholder is the investment firm Ostrand Capital.",
            expected={("P127", "Corvale Pumps", "Ostrand Capital")},
            reason='"its largest shareholder is X": an owner'),
    Reading("largest-customer",
            "Corvale Pumps was founded in 1950. Its largest customer is the investment firm Ostrand Capital.",
            forbidden=[no("P127")],
            reason="its largest customer is no owner"),
    Reading("operator-of-a-home",
            "Thornby Hospital, a clinic in Derby, is run by Elmgate Care Group, a Derby-based company.",
            expected={("P137", "Thornby Hospital", "Elmgate Care Group")},
            forbidden=[Pattern("Derby as what is run", lambda r, h, t: r == "P137" and h == "Derby")],
            reason='"run by" a company is an operator; the place inside the aside runs nothing'),
    Reading("run-by-a-person", "Thornby Lodge is run by Ms Jane Rook, a nurse.", forbidden=[no("P137")],
            reason="run by a person: a head, no operator"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_ownership_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
