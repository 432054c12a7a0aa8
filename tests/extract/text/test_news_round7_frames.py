"""The seventh round of news frames (issue 17, part 3), written from the misses that the gold
facts of heldout5 and heldout6 showed (``bench/news_gold/``): an organisation's class after
its name, and the substitutes of a team sheet.

Every sentence is made up for these tests (invented people, firms and places, not taken from
the news corpus); every expected fact is written by hand from what the sentence says. Each
frame has a sentence it must read and one it must not.
"""

from __future__ import annotations

from frame_reading import extractor, sentence_facts as facts  # noqa: F401


def test_class_after_an_organisation(extractor):
    assert ("P31", "Talbrook Foods", "food chain") in facts(  # "frozen", a participle, is cut
        extractor, "Talbrook Foods, the frozen food chain, has bought a depot.")
    # a person's apposition is a trade, never a class; the class must be an organisation's noun
    got = facts(extractor, "Dana Pell, the dance teacher, has opened a studio.")
    assert not any(r == "P31" for r, h, t in got)
    got = facts(extractor, "Talbrook Foods, the family favourite, has bought a depot.")
    assert ("P31", "Talbrook Foods", "favourite") not in got


def test_team_sheet_with_substitutes(extractor):
    got = facts(extractor, "Pellham Town: Garvey; Osei, Brandt (Mulligan 71), Tiernan, Vass; "
                           "Krol (c), Duffy (Nakamura 58, Abbott 80), Rourke.")
    players = {h for r, h, t in got if r == "P54" and t == "Pellham Town"}
    # the starters, and each substitute who came on; no minute, no "(c)"
    assert players == {"Garvey", "Osei", "Brandt", "Mulligan", "Tiernan", "Vass", "Krol", "Duffy",
                       "Nakamura", "Abbott", "Rourke"}
    # a bracket after a name in running text is no sheet
    got = facts(extractor, "Pellham Town beat Rovers (Garvey scored twice), Osei, Brandt and Vass watching.")
    assert not any(r == "P54" for r, h, t in got)


def test_appointed_as_the_position_of_an_organisation(extractor):
    got = facts(extractor, "The board has appointed Mr Tobi Adeyemi as the new Chief Executive of the Harlow Grain Board.")
    assert {("P169", "Harlow Grain Board", "Tobi Adeyemi"), ("P39", "Tobi Adeyemi", "chief executive"),
            ("P108", "Tobi Adeyemi", "Harlow Grain Board")} <= got
    # a capitalised position is no person: "Chief Executive" works nowhere
    assert not any(h == "Chief Executive" for r, h, t in got)
    got = facts(extractor, "The board has appointed Mr Tobi Adeyemi as the new coach of the year.")
    assert not any(r in ("P286", "P108") for r, h, t in got)


def test_named_its_position(extractor):
    got = facts(extractor, "Calloway Foods Ltd has named Petra Lund its new chief executive.")
    assert {("P169", "Calloway Foods Ltd", "Petra Lund"), ("P108", "Petra Lund", "Calloway Foods Ltd")} <= got
    # no position after "its": nothing; another's possessive is not the subject's position
    assert facts(extractor, "Calloway Foods Ltd has named Petra Lund its best employee.") == set()
    got = facts(extractor, "Calloway Foods Ltd named Petra Lund Tallow Rovers' new coach.")
    assert not any(r in ("P286", "P108") and "Calloway" in h + t for r, h, t in got)


def test_a_persons_age(extractor):
    # P3629 (age at event): the age the report gives, as a whole number of years
    cases = {
        "Pensioner Gareth Pugh, 71, from Ebbw Vale, has waited a year.": ("Gareth Pugh", "71"),
        "Dr Ana Ruiz, a 49-year-old former nurse, said so.": ("Ana Ruiz", "49"),
        "The 52-year-old nurse Ana Ruiz said so.": ("Ana Ruiz", "52"),
        "Ana Ruiz (34) was fined.": ("Ana Ruiz", "34"),
        "Ana Ruiz has died aged 84 in Lagos.": ("Ana Ruiz", "84"),
        "Mr Kofi Owusu, aged 58, is a native of Kumasi.": ("Kofi Owusu", "58"),
        "Tom Bell, who died in 1968 at the age of 74, was a painter.": ("Tom Bell", "74"),
    }
    for sentence, (person, age) in cases.items():
        assert ("P3629", person, age) in facts(extractor, sentence), sentence
    # a firm's head count, a year, a score: no age
    for sentence in ("Harlow Foods Ltd, 1,200, said so.", "Ana Ruiz, 2019, won the cup.",
                     "Harlow Foods Ltd, 45, was sold.", "Ana Ruiz scored 21 points."):
        assert not any(r == "P3629" for r, h, t in facts(extractor, sentence)), sentence


