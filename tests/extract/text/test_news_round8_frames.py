"""The eighth round of news frames (issue 17, part 3), written from the misses that the gold
facts of heldout7 showed after its one measurement (``bench/news_gold/``): a position said with
"is", wire datelines without an agency, playing positions of more sports, and status words that
open a sentence.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts  # noqa: F401


def test_a_position_said_with_is(extractor):
    assert ("P39", "Paul Kessler", "chief operating officer") in facts(
        extractor, "Her brother, Paul Kessler, is chief operating officer.")
    assert ("P39", "Tom Pike", "finance director") in facts(
        extractor, "Tom Pike, who joined in 2010, is finance director.")
    # a position that is not the subject's: nothing
    assert facts(extractor, "Tom Pike said the chairman was happy.") == set()


def test_a_dateline_without_an_agency(extractor):
    assert ("P131", "Bradley Falls", "Tenn.") in facts(extractor, "BRADLEY FALLS, Tenn. — Chidi Okon lined a double.")
    # a review's heading in title case is no dateline
    assert facts(extractor, "Glass Orchard, Lyceum Playhouse — The play opens with a storm.") == set()


def test_playing_positions_of_more_sports(extractor):
    got = facts(extractor, "Riverhawks reliever Luis Arre worked two scoreless innings.")
    assert {("P54", "Luis Arre", "Riverhawks"), ("P413", "Luis Arre", "reliever")} <= got
    got = facts(extractor, "Comets coach Rebecca Lind moved goal attack Lesieli Tupu to the wing.")
    assert ("P413", "Lesieli Tupu", "goal attack") in got
    # a position word outside a team's sheet or a player's description says nothing
    assert not any(r in ("P413", "P54") for r, h, t in facts(extractor, "The tight end of the budget was met."))


def test_a_status_word_opening_a_sentence_is_no_name(extractor):
    got = facts(extractor, "Uncapped Harwood pacer Rohan Shin has been named in the squad.")
    assert ("P54", "Rohan Shin", "Harwood") in got
    assert not any("Uncapped" in h + t for r, h, t in got)


def test_titles_and_neighbours_are_cut_off_names(extractor):
    got = facts(extractor, "The shuttle is run by Madam Tan Siew Lan, the chief executive of Orbis Mobility.")
    assert ("P169", "Orbis Mobility", "Tan Siew Lan") in got
    assert facts(extractor, "The Speaker, Rt. Hon. Olumide Akin, said so.") == set()  # no person called "Rt"
    assert ("P3629", "Calum Morri", "58") in facts(extractor, "Neighbour Calum Morri, 58, raised the alarm.")


def test_a_name_that_modifies_a_noun_is_no_antecedent(extractor):
    text = ("Burnett Hill Citrus Ltd, the ASX-listed grower, has received an offer. "
            "Managing director Tom Aldr said the company would consider it.")
    got = facts(extractor, text)
    assert ("P39", "Tom Aldr", "managing director") in got
    assert not any("ASX" in (h, t) for r, h, t in got)
    # a place before "-based" still says where a firm is
    assert ("P159", "Kestrel Basin Resources", "Perth") in facts(
        extractor, "Perth-based miner Kestrel Basin Resources has posted a profit.")


def test_a_listed_grower_is_an_organisation(extractor):
    text = ("Burnett Valley Citrus, the ASX-listed mandarin grower, has received an offer from Tsurugi "
            "Corporation. Managing director Tom Aldr said the company would consider it.")
    got = facts(extractor, text)
    assert {("P1037", "Burnett Valley Citrus", "Tom Aldr"), ("P108", "Tom Aldr", "Burnett Valley Citrus")} <= got
    assert not any("Tsurugi" in h + t for r, h, t in got)  # the bidder is not the story's firm


def test_what_a_person_is_is_not_always_a_trade(extractor):
    assert ("P106", "Marisa Vel", "homeowner") not in facts(
        extractor, "Homeowner Marisa Vel told the station her dog woke them.")
    got = facts(extractor, "Jo Pike, a German immigrant, opened the bakery.")
    assert ("P27", "Jo Pike", "Germany") in got  # a person: a citizenship, no class and no country
    assert not {("P106", "Jo Pike", "immigrant"), ("P31", "Jo Pike", "immigrant"), ("P17", "Jo Pike", "Germany")} & got
    # a trade in the same place is one
    assert ("P106", "Marisa Vel", "baker") in facts(extractor, "Baker Marisa Vel told the station her dog woke them.")
    assert ("P106", "Jo Pike", "plumber") in facts(extractor, "Jo Pike, a German plumber, opened the bakery.")


def test_after_the_measurement_scores_and_malaysian_titles(extractor):
    # found on heldout8 after its measurement: a cricket score in brackets is no age
    got = facts(extractor, "Shiva Mahar (62) and Ravi Lall (41) put on 98 for the third wicket.")
    assert not any(r == "P3629" for r, h, t in got)
    assert ("P3629", "Mary Kell", "68") in facts(extractor, "Mary Kell (68) told the court she was shocked.")
    got = facts(extractor, "The test was developed by Prof Datuk Dr Awang Rosli Jamil, the vice-chancellor of "
                           "Kuching University.")
    assert ("P108", "Awang Rosli Jamil", "Kuching University") in got
