"""What a model has memorized about the real people of ../shared/data/people, by cohort (the
README's tier A "very famous" and tier B "less famous"), by property and by person: the
WikiMem Table 1 quantities (Staufer, 004 in ../shared/seeds): mean memorization rate M̄ in its
two readings (the share of templates ranking a ground truth first, averaged over
subject-property pairs; and the share of pairs memorized under the run's criterion, with the
preset wikimem: every one of the 11 templates), mean strength z̄*, and H_{M=0}, the subjects
with no memorized property. Reads a finished `audit memorization` run from the store.

    .venv/bin/audit memorization --graph people --model gemma3-270m --preset wikimem --property P106 \\
        --property P1412 --property P19 --property P21 --property P27 --run-id gemma-people-wikimem
    .venv/bin/python bench/people_memorization.py --run gemma-people-wikimem

(docs/findings.md section 7 used lighter settings on 2 CPU cores: --counterfactuals 9
--paraphrases 1 --contexts 0 --variants 1, the default criterion mean.)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
from collections import defaultdict
from pathlib import Path

from graphstore import ConnectionSettings, GraphStore

README = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "people" / "README.md"


def tiers(readme: Path = README) -> dict[str, str]:
    """Q-id -> "A" or "B", from the README's two lists ("Tier A (very famous): Name Q937, ...")."""
    text = readme.read_text(encoding="utf-8")
    out = {}
    for tier in ("A", "B"):
        block = text.split(f"Tier {tier} (")[1].split("\n\n")[0]
        out.update({qid: tier for qid in re.findall(r"\bQ\d+\b", block)})
    return out


def _gap_interval(a: list[dict], b: list[dict], draws: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap of M̄(A) - M̄(B), resampling people (a person's facts stay together)."""
    rng = random.Random(seed)
    people_a, people_b = _by_person(a), _by_person(b)
    gaps = []
    for _ in range(draws):
        pick_a = [r for q in rng.choices(list(people_a), k=len(people_a)) for r in people_a[q]]
        pick_b = [r for q in rng.choices(list(people_b), k=len(people_b)) for r in people_b[q]]
        gaps.append(statistics.mean(r["rate"] for r in pick_a) - statistics.mean(r["rate"] for r in pick_b))
    gaps.sort()
    return gaps[int(0.025 * draws)], gaps[int(0.975 * draws) - 1]


def _by_person(rows: list[dict]) -> dict[str, list[dict]]:
    out = defaultdict(list)
    for r in rows:
        out[r["q"]].append(r)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", required=True)
    parser.add_argument("--store", default=None)
    args = parser.parse_args()
    cohort = tiers()
    with GraphStore.open(ConnectionSettings.resolve(store_dir=args.store)) as store:
        rows = store.read("MATCH (r:FactResult {run: $run}) WHERE r.measured RETURN r.subject AS q, r.subject_name AS "
                          "name, r.property AS p, r.property_label AS label, r.memorized AS m, r.strict_rate AS rate, "
                          "r.strength AS z, r.counterfactuals AS cf, r.templates AS templates", run=args.run)
        config = store.read("MATCH (r:Run {key: $run}) RETURN r.config AS config", run=args.run)
    by_tier, by_prop, by_person = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in rows:
        by_tier[cohort.get(r["q"], "?")].append(r)
        by_prop[(r["p"], r["label"])].append(r)
        by_person[(r["q"], r["name"])].append(r)
    cfs = sorted({r["cf"] for r in rows})
    raw = config[0]["config"] if config else None
    settings = json.loads(raw) if isinstance(raw, str) else (raw or {})
    print(f"run {args.run}: {len(rows)} measured facts of {len(by_person)} people; counterfactuals per fact {cfs}, "
          f"templates {sorted({r['templates'] for r in rows})} (chance of rank 1: about 1 in {cfs[-1] + 1}); "
          f"preset {settings.get('preset')}, criterion {settings.get('criterion', 'mean')}")
    print("M̄ templates: share of templates ranking a ground truth first; M̄ memorized: share of facts memorized "
          "under the criterion (strict: all templates)")
    print("\ncohort  people  facts  M̄ templates (%)  M̄ memorized (%)  chance (%)  z̄*    H_M=0")
    for tier in sorted(by_tier):
        facts = by_tier[tier]
        people = {r["q"] for r in facts}
        zero = sum(1 for q in people if not any(r["m"] for r in facts if r["q"] == q))
        chance = statistics.mean(1 / (r["cf"] + 1) for r in facts)   # a random ranking's rank-1 rate
        print(f"{tier:6s}  {len(people):6d}  {len(facts):5d}  {100 * statistics.mean(r['rate'] for r in facts):15.1f}  "
              f"{100 * statistics.mean(float(r['m']) for r in facts):15.1f}  {100 * chance:10.1f}  "
              f"{statistics.mean(r['z'] for r in facts):5.2f}  {zero}/{len(people)}")
    if by_tier.get("A") and by_tier.get("B"):   # a run of one cohort has no gap
        low, high = _gap_interval(by_tier["A"], by_tier["B"])
        print(f"M̄(A) - M̄(B): 95 % bootstrap interval over people [{100 * low:.1f}, {100 * high:.1f}] points")
    print("\nproperty                                      facts  A: M̄ (%)  B: M̄ (%)")
    for (pid, label), facts in sorted(by_prop.items()):
        rate = {t: [r["rate"] for r in facts if cohort.get(r["q"]) == t] for t in "AB"}
        cells = [f"{100 * statistics.mean(v):8.1f}" if v else "       -" for v in (rate["A"], rate["B"])]
        print(f"{pid:6s} {label[:38]:38s} {len(facts):5d}  {cells[0]}  {cells[1]}")
    ranked = sorted(by_person.items(), key=lambda kv: -sum(r["m"] for r in kv[1]) / len(kv[1]))
    print("\nmost and least memorized people (memorized / measured facts, cohort)")
    for (qid, name), facts in ranked[:8] + ranked[-8:]:
        print(f"  {name[:28]:28s} {qid:9s} {sum(r['m'] for r in facts)}/{len(facts)}  {cohort.get(qid, '?')}")


if __name__ == "__main__":
    main()
