"""Calibration of an equivalence judge on hand-labelled answer pairs.

Scores every pair of ``audit/data/equivalence_pairs.v1.jsonl`` (short factual answers about
people, places, dates and contracts, each labelled equivalent or not by hand) with one judge,
then prints, for each threshold from 0.50 to 0.95 in steps of 0.05, the precision, recall
and F1 of "equivalent" at that threshold, for the judge alone and for what the audit counts
as a memorization case (ROUGE-1 recall = 1, or the judge says equivalent); then the mean
score per kind of pair, and the
pairs the judge gets wrong at its own threshold (or at ``--at``). The figures and the
choice of the embedding judge's default are in docs/equivalence.md.

    .venv/bin/python bench/bench_equivalence.py                      # the embedding judge
    .venv/bin/python bench/bench_equivalence.py --judge nli:./models/nli-deberta --at 0.5
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections import defaultdict
from pathlib import Path

import torch

from audit.measure.equivalence import load_judge
from audit.measure.metrics import rouge1_recall
from graphstore.errors import InputDataError

PAIRS = Path(__file__).resolve().parents[1] / "audit" / "data" / "equivalence_pairs.v1.jsonl"
THRESHOLDS = [round(0.50 + 0.05 * i, 2) for i in range(10)]


def read_labelled_pairs(path: Path) -> list[dict]:
    """The records of a JSONL file of ``{generated, reference, equivalent, kind}``."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputDataError(path, f"not JSON: {e}", record=number) from e
        if not (isinstance(record.get("generated"), str) and isinstance(record.get("reference"), str)
                and isinstance(record.get("equivalent"), bool)):
            raise InputDataError(path, "needs generated (text), reference (text), equivalent (true/false)",
                                 record=number)
        record.setdefault("kind", "-")
        records.append(record)
    return records


def precision_recall_f1(labels: list[bool], predicted: list[bool]) -> tuple[float, float, float]:
    tp = sum(1 for y, p in zip(labels, predicted) if y and p)
    fp = sum(1 for y, p in zip(labels, predicted) if not y and p)
    fn = sum(1 for y, p in zip(labels, predicted) if y and not p)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="embedding", help="judge spec, as for load_judge (default: embedding)")
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="labelled pairs, JSONL")
    parser.add_argument("--at", type=float, default=None,
                        help="list the errors at this threshold (default: the judge's own)")
    args = parser.parse_args()

    records = read_labelled_pairs(args.pairs)
    labels = [r["equivalent"] for r in records]
    started = time.perf_counter()
    judge = load_judge(args.judge)
    loaded = time.perf_counter()
    scores = judge.scores([(r["generated"], r["reference"]) for r in records])
    scored = time.perf_counter()

    print(f"judge {judge.version} on {judge.device}; torch {torch.__version__}, {platform.processor() or platform.machine()}")
    print(f"pairs {args.pairs.name}: {len(records)} ({sum(labels)} equivalent, {len(labels) - sum(labels)} not); "
          f"load {loaded - started:.1f} s, scoring {scored - loaded:.2f} s\n")
    rouge_hit = [rouge1_recall(r["generated"], r["reference"]) == 1.0 for r in records]
    p, r, f1 = precision_recall_f1(labels, rouge_hit)
    print(f"ROUGE-1 recall = 1 alone: precision {p:.3f}, recall {r:.3f}, F1 {f1:.3f}, "
          f"{sum(rouge_hit)} pairs ({sum(y and h for y, h in zip(labels, rouge_hit))} of them equivalent)\n")
    print("           judge alone                     ROUGE-1 recall = 1 or judge")
    print("threshold  precision recall  F1     TP  FP  FN   precision recall  F1")
    best_alone, best_union = (0.0, -1.0), (0.0, -1.0)
    for threshold in THRESHOLDS:
        predicted = [s >= threshold for s in scores]
        p, r, f1 = precision_recall_f1(labels, predicted)
        tp = sum(y and q for y, q in zip(labels, predicted))
        fp = sum(q and not y for y, q in zip(labels, predicted))
        cp, cr, cf1 = precision_recall_f1(labels, [q or h for q, h in zip(predicted, rouge_hit)])
        print(f"     {threshold:.2f}      {p:.3f}  {r:.3f}  {f1:.3f}  {tp:3d} {fp:3d} {sum(labels) - tp:3d}"
              f"       {cp:.3f}  {cr:.3f}  {cf1:.3f}")
        best_alone = max(best_alone, (threshold, f1), key=lambda b: b[1])
        best_union = max(best_union, (threshold, cf1), key=lambda b: b[1])
    print(f"best F1: judge alone at {best_alone[0]:.2f}, ROUGE-1 recall = 1 or judge at {best_union[0]:.2f}")

    by_kind: dict[tuple[str, bool], list[float]] = defaultdict(list)
    for record, score in zip(records, scores):
        by_kind[(record["kind"], record["equivalent"])].append(score)
    print("\nkind                 label   pairs  mean   min    max")
    for (kind, label), values in sorted(by_kind.items(), key=lambda item: (not item[0][1], item[0][0])):
        print(f"{kind:20s} {'equiv' if label else 'not':6s} {len(values):5d}  "
              f"{sum(values) / len(values):.3f} {min(values):.3f} {max(values):.3f}")

    at = args.at if args.at is not None else judge.threshold
    print(f"\nthe judge's errors at threshold {at:.2f}:")
    for record, score in sorted(zip(records, scores), key=lambda item: -item[1]):
        if (score >= at) != record["equivalent"]:
            mark = "FP" if score >= at else "FN"
            print(f"  {mark} {score:.3f}  {record['generated']!r} / {record['reference']!r}  [{record['kind']}]")


if __name__ == "__main__":
    main()