def test_class_before_an_organisation_after_a_place(extractor):
    assert ("P31", "Orchid Peak Holdings", "property group") in facts(
        extractor, "Singapore-listed property group Orchid Peak Holdings has agreed to buy a tower.")
    got = facts(extractor, "OSLO — Danish carrier Vestavind Air cancelled 300 flights.")
    assert {("P31", "Vestavind Air", "carrier"), ("P17", "Vestavind Air", "Denmark")} <= got
    assert ("P31", "Breathe Easy Gulf", "nonprofit") in facts(
        extractor, "Volunteers from local nonprofit Breathe Easy Gulf will help.")
    # a noun that may name a person says nothing of the name after it
    got = facts(extractor, "Perth-based teacher Kestrel Dunn has won a prize.")
    assert not any(r == "P31" for r, h, t in got)


def test_a_countrys_largest(extractor):
    got = facts(extractor, "Banco Meridional, Spain's sixth-largest lender by assets, reported a rise.")
    assert {("P17", "Banco Meridional", "Spain"), ("P31", "Banco Meridional", "lender")} <= got
    # a person is no country's lender; a superlative that is no organisation's noun says nothing
    assert facts(extractor, "Tom Reilly, Ireland's best goalkeeper, retired.") == set()


def test_founded_as_and_a_relative_clause_that_employs(extractor):
    assert ("P571", "Kingsmere", "1894") in facts(
        extractor, "Kingsmere, founded as a technical college in 1894, has 24,000 students.")
    got = facts(extractor, "Torvald Mining, which was founded in 1994 as a gold explorer and now employs about "
                           "2,300 people across the region, made a profit.")
    assert {("P1128", "Torvald Mining", "2,300"), ("P571", "Torvald Mining", "1994")} <= got
    # a place after a preposition is not what was founded: "X in Minneapolis, opened in 1979"
    got = facts(extractor, "The Orpheum Theatre in Minneapolis, opened in 1979, is closing.")
    assert ("P571", "Minneapolis", "1979") not in got


def test_a_person_from_a_place(extractor):
    text = "Lachlan Moore won the title. Moore, from Geelong, began the day two shots behind."
    assert ("P551", "Lachlan Moore", "Geelong") in facts(extractor, text)
    # a team is no residence
    got = facts(extractor, "Lachlan Moore won the title. Moore, from the Hawks, began the day.")
    assert not any(r == "P551" for r, h, t in got)


def test_a_coach_at_a_team_holds_the_position(extractor):
    got = facts(extractor, "Stampeders coach Brian Kowal said Boudreau would play.")
    assert {("P286", "Stampeders", "Brian Kowal"), ("P39", "Brian Kowal", "coach")} <= got
    # an occupation at a firm is a trade and an employer, no position held
    got = facts(extractor, "Google engineer Brian Kowal said it works.")
    assert ("P108", "Brian Kowal", "Google") in got and not any(r == "P39" for r, h, t in got)


def test_moved_to_a_team_named_after_its_noun(extractor):
    assert ("P54", "Liam Kerr", "Halstead Town") in facts(
        extractor, "Top scorer Liam Kerr left for English League Two side Halstead Town in the summer.")
    assert ("P54", "Ada Obi", "Kalmar Sodra") in facts(
        extractor, "The forward Ada Obi, who joined from Swedish side Kalmar Sodra in the summer, scored.")
    # no team's noun, or no name after it: no team
    assert facts(extractor, "Tom Pike left for a club in Leeds.") == set()
    assert not any(r == "P54" for r, h, t in facts(extractor, "Ana Obi moved to the side of the Thames."))


def test_a_nationality_before_a_name(extractor):
    assert ("P27", "Jake Donnelly", "United States") in facts(
        extractor, "American Jake Donnelly shared third place on 15 under.")
    assert ("P27", "Jack Morris", "Australia") in facts(
        extractor, "Te Whata will helm the boat alongside Australian Jack Morris.")
    # an organisation whose words are all English words is no person
    for sentence in ("British Rail Freight raised prices.", "American Airlines cancelled flights."):
        assert not any(r == "P27" for r, h, t in facts(extractor, sentence)), sentence


def test_relatives_listed_after_a_plural(extractor):
    got = facts(extractor, "Tom Pike died on Monday. He leaves his daughters, Grace and Ruth.")
    assert {("P40", "Tom Pike", "Grace"), ("P40", "Tom Pike", "Ruth")} <= got
    got = facts(extractor, "Ana Pike thanked her sisters, Jo, Meg and Amy, for their help.")
    assert {t for r, h, t in got if r == "P3373" and h == "Ana Pike"} == {"Jo", "Meg", "Amy"}
    # the names after a plural that no possessive owns are no relatives
    assert facts(extractor, "Tom Pike and his sons run the farm with Ann Lee and Bob Stone.") == set()


def test_a_relative_is_a_person_whose_apposition_is_a_trade(extractor):
    got = facts(extractor, "Lachlan Moore won. Moore's father, Steve, a greenkeeper at a course in Victoria, "
                           "caddied for him.")
    assert {("P22", "Lachlan Moore", "Steve"), ("P106", "Steve", "greenkeeper")} <= got
    assert ("P31", "Steve", "greenkeeper") not in got
