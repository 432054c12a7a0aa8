"""Founders (P112), inception (P571) and publication (P577): "founded by", fronted foundings,
"opened" and "built in" a year, a quoted work's year, and whose founding a sentence tells.

Every sentence is made up for these tests (invented people, firms and places, not taken from the
news corpus); every expected fact is written by hand from what the sentence says. A frame has a
sentence it must read and, most often, one it must not.
"""

from __future__ import annotations

import pytest

from frame_reading import Pattern, Reading, check_reading, extractor, no  # noqa: F401  (extractor: a fixture)

ROWS = [
    Reading("founded-by-anchored-on-the-subject",
            "Corvane, which employs 850 people in Galway and Limerick, was founded in 1997 by Sean Tully.",
            expected={("P112", "Corvane", "Sean Tully"), ("P571", "Corvane", "1997")},
            forbidden=[Pattern("a founder or a founding of Galway or Limerick",
                               lambda r, h, t: r in ("P112", "P571") and h in ("Galway", "Limerick"))],
            reason="founders and years anchored on the clause's subject, not on the places in its aside"),
    Reading("founded-participle",
            "The Whitford Gallery, founded in 1901 by the shipping magnate Angus Whitford, holds 900 works.",
            expected={("P571", "Whitford Gallery", "1901"), ("P112", "Whitford Gallery", "Angus Whitford")},
            reason='"X, founded in Y by Z": a year and a founder'),
    Reading("visited-is-no-founding", "The Whitford Gallery, visited in 1901 by Angus Whitford, holds 900 works.",
            forbidden=[no("P112")],
            reason="a visitor is no founder"),
    Reading("founded-by-a-described-person", "Lumen Foods was founded in 1932 by the farmer Harold Pike.",
            expected={("P112", "Lumen Foods", "Harold Pike")},
            reason='"founded by the farmer X": the doer of the passive is the founder'),
    Reading("founded-in-a-village", "Lumen Foods was founded in 1932 in the village of Stow.", forbidden=[no("P112")],
            reason="a founding with no doer names no founder"),
    Reading("opened-in", "The Corran Library, which opened in 1931, will close for repairs.",
            expected={("P571", "Corran Library", "1931")},
            reason='"which opened in" a year: an inception'),
    Reading("built-in", "The Ashby Bridge was built in 1957.", expected={("P571", "Ashby Bridge", "1957")},
            reason='"was built in" a year: an inception'),
    Reading("opened-on-a-date", "The Corran Library opened on 14 March.", forbidden=[no("P571")],
            reason="a date without a year is no inception"),
    Reading("a-person-opened-a-shop", "Ms Ada Corran opened a bakery in 1931.", forbidden=[no("P571")],
            reason="a person who opened a shop was not opened"),
    Reading("work-year", 'She wrote nine novels, including "Salt Meadows" (1987).',
            expected={("P577", "Salt Meadows", "1987")},
            reason="a year in brackets after a quoted work: its publication"),
    Reading("year-after-a-person", "The prize went to Ama Boateng (1987) of Kumasi.", forbidden=[no("P577")],
            reason="a year in brackets after a person's name is no publication"),
    Reading("fronted-founding",
            "The Marram Band announce a tour\n\nFolk band The Marram Band will tour in May. "
            "Formed in Hull in 2009 by singer Ada Brine and drummer Joe Kettle, the band has made four albums.",
            expected={("P112", "Marram Band", "Ada Brine"), ("P112", "Marram Band", "Joe Kettle"),
                      ("P571", "Marram Band", "2009"), ("P106", "Joe Kettle", "drummer")},
            reason='"Formed in X in Y by A and B, the band": founders, a year, and their trades'),
    Reading("person-after-a-fronted-founding",
            "Marram Band will tour. Formed in 2009, the band has made four albums with producer Ada Brine.",
            expected={("P571", "Marram Band", "2009")}, forbidden=[no("P112")],
            reason="a person named after the fronted founding is no founder"),
    Reading("founded-in-a-story-with-a-city-and-a-prize",
            "Shares in Velnor, the Manchester-based maker of valves, fell. Velnor was founded in 1948 by "
            "Arthur Velnor. The Holm Prize went to Mira Lutz.",
            expected={("P571", "Velnor", "1948")},
            reason="the kinds of names the frames depend on (a city, \"X was founded\", a prize): the firm's founding year"),
    Reading("the-company-is-the-storys-organisation",
            "Lisbon start-up Quenta raises $40m\n\nQuenta, a Lisbon-based start-up, has raised $40 million in a round "
            "led by the venture firm Ardmore Partners. The company was founded in 2019 by Lia Mota.",
            expected={("P112", "Quenta", "Lia Mota")}, forbidden={("P112", "Ardmore Partners", "Lia Mota")},
            reason='"the company" is the story\'s organisation, not the last firm named'),
    Reading("founded-an-organisation-in-a-year",
            "The Verhaegens, who founded the private bank Verhaegen & Cie in Antwerp in 1921, own it.",
            expected={("P571", "Verhaegen & Cie", "1921")},
            reason='"who founded the bank X in a place in a year": the bank\'s inception'),
    Reading("a-year-of-another-clause",
            "The Verhaegens, who founded the bank Verhaegen & Cie, moved to Antwerp in 1921.", forbidden=[no("P571")],
            reason="a year of another clause is no founding year"),
    Reading("currency-codes-are-no-organisations",
            "Maison Verlaine sold for CHF 640 million\n\nThe watchmaker Maison Verlaine, whose watches sell for "
            "CHF 25,000, employs 480 people. The company was founded in 1846 by Jules Verlaine.",
            expected={("P112", "Maison Verlaine", "Jules Verlaine")},
            forbidden=[Pattern('"CHF" as a head or a tail', lambda r, h, t: "CHF" in (h, t))],
            reason='found on heldout6 after its measurement: "the company" went to "CHF"; a currency code is no organisation'),
    Reading("institution-noun-is-no-story-firm",
            "Brill Foods profits rise\n\nBrill Foods, the Leeds-based group, reported higher profits. "
            "Brill Foods sponsors a theatre. The theatre was founded in 1901 by Ada Kerr.",
            forbidden={("P112", "Brill Foods", "Ada Kerr")},
            reason='"the theatre" is no story firm (wrong before its fix)'),
    Reading("founded-as", "Kingsmere, founded as a technical college in 1894, has 24,000 students.",
            expected={("P571", "Kingsmere", "1894")},
            reason='"founded as a technical college in 1894"'),
    Reading("relative-clause-that-founds-and-employs",
            "Torvald Mining, which was founded in 1994 as a gold explorer and now employs about "
            "2,300 people across the region, made a profit.",
            expected={("P1128", "Torvald Mining", "2,300"), ("P571", "Torvald Mining", "1994")},
            reason="a relative clause that says a founding and a workforce"),
    Reading("place-after-a-preposition-is-not-founded",
            "The Orpheum Theatre in Minneapolis, opened in 1979, is closing.",
            forbidden={("P571", "Minneapolis", "1979")},
            reason='a place after a preposition is not what was founded: "X in Minneapolis, opened in 1979"'),
    Reading("quoted-title-is-no-person",
            '"Falling Slowly Home" is a song by Canadian folk duo Harbour Lights. '
            "It was released on 4 May 1999.",
            expected={("P577", "Falling Slowly Home", "4 May 1999")},
            forbidden={("P577", "Harbour Lights", "4 May 1999")},
            reason='a quoted title is no person: "it" is the song, not the duo'),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_founding_reading(extractor, row):  # noqa: F811  (the fixture imported above)
    check_reading(extractor, row)
