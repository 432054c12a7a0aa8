"""The ``rules`` extractor on news sentences: positions, appositions, coreference, amounts,
events, and what it must not read (quotations, a position at a word that is no name).

Every sentence is made up for these tests (invented people and firms); every expected fact is
written by hand from what the sentence says.
"""

from __future__ import annotations

from extract.text.coref import Mentions
from extract.text.roles import role_category
from frame_reading import extractor, sentence_facts as facts  # noqa: F401  (extractor: a fixture)
from extract.text.rules import RulesExtractor




def entities(extractor: RulesExtractor, text: str) -> list[tuple[str, str]]:
    return [(e.text, e.label_) for e in extractor.nlp(text).ents]


# -- the pipeline: positions, titles, amounts, headlines --------------------------------------

def test_a_title_is_cut_off_the_name(extractor):
    assert entities(extractor, "Prime Minister Dana Okafor spoke.")[:2] == [("Prime Minister", "ROLE"),
                                                                         ("Dana Okafor", "NAME")]
    # a first name that is also a title word stays a name
    assert ("Dean Harlow", "NAME") in entities(extractor, "Dean Harlow, 34, was arrested.")


def test_positions_and_amounts_are_entities(extractor):
    found = entities(extractor, "The chief executive said revenue was £14.6bn and the plant employs 1,200 people.")
    assert ("chief executive", "ROLE") in found
    assert ("£14.6bn", "QUANTITY") in found and ("1,200", "QUANTITY") in found
    assert not [e for e in entities(extractor, "Inflation fell to 3.1% in May.") if e[1] == "QUANTITY"]


def test_role_category_reads_the_last_words():
    assert role_category("transport minister") == "office"
    assert role_category("chief executive") == "chief_executive"
    assert role_category("first-team coach") == "coach"
    assert role_category("novelist") == ""


def test_a_headline_is_its_own_sentence(extractor):
    doc = extractor.nlp("Bank chief quits\n\nThe chief executive of Orvel Bank, Ana Pires, resigned.")
    assert [s.text.strip() for s in doc.sents if s.text.strip()][0] == "Bank chief quits"


# -- positions --------------------------------------------------------------------------------

def test_office_before_a_name(extractor):
    found = facts(extractor, "Prime Minister Dana Okafor met the unions on Monday.")
    assert ("P39", "Dana Okafor", "prime minister") in found
    assert not facts(extractor, "The prime minister met the unions on Monday.")


def test_chief_executive_of_an_organisation(extractor):
    found = facts(extractor, "Orvel Bank's chief executive, Ana Pires, said profits rose.")
    assert ("P169", "Orvel Bank", "Ana Pires") in found
    found = facts(extractor, "Tomas Rek, chief economist at Orvel Bank, said rates would fall.")
    assert ("P108", "Tomas Rek", "Orvel Bank") in found and ("P106", "Tomas Rek", "economist") in found


def test_no_position_at_a_word_that_is_no_name(extractor):
    # "Local" starts the sentence capitalised: it is no organisation
    assert not {f for f in facts(extractor, "Local MP Rachel Osei welcomed the decision.") if " of " in f[2]}


def test_a_team_manager_and_a_player(extractor):
    found = facts(extractor, "Kelso Rovers manager Iain Dunbar praised goalkeeper Tom Ware. "
                             "Kelso Rovers goalkeeper Tom Ware made two saves.")
    assert ("P286", "Kelso Rovers", "Iain Dunbar") in found
    assert ("P54", "Tom Ware", "Kelso Rovers") in found


def test_a_finance_director_works_for_the_bank_but_does_not_head_it(extractor):
    found = facts(extractor, "Mark Tull was finance director of Yorvale Bank between 2009 and 2017.")
    assert ("P108", "Mark Tull", "Yorvale Bank") in found
    assert ("P1037", "Yorvale Bank", "Mark Tull") not in found


def test_appointed_as(extractor):
    found = facts(extractor, "The Harwick Gallery has appointed Dr Ines Mora, a curator at the Tate, as its new director.")
    assert ("P1037", "Harwick Gallery", "Ines Mora") in found
    assert not {f for f in facts(extractor, "The Harwick Gallery has appointed a new director.") if f[0] == "P1037"}


def test_who_chairs_and_run_by(extractor):
    found = facts(extractor, "Councillor Jean Pitt, who chairs the Avel Planning Committee, voted against. "
                             "Brill Foods has been run since 2019 by Graham Tull.")
    assert ("P488", "Avel Planning Committee", "Jean Pitt") in found
    assert ("P1037", "Brill Foods", "Graham Tull") in found
    assert not {f for f in facts(extractor, "Brill Foods was advised by Morland Bates.") if f[0] == "P1037"}


