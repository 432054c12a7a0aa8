"""The eleventh round of news frames (issue 17, part 3), written from the misses that the gold
facts of heldout5 to heldout10 showed, and measured once on heldout11: occupations before a name
after a comma or with an honorific between, trades the gazetteer lacked ("vet", "fisherman"),
positions with their field ("head of research at X"), buildings placed after any preposition
or verb, events placed with ``P276``, a thing's class and place in an apposition ("X, a
32-storey office building in Y"), and no "Montreal" of "the Montreal-born pianist" as a head.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts  # noqa: F401


def test_an_occupation_after_a_comma_or_before_an_honorific(extractor):
    got = facts(extractor, "The first caller, electrician Owen Prydderch, reported the theft.")
    assert ("P106", "Owen Prydderch", "electrician") in got
    got = facts(extractor, "The songs were recorded by the folklorist Dr Aoife Ní Mhurchú in 1971.")
    assert ("P106", "Aoife Ní Mhurchú", "folklorist") in got
    # a plural is no occupation of the name after it
    assert facts(extractor, "After the fishermen, Tomas Ruiz spoke.") == set()


def test_trades_the_gazetteer_lacked(extractor):
    got = facts(extractor, "She married Colm Brady, a vet, in 1969.")
    assert ("P106", "Colm Brady", "vet") in got
    assert ("P31", "Colm Brady", "vet") not in got   # a person's trade, not a class
    got = facts(extractor, "In Barrio Lindo, fisherman Rodel Macaraeg, 52, said the sea was rising.")
    assert {("P106", "Rodel Macaraeg", "fisherman"), ("P3629", "Rodel Macaraeg", "52")} <= got
    assert facts(extractor, "He was taken to the vet on Monday.") == set()


def test_an_analyst_is_a_trade_and_a_position_at_the_firm(extractor):
    got = facts(extractor, '"The cycle has turned," said Mira Castell, an analyst at Hollin & Vane.')
    assert {("P106", "Mira Castell", "analyst"), ("P108", "Mira Castell", "Hollin & Vane")} <= got


def test_a_position_with_its_field(extractor):
    got = facts(extractor, "Ines Correia, head of research at Tagus Capital Partners, said demand was firm.")
    assert {("P39", "Ines Correia", "head of research"), ("P108", "Ines Correia", "Tagus Capital Partners")} <= got
    # the head of a field works there; she does not head the firm
    assert not {f for f in got if f[0] == "P1037"}
    got = facts(extractor, "Dr Sana Mir, head of the cardiology department at Ravi General Hospital, said so.")
    assert ("P39", "Sana Mir", "head of the cardiology department") in got
    # "of the" + a word that names no unit is the organisation, not the field
    got = facts(extractor, "Lena Vos, director of the museum, said the loan was agreed.")
    assert not {f for f in got if f[0] == "P39" and " of " in f[2]}
    assert facts(extractor, "The head of state arrived on Tuesday.") == set()


def test_a_building_placed_after_a_preposition_or_a_verb(extractor):
    got = facts(extractor, "Growers protested outside Kapsimo Tea Factory in Bomet, demanding their bonus.")
    assert ("P131", "Kapsimo Tea Factory", "Bomet") in got
    # a court where a case is heard is no place the hospital lies in
    assert facts(extractor, "The family sued Northfield Hospital in the High Court.") == set()
    # a person whose surname is a building's word is no building
    assert facts(extractor, "She visited Jessica Hall in Leeds, where she lives.") == set()


def test_an_event_takes_place_somewhere(extractor):
    got = facts(extractor, "Anna Berg, who took second prize at the Lindqvist Violin Competition in Malmo last "
                           "year, plays tonight.")
    assert ("P276", "Lindqvist Violin Competition", "Malmo") in got
    assert ("P131", "Lindqvist Violin Competition", "Malmo") not in got
    assert ("P1344", "Anna Berg", "Lindqvist Violin Competition") in got
    # "the Montreal-born pianist": the name only describes her
    got = facts(extractor, "The Toronto-born pianist, who took second prize at the Lindqvist Violin Competition in "
                           "Malmo, plays tonight.")
    assert not {f for f in got if f[0] == "P1344"}


def test_a_things_class_and_place_in_an_apposition(extractor):
    got = facts(extractor, "Halyard Tower, a 28-storey office building in Marlow Quay, was sold on Monday.")
    assert ("P131", "Halyard Tower", "Marlow Quay") in got
    got = facts(extractor, "The Ferncliffe Residences, a 360-unit condominium in Bukit Meran, sold 200 units.")
    assert ("P131", "Ferncliffe Residences", "Bukit Meran") in got
    # a person is no thing with a place: a nurse in Leeds works there
    got = facts(extractor, "Maria Lopez, a nurse in Leeds, said she was tired.")
    assert ("P106", "Maria Lopez", "nurse") in got
    assert not {f for f in got if f[0] == "P131"}
