"""The tenth round of news frames (issue 17, part 3), written from the misses that the gold
facts of heldout9 showed after its one measurement, and measured once on heldout10: a title
followed by an honorific or by "of" and the organisation, the honorific between "the X of Y,"
and a name, given names of two hyphened syllables, a position for the organisation a sentence
opens on, a club's signing, the player a match report's first line names with the side that
won (after review: only a scorer), one plural word after "the" as a team, and the abbreviations of positions.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts  # noqa: F401


def test_a_title_before_an_honorific_or_an_organisation(extractor):
    got = facts(extractor, "Headmistress Mrs Ama Serwaa, 58, said the school had done well.")
    assert ("P3629", "Ama Serwaa", "58") in got   # not "Mrs Ama Serwaa"
    got = facts(extractor, "The Managing Director of Halden Cocoa Company, Mr Kwame Boateng, has resigned.")
    assert {("P39", "Kwame Boateng", "managing director"), ("P108", "Kwame Boateng", "Halden Cocoa Company")} <= got
    # a title alone keeps the name after it whole, as before
    assert ("P39", "Sophie Marsh", "detective constable") in facts(
        extractor, "Detective Constable Sophie Marsh of Tarrow Police said it.")


def test_an_honorific_between_the_position_of_an_organisation_and_a_name(extractor):
    got = facts(extractor, "The managing director of Halden Foods, Mr Kwabena Osei, has resigned.")
    assert {("P39", "Kwabena Osei", "managing director"), ("P108", "Kwabena Osei", "Halden Foods")} <= got
    # no honorific, no name: nothing
    assert facts(extractor, "The managing director of Halden Foods has resigned.") == set()


def test_given_names_of_two_hyphened_syllables(extractor):
    got = facts(extractor, "Tai Fung's general manager, Ivan Leung Ka-fai, said fares would rise.")
    assert ("P39", "Ivan Leung Ka-fai", "general manager") in got
    # an adjective made of a name, or an English word before the hyphen, is no given name
    assert ("P159", "Ellerby Homes", "Oslo") in facts(extractor, "The Oslo-based firm Ellerby Homes said it.")
    got = facts(extractor, "Left-arm pacer Zubair Latif removed both openers.")
    assert ("P413", "Zubair Latif", "pacer") in got and not any("Left" in h for _, h, _ in got)


def test_a_position_for_the_organisation_a_sentence_opens_on(extractor):
    got = facts(extractor, "For the council, planning officer Rachel Ashdown said the plan was sound.")
    assert ("P39", "Rachel Ashdown", "planning officer") in got
    got = facts(extractor, "For the Kestrels, full-back Nathan Pryce was best on ground.")
    assert ("P54", "Nathan Pryce", "Kestrels") in got
    # "for the first time" names no organisation
    assert ("P54", "Ade Bello", "first time") not in facts(extractor, "For the first time, striker Ade Bello scored.")


def test_a_club_s_signing(extractor):
    got = facts(extractor, "Kilbride Rovers have completed the signing of Norwegian striker Eirik Haugen.")
    assert {("P54", "Eirik Haugen", "Kilbride Rovers"), ("P27", "Eirik Haugen", "Norway"),
            ("P413", "Eirik Haugen", "striker")} <= got
    assert not any(r == "P54" for r, _, _ in facts(extractor, "The signing of the treaty by Ada Lowe was delayed."))


def test_the_scorer_a_match_report_opens_on(extractor):
    got = facts(extractor, "LAHORE: Opener Hasan Qureshi struck 128 as Lahore Kingfishers thrashed Karachi Mariners.")
    assert {("P413", "Hasan Qureshi", "opener"), ("P54", "Hasan Qureshi", "Lahore Kingfishers")} <= got
    # (after review) only a scoring verb first: a player sent off is of either side; no councillor's vote
    got = facts(extractor, "Goalkeeper Tom Reid was sent off as Leeds United beat Hull City.")
    assert not any(r == "P54" for r, _, _ in got)
    got = facts(extractor, "Jane Lowe said the cuts were wrong as Harlow Council defeated the motion.")
    assert not any(r == "P54" for r, _, _ in got)


def test_the_abbreviation_of_a_position(extractor):
    assert ("P108", "Ann Lowe", "Harlow Foods") in facts(extractor, "Harlow Foods CFO Ann Lowe said it.")
    assert not any(h == "MD" for _, h, _ in facts(
        extractor, "Cocoa processing firm MD resigns. Its workforce of 450 was told on Monday."))


def test_a_trade_said_of_a_name_in_apposition(extractor):
    assert ("P106", "Tunde Bakare", "trader") in facts(
        extractor, "A trader at the scene, Mr. Tunde Bakare, said residents rushed to help.")
    assert ("P106", "Tom Reid", "farmer") in facts(extractor, "Speaking to reporters, farmer Tom Reid said the rain had come.")
    # what a person is without a trade ("resident") gives no occupation
    assert not any(r == "P106" for r, _, _ in facts(extractor, "A resident of the estate, Mrs Ann Lowe, said it was noisy."))


def test_a_name_that_takes_have_is_no_person(extractor):
    got = facts(extractor, "Kilbride Thistle have completed the signing of Norwegian striker Eirik Haugen.")
    assert ("P54", "Eirik Haugen", "Kilbride Thistle") in got
    # two people joined by "and" take "have" too
    assert facts(extractor, "Tom Reid and Ann Lowe have resigned.") == set()


def test_after_the_measurement_hyphened_syllables_inside_a_name_and_abbreviations(extractor):
    # fixed after heldout10's measurement: a hyphened syllable that is an English word inside a
    # name ("Wing-yan"), and abbreviations before a name that end no sentence ("Sta.", "Fr.")
    got = facts(extractor, "Carelift Robotics chief executive Vivian Leung Wing-yan said it would hire.")
    assert ("P39", "Vivian Leung Wing-yan", "chief executive") in got
    assert ("P131", "Sta. Catalina", "Negros Oriental") in facts(extractor, "STA. CATALINA, Negros Oriental — It reopened.")
    assert not any(h == "Fr" for _, h, _ in facts(extractor, "Parish priest Fr. Dennis Panes said the church would reopen."))


def test_after_review_misreadings_of_ordinary_sentences(extractor):
    # a review of the ninth and tenth rounds found these; each is read as before those rounds
    got = facts(extractor, "Lawyers for Tom Reid have appealed against his sentence. He was born in Leeds in 1975.")
    assert ("P19", "Tom Reid", "Leeds") in got                      # "have" after a name not opening the sentence
    assert ("P39", "Tom Reid", "chief executive") in facts(
        extractor, "In a statement chief executive Tom Reid said the firm was sound.")   # no "statement chief executive"
    assert ("P106", "Tom Moore", "soldier") in facts(extractor, "Capt. Tom Moore, 99, a former soldier, died.")
    assert not any(r == "P31" for r, _, _ in facts(extractor, "The club unveiled a new kit with shirt sponsor Ellerby Homes."))
    assert not any(r == "P106" for r, _, _ in facts(extractor, "After the hearing, murderer Tom Reid was led away."))
    assert facts(extractor, "The Kyiv-held town was shelled.") == set()
    assert not any(r == "P131" for r, _, _ in facts(
        extractor, "The managing director of Halden Cocoa Company, Kwame Boateng, has resigned."))  # a person is no place
