"""The sixth round of news frames (issue 17, part 3): descriptions of people that open a
sentence, firms by their first word, abbreviated titles, fronted positions, trades, operators,
foundings in a year, residence after "who", names with an inner apostrophe, and what a
person-shaped name is not (a class, a "couple").

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
rule has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts, sentence_relations as relations  # noqa: F401
from extract.text.normalize import resolve_short_mentions
from extract.text.units import Triple



def test_description_of_a_person(extractor):
    text = ("Harwick sack Doyle\n\nHarwick Rovers have sacked manager Iain Doyle. "
            "The 52-year-old former Caldmoor midfielder was dismissed on Sunday.")
    got = facts(extractor, text)
    assert {("P54", "Iain Doyle", "Caldmoor"), ("P413", "Iain Doyle", "midfielder")} <= got
    text = "Emi Sato won the final. The Japanese player was born in Kobe in 2002."
    assert {("P27", "Emi Sato", "Japan"), ("P19", "Emi Sato", "Kobe"), ("P569", "Emi Sato", "2002")} <= facts(
        extractor, text)
    # "The" with no age, nationality, status or team before the noun is no description of a person
    assert "P19" not in relations(extractor, "Emi Sato won the final. The player was born in Kobe in 2002.")


def test_description_takes_the_person_named_last(extractor):
    text = "Ana Ruiz headed in a corner from Tomas Vidal. The Portuguese winger was a constant threat."
    got = facts(extractor, text)
    assert ("P27", "Tomas Vidal", "Portugal") in got
    assert ("P27", "Ana Ruiz", "Portugal") not in got


def test_firm_by_its_first_word(extractor):
    text = ("Bengaluru-based firm Korvaan Systems named Lata Iyer as its chief executive. "
            "Iyer joined Korvaan in 2008 from a consulting firm.")
    assert ("P108", "Lata Iyer", "Korvaan Systems") in facts(extractor, text)
    # a place's name is no short name of the institution named after it
    text = "He studied at Balliol College, Oxford, and was president of the Oxford Union."
    assert ("P131", "Balliol College", "Oxford Union") not in facts(extractor, text)


def test_short_firm_names_at_graph_level():
    """"Zuidwind" in a firm's slot is Zuidwind Airlines; "Harlow" in a place's slot stays Harlow,
    and so does the head of an inception, which is as often a town as a firm."""
    triples = [Triple("Zuidwind Airlines", "P169", "Joost Smit", "p", "rules", "organization", "person", "e"),
               Triple("Zuidwind", "P1128", "4,100", "p", "rules", "", "quantity", "e"),
               Triple("Harlow Harriers", "P488", "Peter Blunt", "p", "rules", "organization", "person", "e"),
               Triple("St Clare's Hospice", "P131", "Harlow", "p", "rules", "", "", "e"),
               Triple("Harlow", "P571", "1947", "p", "rules", "", "date", "e")]
    got = {(t.head, t.relation, t.tail) for t in resolve_short_mentions(triples)}
    assert ("Zuidwind Airlines", "P1128", "4,100") in got
    assert ("St Clare's Hospice", "P131", "Harlow") in got
    assert ("Harlow", "P571", "1947") in got


def test_abbreviated_titles(extractor):
    got = facts(extractor, "WASHINGTON (AP) — Sen. Karin Holt, a Minnesota Democrat, will not run again.")
    assert ("P39", "Karin Holt", "senator") in got
    assert ("P39", "Lou Vega", "representative") in facts(extractor, "Rep. Lou Vega said nothing on Thursday.")
    # "rep" that is no title before a name
    assert "P39" not in relations(extractor, "Lou Vega did one more rep before the bell.")


def test_fronted_positions(extractor):
    got = facts(extractor, "A former county prosecutor, Holt chairs the Senate Farm Committee.")
    assert ("P106", "Holt", "prosecutor") in got
    # a fronted position with no name after its comma
    assert "P106" not in relations(extractor, "A former county prosecutor, she said, would know.")


def test_traded_player(extractor):
    got = facts(extractor, "The Hamilton Larks traded veteran defenceman Luc Girard to the Calgary Wolves on Friday.")
    assert {("P54", "Luc Girard", "Hamilton Larks"), ("P54", "Luc Girard", "Calgary Wolves")} <= got
    # traded goods are no players
    assert "P54" not in relations(extractor, "The Hamilton Larks traded jokes with the Calgary Wolves on Friday.")


def test_operator_of_a_home(extractor):
    got = facts(extractor, "Thornby Hospital, a clinic in Derby, is run by Elmgate Care Group, a Derby-based company.")
    assert ("Thornby Hospital", "Elmgate Care Group") in {(h, t) for r, h, t in got if r == "P137"}
    assert "Derby" not in {h for r, h, t in got if r == "P137"}  # the place inside the aside runs nothing
    # run by a person: a head, no operator
    assert "P137" not in relations(extractor, "Thornby Lodge is run by Ms Jane Rook, a nurse.")


def test_founded_an_organisation_in_a_year(extractor):
    got = facts(extractor, "The Verhaegens, who founded the private bank Verhaegen & Cie in Antwerp in 1921, own it.")
    assert ("P571", "Verhaegen & Cie", "1921") in got
    assert "P571" not in relations(extractor, "The Verhaegens, who founded the bank Verhaegen & Cie, moved to Antwerp in 1921.")


def test_residence_after_who(extractor):
    assert ("P551", "Hanna Gelb", "Edinburgh") in facts(extractor, "The writer Hanna Gelb, who lives in Edinburgh, won.")
    assert "P551" not in relations(extractor, "The writer Hanna Gelb, who lives for the theatre, won.")


def test_inner_apostrophe_names(extractor):
    got = facts(extractor, "The petition was filed by former Senator Grace Wanjiru Ndung'u on Monday.")
    assert ("P39", "Grace Wanjiru Ndung'u", "senator") in got
    # a possessive is no part of a name
    assert not any(h.endswith("'s") for _, h, _ in facts(extractor, "Senator Grace Wanjiru's case was heard."))


def test_bare_leader_says_too_little(extractor):
    assert "P39" not in relations(extractor, "Speaking on Friday, site leader Dr Orla Fitz said it was good news.")
    got = facts(extractor, "Labour Party leader Orla Fitz said so.")  # a leader of something named is kept
    assert ("P102", "Orla Fitz", "Labour Party") in got and ("P39", "Orla Fitz", "party leader") in got


def test_backed_is_no_nationality(extractor):
    got = facts(extractor, "The seller is Halvard Capital, a Norwegian-backed real estate fund.")
    assert ("P17", "Halvard Capital", "Norway") not in got
    assert ("P17", "Halvard Capital", "Norway") in facts(
        extractor, "The seller is Halvard Capital, a Norwegian real estate fund.")


def test_person_shaped_heads_take_a_trade(extractor):
    got = facts(extractor, "The estate was bought in 1887 by Auguste Delmont, a Bordeaux cooper.")
    assert ("P106", "Auguste Delmont", "cooper") in got and "P31" not in {r for r, h, t in got}
    assert not any(r == "P31" and h == "Renee Kubek" for r, h, _ in facts(
        extractor, "The case was brought by Dale and Renee Kubek, a retired couple."))
    # a thing whose name ends in an English word keeps its class
    assert ("P31", "Todd Glacier", "glacier") in facts(extractor, "Todd Glacier is a glacier in Antarctica.")


def test_currency_codes_are_no_organisations(extractor):
    """Found on heldout6 after its measurement: "the company" went to "CHF"."""
    text = ("Maison Verlaine sold for CHF 640 million\n\nThe watchmaker Maison Verlaine, whose watches sell for "
            "CHF 25,000, employs 480 people. The company was founded in 1846 by Jules Verlaine.")
    got = facts(extractor, text)
    assert ("P112", "Maison Verlaine", "Jules Verlaine") in got
    assert not any("CHF" in (h, t) for _, h, t in got)


# -- cases a review of rounds 5 and 6 found (each was wrong before its fix)

def test_a_place_is_no_short_name_of_a_firm(extractor):
    text = "Ada Kerr joined the New York Times in 2001. New York governor Tom Pike praised her."
    got = facts(extractor, text)
    assert not any("New York Times" in t for r, h, t in got if r == "P39")


def test_an_organisation_word_outweighs_a_place_word(extractor):
    got = facts(extractor, "Mount Sinai Hospital, which employs 4,000 people, was founded in 1852.")
    assert ("P1128", "Mount Sinai Hospital", "4,000") in got


def test_a_person_placed_elsewhere_is_not_the_story_s(extractor):
    text = ("Brill Foods profits rise\n\nBrill Foods, the Leeds-based group, reported higher profits. "
            "Managing director Ada Kerr of Velnor Bank said the results were strong.")
    got = facts(extractor, text)
    assert ("P1037", "Brill Foods", "Ada Kerr") not in got


def test_an_institution_noun_is_no_story_firm(extractor):
    text = ("Brill Foods profits rise\n\nBrill Foods, the Leeds-based group, reported higher profits. "
            "Brill Foods sponsors a theatre. The theatre was founded in 1901 by Ada Kerr.")
    assert ("P112", "Brill Foods", "Ada Kerr") not in facts(extractor, text)


def test_a_described_office_holder_is_the_office_holder(extractor):
    text = "President Pierre Blanc met Angela Vogt in Paris. The French president said the talks went well."
    got = facts(extractor, text)
    assert ("P27", "Angela Vogt", "France") not in got


def test_a_firm_named_by_an_english_word_inside_a_sentence(extractor):
    got = facts(extractor, "Shares rose after Apple chief executive Tim Cook spoke on Monday.")
    assert ("P169", "Apple", "Tim Cook") in got
    # opening a sentence, a capitalised common word names no firm
    assert not any(r == "P108" and t == "Township" for r, h, t in facts(
        extractor, "Township trustee Gary Pruitt said the board was disappointed."))


def test_kin_and_contests_are_no_trades(extractor):
    assert ("P106", "Rita Vasko", "mother") not in facts(extractor, "Mother Rita Vasko founded the shelter in 1990.")
    assert "P106" not in relations(extractor, "Anna Berg, a finalist, lost in straight sets.")


def test_an_english_surname_still_makes_a_person(extractor):
    got = facts(extractor, "The estate was bought in 1887 by John Smith, a Bordeaux cooper.")
    assert ("P31", "John Smith", "bordeaux cooper") not in got and ("P31", "John Smith", "cooper") not in got
    got = facts(extractor, "The case was brought by Dale and Renee Baker, a retired couple.")
    assert not any(r == "P31" and h == "Renee Baker" for r, h, t in got)


def test_first_names_and_surnames_are_no_firm_words(extractor):
    assert ("P39", "Asa Hutchinson", "governor") in facts(extractor, "Governor Asa Hutchinson signed the bill.")
    assert ("P106", "David Lodge", "novelist") in facts(extractor, "The prize went to the novelist David Lodge.")


def test_a_sales_rep_holds_no_office(extractor):
    assert "P39" not in relations(extractor, "The order was taken by sales rep Jane Doe on Monday.")


def test_a_team_sheet_ends_with_its_sentence(extractor):
    text = ("Kestrels beat Owls\n\nThe Carrow Kestrels beat the Dunham Owls.\n\n"
            "Kestrels: Ali Tane, Sam Oru, Ben Hale, Tom Kerr.\n\nThe Owls were poor. Their coach was angry.\n\n"
            "Reserves: Nico Fay, Rhys Mabb, Jo Pell, Kit Dore.")
    got = facts(extractor, text)
    assert ("P54", "Ali Tane", "Carrow Kestrels") in got
    assert ("P54", "Nico Fay", "Carrow Kestrels") not in got
