"""A sample of an extractor's facts on one news set, to judge by hand; and the judged file's score.

    .venv/bin/python bench/bench_news_extract.py --set heldout12 --sample 100 --seed 12 \\
        --out tests/extract/text/data/news/gold/judged/heldout12.round12.md
    .venv/bin/python bench/bench_news_extract.py --score tests/extract/text/data/news/gold/judged/heldout12.round12.md

Everything else the held-out protocol measures (facts and seconds per article, recall and
precision against the gold facts, the judged precision) is `audit extract-score`
(``extract.text.gate``); the sets, their gold and which of them are unread are in
``tests/extract/text/data/news/`` (``gold/README.md``).

``--sample N --seed S --out FILE`` draws N facts at random from the graph of ``--set`` (built as
``audit build --forget SET.jsonl`` builds it, with the ``rules`` extractor) and writes them, each
with the sentence it came from, to a markdown table with an empty verdict column: the judge
writes ``y`` (the article states the fact, with this relation and direction) or ``n`` in it.
List the file under the set's ``judged`` in ``gold/sets.json`` and the gate reports it.
``--score FILE`` prints a judged file's precision with its 95% Wilson interval, overall and
per relation.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
from pathlib import Path

from extract.text.gold import NEWS_SETS, wilson
from extract.text.graph import extract_corpora, read_corpora, text_graph_record
from extract.text.options import TextBuildOptions

_ROW = re.compile(r"^\| (\d+) \| (P\d+) [^|]*\|.*\| ([yn?]?) \|$")


def write_sample(name: str, n: int, seed: int, out: Path) -> None:
    options = TextBuildOptions()
    corpus = extract_corpora(f"news-{name}", read_corpora([NEWS_SETS / f"{name}.jsonl"], [], options), options)
    facts = sorted(text_graph_record(corpus, "bench", str(NEWS_SETS)).facts, key=lambda f: f.key)
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
    parser.add_argument("--set", dest="sample_set", help="the set --sample draws from (NAME of NAME.jsonl)")
    parser.add_argument("--sample", type=int, default=0, help="draw N facts of --set to judge")
    parser.add_argument("--seed", type=int, default=0, help="random seed of --sample")
    parser.add_argument("--out", type=Path, help="the sample file --sample writes")
    parser.add_argument("--score", type=Path, help="read the verdicts of a judged sample file")
    args = parser.parse_args()
    if args.score:
        score(args.score)
    elif args.sample and args.sample_set and args.out:
        write_sample(args.sample_set, args.sample, args.seed, args.out)
    else:
        parser.error("give --score FILE, or --set NAME --sample N --out FILE (the yields and recall: audit extract-score)")


if __name__ == "__main__":
    main()
