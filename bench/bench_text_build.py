"""Building a text graph at scale, and redundancy on a realistic forget/retain pair.

    .venv/bin/python bench/bench_text_build.py [--data ../shared/data/rebel/sample.jsonl] [--copies 7]

Two pairs built from the REBEL sample's 1,000 Wikipedia abstracts, both realistic requests:
- people: biographies (abstracts that say someone was born: a right-to-be-forgotten request
  about people) against everything else (places, organizations, works: what a model must
  keep). They share places and organizations, as a person's data and an encyclopedia do.
- random: a seeded random 10% of the abstracts against the other 90%, the way unlearning
  benchmarks draw a forget split from one corpus (TOFU's forget01/05/10). Neighbouring
  articles restate shared facts ("... a village in X County, Poland").
Printed per pair: the share of forget facts found redundant, and the weaker signals.

Scale: the same abstracts repeated ``--copies`` times (7 copies = ~3.1 MB, 7,000
documents; each copy is a separate document, so extraction does all the work again, while
the graph merges repeated facts). Printed: time per phase and documents per second, for the
embedded engine on a fresh store. The data is evaluation-only (CC BY-NC-SA); nothing of it
is kept.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from audit.questions.templates import add_questions
from extract.text.graph import corpus_sha256, extract_corpora, read_corpora, text_graph_record
from extract.text.options import TextBuildOptions
from graphstore import ConnectionSettings, GraphStore
from graphstore import queries as Q
from graphstore.embedded import EmbeddedServer
from graphstore.ingest import write_graph


def write(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return path


def build(store, graph, forget, retain) -> dict:
    options = TextBuildOptions()
    timings = {}
    start = time.perf_counter()
    corpora = read_corpora(forget, retain, options)
    corpus = extract_corpora(graph, corpora, options)
    timings["extract"] = time.perf_counter() - start
    start = time.perf_counter()
    record = add_questions(text_graph_record(corpus, corpus_sha256(corpora.reports, options), graph))
    timings["record"] = time.perf_counter() - start
    start = time.perf_counter()
    write_graph(store, record)
    timings["write"] = time.perf_counter() - start
    return {"timings": timings, "documents": len(corpus.documents), "passages": len(corpus.passages),
            "facts": len(record.facts), "entities": len(record.entities), "questions": record.qa_count,
            "redundancy": store.read(Q.REDUNDANCY_SUMMARY, graph=graph)[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).parents[1] / "../shared/data/rebel/sample.jsonl"))
    parser.add_argument("--copies", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0, help="for the random 10%% forget split")
    args = parser.parse_args()
    texts = [json.loads(line)["text"] for line in open(args.data, encoding="utf-8")]
    people = [t for t in texts if " born " in t or "(born" in t]
    others = [t for t in texts if t not in set(people)]
    drawn = set(random.Random(args.seed).sample(range(len(texts)), len(texts) // 10))
    random_forget = [t for i, t in enumerate(texts) if i in drawn]
    random_retain = [t for i, t in enumerate(texts) if i not in drawn]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        forget, retain = write(tmp / "people.jsonl", people), write(tmp / "encyclopedia.jsonl", others)
        rforget, rretain = write(tmp / "forget10.jsonl", random_forget), write(tmp / "retain90.jsonl", random_retain)
        big_forget, big_retain = tmp / "people-x.jsonl", tmp / "encyclopedia-x.jsonl"
        big_forget.write_text(forget.read_text(encoding="utf-8") * args.copies, encoding="utf-8")
        big_retain.write_text(retain.read_text(encoding="utf-8") * args.copies, encoding="utf-8")
        server = EmbeddedServer(tmp / "store")
        server.ensure_running()
        try:
            with GraphStore.open(ConnectionSettings.resolve(store_dir=tmp / "store", environ={})) as store:
                pairs = {"people": build(store, "people", [forget], [retain]),
                         "random": build(store, "random", [rforget], [rretain])}
                big = build(store, "scale", [big_forget], [big_retain])
        finally:
            server.stop()
        size = (big_forget.stat().st_size + big_retain.stat().st_size) / 1e6
    sizes = {"people": (len(people), len(others)), "random": (len(random_forget), len(random_retain))}
    for name, pair in pairs.items():
        r = pair["redundancy"]
        print(f"pair {name}: {sizes[name][0]} forget / {sizes[name][1]} retain abstracts")
        print(f"  forget facts {r['forget']}, redundant {r['redundant']} ({r['redundant'] / r['forget']:.1%}), "
              f"linked in retain {r['linked_in_retain']} ({r['linked_in_retain'] / r['forget']:.1%}), "
              f"both entities in retain text {r['entities_in_retain_text']} "
              f"({r['entities_in_retain_text'] / r['forget']:.1%})")
    t = big["timings"]
    total = sum(t.values())
    print(f"scale: {size:.1f} MB, {big['documents']} documents, {big['passages']} passages -> "
          f"{big['entities']} entities, {big['facts']} facts, {big['questions']} questions")
    print(f"  extract {t['extract']:.1f} s, record+questions {t['record']:.1f} s, write+structure+redundancy "
          f"{t['write']:.1f} s; total {total:.1f} s = {big['documents'] / total:.0f} documents/s")


if __name__ == "__main__":
    main()
