"""The second round of news frames (issue 17, part 3): doers of passives, owners, a firm's
country and home, its workforce; families, residence, birthplace adjectives, past employers.

Every sentence is made up for these tests (invented people and firms, not taken from the news
corpus); every expected fact is written by hand from what the sentence says. Each frame has a
sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts, sentence_relations as relations  # noqa: F401





# -- organisations -------------------------------------------------------------------------

def test_taken_over_by(extractor):
    assert ("P127", "Tolland Bank", "Greystone Bank") in facts(
        extractor, "Tolland Bank, which was taken over by Greystone Bank in 2016, said it would appeal.")
    assert ("P127", "Marwick Foods", "Quarry Capital") in facts(
        extractor, "Marwick Foods was bought by the private equity firm Quarry Capital in 2011.")
    # agreed, not done: no owner yet
    assert "P127" not in relations(extractor, "Ostrava Tools has agreed to be bought by Kessel Gruppe for €90m.")


def test_founded_by_a_described_person(extractor):
    assert ("P112", "Lumen Foods", "Harold Pike") in facts(
        extractor, "Lumen Foods was founded in 1932 by the farmer Harold Pike.")
    assert "P112" not in relations(extractor, "Lumen Foods was founded in 1932 in the village of Stow.")


def test_led_by_after_a_comma(extractor):
    assert ("P1037", "Radical Alliance", "Petra Sand") in facts(
        extractor, "Petra Sand is a former teacher. The Radical Alliance, led by Petra Sand, won 12 seats.")
    assert "P1037" not in relations(extractor, "The Radical Alliance, backed by Petra Sand, won 12 seats.")


def test_won_by(extractor):
    assert ("P1346", "Harwick Marathon", "Amos Kirui") in facts(
        extractor, "Amos Kirui is a runner. The Harwick Marathon was won by Amos Kirui in 2:09:10.")
    assert "P1346" not in relations(extractor, "The Harwick Marathon was sponsored by Amos Kirui.")


def test_a_firm_of_a_nationality(extractor):
    assert ("P17", "Rheinwerk Antriebe", "Germany") in facts(
        extractor, "The deal was agreed with the German engineering group Rheinwerk Antriebe on Monday.")
    assert ("P17", "Solberg Kraft", "Norway") in facts(
        extractor, "Its largest customer is Solberg Kraft, the Norwegian turbine maker.")
    # a nationality before a person's noun gives a firm no country
    assert ("P17", "Maria Keane", "Ireland") not in facts(extractor, "The Irish novelist Maria Keane spoke.")
    assert "P17" not in relations(extractor, "The American record producer Dave Lomax spoke.")


def test_a_firm_of_a_place(extractor):
    assert ("P159", "Tillery & Co", "Bristol") in facts(
        extractor, "In 2020 Harbury Foods bought Tillery & Co, a Bristol bakery chain.")
    assert "P159" not in relations(extractor, "In 2020 Harbury Foods bought Tillery & Co, a bakery chain.")


def test_has_its_headquarters_in(extractor):
    assert ("P159", "Vossberg Holding", "Munich") in facts(
        extractor, "Vossberg Holding, which has its headquarters in Munich, makes gearboxes.")
    assert "P159" not in relations(extractor, "Vossberg Holding, which has a factory in Munich, makes gearboxes.")


def test_workforce_of(extractor):
    assert ("P1128", "Quillmark", "310") in facts(
        extractor, "Quillmark plans to double its workforce of 310 by next year.")
    assert "P1128" not in relations(extractor, "Quillmark plans to double its sales of 310 units by next year.")


# -- people --------------------------------------------------------------------------------

def test_family_after_a_possessive(extractor):
    found = facts(extractor, "Arthur Penhale died on Monday. He is survived by his daughter, Ruth Penhale. "
                             "His brother Walter Penhale paid tribute.")
    assert ("P40", "Arthur Penhale", "Ruth Penhale") in found
    assert ("P3373", "Arthur Penhale", "Walter Penhale") in found
    assert ("P26", "Anna Morrow", "Tobias Reyes") in facts(
        extractor, "Anna Morrow lives in Leeds with her husband, the architect Tobias Reyes.")
    # a firm's "son" is no child
    assert "P40" not in relations(extractor, "Harrow Tools said its chief executive, Dan Grey, had left.")


def test_kin_of_a_kin_is_not_read(extractor):
    found = facts(extractor, "Edith Carr died on Monday. She is survived by her son, Paul Carr, "
                             "and his daughter Amy Carr.")
    assert ("P40", "Edith Carr", "Paul Carr") in found
    assert not {f for f in found if f[0] == "P40" and f[2] == "Amy Carr"}  # whose "his" is unclear


def test_residence_in_a_court_report(extractor):
    assert ("P551", "Gary Holt", "Wakefield") in facts(
        extractor, "Gary Holt, 44, of Orchard Road, Wakefield, was jailed for three years.")
    assert ("P551", "Leah Munro", "Dundee") in facts(
        extractor, "Leah Munro, 27, from Dundee, admitted the offence.")
    # an age and an organisation: "of" the firm is no home
    assert "P551" not in relations(extractor, "Gary Holt, 44, of Holt Logistics Ltd, was fined.")


def test_lives_in(extractor):
    assert ("P551", "Nadia Orlov", "Hackney") in facts(
        extractor, "Nadia Orlov is a painter. She lives in Hackney with her two children.")
    assert "P551" not in relations(extractor, "Nadia Orlov is a painter. She works in Hackney.")


def test_born_adjective(extractor):
    assert ("P19", "Samuel Adebayo", "Ghana") in facts(
        extractor, "The Ghanaian-born striker Samuel Adebayo scored twice.")
    assert "P19" not in relations(extractor, "The Ghanaian striker Samuel Adebayo scored twice.")


def test_worked_as_and_was_a_role_at(extractor):
    found = facts(extractor, "Lena Fosse founded the firm in 2019. Fosse previously worked as an engineer at "
                             "Norsk Data Systems.")
    assert ("P108", "Lena Fosse", "Norsk Data Systems") in found
    assert ("P106", "Lena Fosse", "engineer") in found
    assert "P108" not in relations(extractor, "Lena Fosse founded the firm. Fosse previously worked as an engineer.")
