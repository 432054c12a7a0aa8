"""Birth: birthplace (P19) and birth year (P569), said at the start of a sentence, with
"native of", "-born", or of a person a description opening the sentence stands for.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("born-at-the-start-and-educated-at",
            "Born in Burnley in 1940, the daughter of a weaver, Ellen Vance left school at 15. "
            "She read physics at the University of Aberdeen.",
            expected={("P19", "Ellen Vance", "Burnley"), ("P569", "Ellen Vance", "1940"),
                      ("P69", "Ellen Vance", "University of Aberdeen")},
            reason='"Born in X in Y" opening a sentence; "read physics at" a university'),
    Reading("born-adjective", "The Ghanaian-born striker Samuel Adebayo scored twice.",
            expected={("P19", "Samuel Adebayo", "Ghana")},
            reason='"the Ghanaian-born striker X": a birthplace'),
    Reading("demonym-is-no-birthplace", "The Ghanaian striker Samuel Adebayo scored twice.", forbidden=[no("P19")],
            reason='a demonym without "-born" says no birthplace'),
    Reading("native-of-fronted", "A native of Tromsø, Tomas Brevik studied law before turning to politics.",
            expected={("P19", "Tomas Brevik", "Tromsø")},
            reason='"A native of X," opening the sentence: a birthplace'),
    Reading("native-of-apposition", "Ines Morla, a native of Bilbao, won the vote.",
            expected={("P19", "Ines Morla", "Bilbao")},
            reason='"X, a native of Y,": a birthplace'),
    Reading("native-plant", "Ines Morla grows heather, a native of Bilbao's hills, at home.", forbidden=[no("P19")],
            reason="a native plant of a place says nothing of a person's birth"),
    Reading("the-player-is-no-description", "Emi Sato won the final. The player was born in Kobe in 2002.",
            forbidden=[no("P19")],
            reason='"The" with no age, nationality, status or team before the noun is no description of a person'),
    Reading("plural-shaped-surname-is-a-person", "Sarah Graves was born in Leeds in 1970.",
            expected={("P19", "Sarah Graves", "Leeds"), ("P569", "Sarah Graves", "1970")},
            reason="(after review) a name of two words ending in a plural noun may be a person's: no vote of its own"),
    Reading("have-after-a-name-not-opening-the-sentence",
            "Lawyers for Tom Reid have appealed against his sentence. He was born in Leeds in 1975.",
            expected={("P19", "Tom Reid", "Leeds")},
            reason='a misreading a review found: "have" after a name not opening the sentence keeps the name a person'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_birth_death_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
