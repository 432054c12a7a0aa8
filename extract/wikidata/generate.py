"""Generate synthetic people as Wikidata entity JSON, to test a memorization measure on facts we control.

Every person is a human (``P31 = Q5``) with a random but unique "Given Family" name and
realistic facts drawn from the hand-written pools in ``data/wikidata_synthetic.v1.json``:
gender, citizenship, birth place and date, occupation, languages, and for some of them
death, education, employer, party, spouse, height and number of children. The output has
exactly the shape of a Wikidata dump entity (``labels`` / ``descriptions`` / ``aliases`` /
``claims`` with statements, snaks and data values), so any Wikidata reader takes it as is.

A reader is also exercised on the parts of the format that trip readers up: about 10 % of
people carry an extra ``deprecated`` statement with an old wrong value, about 5 % have two
values for a property of which one is ``preferred``, and about 3 % have a ``somevalue`` snak
(a value that exists but is unknown, with no ``datavalue``). A correct reader keeps only the
best-ranked statements of each property and skips snaks without a value.

The values (cities, countries, languages, ...) and every property used come back as entities
of their own with English labels, so one file is enough to turn ids into words. Ids are
synthetic (people from Q900000001, values from Q800000001) except ``Q5`` and the three
genders, which keep their real Wikidata ids, and the classes used in ``P31`` and the metre.

Example::

    >>> entities = generate_people(100, seed=7)
    >>> len(entities)  # 100 people, 362 values, 19 properties
    481

``extract.wikidata.write.write_entities`` writes them to a file in the dump, JSON Lines or
``wbgetentities`` layout.
"""

from __future__ import annotations

import calendar
import random
from dataclasses import dataclass

from extract.wikidata.pools import GENDER_IDS, Country, Place, WikidataPools, load_pools
from extract.wikidata.snaks import Claims, entity_json, item_value, quantity_value, time_value
from graphstore.errors import ConfigError

FIRST_PERSON_ID = 900_000_001
FIRST_VALUE_ID = 800_000_001

HUMAN = "Q5"
_GENDER_WEIGHTS = {"male": 48, "female": 48, "non-binary": 4}
_GIVEN_POOLS = {"male": ("male", "unisex"), "female": ("female", "unisex"), "non-binary": ("female", "male", "unisex")}

_METRE = "http://www.wikidata.org/entity/Q11573"
_UNITS = (("Q11573", "metre", "SI unit of length"),)  # real ids; a reader finds the unit of a height here
FIRST_BIRTH_YEAR, LAST_BIRTH_YEAR, LAST_DEATH_YEAR = 1900, 2000, 2023

# How often the optional facts and the rank traps occur (shares of people).
SECOND_CITIZENSHIP, BORN_AT_HOME, DIED_AT_HOME = 0.10, 0.85, 0.60
EMPLOYED, PARTY_MEMBER, MARRIED, WITH_HEIGHT, WITH_CHILDREN, WITH_ALIAS = 0.5, 0.2, 0.2, 0.5, 0.3, 0.25
WITH_PREFERRED, WITH_DEPRECATED, WITH_SOMEVALUE = 0.05, 0.10, 0.03


@dataclass(frozen=True)
class WikidataProperty:
    """A Wikidata property as this generator uses it (real ids, labels and datatypes)."""

    datatype: str
    label: str
    description: str
    aliases: tuple[str, ...] = ()


PROPERTIES = {
    "P17": WikidataProperty("wikibase-item", "country", "sovereign state that this item is in", ("sovereign state",)),
    "P19": WikidataProperty("wikibase-item", "place of birth", "most specific known birth location of a person",
                            ("birthplace", "born in")),
    "P20": WikidataProperty("wikibase-item", "place of death", "most specific known death location of a person",
                            ("deathplace", "died in")),
    "P21": WikidataProperty("wikibase-item", "sex or gender", "sex or gender identity of a person", ("gender", "sex")),
    "P26": WikidataProperty("wikibase-item", "spouse", "the subject has the object as their spouse",
                            ("husband", "wife", "married to")),
    "P27": WikidataProperty("wikibase-item", "country of citizenship",
                            "the object is a country that recognizes the subject as its citizen",
                            ("citizenship", "nationality")),
    "P31": WikidataProperty("wikibase-item", "instance of",
                            "that class of which this subject is a particular example and member", ("is a", "is an")),
    "P37": WikidataProperty("wikibase-item", "official language", "language designated as official by this item"),
    "P69": WikidataProperty("wikibase-item", "educated at", "educational institution attended by the subject",
                            ("alma mater", "studied at")),
    "P102": WikidataProperty("wikibase-item", "member of political party",
                             "the political party of which a person is or has been a member", ("party",)),
    "P106": WikidataProperty("wikibase-item", "occupation", "occupation of a person", ("profession", "job")),
    "P108": WikidataProperty("wikibase-item", "employer",
                             "person or organization for which the subject works or worked",
                             ("employed by", "worked for")),
    "P569": WikidataProperty("time", "date of birth", "date on which the subject was born", ("born on", "birth date")),
    "P570": WikidataProperty("time", "date of death", "date on which the subject died", ("died on", "death date")),
    "P734": WikidataProperty("wikibase-item", "family name", "part of the full name of a person",
                             ("surname", "last name")),
    "P735": WikidataProperty("wikibase-item", "given name", "first name or another given name of this person",
                             ("first name", "forename")),
    "P1412": WikidataProperty("wikibase-item", "languages spoken, written or signed",
                              "language(s) that a person speaks, writes or signs", ("language spoken", "speaks")),
    "P1971": WikidataProperty("quantity", "number of children", "number of children of the person", ("children",)),
    "P2048": WikidataProperty("quantity", "height", "vertical length of an entity", ("tallness",)),
}

