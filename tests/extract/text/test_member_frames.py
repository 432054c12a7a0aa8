"""The third round of news frames (issue 17, part 4): parties, seats, playing positions,
leagues, "X of Y" names, and founders anchored on the clause's subject.

Every sentence is made up for these tests (invented people, firms and seats, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts, sentence_relations as relations  # noqa: F401





def test_party_in_position(extractor):
    got = facts(extractor, "Labour MP Moira Quell said the plan was unfair.")
    assert ("P102", "Moira Quell", "Labour Party") in got
    assert ("P39", "Moira Quell", "MP") in got
    # a minister with no party word: no party
    assert "P102" not in relations(extractor, "Transport minister Moira Quell said the plan was unfair.")


def test_party_apposition_and_candidate(extractor):
    assert ("P102", "Dara Fenwick", "Democratic Party") in facts(
        extractor, "The bill was written by Dara Fenwick, a Democrat from Fresno.")
    assert ("P102", "Ravi Sandhu", "Conservative Party") in facts(
        extractor, "Ina Lund lost her seat to the Conservative candidate Ravi Sandhu.")
    # a word after "a" that is no party
    assert "P102" not in relations(extractor, "The bill was written by Dara Fenwick, a Californian from Fresno.")


def test_seat(extractor):
    got = facts(extractor, "Moira Quell was elected Conservative MP for Wiltshire Vale in 1997.")
    assert ("P768", "Moira Quell", "Wiltshire Vale") in got
    assert ("P102", "Moira Quell", "Conservative Party") in got
    # a position with no seat: "director for Europe" names a region, not a constituency
    assert "P768" not in relations(extractor, "Moira Quell was appointed sales director for Europe in 1997.")


def test_playing_position(extractor):
    got = facts(extractor, "Rovers goalkeeper Tom Eddery made two fine saves.")
    assert ("P413", "Tom Eddery", "goalkeeper") in got
    assert ("P54", "Tom Eddery", "Rovers") in got
    # a captain is no playing position
    assert "P413" not in relations(extractor, "Rovers captain Tom Eddery made two fine saves.")


def test_league(extractor):
    assert ("P118", "Ashby Rovers", "Premier League") in facts(
        extractor, "Callum Reid joined Premier League side Ashby Rovers for £4m.")
    # a name before "side" that is no league
    assert "P118" not in relations(extractor, "Callum Reid joined Yorkshire side Ashby Rovers for £4m.")


def test_person_of_organisation(extractor):
    assert ("P108", "Jane Brodie", "Cardiff University") in facts(
        extractor, "A team led by Jane Brodie of Cardiff University reported the find.")
    # "University of Tromsø" is one name, not a person of a place
    assert "P108" not in relations(extractor, "Researchers at the University of Tromsø reported the find.")


def test_founded_by_anchored_on_subject(extractor):
    got = facts(extractor, "Corvane, which employs 850 people in Galway and Limerick, was founded in 1997 by Sean Tully.")
    assert ("P112", "Corvane", "Sean Tully") in got
    assert ("P571", "Corvane", "1997") in got
    assert not {f for f in got if f[0] in ("P112", "P571") and f[1] in ("Galway", "Limerick")}


def test_represented_since(extractor):
    assert ("P768", "Nia Thorley", "Ashby Vale") in facts(
        extractor, "Nia Thorley, 52, who has represented Ashby Vale since 2015, resigned on Tuesday.")
    # a country represented at a tournament is no seat
    assert "P768" not in relations(extractor, "Nia Thorley, who has represented Kenya since 2015, won in Doha.")


def test_org_hires_role_name(extractor):
    assert ("P286", "Corby Athletic", "Iain Rusk") in facts(
        extractor, "Corby Athletic have sacked manager Iain Rusk after six straight defeats.")
    # the position before the name is not the club's: a fan is no position
    assert "P286" not in relations(extractor, "Corby Athletic have angered supporter Iain Rusk after six defeats.")


def test_name_org_position(extractor):
    got = facts(extractor, "First-team coach Mark Ellwood, a former Corby Athletic defender, will take charge.")
    assert ("P54", "Mark Ellwood", "Corby Athletic") in got
    assert ("P413", "Mark Ellwood", "defender") in got
    assert "P54" not in relations(extractor, "First-team coach Mark Ellwood, a former Corby Athletic fan, will take charge.")


def test_owner_with_nationality(extractor):
    got = facts(extractor, "Corby Athletic's American owner, Brad Kessell, has faced criticism.")
    assert ("P127", "Corby Athletic", "Brad Kessell") in got
    assert ("P27", "Brad Kessell", "United States") in got
    assert "P27" not in relations(extractor, "Corby Athletic's owner, Brad Kessell, has faced criticism.")


def test_obituary_pronoun_and_death(extractor):
    text = ("Edna Pask, novelist, dies at 84\n\nEdna Pask has died at the age of 84. The novelist Mary Dunn "
            "called her a friend. In 1967 she married Robert Pask, an engineer, who died in 2011.")
    got = facts(extractor, text)
    assert ("P26", "Edna Pask", "Robert Pask") in got
    assert ("P570", "Robert Pask", "2011") in got
    assert ("P570", "Edna Pask", "2011") not in got and ("P26", "Mary Dunn", "Robert Pask") not in got


def test_nationality_before_name(extractor):
    got = facts(extractor, "Kenyan runner Ruth Kamau won. Ethiopia's Almaz Bekele was second. "
                           "The men's race was won by Ugandan Moses Okello.")
    assert {("P27", "Ruth Kamau", "Kenya"), ("P27", "Almaz Bekele", "Ethiopia"),
            ("P27", "Moses Okello", "Uganda")} <= got
    # a nationality before a firm says where the firm is from, not a citizenship
    assert "P27" not in relations(extractor, "The German carmaker Voss Motoren Gruppe said profits fell.")


def test_whose_role_name(extractor):
    assert ("P169", "Tarnwell Libraries Trust", "Clara Hewes") in facts(
        extractor, "It will be run by a charity, Tarnwell Libraries Trust, whose chief executive, Clara Hewes, said so.")
    assert "P169" not in relations(extractor, "It will be run by Tarnwell Libraries Trust, whose volunteers said so.")


def test_role_at_described_org(extractor):
    assert ("P108", "Aine Dolan", "Dunmore Audit Group") in facts(
        extractor, "Aine Dolan, a former partner at the accountancy firm Dunmore Audit Group, spoke.")
    # a place after the described words is no employer
    assert "P108" not in relations(extractor, "Aine Dolan, a former partner at the firm in Leeds, spoke.")


def test_founded_participle(extractor):
    got = facts(extractor, "The Whitford Gallery, founded in 1901 by the shipping magnate Angus Whitford, holds 900 works.")
    assert ("P571", "Whitford Gallery", "1901") in got
    assert ("P112", "Whitford Gallery", "Angus Whitford") in got
    assert "P112" not in relations(extractor, "The Whitford Gallery, visited in 1901 by Angus Whitford, holds 900 works.")
