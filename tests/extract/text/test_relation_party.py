"""Political parties (P102) and seats (P768): a party word before a position, in an apposition
or after "of"; a seat won, kept, lost or represented, and what is no seat.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("party-before-a-position", "Labour MP Moira Quell said the plan was unfair.",
            expected={("P102", "Moira Quell", "Labour Party"), ("P39", "Moira Quell", "MP")},
            reason="a party word before a position: the party and the position"),
    Reading("minister-with-no-party-word", "Transport minister Moira Quell said the plan was unfair.",
            forbidden=[no("P102")],
            reason="a minister with no party word: no party"),
    Reading("party-in-an-apposition", "The bill was written by Dara Fenwick, a Democrat from Fresno.",
            expected={("P102", "Dara Fenwick", "Democratic Party")},
            reason='"X, a Democrat": a party in an apposition'),
    Reading("party-of-a-candidate", "Ina Lund lost her seat to the Conservative candidate Ravi Sandhu.",
            expected={("P102", "Ravi Sandhu", "Conservative Party")},
            reason="a party's candidate"),
    Reading("apposition-word-that-is-no-party", "The bill was written by Dara Fenwick, a Californian from Fresno.",
            forbidden=[no("P102")],
            reason='a word after "a" that is no party'),
    Reading("elected-for-a-seat", "Moira Quell was elected Conservative MP for Wiltshire Vale in 1997.",
            expected={("P768", "Moira Quell", "Wiltshire Vale"), ("P102", "Moira Quell", "Conservative Party")},
            reason="elected MP for a seat, with the party"),
    Reading("director-for-a-region-is-no-seat", "Moira Quell was appointed sales director for Europe in 1997.",
            forbidden=[no("P768")],
            reason='a position with no seat: "director for Europe" names a region, not a constituency'),
    Reading("represented-since", "Nia Thorley, 52, who has represented Ashby Vale since 2015, resigned on Tuesday.",
            expected={("P768", "Nia Thorley", "Ashby Vale")},
            reason='"who has represented X since" a year: a seat'),
    Reading("represented-a-country-is-no-seat", "Nia Thorley, who has represented Kenya since 2015, won in Doha.",
            forbidden=[no("P768")],
            reason="a country represented at a tournament is no seat"),
    Reading("party-after-a-name", "Opposition Leader Dean Harrow, of the Labor Party, called it a failure.",
            expected={("P102", "Dean Harrow", "Labor Party"), ("P39", "Dean Harrow", "opposition leader")},
            reason='"X, of the Labor Party": a party; "Dean" is his name, not a position'),
    Reading("of-a-body-that-is-no-party", "Dean Harrow, of the Harbour Trust, called it a failure.",
            forbidden=[no("P102")],
            reason='"of" a body that is no party'),
    Reading("seat-kept", "Premier Moira Keane kept her own seat in Tullow East but conceded defeat.",
            expected={("P768", "Moira Keane", "Tullow East")},
            reason="a seat kept"),
    Reading("seat-lost", "Ivo Brandt lost his Marsh Lane seat by 212 votes.",
            expected={("P768", "Ivo Brandt", "Marsh Lane")},
            reason="a seat lost"),
    Reading("seat-in-a-chamber", "Ivo Brandt took his seat beside Mira Holm in the Dunmore Chamber.",
            forbidden=[no("P768")],
            reason="a seat beside someone in a named chamber is no electoral district"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_party_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
