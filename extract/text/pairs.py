"""A forget/retain corpus pair with a known share of restated facts, from gold-annotated abstracts.

HANKER (Holistic Audit Dataset Generation for LLM Unlearning, arXiv:2502.18810) measures how
many forget facts the retain corpus also states, and how much counting them inflates an audit. To check that measurement we
need a pair where the answer is known in advance. From abstracts whose facts are annotated
(REBEL: each gold triple with its subject and object surface forms), this module:

1. draws (seeded) ``forget_docs`` abstracts for the forget corpus and ``retain_docs`` others for
   the retain corpus;
2. finds the forget sentences that state a gold triple on their own (the subject's and the
   object's surface forms are both in the sentence), and draws ``share`` of them;
3. adds each drawn sentence to the retain corpus as a document of its own (a news brief that
   repeats one line of another story).

The manifest records the gold triples restated and the share, so the redundancy the graph
finds (``audit build`` then ``audit stats``) can be set against the share put in.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from extract.jsonfile import json_line_error, read_utf8, strict_loads
from graphstore.errors import InputDataError

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


@dataclass(frozen=True)
class Abstract:
    title: str
    text: str
    triples: tuple[tuple[str, str, str], ...]   # (subject, relation label, object) surface forms


@dataclass
class CorpusPair:
    forget: list[str]
    retain: list[str]
    manifest: dict


def read_abstracts(path: Path) -> list[Abstract]:
    """REBEL-style JSON lines: ``title``, ``text`` and ``triples`` with subject/predicate/object
    ``surfaceform``s. A line that is not such a record is refused, naming the line."""
    out = []
    for number, line in enumerate(read_utf8(path)[1].splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = strict_loads(line)
        except json.JSONDecodeError as e:
            raise InputDataError(path, f"line {number}: not JSON at {json_line_error(e)}") from None
        if not isinstance(record, dict):
            raise InputDataError(path, f"line {number}: not an abstract with text and triples "
                                       f"(a JSON {type(record).__name__}, not an object)")
        try:
            triples = tuple((t["subject"]["surfaceform"], t["predicate"]["surfaceform"], t["object"]["surfaceform"])
                            for t in record.get("triples", []))
            out.append(Abstract(str(record.get("title", "")), record["text"], triples))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise InputDataError(path, f"line {number}: not an abstract with text and triples ({e})") from None
    if not out:
        raise InputDataError(path, "no abstracts in the file")
    return out


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def make_pair(abstracts: list[Abstract], forget_docs: int, retain_docs: int, share: float, seed: int) -> CorpusPair:
    """The pair described in the module docstring; the same arguments give the same pair."""
    if not 0.0 <= share <= 1.0:
        raise InputDataError("--share", f"{share}: must be in [0, 1]")
    usable = [a for a in abstracts if a.triples]
    if forget_docs < 1 or retain_docs < 0 or forget_docs + retain_docs > len(usable):
        raise InputDataError("--forget-docs", f"{forget_docs} forget + {retain_docs} retain abstracts: the file has "
                                              f"{len(usable)} with triples")
    rng = random.Random(seed)
    drawn = rng.sample(usable, forget_docs + retain_docs)
    forget, retain = drawn[:forget_docs], drawn[forget_docs:]
    # (sentence, its gold triples) for every forget sentence stating a triple on its own
    candidates = []
    for a in forget:
        for sentence in sentences(a.text):
            stated = [t for t in a.triples if t[0] in sentence and t[2] in sentence]
            if stated:
                candidates.append((sentence, stated))
    restated = rng.sample(candidates, round(share * len(candidates)))
    briefs = [sentence for sentence, _ in restated]
    retain_texts = [a.text for a in retain] + briefs
    order = list(range(len(retain_texts)))
    rng.shuffle(order)   # the briefs are not all at the end
    gold_forget = sum(len(a.triples) for a in forget)
    gold_restated = sum(len(stated) for _, stated in restated)
    manifest = {
        "seed": seed, "share": share, "forget_documents": [a.title for a in forget],
        "retain_documents": [a.title for a in retain], "self_contained_sentences": len(candidates),
        "restated_sentences": len(restated), "gold_forget_triples": gold_forget,
        "gold_triples_restated": gold_restated,
        "gold_share_restated": round(gold_restated / gold_forget, 4) if gold_forget else None,
        "restated": [{"sentence": s, "triples": [list(t) for t in stated]} for s, stated in restated],
    }
    return CorpusPair([a.text for a in forget], [retain_texts[i] for i in order], manifest)


def write_pair(pair: CorpusPair, folder: Path) -> list[Path]:
    """``forget.jsonl``, ``retain.jsonl`` (one ``{"text": ...}`` per line) and ``manifest.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, texts in (("forget", pair.forget), ("retain", pair.retain)):
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
        paths.append(path)
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps(pair.manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return paths + [manifest]
