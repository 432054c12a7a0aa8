"""Gold facts of the news sets, the judged samples, and how a fact is matched to gold.

A folder of sets (by default ``tests/extract/text/data/news``) holds the articles,
``SET.jsonl``, and beside them ``gold/``:

- ``gold/SET.ANNOTATOR.jsonl``: every fact a careful reader finds in the articles, one JSON
  object a line (``article``, 1 for the set's first line; ``head``, ``relation``, ``tail``;
  ``in_quote``). A relation outside the inventory is ``other:`` and a label.
- ``gold/sets.json``: whether each set is still unread (never used to write or tune a rule),
  and its judged samples, ``gold/judged/*.md``: facts an extractor found, each with a
  verdict ``y`` or ``n`` from a judge.

Matching is lenient: both sides canonicalized (inverse relations swapped, names through
``normalize_name``, a gold nationality or a player's noun read as the country or sport the
extractor names), then the same relation, and head and tail each equal or one's words a
contiguous part of the other's ("Ofori-Mensah" ~ "Kwabena Ofori-Mensah"; "1988" ~ "1988-05").
``extract.text.gate`` scores an extractor with these; ``bench/bench_extract.py`` matches the same
way against REBEL's gold triples.

Example:
    >>> lenient(key("Kwabena Ofori-Mensah", "P108", "Volta Cocoa"), key("Ofori-Mensah", "P108", "Volta Cocoa Ltd"))
    True
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from graphstore.errors import InputDataError

from extract.jsonfile import json_line_error
from extract.text.lexicons import gazetteer
from extract.text.normalize import canonical, normalize_name

# The repository's news sets (the folder is not shipped with the package).
NEWS_SETS = Path(__file__).resolve().parents[2] / "tests/extract/text/data/news"
COUNTRY_RELATIONS = ("P17", "P27", "P495")
# ``other:`` labels of the gold for relations the inventory gained after the gold was written.
LATER_RELATIONS = {"other:age": "P3629", "other:age at death": "P3629"}
_DATE = re.compile(r"^\d{4}(-\d\d){0,2}$")
_JUDGED_ROW = re.compile(r"^\| (\d+) \| (P\d+) [^|]*\|(.*)\| ([yn?]?) \|$")

Key = tuple[str, str, str]   # (normalized head, relation, normalized tail), canonical


# --- lenient matching -------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def gold_tail_names() -> dict[str, dict[str, str]]:
    """relation -> {gold tail as written, lower-cased -> the name the extractor gives it}."""
    g = gazetteer()
    sports = {w.lower(): s["name"] for s in g.get("sports", [])
              for w in [s["name"], *s["aliases"], *s["players"]]}
    countries = {w.lower(): c["name"] for c in g["countries"]
                 for w in [c["name"], *c["aliases"], *c["demonyms"]]}
    return {"P641": sports, **{r: countries for r in COUNTRY_RELATIONS}}


def key(head: str, relation: str, tail: str) -> Key:
    """The comparison key of a fact: canonical direction, normalized names."""
    head, relation, tail = canonical(head, relation, tail)
    return normalize_name(head), relation, normalize_name(tail)


def gold_key(head: str, relation: str, tail: str, raw: bool = False) -> Key:
    """``key`` of a gold fact, its tail read as the extractor names it (a player's noun as the
    sport, a nationality or a country's alias as the country) unless ``raw``."""
    if not raw:
        tail = gold_tail_names().get(relation, {}).get(tail.lower(), tail)
    return key(head, relation, tail)


def contains(a: str, b: str) -> bool:
    """Equal, or one's words a contiguous part of the other's; dates when one begins the other."""
    if a == b:
        return True
    if _DATE.match(a) and _DATE.match(b):
        return a.startswith(b) or b.startswith(a)
    wa, wb = a.split(), b.split()
    short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    n = len(short)
    return n > 0 and any(long[i:i + n] == short for i in range(len(long) - n + 1))


def lenient(p: Key, g: Key) -> bool:
    """The same relation, head and tail each ``contains`` the other."""
    return p[1] == g[1] and contains(p[0], g[0]) and contains(p[2], g[2])


def pair_match(p: Key, g: Key) -> bool:
    """Head and tail joined, under any relation, in either direction."""
    return lenient((p[0], g[1], p[2]), g) or lenient((p[2], g[1], p[0]), g)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# --- the data: gold facts, judged samples, which sets are read --------------------------------

@dataclass(frozen=True)
class GoldFact:
    """One fact an annotator found. ``key`` is None outside the inventory (``other:``)."""

    line: int
    article: int
    head: str
    relation: str
    tail: str
    in_quote: bool
    key: Key | None


def read_gold(path: Path) -> list[GoldFact]:
    """The gold facts of one annotator's file.

    Raises:
        InputDataError: a line that is not a JSON object with ``article`` (a whole number from 1)
            and ``head``, ``relation``, ``tail`` (text), naming the file and the line.
    """
    facts = []
    for n, line in enumerate(Path(path).read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            fact = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputDataError(path, f"line {n}: not JSON at {json_line_error(e)}") from None
        if not isinstance(fact, dict):
            raise InputDataError(path, f"line {n}: a {type(fact).__name__}, not a gold fact "
                                       "(an object with article, head, relation, tail)")
        missing = [f for f in ("article", "head", "relation", "tail") if f not in fact]
        if missing:
            raise InputDataError(path, f"line {n}: no {', '.join(missing)} (fields: {', '.join(fact) or 'none'})")
        article = fact["article"]
        if not isinstance(article, int) or isinstance(article, bool) or article < 1:
            raise InputDataError(path, f"line {n}: article {article!r}; expected a whole number from 1 "
                                       "(1 for the set's first line)")
        texts = [f for f in ("head", "relation", "tail") if not isinstance(fact[f], str) or not fact[f].strip()]
        if texts:
            raise InputDataError(path, f"line {n}: {', '.join(texts)} must be non-empty text")
        relation: str = fact["relation"]
        relation = LATER_RELATIONS.get(relation, relation)
        inside = None if relation.startswith("other:") else gold_key(fact["head"], relation, fact["tail"])
        facts.append(GoldFact(n, article, fact["head"], relation, fact["tail"], bool(fact.get("in_quote")), inside))
    return facts


def gold_files(sets_dir: Path, name: str) -> dict[str, Path]:
    """annotator -> gold file of set ``name`` (none when the set has no gold)."""
    return {p.name[len(name) + 1:-len(".jsonl")]: p for p in sorted((Path(sets_dir) / "gold").glob(f"{name}.*.jsonl"))}


def sets_with_gold(sets_dir: Path) -> list[str]:
    """The sets of ``sets_dir`` that have gold files, in the order of their names' numbers."""
    names = {p.stem for p in Path(sets_dir).glob("*.jsonl") if gold_files(sets_dir, p.stem)}
    return sorted(names, key=lambda s: (len(s), s))


@dataclass(frozen=True)
class SetRecord:
    """What ``gold/sets.json`` says of a set: ``read`` once it was used to write or tune a rule."""

    read: bool
    judged: tuple[tuple[str, str], ...] = ()   # (extractor, judged file under gold/), oldest first


def read_set_records(sets_dir: Path) -> dict[str, SetRecord]:
    """``gold/sets.json``; a set it does not list is unread (a new set is, until it is read).

    Raises:
        InputDataError: a file that is not such a record, naming the set at fault.
    """
    path = Path(sets_dir) / "gold/sets.json"
    if not path.exists():
        return {}
    expected = ('expected {"sets": {"NAME": {"status": "read" or "unread", '
                '"judged": [{"extractor": NAME, "file": "judged/FILE.md"}, ...]}}}')
    try:
        entries = json.loads(path.read_text("utf-8"))["sets"]
        out = {}
        for name, entry in entries.items():
            if entry["status"] not in ("read", "unread"):
                raise InputDataError(path, f"set {name}: status {entry['status']!r}; {expected}")
            out[name] = SetRecord(entry["status"] == "read",
                                  tuple((j["extractor"], j["file"]) for j in entry.get("judged", ())))
        return out
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise InputDataError(path, f"not a record of sets ({type(e).__name__}: {e}); {expected}") from None


def read_judged(path: Path) -> list[tuple[Key, bool]]:
    """The judged facts of a sample file (``bench/bench_news_extract.py --sample``): each fact's
    key and whether the judge said the article states it (rows without ``y`` or ``n`` are left out)."""
    out = []
    for line in Path(path).read_text("utf-8").splitlines():
        m = _JUDGED_ROW.match(line)
        if m and m.group(4) in ("y", "n"):
            cells = m.group(3).split("|")
            out.append((key(cells[0].strip(), m.group(2), cells[1].strip()), m.group(4) == "y"))
    return out
