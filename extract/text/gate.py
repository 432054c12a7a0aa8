"""The gate: one extractor scored on the news sets that have gold facts.

For each set: the graph the extractor builds (as ``audit build --forget SET.jsonl`` builds it),
its facts and seconds per article, and against each annotator's gold (``extract.text.gold``)
recall, pair recall and precision (a lower bound: an annotator misses facts too), the two
annotators' agreement, and the judged precision where a judged sample of the set exists for
the extractor. A fact of the graph is compared with the gold facts of the articles its
passages come from, one comparison per fact and article. Sets pool into totals (``pool``),
the unread ones apart from the read.

Example:
    >>> from extract.text.gold import NEWS_SETS, sets_with_gold
    >>> scores = [score_set(NEWS_SETS, name, TextBuildOptions()) for name in sets_with_gold(NEWS_SETS)]
    >>> unread = pool("unread", [s for s in scores if not s.read])
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from graphstore.errors import InputDataError

from extract.text.gold import (GoldFact, Key, SetRecord, gold_files, key, lenient, pair_match, read_gold, read_judged,
                               read_set_records, wilson)
from extract.text.extractors import ChatBackend
from extract.text.graph import extract_corpora, read_corpora, text_graph_record
from extract.text.options import TextBuildOptions


@dataclass(frozen=True)
class SetFacts:
    """What an extractor found in one set: its graph's facts by article, and the time taken."""

    name: str
    articles: int
    facts: int                              # facts of the graph (one per head, relation, tail)
    seconds: float                          # reading, extraction and the graph record
    extractor: str                          # the version the build records
    per_article: dict[int, tuple[Key, ...]]  # article (1 for the first line) -> its facts' keys
    keys: frozenset[Key]                    # every fact's key
    notes: str = ""                         # what the extractor dropped or repaired (its summary)


def extract_set(sets_dir: Path, name: str, options: TextBuildOptions, backend: ChatBackend | None = None) -> SetFacts:
    """Build set ``name`` as ``audit build --forget SET.jsonl`` builds it, with ``options``
    (``backend``: what answers the ``llm`` extractor's prompts). The seconds include loading
    the extractor, once per set."""
    start = time.perf_counter()
    corpora = read_corpora([Path(sets_dir) / f"{name}.jsonl"], [], options)
    corpus = extract_corpora(f"news-{name}", corpora, options, backend=backend)
    record = text_graph_record(corpus, "gate", str(sets_dir))
    seconds = time.perf_counter() - start
    per_article: dict[int, list[Key]] = collections.defaultdict(list)
    for fact in record.facts:
        k = key(fact.attributes["head_name"], fact.relation, fact.attributes["tail_name"])
        # a passage key ends in .../<document index>/<passage position>
        for document in sorted({int(p.split("/")[-2]) for p in fact.attributes["passages"]}):
            per_article[document + 1].append(k)
    keys = frozenset(k for ks in per_article.values() for k in ks)
    return SetFacts(name, len(corpora.documents), len(record.facts), seconds, corpus.extractor_version,
                    {a: tuple(ks) for a, ks in sorted(per_article.items())}, keys, corpus.extractor_notes)


@dataclass(frozen=True)
class AnnotatorScore:
    """One set's graph against one annotator's gold (summed over sets in a total)."""

    annotator: str
    gold_facts: int          # every fact the annotator wrote, ``other:`` included
    in_inventory: int        # those the relation inventory can hold: recall's denominator
    in_quotes: int           # stated only inside quoted speech
    found: int               # in-inventory facts that a graph fact of the article matches
    pair_found: int          # ... whose head and tail a graph fact joins under any relation
    graph_facts: int         # graph facts compared, one per fact and article
    graph_matching: int      # ... that match one of this annotator's facts of the article
    misses: tuple[GoldFact, ...] = ()

    @property
    def recall(self) -> float:
        return self.found / max(self.in_inventory, 1)

    @property
    def pair_recall(self) -> float:
        return self.pair_found / max(self.in_inventory, 1)

    @property
    def precision(self) -> float:
        """Precision against this annotator's gold: a lower bound (an annotator misses facts too)."""
        return self.graph_matching / max(self.graph_facts, 1)


@dataclass(frozen=True)
class Agreement:
    """Between two annotators: how many of each one's in-inventory facts the other's match."""

    first: str
    second: str
    first_in_second: int
    first_facts: int
    second_in_first: int
    second_facts: int

    @property
    def rates(self) -> tuple[float, float]:
        return self.first_in_second / max(self.first_facts, 1), self.second_in_first / max(self.second_facts, 1)


@dataclass(frozen=True)
class JudgedPrecision:
    """The verdicts of a judged sample applied to the graph's facts that it judged."""

    files: tuple[str, ...]
    correct: int
    judged: int            # the graph's facts that have a verdict
    graph_facts: int       # all of the graph's facts, so that the share judged shows

    @property
    def precision(self) -> float:
        return self.correct / max(self.judged, 1)

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.correct, self.judged)


@dataclass(frozen=True)
class SetScore:
    """The gate's figures for one set, or pooled over several (``pool``)."""

    name: str
    read: bool | None          # None: a total over sets of both kinds (never made)
    sets: int
    articles: int
    facts: int
    seconds: float
    annotators: tuple[AnnotatorScore, ...]
    agreement: Agreement | None
    judged: JudgedPrecision | None
    unmatched: tuple[tuple[int, Key], ...] = ()   # graph facts no annotator has: (article, key)
    notes: str = ""                               # the extractor's summary (refused, repaired, unanswered)

    @property
    def facts_per_article(self) -> float:
        return self.facts / max(self.articles, 1)

    @property
    def seconds_per_article(self) -> float:
        return self.seconds / max(self.articles, 1)


