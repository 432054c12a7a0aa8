"""The fourth round of news frames (issue 17, part 3): births, homes, occupations and employers
said in passing, buildings and their places, datelines, openings, costs and years of named
things, positions in a firm's own story, and names the blank pipeline used to cut.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts, sentence_relations as relations  # noqa: F401



def test_native_of(extractor):
    assert ("P19", "Tomas Brevik", "Tromsø") in facts(
        extractor, "A native of Tromsø, Tomas Brevik studied law before turning to politics.")
    assert ("P19", "Ines Morla", "Bilbao") in facts(extractor, "Ines Morla, a native of Bilbao, won the vote.")
    # a native plant of a place says nothing of a person's birth
    assert "P19" not in relations(extractor, "Ines Morla grows heather, a native of Bilbao's hills, at home.")


def test_described_from(extractor):
    assert ("P551", "Gil Avery", "Tucumcari") in facts(
        extractor, "Gil Avery, a retired plumber from Tucumcari, found the coins.")
    # a firm "from" a city is no resident
    assert "P551" not in relations(extractor, "Orvane Systems, a spin-off from Leeds University, was sold.")


def test_trained_as(extractor):
    assert ("P106", "Ruth Okello", "midwife") in facts(
        extractor, "Ruth Okello trained as a midwife in Kampala before moving to Bristol.")
    # "as" a word that is no occupation
    assert "P106" not in relations(extractor, "Ruth Okello trained as a matter of routine before every race.")


def test_aged_apposition(extractor):
    got = facts(extractor, "Ms Dana Krell, a 52-year-old former paramedic, gave evidence on Monday.")
    assert ("P106", "Dana Krell", "paramedic") in got
    # an age with no position after it
    assert "P106" not in relations(extractor, "Ms Dana Krell, a 52-year-old mother of three, gave evidence.")


def test_occupation_after_a_who_aside(extractor):
    assert ("P106", "Edith Marr", "physicist") in facts(
        extractor, "Professor Edith Marr, who has died aged 88, was a physicist whose work shaped radar.")
    # the "who" clause's own object is not the occupation of anyone
    assert "P106" not in relations(extractor, "Edith Marr, who hired a physicist, was in court on Monday.")


def test_taught_at(extractor):
    got = facts(extractor, "Dr Hal Brenner, a chemist, taught chemistry at Colwyn University for a decade.")
    assert ("P108", "Hal Brenner", "Colwyn University") in got
    assert ("P108", "Lea Doumbia", "Ashfield College") in facts(
        extractor, "Lea Doumbia completed her doctorate in Paris and taught at Ashfield College until 2015.")
    # a place taught about is no employer
    assert "P108" not in relations(extractor, "Dr Hal Brenner taught the history of Colwyn Castle to pupils.")


def test_facility_in(extractor):
    assert ("P131", "Harwell Museum", "Didcot") in facts(
        extractor, "The Harwell Museum in Didcot has named a new curator.")
    # a party or a firm "in" a place is not located there
    assert "P131" not in relations(extractor, "The Unity Party in Norland said it would vote against.")


def test_dateline(extractor):
    got = facts(extractor, "VALMORE, Manitoba (CP) — A grain elevator collapsed on Tuesday.")
    assert ("P131", "Valmore", "Manitoba") in got
    # a name, a comma and a place, with no agency after it, is no dateline
    assert "P131" not in relations(extractor, "Valmore, Manitoba and Ontario signed the accord.")


def test_opened_and_built_in(extractor):
    assert ("P571", "Corran Library", "1931") in facts(
        extractor, "The Corran Library, which opened in 1931, will close for repairs.")
    assert ("P571", "Ashby Bridge", "1957") in facts(extractor, "The Ashby Bridge was built in 1957.")
    # a date without a year is no inception; a person who opened a shop was not opened
    assert "P571" not in relations(extractor, "The Corran Library opened on 14 March.")
    assert "P571" not in relations(extractor, "Ms Ada Corran opened a bakery in 1931.")


def test_cost_before_name(extractor):
    assert ("P2130", "Fenby Hub", "£6.5 million") in facts(
        extractor, "The £6.5 million Fenby Hub, on Mill Road, opened on Saturday.")
    # a count of people before a name is no cost
    assert "P2130" not in relations(extractor, "The 6,000 Fenby Rovers fans sang throughout.")


def test_work_year(extractor):
    assert ("P577", "Salt Meadows", "1987") in facts(
        extractor, 'She wrote nine novels, including "Salt Meadows" (1987).')
    # a year in brackets after a person's name is no publication
    assert "P577" not in relations(extractor, "The prize went to Ama Boateng (1987) of Kumasi.")


def test_top_role_in_a_firms_story(extractor):
    text = ("Brannock Foods reported a loss on Monday. "
            "Chief executive Ola Sandvik said the winter had been hard.")
    assert ("P169", "Brannock Foods", "Ola Sandvik") in facts(extractor, text)
    # in a story about a person, a bare position names no organisation
    text = "Ola Sandvik won the race on Monday. Chief executive Ivo Marsh said it was a great day."
    assert "P169" not in relations(extractor, text)


def test_headline_occupation_cut_off_the_name(extractor):
    got = facts(extractor, "Sculptor Ines Falka dies at 90\n\nInes Falka, whose bronzes stand in many towns, has died.")
    assert ("P106", "Ines Falka", "sculptor") in got
    assert not any(head.startswith("Sculptor") for _, head, _ in got)
    # a firm's name that starts with an occupation word is left whole
    assert extractor.nlp("Farmer Brothers Group said profits fell.").ents[0].text == "Farmer Brothers Group"


def test_names_no_longer_cut(extractor):
    doc = extractor.nlp("She moved to Kingston upon Thames and later to Walton-on-the-Naze. "
                        "He was treated at St Anne's Hospital. The Data Commissioner's Office fined it.")
    names = {e.text for e in doc.ents}
    assert {"Kingston upon Thames", "Walton-on-the-Naze", "St Anne's Hospital", "Data Commissioner's Office"} <= names
    # a possessive before any other word still ends a name
    assert "Harbin's" not in " ".join(e.text for e in extractor.nlp("Harbin's chief executive, Ada Vell, spoke.").ents)


def test_no_head_from_a_plural_noun_or_after_a_preposition(extractor):
    assert "P159" not in relations(extractor, "Fishermen based in Porthallow said the turbines would hurt them.")
    assert "P31" not in relations(extractor, "In Norland, the opposition has accused the government of lying.")
    # a place is no organisation to direct
    got = facts(extractor, "The Penrith Gallery in Carlisle has appointed Dr Ana Viel as its new director.")
    assert ("P1037", "Penrith Gallery", "Ana Viel") in got
    assert not any(head == "Carlisle" for _, head, _ in got)
