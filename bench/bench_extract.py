"""Extraction quality of the ``rules`` extractor against REBEL's gold triples, and its speed.

    .venv/bin/python bench/bench_extract.py [--data ../shared/data/rebel/sample.jsonl] [--show N]
    .venv/bin/python bench/bench_extract.py --sample 100 --seed 7   # triples to judge by hand

Matching (both sides canonicalized the same way: inverse relations swapped, e.g. gold
``Y contains X`` counts as ``X located in Y``; names through ``normalize_name``, dates as
dates):
- strict: same relation id, same normalized head and tail;
- lenient: same relation id, and head and tail each equal or one's words a contiguous part
  of the other's ("Oakland" ~ "Oakland, California"); dates when one is the other's
  beginning ("1988" ~ "1988-05").
Gold tails are written as the text says them: REBEL's ``sport`` of a footballer is
"footballer", the ``country of citizenship`` of a Turk "Turkish". Unless ``--raw-gold``,
such a tail is read through the gazetteer the way the extractor reads its own: a player's
noun as its sport, a nationality or a country's alias as the country. The matching is
``extract.text.gold``'s, the same as the news gate's (``audit extract-score``).
A predicted triple is correct when it matches a gold triple of the same abstract.
Precision is over all predicted triples; recall over all gold triples, and over the gold
triples of the relations the rules produce ("covered").

``--sample N --seed S`` prints N predicted triples drawn at random, each with its evidence
sentence, for judging whether the sentence states the fact (REBEL's gold is incomplete, so
precision against it is a lower bound); the verdicts go in ``extract_precision_sample.md``.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import time
from pathlib import Path

from extract.text.gold import gold_key, key, lenient
from extract.text.normalize import relations, resolve_short_mentions
from extract.text.rules import RulesExtractor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).parents[1] / "../shared/data/rebel/sample.jsonl"))
    parser.add_argument("--show", type=int, default=0, help="print N false positives and N misses")
    parser.add_argument("--raw-gold", action="store_true",
                        help="compare with gold tails as written (no sport or nationality reading)")
    parser.add_argument("--sample", type=int, default=0,
                        help="print N predicted triples drawn at random, with their evidence, to judge")
    parser.add_argument("--seed", type=int, default=0, help="random seed of --sample")
    args = parser.parse_args()
    docs = [json.loads(line) for line in open(args.data, encoding="utf-8")]
    extractor = RulesExtractor()
    known = relations()

    start = time.perf_counter()
    predicted, sentences = [], 0
    for doc in extractor.nlp.pipe([d["text"] for d in docs], batch_size=64):
        sents = list(doc.sents)
        sentences += len(sents)
        predicted.append(resolve_short_mentions(extractor.extract_sentences(doc, [(s, "p") for s in sents])))
    elapsed = time.perf_counter() - start

    tp_strict = tp_lenient = 0
    per_rel = collections.defaultdict(lambda: [0, 0, 0, 0])  # predicted, correct(lenient), gold, found(lenient)
    gold_total = covered_gold = covered_found = 0
    produced = {t.relation for triples in predicted for t in triples}
    false_pos, misses = [], []
    for d, triples in zip(docs, predicted):
        gold = set()
        for t in d["triples"]:
            rel = t["predicate"]["uri"]
            gold.add(gold_key(t["subject"]["surfaceform"], rel, t["object"]["surfaceform"], args.raw_gold))
        pred = {key(t.head, t.relation, t.tail) for t in triples}
        gold_total += len(gold)
        for p in pred:
            rel = p[1]
            per_rel[rel][0] += 1
            if p in gold:
                tp_strict += 1
            if any(lenient(p, g) for g in gold):
                tp_lenient += 1
                per_rel[rel][1] += 1
            elif len(false_pos) < args.show:
                false_pos.append((d["title"], p))
        for g in gold:
            per_rel[g[1]][2] += 1
            hit = any(lenient(p, g) for p in pred)
            if hit:
                per_rel[g[1]][3] += 1
            if g[1] in produced:
                covered_gold += 1
                covered_found += hit
                if not hit and len(misses) < args.show:
                    misses.append((d["title"], g))
    n_pred = sum(len({key(t.head, t.relation, t.tail) for t in ts}) for ts in predicted)
    found_lenient = sum(v[3] for v in per_rel.values())
    print(f"abstracts {len(docs)}, sentences {sentences}, gold triples {gold_total}, predicted {n_pred}")
    print(f"speed: {sentences / elapsed:,.0f} sentences/s ({elapsed:.1f} s, pipeline + frames, 1 process)")
    print(f"precision strict {tp_strict / max(n_pred, 1):.3f}  lenient {tp_lenient / max(n_pred, 1):.3f}")
    print(f"recall (all gold) lenient {found_lenient / gold_total:.3f}; "
          f"over relations the rules produce ({covered_gold} gold) {covered_found / max(covered_gold, 1):.3f}")
    print("\n| relation | label | predicted | precision | gold | recall |")
    print("|---|---|---:|---:|---:|---:|")
    for rel, (n_p, ok, n_g, found) in sorted(per_rel.items(), key=lambda kv: -max(kv[1][0], kv[1][2])):
        if n_p == 0 and n_g < 10:
            continue
        label = known[rel].label if rel in known else ""
        prec = f"{ok / n_p:.2f}" if n_p else "-"
        rec = f"{found / n_g:.2f}" if n_g else "-"
        print(f"| {rel} | {label} | {n_p} | {prec} | {n_g} | {rec} |")
    for title, p in false_pos:
        print("FP", title, p)
    for title, g in misses:
        print("MISS", title, g)
    if args.sample:
        print_sample(docs, predicted, args.sample, args.seed)


def print_sample(docs: list[dict], predicted: list[list], n: int, seed: int) -> None:
    """N predicted triples (one per distinct fact of an abstract), drawn with ``seed``."""
    pool = []
    for d, triples in zip(docs, predicted):
        seen = set()
        for t in triples:
            k = key(t.head, t.relation, t.tail)
            if k not in seen:
                seen.add(k)
                pool.append((d["title"], t))
    print(f"\nsample of {n} from {len(pool)} predicted triples, seed {seed}")
    for i, (title, t) in enumerate(random.Random(seed).sample(pool, min(n, len(pool))), 1):
        print(f"{i}. {t.relation} | {t.head} | {t.tail}    [{title}]\n    {' '.join(t.evidence.split())}")


if __name__ == "__main__":
    main()
