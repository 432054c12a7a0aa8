"""Kin: spouse (P26), child (P40), father (P22), sibling (P3373), after a possessive, "whose",
an honorific or a plural; a kin of a kin is not read. Also an obituary's death (P570).

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Pattern, Reading, check_reading, either, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("obituary-pronoun-and-death",
            "Edna Pask, novelist, dies at 84\n\nEdna Pask has died at the age of 84. The novelist Mary Dunn "
            "called her a friend. In 1967 she married Robert Pask, an engineer, who died in 2011.",
            expected={("P26", "Edna Pask", "Robert Pask"), ("P570", "Robert Pask", "2011")},
            forbidden={("P570", "Edna Pask", "2011"), ("P26", "Mary Dunn", "Robert Pask")},
            reason="in an obituary, \"she\" is the story's subject, not the last woman named; who died is the husband"),
    Reading("family-after-a-possessive", "Arthur Penhale died on Monday. He is survived by his daughter, Ruth Penhale. "
                                         "His brother Walter Penhale paid tribute.",
            expected={("P40", "Arthur Penhale", "Ruth Penhale"), ("P3373", "Arthur Penhale", "Walter Penhale")},
            reason='"his daughter, X" and "His brother X": a child and a sibling'),
    Reading("husband-after-a-possessive", "Anna Morrow lives in Leeds with her husband, the architect Tobias Reyes.",
            expected={("P26", "Anna Morrow", "Tobias Reyes")},
            reason='"her husband, the architect X": a spouse'),
    Reading("a-firms-people-are-no-kin", "Harrow Tools said its chief executive, Dan Grey, had left.",
            forbidden=[no("P40")],
            reason='a firm\'s "son" is no child'),
    Reading("kin-of-a-kin-is-not-read", "Edith Carr died on Monday. She is survived by her son, Paul Carr, "
                                        "and his daughter Amy Carr.",
            expected={("P40", "Edith Carr", "Paul Carr")},
            forbidden=[Pattern("Amy Carr as anyone's child", lambda r, h, t: r == "P40" and t == "Amy Carr")],
            reason='a kin of a kin is not read: whose "his" is unclear'),
    Reading("spouse-after-whose", "Rob Marsters, whose wife, Jess Hale, is from Derby, joined the club.",
            expected=[either(("P26", "Rob Marsters", "Jess Hale"), ("P26", "Jess Hale", "Rob Marsters"))],
            reason='"X, whose wife, Y,": a spouse (symmetric, either way round)'),
    Reading("whose-club-is-no-kin", "Rob Marsters, whose club, Derby County, is in debt, joined.",
            forbidden=[no("P26")],
            reason='"whose" a thing that is no relative'),
    Reading("kin-after-an-honorific-or-an-ordinal",
            "Ada Bello, a potter, has died. She is survived by her husband, Mr Femi Bello, and her first son, Mr Tunde Bello.",
            expected=[either(("P26", "Ada Bello", "Femi Bello"), ("P26", "Femi Bello", "Ada Bello")),
                      ("P40", "Ada Bello", "Tunde Bello")],
            reason="kin after an honorific or an ordinal: a spouse (either way round) and a son"),
    Reading("a-relatives-thing-is-no-relative",
            "Ada Bello, a potter, has died. Her first son's school, Ridge Academy, closed.", forbidden=[no("P40")],
            reason="a relative's thing, named after the possessive, is no relative"),
    Reading("relatives-listed-after-a-plural", "Tom Pike died on Monday. He leaves his daughters, Grace and Ruth.",
            expected={("P40", "Tom Pike", "Grace"), ("P40", "Tom Pike", "Ruth")},
            reason='relatives listed after a plural: "his daughters, A and B"'),
    Reading("sisters-listed", "Ana Pike thanked her sisters, Jo, Meg and Amy, for their help.",
            expected={("P3373", "Ana Pike", "Jo"), ("P3373", "Ana Pike", "Meg"), ("P3373", "Ana Pike", "Amy")},
            exactly=Pattern("a sibling of Ana Pike", lambda r, h, t: r == "P3373" and h == "Ana Pike"),
            reason='"her sisters, A, B and C": exactly these three siblings'),
    Reading("names-after-an-unowned-plural",
            "Tom Pike and his sons run the farm with Ann Lee and Bob Stone.", exactly=True,
            reason="the names after a plural that no possessive owns are no relatives"),
    Reading("relative-whose-apposition-is-a-trade",
            "Lachlan Moore won. Moore's father, Steve, a greenkeeper at a course in Victoria, caddied for him.",
            expected={("P22", "Lachlan Moore", "Steve"), ("P106", "Steve", "greenkeeper")},
            forbidden={("P31", "Steve", "greenkeeper")},
            reason="a relative is a person whose apposition is a trade, not a class"),
    Reading("daughter-after-a-possessive", "Della Marsh's daughter, Amy Marsh, said it.",
            expected={("P40", "Della Marsh", "Amy Marsh")},
            reason='"X\'s daughter, Y,": a child'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_kin_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