def test_nationality_and_occupation_before_a_name(extractor):
    found = facts(extractor, "The prize went to the French actress Claire Montand.")
    assert {("P106", "Claire Montand", "actress"), ("P27", "Claire Montand", "France")} <= found
    assert not {f for f in facts(extractor, "The French team won.") if f[0] == "P27"}


def test_a_demonym_before_an_office_names_its_country(extractor):
    found = facts(extractor, "The talks were hosted by Latvian Prime Minister Edgars Ozols.")
    assert ("P39", "Edgars Ozols", "prime minister of Latvia") in found
    assert ("P39", "Edgars Ozols", "prime minister") not in found


# -- coreference ------------------------------------------------------------------------------

def test_a_pronoun_is_the_last_person_of_its_gender(extractor):
    text = ("Prime Minister Ravi Anand thanked Ms Lena Holt for her work. He appointed Tom Birk as "
            "housing minister.")
    doc = extractor.nlp(text)
    mentions = Mentions(doc)
    he = next(t.i for t in doc if t.text == "He")
    her = next(t.i for t in doc if t.text == "her")
    assert mentions.resolved[he][0] == "Ravi Anand"
    assert mentions.resolved[her][0] == "Lena Holt"


def test_a_surname_and_the_company_stand_for_full_names(extractor):
    found = facts(extractor, "Norvik Foods was founded in 1962. Its chairman, Sir Nigel Ash, is retiring. "
                             "Mr Ash said the company employs about 4,000 people.")
    assert ("P488", "Norvik Foods", "Nigel Ash") in found
    assert ("P1128", "Norvik Foods", "4,000") in found


def test_nothing_is_read_from_a_quotation(extractor):
    assert not facts(extractor, 'Mr Ash said: "Norvik Foods employs 4,000 people and Tom Birk is our chairman."')


def test_a_headline_word_is_no_antecedent(extractor):
    found = facts(extractor, "Councillors approve bridge\n\nThe new bridge will cost £18m. It is based in Derby.")
    assert not {f for f in found if f[1] == "Councillors"}


# -- amounts, organisations -------------------------------------------------------------------

def test_employees_population_revenue(extractor):
    found = facts(extractor, "Caldera Rail, which is based in Derby, employs about 6,000 people. "
                             "Wexford has a population of about 23,000. "
                             "Harbourline Group reported revenue of £14.6bn last year.")
    assert {("P1128", "Caldera Rail", "6,000"), ("P159", "Caldera Rail", "Derby"),
            ("P1082", "Wexford", "23,000"), ("P2139", "Harbourline Group", "£14.6bn")} <= found


def test_an_amount_needs_an_organisation_or_money(extractor):
    # a place employs nobody; a cost is money
    assert not {f for f in facts(extractor, "A factory near Lisbon is expected to employ 400 people.")
                if f[0] == "P1128"}
    assert not {f for f in facts(extractor, "The Orla Bridge will cost 40 days of work.") if f[0] == "P2130"}
    assert ("P2130", "Orla Bridge", "£18 million") in facts(extractor, "The Orla Bridge is expected to cost £18 million.")


def test_based_adjective_and_subsidiary(extractor):
    found = facts(extractor, "The film was made by Tbilisi-based Mtsvane Films. "
                             "Meridian Mobile is a subsidiary of the Dutch group Oranje Telecom.")
    assert ("P159", "Mtsvane Films", "Tbilisi") in found
    assert ("P749", "Meridian Mobile", "Oranje Telecom") in found


# -- events and prizes ------------------------------------------------------------------------

def test_event_place_and_winner(extractor):
    found = facts(extractor, "The Baltic Energy Summit was held in Riga. Elsa Lind won the Madrid Open in May.")
    assert ("P276", "Baltic Energy Summit", "Riga") in found
    assert ("P1346", "Madrid Open", "Elsa Lind") in found
    # a place is held by no one: not an event
    assert not {f for f in facts(extractor, "Talks were held in Riga.") if f[0] == "P276"}


def test_a_prize_won(extractor):
    found = facts(extractor, "Her novel won the Calloway Prize in 1993. Mira Stone received the Hughes Medal.")
    assert ("P166", "Mira Stone", "Hughes Medal") in found
    assert not {f for f in facts(extractor, "Mira Stone won the vote.") if f[0] in ("P166", "P1346")}


def test_born_at_the_start_and_educated_at(extractor):
    found = facts(extractor, "Born in Burnley in 1940, the daughter of a weaver, Ellen Vance left school at 15. "
                             "She read physics at the University of Aberdeen.")
    assert {("P19", "Ellen Vance", "Burnley"), ("P569", "Ellen Vance", "1940"),
            ("P69", "Ellen Vance", "University of Aberdeen")} <= found
    assert not {f for f in facts(extractor, "Ellen Vance received a letter from the Burnley Times.")
                if f[0] == "P69"}
