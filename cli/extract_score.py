"""`audit extract-score`: one extractor scored on every news set with gold (``extract.text.gate``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from audit.build import extractor_backend, text_options
from cli.build import EXTRACTOR_OPTIONS
from cli.common import emit_rows
from extract.text.gate import SetScore, pool, score_set
from extract.text.gold import NEWS_SETS, read_set_records, sets_with_gold
from graphstore.progress import say

COLUMNS = ["set", "status", "articles", "facts/article", "s/article", "recall a / b", "pair recall a / b",
           "precision vs gold a / b", "judged precision", "agreement a / b"]


def _pair(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values) if values else "-"


def _row(s: SetScore, name: str) -> list:
    judged = "-"
    if s.judged:
        lo, hi = s.judged.interval
        judged = f"{s.judged.precision:.2f} [{lo:.2f}, {hi:.2f}], {s.judged.judged} of {s.judged.graph_facts}"
    status = "-" if s.read is None else ("read" if s.read else "unread")
    return [name, status, s.articles, f"{s.facts_per_article:.2f}", f"{s.seconds_per_article:.3f}",
            _pair([a.recall for a in s.annotators]), _pair([a.pair_recall for a in s.annotators]),
            _pair([a.precision for a in s.annotators]), judged,
            _pair(list(s.agreement.rates)) if s.agreement else "-"]


def _as_json(s: SetScore) -> dict:
    j = s.judged
    return {
        "set": s.name, "status": None if s.read is None else ("read" if s.read else "unread"), "sets": s.sets,
        "articles": s.articles, "facts": s.facts, "facts_per_article": s.facts_per_article,
        "seconds": s.seconds, "seconds_per_article": s.seconds_per_article,
        "annotators": [{"annotator": a.annotator, "gold_facts": a.gold_facts, "in_inventory": a.in_inventory,
                        "in_quotes": a.in_quotes, "found": a.found, "recall": a.recall, "pair_found": a.pair_found,
                        "pair_recall": a.pair_recall, "graph_facts": a.graph_facts,
                        "graph_matching": a.graph_matching, "precision_vs_gold": a.precision}
                       for a in s.annotators],
        "agreement": None if s.agreement is None else dict(zip(
            (f"{s.agreement.first}_in_{s.agreement.second}", f"{s.agreement.second}_in_{s.agreement.first}"),
            s.agreement.rates)),
        "judged": None if j is None else {"files": list(j.files), "correct": j.correct, "judged": j.judged,
                                          "graph_facts": j.graph_facts, "precision": j.precision,
                                          "interval": list(j.interval)},
    }


@click.command("extract-score")
@EXTRACTOR_OPTIONS
@click.option("--set", "set_names", multiple=True, metavar="NAME",
              help="A set of --sets-dir (NAME.jsonl); repeatable. Default: every set with gold files.")
@click.option("--sets-dir", type=click.Path(file_okay=False, exists=True, path_type=Path), default=NEWS_SETS,
              show_default="tests/extract/text/data/news",
              help="Articles NAME.jsonl, with gold/NAME.ANNOTATOR.jsonl, gold/sets.json and gold/judged/ beside them.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Output format.")
@click.option("--show", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also print N gold facts each annotator has that the graph misses, and N graph facts no "
                   "annotator has, per set. On an unread set this reads it (gold/README.md).")
def extract_score(set_names, sets_dir, fmt, show, **extractor):
    """Score an extractor on held-out news sets against their gold facts: the gate.

    Per set: facts and seconds per article; against each annotator's gold (a / b), recall of
    the facts the relation inventory can hold, pair recall (head and tail joined under any
    relation) and precision (a lower bound: an annotator misses facts too); the judged
    precision of the set's judged sample for this extractor, with its 95% Wilson interval and
    how many of the graph's facts it judged; and the annotators' agreement. Totals pool the
    unread sets (never used to write or tune a rule) apart from the read ones
    (gold/sets.json). Matching is lenient: the same relation, head and tail each equal or one's
    words a part of the other's, within one article.

    \b
    Examples:
      audit extract-score
      audit extract-score --set heldout11 --show 20
      audit extract-score --extractor rebel --rebel-model ./rebel-large --format json
    """
    options = text_options(**extractor)
    names = list(set_names) or sets_with_gold(sets_dir)
    if not names:
        raise click.UsageError(f"no set in {sets_dir} has gold files (gold/NAME.ANNOTATOR.jsonl); name one with --set")
    known = sorted(p.stem for p in sets_dir.glob("*.jsonl"))
    for name in names:
        if name not in known:
            raise click.BadParameter(f"{name!r} is not a set of {sets_dir}; valid: {', '.join(known) or 'none'}",
                                     param_hint="--set")
    records = read_set_records(sets_dir)
    backend = extractor_backend(options)
    scores = []
    for name in names:
        say(f"extract-score: {name} ({options.extractor})")
        scores.append(score_set(sets_dir, name, options, records, backend))
        if scores[-1].notes:
            say(f"{name}: {scores[-1].notes}")
    totals = [pool(f"total {kind} ({len(group)} set{'s' if len(group) > 1 else ''})", group) for kind, group in
              (("unread", [s for s in scores if not s.read]), ("read", [s for s in scores if s.read])) if group]
    if fmt == "json":
        click.echo(json.dumps({"extractor": options.extractor, "sets": [_as_json(s) for s in scores],
                               "totals": [_as_json(t) for t in totals]}, indent=2))
    else:
        emit_rows(COLUMNS, [_row(s, s.name) for s in scores] + [_row(t, t.name) for t in totals], "table")
    if show:
        _show(scores, show)


def _show(scores: list[SetScore], n: int) -> None:
    for s in scores:
        if not s.read:
            click.echo(f"note: {s.name} is unread; writing or tuning a rule from what follows makes it read "
                       "(gold/README.md)", err=True)
        for a in s.annotators:
            for g in a.misses[:n]:
                click.echo(f"{s.name} {a.annotator} missed, article {g.article}: {g.head} | {g.relation} | {g.tail}")
        for article, k in s.unmatched[:n]:
            click.echo(f"{s.name} no gold, article {article}: {' | '.join(k)}")
