"""How many facts a news article holds, and what share of them the ``rules`` extractor finds.

    .venv/bin/python bench/bench_news_recall.py                  # every measured set with gold files
    .venv/bin/python bench/bench_news_recall.py --set heldout6 --show 40

The gold facts are in ``bench/news_gold/SET.ANNOTATOR.jsonl``, written by annotators who had read
none of the extractor's code, tests, benchmarks or output (``bench/news_gold/GUIDE.md`` is all
they were told). Each set has two annotators who did not see each other's file.

Matching is ``bench_extract.py``'s lenient matching: both sides canonicalized (inverse
relations swapped, names through ``normalize_name``, a gold nationality read as its country),
then the same relation and head and tail each equal or one's words a contiguous part of the
other's ("Ofori-Mensah" ~ "Kwabena Ofori-Mensah"; "1988" ~ "1988-05"). A fact of the graph is
compared with the gold facts of the articles its passages come from.

Printed per set and annotator:
- gold facts per article, in the relation inventory (``extract/data/relations.v1.json``) and
  outside it (``other:``), and how many are stated only inside quoted speech; an ``other:``
  label of a relation the inventory gained after the gold was written is read as that relation
  (``LATER_RELATIONS``: ``other:age`` is ``P3629``);
- recall: the share of the in-inventory gold facts that a graph fact matches, and the share
  whose head and tail a graph fact joins under any relation ("pair recall");
- precision against gold: the share of graph facts that match a gold fact of this annotator
  (a lower bound on precision: an annotator misses facts too);
- agreement between the two annotators: the share of one's in-inventory facts that the
  other's match, each way.
``--show N`` prints N gold facts the graph misses, and N graph facts no annotator has.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from bench_extract import gold_key, key, lenient   # the scripts beside this one
from bench_news_extract import SETS, build

GOLD = Path(__file__).resolve().parent / "news_gold"
# ``other:`` labels of the gold for relations the inventory gained after the gold was written.
LATER_RELATIONS = {"other:age": "P3629", "other:age at death": "P3629"}


def read_gold(path: Path) -> list[dict]:
    """The gold facts of one annotator, each with its comparison key (None for ``other:``)."""
    facts = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        fact = json.loads(line)
        missing = {"article", "head", "relation", "tail"} - set(fact)
        if missing:
            raise SystemExit(f"Error: {path}, line {n}: no {', '.join(sorted(missing))}")
        fact["relation"] = LATER_RELATIONS.get(fact["relation"], fact["relation"])
        other = fact["relation"].startswith("other:")
        fact["key"] = None if other else gold_key(fact["head"], fact["relation"], fact["tail"])
        facts.append(fact)
    return facts


def graph_facts(record) -> dict[int, list[tuple]]:
    """Article number (1 for the file's first line) -> the comparison keys of its graph facts."""
    per_article = collections.defaultdict(list)
    for fact in record.facts:
        k = key(fact.attributes["head_name"], fact.relation, fact.attributes["tail_name"])
        documents = {int(p.split("/")[-2]) for p in fact.attributes["passages"]}
        for document in documents:
            per_article[document + 1].append(k)
    return per_article


def pair_match(p, g) -> bool:
    """Head and tail joined, under any relation, in either direction."""
    same = lenient((p[0], g[1], p[2]), g)
    swapped = lenient((p[2], g[1], p[0]), g)
    return same or swapped


def found(gold: list[dict], predicted: dict[int, list[tuple]], match) -> list[bool]:
    return [any(match(p, g["key"]) for p in predicted.get(g["article"], ())) for g in gold]


def agreement(a: list[dict], b: list[dict]) -> float:
    """The share of ``a``'s in-inventory facts that one of ``b``'s facts of the article matches."""
    by_article = collections.defaultdict(list)
    for g in b:
        if g["key"] is not None:
            by_article[g["article"]].append(g["key"])
    inside = [g for g in a if g["key"] is not None]
    hits = sum(any(lenient(g["key"], h) for h in by_article[g["article"]]) for g in inside)
    return hits / max(len(inside), 1)


def report(name: str, show: int) -> None:
    files = sorted(GOLD.glob(f"{name}.*.jsonl"))
    record, articles, _ = build(name)
    predicted = graph_facts(record)
    n_predicted = sum(len(v) for v in predicted.values())
    print(f"\n## {name}: {articles} articles, {len(record.facts)} graph facts "
          f"({len(record.facts) / articles:.2f} per article)")
    print("| annotator | gold per article | in inventory | other: | in quotes only | recall | "
          "pair recall | graph facts matching gold |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    golds = {}
    for path in files:
        annotator = path.name.split(".")[1]
        gold = golds[annotator] = read_gold(path)
        inside = [g for g in gold if g["key"] is not None]
        hits = found(inside, predicted, lenient)
        pairs = found(inside, predicted, pair_match)
        correct = sum(any(lenient(p, g["key"]) for g in inside if g["article"] == art)
                      for art, keys in predicted.items() for p in keys)
        print(f"| {annotator} | {len(gold) / articles:.2f} | {len(inside) / articles:.2f} | "
              f"{(len(gold) - len(inside)) / articles:.2f} | "
              f"{sum(bool(g.get('in_quote')) for g in gold) / articles:.2f} | "
              f"{sum(hits)}/{len(inside)} = {sum(hits) / max(len(inside), 1):.2f} | "
              f"{sum(pairs) / max(len(inside), 1):.2f} | "
              f"{correct}/{n_predicted} = {correct / max(n_predicted, 1):.2f} |")
        per_relation = collections.Counter(g["key"][1] for g in inside)
        per_hit = collections.Counter(g["key"][1] for g, h in zip(inside, hits) if h)
        print(f"   {annotator}, gold (found) per relation: " + ", ".join(
            f"{r} {n} ({per_hit[r]})" for r, n in per_relation.most_common()))
        others = collections.Counter(g["relation"] for g in gold if g["key"] is None)
        print(f"   {annotator}, outside the inventory: " + ", ".join(
            f"{r[6:]} {n}" for r, n in others.most_common(12)))
        if show:
            misses = [g for g, h in zip(inside, hits) if not h][:show]
            for g in misses:
                print(f"   missed {g['article']}: {g['head']} | {g['relation']} | {g['tail']}")
    if len(golds) == 2:
        (a, ga), (b, gb) = sorted(golds.items())
        print(f"agreement: {agreement(ga, gb):.2f} of {a}'s facts are {b}'s, "
              f"{agreement(gb, ga):.2f} of {b}'s are {a}'s")
    if show and golds:
        every = [g for gold in golds.values() for g in gold if g["key"] is not None]
        unmatched = [(art, p) for art, keys in predicted.items() for p in keys
                     if not any(lenient(p, g["key"]) for g in every if g["article"] == art)]
        for art, p in unmatched[:show]:
            print(f"   no gold {art}: {' | '.join(p)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", action="append", choices=SETS,
                        help="a news set with gold files (repeatable; by default every one that "
                             "bench_news_extract.SETS lists: a set joins that list when it is measured)")
    parser.add_argument("--show", type=int, default=0,
                        help="print N missed gold facts per annotator and N graph facts no annotator has")
    args = parser.parse_args()
    sets = args.sets or [name for name in SETS if any(GOLD.glob(f"{name}.*.jsonl"))]
    for name in sets:
        report(name, args.show)


if __name__ == "__main__":
    main()