def _found(gold: list[GoldFact], per_article: dict[int, tuple[Key, ...]],
           match: Callable[[Key, Key], bool]) -> list[bool]:
    return [any(match(p, g.key) for p in per_article.get(g.article, ())) for g in gold if g.key is not None]


def score_annotator(annotator: str, gold: list[GoldFact], found: SetFacts) -> AnnotatorScore:
    """``found``'s graph against one annotator's gold facts."""
    inside = [g for g in gold if g.key is not None]
    hits = _found(inside, found.per_article, lenient)
    pairs = _found(inside, found.per_article, pair_match)
    by_article: dict[int, list[Key]] = collections.defaultdict(list)
    for g in inside:
        by_article[g.article].append(g.key)  # type: ignore[arg-type]  # inside: key is set
    compared = [(art, p) for art, ks in found.per_article.items() for p in ks]
    matching = sum(any(lenient(p, g) for g in by_article[art]) for art, p in compared)
    return AnnotatorScore(annotator, len(gold), len(inside), sum(g.in_quote for g in gold), sum(hits), sum(pairs),
                          len(compared), matching, tuple(g for g, h in zip(inside, hits) if not h))


def agreement(first: str, a: list[GoldFact], second: str, b: list[GoldFact]) -> Agreement:
    """How many of ``a``'s in-inventory facts one of ``b``'s facts of the article matches, and back."""
    def hits(x: list[GoldFact], y: list[GoldFact]) -> tuple[int, int]:
        per_article: dict[int, tuple[Key, ...]] = collections.defaultdict(tuple)
        for g in y:
            if g.key is not None:
                per_article[g.article] += (g.key,)
        return sum(_found(x, per_article, lenient)), sum(g.key is not None for g in x)
    (ab, na), (ba, nb) = hits(a, b), hits(b, a)
    return Agreement(first, second, ab, na, ba, nb)


def judged_precision(sets_dir: Path, record: SetRecord | None, extractor: str,
                     found: SetFacts) -> JudgedPrecision | None:
    """The latest judged sample of the set for this extractor (by name), applied to the facts of
    ``found`` it has a verdict for; None when there is none or it judged none of them."""
    files = [f for e, f in (record.judged if record else ()) if e == extractor]
    if not files:
        return None
    verdicts = {k: ok for k, ok in read_judged(Path(sets_dir) / "gold" / files[-1])}
    judged = [verdicts[k] for k in found.keys if k in verdicts]
    if not judged:
        return None
    return JudgedPrecision((files[-1],), sum(judged), len(judged), len(found.keys))


def score_set(sets_dir: Path, name: str, options: TextBuildOptions, records: dict[str, SetRecord] | None = None,
              backend: ChatBackend | None = None) -> SetScore:
    """Extract set ``name`` of ``sets_dir`` with ``options`` and score it against its gold
    (``records``: ``gold/sets.json``, read when not given).

    Raises:
        InputDataError: a bad gold line or a gold fact of an article the set does not have.
    """
    records = read_set_records(sets_dir) if records is None else records
    found = extract_set(sets_dir, name, options, backend)
    golds = {a: read_gold(p) for a, p in gold_files(sets_dir, name).items()}
    for annotator, gold in golds.items():
        for g in gold:
            if g.article > found.articles:
                raise InputDataError(gold_files(sets_dir, name)[annotator],
                                     f"line {g.line}: article {g.article}, but {name}.jsonl has {found.articles}")
    scores = tuple(score_annotator(a, gold, found) for a, gold in golds.items())
    pair = sorted(golds)[:2]
    agreed = agreement(pair[0], golds[pair[0]], pair[1], golds[pair[1]]) if len(pair) == 2 else None
    every: dict[int, list[Key]] = collections.defaultdict(list)
    for gold in golds.values():
        for g in gold:
            if g.key is not None:
                every[g.article].append(g.key)
    unmatched = tuple((art, p) for art, ks in found.per_article.items() for p in ks
                      if golds and not any(lenient(p, g) for g in every[art]))
    record = records.get(name)
    return SetScore(name, record.read if record else False, 1, found.articles, found.facts, found.seconds, scores,
                    agreed, judged_precision(sets_dir, record, options.extractor, found), unmatched, found.notes)


def pool(name: str, scores: list[SetScore]) -> SetScore:
    """Several sets as one: counts summed, annotators by their label (``a`` with ``a``)."""
    def summed(items: list[AnnotatorScore]) -> AnnotatorScore:
        return AnnotatorScore(items[0].annotator, *(sum(getattr(s, f) for s in items) for f in (
            "gold_facts", "in_inventory", "in_quotes", "found", "pair_found", "graph_facts", "graph_matching")))
    by_label: dict[str, list[AnnotatorScore]] = collections.defaultdict(list)
    for s in scores:
        for a in s.annotators:
            by_label[a.annotator].append(a)
    agreed = [s.agreement for s in scores if s.agreement]
    judged = [s.judged for s in scores if s.judged]
    reads = {s.read for s in scores}
    return SetScore(
        name, reads.pop() if len(reads) == 1 else None, sum(s.sets for s in scores), sum(s.articles for s in scores),
        sum(s.facts for s in scores), sum(s.seconds for s in scores),
        tuple(summed(items) for _, items in sorted(by_label.items())),
        Agreement(agreed[0].first, agreed[0].second, *(sum(getattr(a, f) for a in agreed) for f in (
            "first_in_second", "first_facts", "second_in_first", "second_facts"))) if agreed else None,
        JudgedPrecision(tuple(f for j in judged for f in j.files), sum(j.correct for j in judged),
                        sum(j.judged for j in judged), sum(j.graph_facts for j in judged)) if judged else None)
