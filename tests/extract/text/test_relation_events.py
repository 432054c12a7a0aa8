"""Events and prizes: where an event was held (P276), its winner (P1346), who took part (P1344),
an award received (P166).

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("event-place-and-winner", "The Baltic Energy Summit was held in Riga. Elsa Lind won the Madrid Open in May.",
            expected={("P276", "Baltic Energy Summit", "Riga"), ("P1346", "Madrid Open", "Elsa Lind")},
            reason="where an event was held, and who won it"),
    Reading("held-in-a-place-is-no-event", "Talks were held in Riga.", forbidden=[no("P276")],
            reason="a place is held by no one: not an event"),
    Reading("a-prize-won", "Her novel won the Calloway Prize in 1993. Mira Stone received the Hughes Medal.",
            expected={("P166", "Mira Stone", "Hughes Medal")},
            reason="a prize received"),
    Reading("a-vote-won-is-no-prize", "Mira Stone won the vote.", forbidden=[no("P166", "P1346")],
            reason="a vote won is no prize and no event"),
    Reading("won-by", "Amos Kirui is a runner. The Harwick Marathon was won by Amos Kirui in 2:09:10.",
            expected={("P1346", "Harwick Marathon", "Amos Kirui")},
            reason='"won by": the doer of the passive is the winner'),
    Reading("sponsored-by-is-no-winner", "The Harwick Marathon was sponsored by Amos Kirui.", forbidden=[no("P1346")],
            reason="a sponsor is no winner"),
    Reading("event-takes-place-somewhere",
            "Anna Berg, who took second prize at the Lindqvist Violin Competition in Malmo last "
            "year, plays tonight.",
            expected={("P276", "Lindqvist Violin Competition", "Malmo"),
                      ("P1344", "Anna Berg", "Lindqvist Violin Competition")},
            forbidden={("P131", "Lindqvist Violin Competition", "Malmo")},
            reason="an event takes place somewhere (P276, not P131), and the prize-winner took part in it"),
    Reading("born-adjective-only-describes",
            "The Toronto-born pianist, who took second prize at the Lindqvist Violin Competition in "
            "Malmo, plays tonight.",
            forbidden=[no("P1344")],
            reason='"the Montreal-born pianist": the name only describes her, no one took part'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_events_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
