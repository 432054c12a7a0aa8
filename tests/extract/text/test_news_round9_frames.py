"""The ninth round of news frames (issue 17, part 3), written from the misses that the gold
facts of heldout5 to heldout8 showed (all read by then) and measured once on heldout9: the
possessive of a plural name, positions with modifiers the lexicon does not list, names ending in
a plural noun as organisations (after review: only one plural word after "the"), what a firm is by the noun before or after its name (any trade,
not only the lexicon's firm nouns, once the name is known to be an organisation), an age
between a name and its position, a firm announcing its people, and "its" after a sentence's
first name.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from extract.text.name_kinds import org_class, plural_noun
from frame_reading import extractor, sentence_facts as facts  # noqa: F401


def test_the_possessive_of_a_plural_name(extractor):
    got = facts(extractor, "Morland Homes' finance director, Ruth Abara, said the firm had listened.")
    assert {("P108", "Ruth Abara", "Morland Homes"), ("P39", "Ruth Abara", "finance director")} <= got
    assert ("P40", "Della Marsh", "Amy Marsh") in facts(
        extractor, "Della Marsh's daughter, Amy Marsh, said it.")
    # a quotation mark after a name is no possessive
    assert not any(r == "P108" for r, _, _ in facts(extractor, "'Morland Homes' was the word, director Ruth Abara said."))


def test_a_position_with_modifiers_the_lexicon_does_not_list(extractor):
    got = facts(extractor, "Tarrow Council's planning officer Rachel Ashdown told the committee.")
    assert {("P108", "Rachel Ashdown", "Tarrow Council"), ("P39", "Rachel Ashdown", "planning officer")} <= got
    assert ("P39", "Rachel Ashdown", "land director") in facts(
        extractor, "The firm's land director, Rachel Ashdown, said it had listened.")
    # a verb, a plural, a word of "including" or a bare office take no part in the position
    assert ("P39", "Ann Lowe", "chief executive") in facts(extractor, "The board, including chief executive Ann Lowe, met.")
    assert not any(t.startswith("said") for _, _, t in facts(extractor, "She said director Ann Lowe was away."))
    assert "P39" not in {r for r, _, _ in facts(extractor, "Speaking on Friday, site leader Dr Orla Fitz said it was good.")}
    # an occupation keeps its own words: "a marine microbiologist" is one, no position
    assert ("P106", "Sune Falk", "microbiologist") in facts(
        extractor, "Dr Sune Falk, a marine microbiologist at Holmvik University, led the work.")


def test_a_plural_noun_after_the_and_a_plural_possessive(extractor):
    assert [plural_noun(w) for w in ("Homes", "Resources", "Lions", "Industries")] == [True] * 4
    # not a surname that is also a plural, not a word that only ends in s
    assert [plural_noun(w) for w in ("Banks", "Williams", "Davis", "News")] == [False] * 4
    got = facts(extractor, "Ellerby Homes' chief executive, Simon Kettlewell, said the firm had listened.")
    assert ("P108", "Simon Kettlewell", "Ellerby Homes") in got
    # (after review) a name of two words ending in a plural noun may be a person's: no vote of its own
    got = facts(extractor, "Sarah Graves was born in Leeds in 1970.")
    assert {("P19", "Sarah Graves", "Leeds"), ("P569", "Sarah Graves", "1970")} <= got
    assert ("P106", "Tom Parsons", "novelist") in facts(extractor, "Novelist Tom Parsons has died at the age of 84.")
    # a position before it says a person
    got = facts(extractor, "But Cllr Graham Pickles (Lib Dem, Thornby) said the drains were full.")
    assert ("P39", "Graham Pickles", "councillor") in got


def test_what_a_firm_is_by_any_trade_once_it_is_known_as_one(extractor):
    assert ("P31", "Zambezi Resources", "copper producer") in facts(
        extractor, "He joined from copper producer Zambezi Resources in 2022.")
    assert ("P31", "Fearnhaug Partners", "shipbroker") in facts(
        extractor, "Analysts at Oslo shipbroker Fearnhaug Partners said activity had picked up.")
    assert ("P31", "Tsurugi Corporation", "trading house") in facts(
        extractor, "It received an offer from Japanese trading house Tsurugi Corporation on Monday.")
    assert ("P31", "Nyame Dua Foundation", "charity") in facts(
        extractor, "The Nyame Dua Foundation, a Kumasi-based charity, has donated four machines.")
    # a person's trade before a name is no class; a judging word is cut off the class
    assert not any(r == "P31" for r, _, _ in facts(extractor, "She met the novelist Sarah Quinlan."))
    assert org_class("struggling retailer", True) == "retailer"
    assert org_class("venture capital firm", False) == "venture capital firm"
    assert org_class("copper producer", False) is None          # no firm's noun, and not known as a firm
    assert org_class("chairman", True) is None                   # a position
    assert org_class("family favourite", True) is None           # no trade, no firm's noun


def test_an_age_between_a_name_and_its_position(extractor):
    got = facts(extractor, "Robert Kessler III, 61, Kessler's chief executive, will join the board.")
    assert {("P39", "Robert Kessler III", "chief executive"), ("P3629", "Robert Kessler III", "61")} <= got
    got = facts(extractor, "Paul Ames, 52, chief economist at Tellus Bank, said rates would fall.")
    assert ("P108", "Paul Ames", "Tellus Bank") in got
    # a number that is no age between commas leaves the name without a position
    assert not any(r == "P39" for r, _, _ in facts(extractor, "Sales rose to 4,000, chief executive said."))


def test_a_firm_announcing_its_people(extractor):
    got = facts(extractor, "Harlow Mining said its chief financial officer, Annelie Botha, would step in.")
    assert ("P39", "Annelie Botha", "chief financial officer") in got
    # a person who says a position names is no employer
    got = facts(extractor, "Mary Hill said chief executive Annelie Botha would serve.")
    assert ("P108", "Annelie Botha", "Mary Hill") not in got


def test_its_after_a_sentence_s_first_name(extractor):
    got = facts(extractor, "Kalahari Platinum has lost its chief executive. "
                           "Annelie Botha, the group's chief financial officer, will serve as interim CEO.")
    assert ("P108", "Annelie Botha", "Kalahari Platinum") in got
    # "its" after the object of a sentence says nothing of the object
    got = facts(extractor, "Korvaan Systems named Lata Iyer as its chief executive.")
    assert ("P169", "Korvaan Systems", "Lata Iyer") in got


def test_a_quoted_title_is_no_person(extractor):
    got = facts(extractor, '"Falling Slowly Home" is a song by Canadian folk duo Harbour Lights. '
                           "It was released on 4 May 1999.")
    assert ("P577", "Falling Slowly Home", "4 May 1999") in got
    assert ("P577", "Harbour Lights", "4 May 1999") not in got


def test_a_name_of_four_words_and_a_run_of_honorifics(extractor):
    got = facts(extractor, "KUL vice-chancellor Prof Datuk Dr Rosli Awang Abang Hamid said talks had begun.")
    assert {("P39", "Rosli Awang Abang Hamid", "vice-chancellor"), ("P108", "Rosli Awang Abang Hamid", "KUL")} <= got
    got = facts(extractor, "Ana María Ruiz Soto, 44, the bank's chief executive, said it.")
    assert ("P3629", "Ana María Ruiz Soto", "44") in got
    # four capitalised words with an organisation's word are no person
    assert not any(r == "P3629" for r, _, _ in facts(extractor, "Kessler Precision Tool Company, 44, said it."))


def test_a_team_s_player(extractor):
    assert ("P54", "Tom Eddery", "Kingsford Rovers") in facts(extractor, "Kingsford Rovers' Tom Eddery scored twice.")
    assert ("P54", "Ade Bello", "Harlow United") in facts(extractor, "Harlow United's Ade Bello made two saves.")
    # a place's or a person's possessive says no team
    assert facts(extractor, "Dublin's Aisling Murphy won the race.") == set()
    assert facts(extractor, "Ada Lowe's Tom Eddery said so.") == set()
