"""Wikidata statements into plain values: which statements count, and their text.

- Per property, the best-ranked statements: preferred if there are any, else normal;
  deprecated never (Wikidata's "truthy" statements). Among those, snaks without a value
  (``somevalue`` / ``novalue``) are skipped: the best knowledge is that the value is unknown.
- Values of type item, string (and monolingual text), quantity and time become text: items
  by their label (looked up later, when every label of the file is known), quantities with
  their unit, times at their precision (day, month, year, decade, century).
- Other datatypes Wikidata knows (external ids, URLs, media, coordinates, ...) are not facts
  about a person a model would state; they are skipped and counted. A datatype Wikidata does
  not know is reported with the record it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RANKS = ("preferred", "normal", "deprecated")

# datatype -> our value type. The rest of Wikidata's datatypes are known and not rendered.
RENDERED = {"wikibase-item": "item", "string": "string", "monolingualtext": "string",
            "quantity": "quantity", "time": "time"}
NOT_RENDERED = frozenset({
    "external-id", "url", "commonsMedia", "globe-coordinate", "wikibase-property", "wikibase-lexeme",
    "wikibase-form", "wikibase-sense", "math", "musical-notation", "geo-shape", "tabular-data",
    "wikibase-entityschema",
})
# When a statement omits its datatype (some exports do), the value's own type decides.
_DATAVALUE_TYPES = {"wikibase-entityid": "wikibase-item", "string": "string", "monolingualtext": "monolingualtext",
                    "quantity": "quantity", "time": "time", "globecoordinate": "globe-coordinate"}

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
UNIT_PREFIX = "http://www.wikidata.org/entity/"
_AMOUNT = re.compile(r"^[+-]?[0-9]+(\.[0-9]+)?$")


class BadValue(ValueError):
    """A statement whose value does not have the shape of its datatype."""


@dataclass(frozen=True)
class Value:
    """One value of a statement. Items carry their id; their text comes from a label later."""
    value_type: str            # item, string, quantity, time
    text: str                  # rendered text; for items, empty until the label is known
    item: str | None = None    # Q-id of an item value
    unit: str | None = None    # Q-id of a quantity's unit, its label is looked up like an item's
    precision: int | None = None  # Wikidata time precision: 11 day, 10 month, 9 year, 8 decade, 7 century
    rank: str = "normal"
    statement: str = ""        # the statement's own id ("Q42$...") when it has one


@dataclass
class Skips:
    """Statements not turned into facts, by reason: counts and the first places seen."""
    counts: dict
    first: dict

    def add(self, reason: str, where: str) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        self.first.setdefault(reason, [])
        if len(self.first[reason]) < 3:
            self.first[reason].append(where)


def best_ranked(statements: list) -> list:
    """Preferred statements if any, else normal ones; never deprecated."""
    for rank in ("preferred", "normal"):
        chosen = [s for s in statements if isinstance(s, dict) and s.get("rank", "normal") == rank]
        if chosen:
            return chosen
    return []


def statement_values(pid: str, statements: list, where: str, skips: Skips) -> list[Value]:
    """The values of one property's best-ranked statements. Raises BadValue for a malformed one."""
    if not isinstance(statements, list):
        raise BadValue(f"{pid}: expected a list of statements, found {type(statements).__name__}")
    for s in statements:
        if not isinstance(s, dict) or s.get("rank", "normal") not in RANKS:
            raise BadValue(f"{pid}: a statement with rank {s.get('rank') if isinstance(s, dict) else s!r}; "
                           f"valid: {', '.join(RANKS)}")
    values = []
    for s in best_ranked(statements):
        snak = s.get("mainsnak")
        if not isinstance(snak, dict):
            raise BadValue(f"{pid}: a statement without a mainsnak")
        if snak.get("snaktype", "value") != "value":
            skips.add(f"{snak.get('snaktype')} (no value)", where)
            continue
        datavalue = snak.get("datavalue")
        if not isinstance(datavalue, dict) or "value" not in datavalue:
            raise BadValue(f"{pid}: a value snak without a datavalue")
        value_kind = datavalue.get("type")
        if isinstance(value_kind, str):
            value_kind = _DATAVALUE_TYPES.get(value_kind, value_kind)
        datatype = snak.get("datatype") or value_kind
        if datatype in NOT_RENDERED:
            skips.add(f"datatype {datatype} (not rendered)", where)
            continue
        if datatype not in RENDERED:
            skips.add(f"unknown datatype {datatype!r}", f"{where} ({pid})")
            continue
        value = _render(pid, RENDERED[datatype], datavalue["value"])
        values.append(Value(value.value_type, value.text, value.item, value.unit, value.precision,
                            s.get("rank", "normal"), str(s.get("id", ""))))
    return values


def _render(pid: str, value_type: str, raw) -> Value:
    try:
        if value_type == "item":
            if raw.get("entity-type", "item") != "item":
                raise BadValue(f"{pid}: an item value of entity type {raw.get('entity-type')!r}")
            item = raw.get("id") or f"Q{int(raw['numeric-id'])}"
            return Value("item", "", item=item)
        if value_type == "string":
            text = raw["text"] if isinstance(raw, dict) else raw
            if not isinstance(text, str) or not text.strip():
                raise BadValue(f"{pid}: an empty string value")
            return Value("string", " ".join(text.split()))
        if value_type == "quantity":
            unit = raw.get("unit", "1")
            return Value("quantity", format_amount(raw["amount"]),
                         unit=None if unit == "1" else unit.removeprefix(UNIT_PREFIX))
        precision = int(raw["precision"])
        return Value("time", format_time(raw["time"], precision), precision=precision)
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        if isinstance(e, BadValue):
            raise
        raise BadValue(f"{pid}: a {value_type} value without the shape Wikidata gives it ({raw!r:.80})") from None


def format_amount(amount: str) -> str:
    """``+1.830`` -> ``1.83``; ``+3`` -> ``3``; ``-12.5`` -> ``-12.5`` (the digits as given, no float)."""
    text = str(amount).strip()
    if not _AMOUNT.match(text):
        raise ValueError(f"not a decimal amount: {amount!r}")
    sign = "-" if text.startswith("-") else ""
    digits = text.lstrip("+-")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return sign + (digits or "0")


def format_time(time: str, precision: int) -> str:
    """A Wikidata time at its precision: ``11 March 1952``, ``March 1952``, ``1952``,
    ``1950s``, ``20th century``; years before 1 CE get ``BC``."""
    sign = -1 if time.startswith("-") else 1
    date = time.lstrip("+-").split("T", 1)[0]
    year_text, month_text, day_text = date.split("-")
    year, month, day = int(year_text), int(month_text), int(day_text)
    if not (0 <= month <= 12 and 0 <= day <= 31):   # 0: not known at this precision
        raise ValueError(f"not a date: {time!r}")
    era = " BC" if sign < 0 else ""
    if precision >= 11 and month and day:
        return f"{day} {MONTHS[month - 1]} {year}{era}"
    if precision >= 10 and month:
        return f"{MONTHS[month - 1]} {year}{era}"
    if precision == 8:
        return f"{year // 10 * 10}s{era}"
    if precision == 7:
        century = (year - 1) // 100 + 1
        return f"{century}{_ordinal_suffix(century)} century{era}"
    return f"{year}{era}"


def _ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
