"""Yield of the ``rules`` extractor on news, and a sample of its facts to judge by hand.

    .venv/bin/python bench/bench_news_extract.py                       # yield per set
    .venv/bin/python bench/bench_news_extract.py --set heldout2 --sample 100 --seed 17 --out bench/news_precision_heldout2.md
    .venv/bin/python bench/bench_news_extract.py --score bench/news_precision_heldout2.md

The corpus is ``tests/extract/text/data/news/`` (its README says how each set was written and
when it was read): ``dev`` and ``heldout`` to ``heldout3``, written by the rules' author and all
read by now; ``heldout4`` to ``heldout11``, written by someone who had not read the rules, each
measured once before it was read (the fifth to eleventh rounds). A new round needs a new unread
set. ``bench_news_recall.py`` compares the graphs with hand-written gold facts. Each set is built the way ``audit build --forget FILE`` builds it
(``extract.text.graph``: passages, the rules extractor, short-mention resolution, names
normalized, relations canonicalized, one fact per (head, relation, tail)), and the bench
reports the graph's facts per article, the facts per relation, and the speed.

``--sample N --seed S --out FILE`` draws N facts at random from the graph of one set
(``--set``, by default ``heldout2``) and writes them, each with the sentence it came from, to a markdown table with an empty verdict column:
write ``y`` (the article states the fact, with this relation and direction) or ``n`` in it.
``--score FILE`` reads the verdicts back and prints the precision with its 95% Wilson interval,
overall and per relation.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import time
from pathlib import Path

from bench_extract import wilson   # the script beside this one (run from bench/ or the repo root)
from extract.text.graph import TextBuildOptions, extract_corpora, read_corpora, text_graph_record

NEWS = Path(__file__).resolve().parents[1] / "tests/extract/text/data/news"
SETS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10",
        "heldout11")
_ROW = re.compile(r"^\| (\d+) \| (P\d+) [^|]*\|.*\| ([yn?]?) \|$")


def build(name: str):
    """The graph record of one set, built as ``audit build --forget`` builds it, and seconds taken."""
    options = TextBuildOptions()
    start = time.perf_counter()
    corpora = read_corpora([NEWS / f"{name}.jsonl"], [], options)
    corpus = extract_corpora(f"news-{name}", corpora, options)
    record = text_graph_record(corpus, "bench", str(NEWS))
    return record, len(corpora.documents), time.perf_counter() - start


def report_yield() -> dict:
    records = {}
    for name in SETS:
        record, documents, seconds = build(name)
        records[name] = record
        per_relation = collections.Counter(f.relation for f in record.facts)
        print(f"{name}: {documents} articles, {len(record.facts)} facts, "
              f"{len(record.facts) / documents:.2f} facts per article ({seconds:.1f} s)")
        print("   " + ", ".join(f"{r} {n}" for r, n in per_relation.most_common()))
    return records


def write_sample(record, name: str, n: int, seed: int, out: Path) -> None:
    facts = sorted(record.facts, key=lambda f: f.key)
    chosen = random.Random(seed).sample(facts, min(n, len(facts)))
    lines = [
        "# Hand-judged precision of the `rules` extractor on news: a sample",
        "",
        f"Drawn with `.venv/bin/python bench/bench_news_extract.py --set {name} --sample {n} "
        f"--seed {seed} --out {out}`:",
        f"{len(chosen)} of the {len(facts)} facts of the graph of set `{name}` "
        f"(`tests/extract/text/data/news/{name}.jsonl`), each with the sentence it came from.",
        "Verdict: `y` when the article states the fact with this relation and direction, `n` otherwise.",
        "",
        "| # | relation | head | tail | evidence | verdict |",
        "|---:|---|---|---|---|---|",
    ]
    for i, fact in enumerate(chosen, 1):
        evidence = " ".join(fact.attributes["evidence"].split()).replace("|", "/")
        lines.append(f"| {i} | {fact.relation} {fact.domain} | {fact.attributes['head_name']} | "
                     f"{fact.attributes['tail_name']} | {evidence} |  |")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(chosen)} facts to {out}")


def score(path: Path) -> None:
    verdicts = []
    for line in path.read_text("utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            verdicts.append((m.group(2), m.group(3)))
    judged = [(r, v) for r, v in verdicts if v in ("y", "n")]
    ok = sum(v == "y" for _, v in judged)
    lo, hi = wilson(ok, len(judged))
    print(f"{len(verdicts)} rows, {len(judged)} judged: precision {ok}/{len(judged)} = "
          f"{ok / max(len(judged), 1):.2f}, 95% Wilson interval [{lo:.2f}, {hi:.2f}]")
    per = collections.defaultdict(lambda: [0, 0])
    for relation, verdict in judged:
        per[relation][0] += 1
        per[relation][1] += verdict == "y"
    print("| relation | sampled | correct |\n|---|---:|---:|")
    for relation, (n, good) in sorted(per.items(), key=lambda kv: -kv[1][0]):
        print(f"| {relation} | {n} | {good} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sample_set", choices=SETS, default="heldout2",
                        help="the set --sample draws from")
    parser.add_argument("--sample", type=int, default=0, help="draw N facts of --set to judge")
    parser.add_argument("--seed", type=int, default=0, help="random seed of --sample")
    parser.add_argument("--out", type=Path, default=Path("bench/news_precision_sample.md"))
    parser.add_argument("--score", type=Path, help="read the verdicts of a judged sample file")
    args = parser.parse_args()
    if args.score:
        score(args.score)
        return
    records = report_yield()
    if args.sample:
        write_sample(records[args.sample_set], args.sample_set, args.sample, args.seed, args.out)


if __name__ == "__main__":
    main()
