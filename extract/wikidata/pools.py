"""The value pools synthetic people are drawn from (``extract/data/wikidata_synthetic.v1.json``):
names, countries, languages, cities, occupations, universities, employers, parties, genders."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from graphstore.errors import InputDataError

POOLS_FILE = "wikidata_synthetic.v1.json"
GENDER_IDS = {"male": "Q6581097", "female": "Q6581072", "non-binary": "Q48270"}  # the real ones


@dataclass(frozen=True)
class Country:
    name: str
    demonym: str  # "Estonian", for descriptions such as "Estonian chemist"
    languages: tuple[str, ...]  # main languages; every citizen speaks one of them


@dataclass(frozen=True)
class Place:
    """A city or a university, and the country it lies in."""

    name: str
    country: str


@dataclass(frozen=True)
class WikidataPools:
    """The value pools people are drawn from (``data/wikidata_synthetic.v1.json``)."""

    version: str
    given_names: dict  # "female" / "male" / "unisex" -> tuple of names
    family_names: tuple[str, ...]
    countries: tuple[Country, ...]
    languages: tuple[str, ...]
    cities: tuple[Place, ...]
    occupations: tuple[str, ...]
    universities: tuple[Place, ...]
    employers: tuple[str, ...]
    parties: tuple[str, ...]
    genders: tuple[str, ...]


def load_pools() -> WikidataPools:
    """Read and check the pools shipped with this package.

    Raises:
        InputDataError: the file is unreadable or a pool is empty, repeats a name, or names a
            country, language or gender that is not defined.
    """
    where = f"extract/data/{POOLS_FILE}"
    try:
        raw = json.loads(resources.files("extract").joinpath("data", POOLS_FILE).read_text(encoding="utf-8"))
        names = {group: _names(where, f"given_names.{group}", raw["given_names"][group])
                 for group in ("female", "male", "unisex")}
        pools = WikidataPools(
            version=str(raw["version"]), given_names=names,
            family_names=_names(where, "family_names", raw["family_names"]),
            countries=tuple(Country(c["name"], c["demonym"], tuple(c["languages"])) for c in raw["countries"]),
            languages=_names(where, "languages", raw["languages"]),
            cities=tuple(Place(c["name"], c["country"]) for c in raw["cities"]),
            occupations=_names(where, "occupations", raw["occupations"]),
            universities=tuple(Place(u["name"], u["country"]) for u in raw["universities"]),
            employers=_names(where, "employers", raw["employers"]),
            parties=_names(where, "political_parties", raw["political_parties"]),
            genders=_names(where, "genders", raw["genders"]))
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise InputDataError(where, f"cannot read the value pools: {type(e).__name__}: {e}") from e
    _names(where, "given_names", [n for group in names.values() for n in group])
    _names(where, "countries", [c.name for c in pools.countries])
    _names(where, "cities", [c.name for c in pools.cities])
    _names(where, "universities", [u.name for u in pools.universities])
    country_names = {c.name for c in pools.countries}
    for place in pools.cities + pools.universities:
        if place.country not in country_names:
            raise InputDataError(where, f"{place.name!r} lies in {place.country!r}, which is not among the countries")
    for country in pools.countries:
        unknown = [lang for lang in country.languages if lang not in pools.languages] or not country.languages
        if unknown:
            raise InputDataError(where, f"country {country.name!r} needs main languages from the languages pool, "
                                        f"got {list(country.languages)}")
    unknown = [g for g in pools.genders if g not in GENDER_IDS]
    if unknown:
        raise InputDataError(where, f"unknown genders {unknown}; valid: {', '.join(GENDER_IDS)}")
    return pools


def _names(where: str, key: str, items) -> tuple[str, ...]:
    if not isinstance(items, list) or not items:
        raise InputDataError(where, f"'{key}' must be a non-empty list")
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.strip() or item != item.strip():
            raise InputDataError(where, f"'{key}' item {i} is {item!r}; expected a name without surrounding spaces")
        if item in seen:
            raise InputDataError(where, f"'{key}' item {i} repeats {item!r}; names in a pool are unique")
        seen.add(item)
    return tuple(items)