# kind of value -> (class id, class label, class description); real Wikidata classes for P31.
DATATYPES = {pid: p.datatype for pid, p in PROPERTIES.items()}

_CLASSES = {
    "human": ("Q5", "human", "any member of Homo sapiens"),
    "gender": ("Q48277", "gender identity", "a person's sense of their own gender"),
    "language": ("Q34770", "language", "particular system of communication"),
    "country": ("Q6256", "country", "distinct territorial body or political entity"),
    "city": ("Q515", "city", "large human settlement"),
    "occupation": ("Q12737077", "occupation", "label applied to a person based on an activity they take part in"),
    "university": ("Q3918", "university", "academic institution for further education"),
    "employer": ("Q4830453", "business", "organization undertaking commercial or industrial activities"),
    "party": ("Q7278", "political party", "organization that seeks to influence government policy"),
    "given_name": ("Q202444", "given name", "name typically used to differentiate people from the same family"),
    "family_name": ("Q101352", "family name", "part of a naming scheme for individuals"),
}


def generate_people(count: int, seed: int = 0, people_only: bool = False) -> list[dict]:
    """Generate ``count`` synthetic people as Wikidata item entities.

    Args:
        count: how many people; each gets a unique "Given Family" label.
        seed: all randomness comes from ``random.Random(seed)``; the same count and seed
            give the same entities, down to the statement ids.
        people_only: return only the people, not the value items and properties that give
            the ids they refer to their labels.

    Returns:
        The people (ids Q900000001, Q900000002, ...), then, unless ``people_only``, the
        value items (classes, the metre, genders, then the pools, ids from Q800000001) and one
        ``"type": "property"`` entity per property used, in id order.

    Raises:
        ConfigError: ``count`` below 1 or above the number of distinct names, or a seed that
            is not a whole number.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"the seed must be a whole number, got {seed!r}")
    pools = load_pools()
    given = {g: tuple(n for group in _GIVEN_POOLS[g] for n in pools.given_names[group]) for g in pools.genders}
    capacity = len({n for names in given.values() for n in names}) * len(pools.family_names)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= capacity:
        raise ConfigError(f"the number of people must be a whole number from 1 to {capacity} (the distinct "
                          f"'Given Family' names pools {pools.version} allow), got {count!r}")
    rng = random.Random(seed)
    ids = _value_ids(pools)
    used: set[str] = set()
    people = [_draw_person(rng, pools, given, f"Q{FIRST_PERSON_ID + i}", used) for i in range(count)]
    _marry(rng, people)
    entities = [_person_entity(p, pools, ids, rng, seed) for p in people]
    if people_only:
        return entities
    entities += _value_entities(pools, ids, seed)
    used_properties = sorted({prop for e in entities for prop in e["claims"]}, key=lambda p: int(p[1:]))
    return entities + [_property_entity(prop) for prop in used_properties]


# ---------------------------------------------------------------- people

@dataclass
class _Person:
    qid: str
    given: str
    family: str
    gender: str
    countries: list[Country]
    birth_city: Place
    birth: tuple[int, int, int, int]  # year, month, day, precision (9 year, 10 month, 11 day)
    death: tuple[int, int, int, int] | None
    death_city: Place | None
    occupations: list[str]
    languages: list[str]
    universities: list[str]
    employer: str | None
    party: str | None
    height: float | None
    children: int | None
    alias: str | None
    spouse: str | None = None

    @property
    def label(self) -> str:
        return f"{self.given} {self.family}"


def _date(rng: random.Random, first_year: int, last_year: int) -> tuple[int, int, int, int]:
    year, month = rng.randint(first_year, last_year), rng.randint(1, 12)
    return year, month, rng.randint(1, calendar.monthrange(year, month)[1]), 11


def _draw_person(rng: random.Random, pools: WikidataPools, given: dict, qid: str, used: set) -> _Person:
    genders = list(pools.genders)
    while True:  # labels are unique: redraw gender and name together on a collision
        gender = rng.choices(genders, weights=[_GENDER_WEIGHTS[g] for g in genders])[0]
        first, family = rng.choice(given[gender]), rng.choice(pools.family_names)
        if f"{first} {family}" not in used:
            break
    used.add(f"{first} {family}")
    countries = [rng.choice(pools.countries)]
    if rng.random() < SECOND_CITIZENSHIP:
        countries.append(rng.choice([c for c in pools.countries if c != countries[0]]))
    home_cities = [c for c in pools.cities if c.country in {k.name for k in countries}]
    birth_city = rng.choice(home_cities) if home_cities and rng.random() < BORN_AT_HOME else rng.choice(pools.cities)
    year, month, day, _ = _date(rng, FIRST_BIRTH_YEAR, LAST_BIRTH_YEAR)
    precision = rng.choices((9, 10, 11), weights=(4, 4, 92))[0]
    birth = (year, month if precision >= 10 else 0, day if precision == 11 else 0, precision)
    # Everyone born before 1925 has died, and 1 in 15 of the others: about 30 % in all.
    death = death_city = None
    if year < 1925 or rng.random() < 1 / 15:
        death = _date(rng, year + 18, min(year + 98, LAST_DEATH_YEAR))
        at_home = home_cities and rng.random() < DIED_AT_HOME
        death_city = rng.choice(home_cities) if at_home else rng.choice(pools.cities)
    languages = [rng.choice(countries[0].languages)]
    languages += rng.sample([lang for lang in pools.languages if lang not in languages],
                            rng.choices((0, 1, 2), weights=(5, 3, 2))[0])
    universities: list[str] = []
    for _ in range(rng.choices((0, 1, 2), weights=(3, 5, 2))[0]):
        local = [u.name for u in pools.universities if u.country in {k.name for k in countries}]
        choice = rng.choice(local) if local and rng.random() < 0.6 else rng.choice(pools.universities).name
        if choice not in universities:
            universities.append(choice)
    heights = {"male": 1.78, "female": 1.65}
    return _Person(
        qid=qid, given=first, family=family, gender=gender, countries=countries, birth_city=birth_city,
        birth=birth, death=death, death_city=death_city,
        occupations=rng.sample(pools.occupations, rng.choice((1, 1, 2))), languages=languages,
        universities=universities,
        employer=rng.choice(pools.employers) if rng.random() < EMPLOYED else None,
        party=rng.choice(pools.parties) if rng.random() < PARTY_MEMBER else None,
        height=(round(min(2.10, max(1.45, rng.gauss(heights.get(gender, 1.71), 0.07))), 2)
                if rng.random() < WITH_HEIGHT else None),
        children=rng.choices(range(7), weights=(8, 20, 34, 20, 10, 5, 3))[0] if rng.random() < WITH_CHILDREN else None,
        alias=f"{first[0]}. {family}" if rng.random() < WITH_ALIAS else None)


def _marry(rng: random.Random, people: list[_Person]) -> None:
    """Pair about ``MARRIED`` of the people at random; both partners get the other as spouse."""
    chosen = [p for p in people if rng.random() < MARRIED]
    rng.shuffle(chosen)
    for a, b in zip(chosen[0::2], chosen[1::2]):
        a.spouse, b.spouse = b.qid, a.qid


def _person_entity(p: _Person, pools: WikidataPools, ids: dict, rng: random.Random, seed: int) -> dict:
    claims = Claims(p.qid, seed, DATATYPES)
    claims.item("P31", HUMAN)
    claims.item("P21", ids["gender", p.gender])
    claims.item("P735", ids["given_name", p.given])
    claims.item("P734", ids["family_name", p.family])
    for country in p.countries:
        claims.item("P27", ids["country", country.name])
    claims.item("P19", ids["city", p.birth_city.name])
    claims.add("P569", time_value(*p.birth))
    if p.death and p.death_city:
        claims.add("P570", time_value(*p.death))
        claims.item("P20", ids["city", p.death_city.name])
    for prop, kind, names in (("P106", "occupation", p.occupations), ("P1412", "language", p.languages),
                              ("P69", "university", p.universities), ("P108", "employer", [p.employer]),
                              ("P102", "party", [p.party])):
        for name in names:
            if name is not None:
                claims.item(prop, ids[kind, name])
    if p.spouse:
        claims.item("P26", p.spouse)
    if p.height is not None:
        claims.add("P2048", quantity_value(p.height, _METRE))
    if p.children is not None:
        claims.add("P1971", quantity_value(p.children, "1"))
    _add_rank_traps(claims, p, pools, ids, rng)
    description = f"{p.countries[0].demonym} {p.occupations[0]}"
    if p.death:
        description += f" ({p.birth[0]}\u2013{p.death[0]})"
    return entity_json(p.qid, p.label, description, claims.claims, [p.alias] if p.alias else [])


def _add_rank_traps(claims: Claims, p: _Person, pools: WikidataPools, ids: dict, rng: random.Random) -> None:
    """The parts of the format a careless reader gets wrong: preferred, deprecated, somevalue."""
    if rng.random() < WITH_PREFERRED:  # a second value, the true one marked preferred
        prop = rng.choice([q for q in ("P19", "P106", "P108", "P2048") if len(claims.claims.get(q, ())) == 1])
        claims.claims[prop][0]["rank"] = "preferred"
        claims.add(prop, _other_value(prop, claims, p, pools, ids, rng))
    if rng.random() < WITH_DEPRECATED:  # an old wrong value kept for the record
        prop = rng.choice(("P569", "P27", "P19", "P106"))
        claims.add(prop, _other_value(prop, claims, p, pools, ids, rng), rank="deprecated")
    if rng.random() < WITH_SOMEVALUE:  # "some school / some employer", value unknown
        claims.add(rng.choice(("P69", "P108")), None)


def _other_value(prop: str, claims: Claims, p: _Person, pools: WikidataPools, ids: dict,
                 rng: random.Random) -> dict:
    taken = [s["mainsnak"].get("datavalue") for s in claims.claims.get(prop, [])]
    while True:
        if prop == "P569":
            year, month, day, _ = _date(rng, p.birth[0] - 3, p.birth[0] + 3)
            value = time_value(year, month, day, 11)
        elif prop == "P2048":
            assert p.height is not None  # P2048 is picked only for a person with a height claim
            value = quantity_value(round(p.height + rng.choice((-1, 1)) * rng.randint(1, 4) / 100, 2), _METRE)
        else:
            kind, pool = {"P19": ("city", [c.name for c in pools.cities]),
                          "P27": ("country", [c.name for c in pools.countries]),
                          "P106": ("occupation", pools.occupations), "P108": ("employer", pools.employers)}[prop]
            value = item_value(ids[kind, rng.choice(pool)])
        if value not in taken:
            return value


# ---------------------------------------------------------------- entities and values

def _property_entity(prop: str) -> dict:
    p = PROPERTIES[prop]
    return {"type": "property", "id": prop, "datatype": p.datatype,
            "labels": {"en": {"language": "en", "value": p.label}},
            "descriptions": {"en": {"language": "en", "value": p.description}},
            "aliases": {"en": [{"language": "en", "value": a} for a in p.aliases]} if p.aliases else {},
            "claims": {}}


def _value_rows(pools: WikidataPools) -> list[tuple]:
    """Every value item in id order: ``(kind, name, description, [(property, kind, name), ...])``."""
    rows: list[tuple[str, str, str, list[tuple[str, str, str]]]]
    rows = [("gender", g, "gender identity", []) for g in pools.genders]
    rows += [("language", lang, "language", []) for lang in pools.languages]
    rows += [("country", c.name, "country", [("P37", "language", lang) for lang in c.languages])
             for c in pools.countries]
    rows += [("city", c.name, f"city in {c.country}", [("P17", "country", c.country)]) for c in pools.cities]
    rows += [("occupation", o, "occupation", []) for o in pools.occupations]
    rows += [("university", u.name, f"university in {u.country}", [("P17", "country", u.country)])
             for u in pools.universities]
    rows += [("employer", e, "company", []) for e in pools.employers]
    rows += [("party", party, "political party", []) for party in pools.parties]
    rows += [("given_name", n, "given name", []) for group in pools.given_names.values() for n in group]
    rows += [("family_name", n, "family name", []) for n in pools.family_names]
    return rows


def _value_ids(pools: WikidataPools) -> dict:
    """``(kind, name) -> id``: real ids for the genders, a counter from Q800000001 for the rest."""
    ids, number = {}, FIRST_VALUE_ID
    for kind, name, _, _ in _value_rows(pools):
        if kind == "gender":
            ids[kind, name] = GENDER_IDS[name]
        else:
            ids[kind, name], number = f"Q{number}", number + 1
    return ids


def _value_entities(pools: WikidataPools, ids: dict, seed: int) -> list[dict]:
    entities = [entity_json(qid, label, description, {}) for qid, label, description in (*_CLASSES.values(), *_UNITS)]
    for kind, name, description, links in _value_rows(pools):
        claims = Claims(ids[kind, name], seed, DATATYPES)
        claims.item("P31", _CLASSES[kind][0])
        for prop, other_kind, other in links:
            claims.item(prop, ids[other_kind, other])
        entities.append(entity_json(ids[kind, name], name, description, claims.claims))
    return entities
