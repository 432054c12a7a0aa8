"""Wikidata entity JSON built from plain values: statements, snaks, and data values of items,
times and quantities, in exactly the shape of a Wikidata dump entity."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

CALENDAR = "http://www.wikidata.org/entity/Q1985727"  # proleptic Gregorian calendar


class Claims:
    """The statements of one entity; statement ids ``Q...$GUID`` come from a hash, not uuid4."""

    def __init__(self, entity_id: str, seed: int, datatypes: dict[str, str]):
        self.entity_id, self.seed, self.datatypes = entity_id, seed, datatypes
        self.claims: dict[str, list[dict]] = {}

    def add(self, prop: str, datavalue: dict | None, rank: str = "normal") -> None:
        """Append a statement; ``datavalue=None`` makes a ``somevalue`` snak (value unknown)."""
        snak: dict[str, str | dict] = {"snaktype": "value" if datavalue else "somevalue", "property": prop}
        if datavalue:
            snak["datavalue"] = datavalue
        snak["datatype"] = self.datatypes[prop]
        number = sum(len(statements) for statements in self.claims.values())
        h = hashlib.sha1(f"{self.seed}/{self.entity_id}/{number}".encode()).hexdigest().upper()
        guid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
        self.claims.setdefault(prop, []).append(
            {"mainsnak": snak, "type": "statement", "id": f"{self.entity_id}${guid}", "rank": rank})

    def item(self, prop: str, qid: str) -> None:
        self.add(prop, item_value(qid))


def item_value(qid: str) -> dict:
    return {"value": {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid}, "type": "wikibase-entityid"}


def time_value(year: int, month: int, day: int, precision: int) -> dict:
    # Wikidata writes the unknown parts of a year- or month-precision date as 00.
    return {"value": {"time": f"+{year:04d}-{month:02d}-{day:02d}T00:00:00Z", "timezone": 0, "before": 0, "after": 0,
                      "precision": precision, "calendarmodel": CALENDAR}, "type": "time"}


def quantity_value(amount: float, unit: str) -> dict:
    text = f"{amount:.2f}" if isinstance(amount, float) else str(amount)
    return {"value": {"amount": f"+{text}", "unit": unit}, "type": "quantity"}


def entity_json(qid: str, label: str, description: str, claims: dict, aliases: Sequence[str] = ()) -> dict:
    return {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}},
            "descriptions": {"en": {"language": "en", "value": description}},
            "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
            "claims": claims, "sitelinks": {}}
