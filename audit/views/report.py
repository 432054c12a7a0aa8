"""``audit report``: one run as a short Markdown page with its settings, tables and figures.

Scores and statuses come from ``audit/measure/leakage.py`` (one definition for every view); this module
only arranges them. Layout and how to read each figure: ``docs/report.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.views import plots as P
from audit.measure.leakage import FORGET_STATUSES, STATUSES, EdgeLeakage, LeakageThresholds, RunLeakage, classify
from audit.results import repository as R
from audit.results.leakage import run_leakage
from audit.measure import metrics as M
from audit.results.resurfaced import EDGE_COLUMNS, resurfaced_under
from audit.types import DENSITY_TIERS, density_tier
from audit.run.readings import resurfacing_reading, stored_summary
from graphstore import GraphStore

REPORT_FILE = "report.md"
MAX_FORGET_ROWS = 200       # forget-edge table: the most leaked first, the rest in `audit edges --run`
DAMAGED_ROWS = 10           # most damaged retained edges, in the table and the before/after bars
MAX_BORDERLINE_ROWS = 50    # borderline edges, nearest their threshold first
MISSING = "n/a"

@dataclass(frozen=True)
class Figure:
    title: str
    path: Path
    caption: str


def default_output(run: str) -> Path:
    """``report-<run>/``, the run key made safe as a folder name."""
    return Path("report-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", run))


def write_report(store: GraphStore, run: str, out_dir: Path | str | None = None,
                 thresholds: LeakageThresholds | None = None) -> Path:
    """Write ``report.md`` and its PNG figures for ``run`` into ``out_dir``; return the Markdown path.

    Raises:
        ConfigError: no such run, or a run without per-edge results.
    """
    return write_report_files(store, run, out_dir, thresholds)[0]


def write_report_files(store: GraphStore, run: str, out_dir: Path | str | None = None,
                       thresholds: LeakageThresholds | None = None) -> list[Path]:
    """As ``write_report``; returns every file written, the Markdown first."""
    leakage = run_leakage(store, run, thresholds)
    out = Path(out_dir) if out_dir is not None else default_output(run)
    out.mkdir(parents=True, exist_ok=True)
    # A sweep's forget edges carry their own unlearning's ROUGE-1 in the leakage; the damage the
    # *other* unlearnings did to them is only in the stored results.
    retained_after = ({r["edge"]: r.get("retained_rouge1_after") for r in leakage.results}
                      if is_sweep(leakage) else {})
    figures = draw_figures(leakage, out, retained_after)
    path = out / REPORT_FILE
    path.write_text(render(leakage, figures), encoding="utf-8")
    return [path] + [f.path for f in figures]


def is_sweep(leakage: RunLeakage) -> bool:
    return leakage.run.get("mode") == "per-edge"


def forget_points(leakage: RunLeakage) -> list[P.ForgetPoint]:
    """Measured forget edges in order of edge degree (then key), with their deviation score:
    a sweep's own, or in a joint run the edge's ROUGE-1 after with the run's retained ROUGE-1."""
    retain = leakage.run.get("retain_rouge1_after")
    points = []
    for e in leakage.edges:
        if e.role != "forget" or e.status is None:
            continue
        ds = (e.deviation_score if is_sweep(leakage)
              else M.deviation_score(e.rouge1_after, 1.0 if retain is None else retain))
        points.append(P.ForgetPoint(e.edge, e.edge_degree, e.rouge1_before, e.rouge1_after, ds, e.status,
                                    e.borderline))
    return sorted(points, key=lambda p: (p.edge_degree, p.edge))


def most_damaged(leakage: RunLeakage, n: int = DAMAGED_ROWS) -> list[EdgeLeakage]:
    """The ``n`` retained edges with the largest ROUGE-1 drop, of those that dropped at all: an
    edge that kept (or gained) its ROUGE-1 is not damaged, however few others did worse."""
    dropped = [e for e in leakage.edges if e.role != "forget" and e.status is not None and e.score > 0]
    return sorted(dropped, key=lambda e: (-e.score, e.edge))[:n]


def draw_figures(leakage: RunLeakage, out: Path, retained_after: dict | None = None) -> list[Figure]:
    run, t = leakage.run, leakage.thresholds
    points = forget_points(leakage)
    name = f"{run['key']} ({run.get('method')}, {run.get('mode')})"
    note = ("each edge's own unlearning" if is_sweep(leakage)
            else "edge's ROUGE-1 with the run's retained ROUGE-1")
    figures = [Figure("Forget ROUGE-1 and deviation score against edge degree",
                      P.write_figure(P.draw_degree(points, t, f"Run {name}", note), out / "degree.png"),
                      "The PISTOL view. Left: each forget edge's ROUGE-1 recall after unlearning (filled, coloured "
                      "by status) and before (grey ring), against its edge degree; the dashed lines are the "
                      "leaked and forgotten thresholds, in their statuses' colours; a black ring marks an edge within "
                      f"{t.margin:g} of a threshold (up to {P.MAX_RINGED} forget edges; all are listed under "
                      "*Borderline edges*). Right: the deviation score of "
                      f"each forget edge ({note}); 0 is perfect. A black dash is the mean of the edges at one degree, "
                      f"drawn where at least {P.MIN_FOR_MEAN} edges share it; no line joins degrees.")]
    forget = [e for e in leakage.edges if e.role == "forget" and e.status is not None]
    retained = [e for e in leakage.edges if e.role != "forget" and e.status is not None]
    tiers = [P.GroupScores(f"{tier} ({span})",
                           [(e.rouge1_after, e.status) for e in forget if density_tier(e.component_density) == tier],
                           [(e.score, e.status) for e in retained if density_tier(e.component_density) == tier])
             for tier, span in zip(DENSITY_TIERS, ("<= 1/3", "1/3 to 2/3", "> 2/3"))]
    figures.append(Figure("By component density tier",
                          P.write_figure(P.draw_groups(tiers, t, f"Run {name}: by component density tier",
                                                       "component density tier"), out / "density_tiers.png"),
                          "Left: the forget edges' ROUGE-1 recall after unlearning (lower is better); right: the "
                          "retained edges' ROUGE-1 drop (the damage, lower is better), in each density tier of the "
                          "edges' components. A hollow bar is the tier's mean, the dots its edges coloured by "
                          "status, n under each tier; a tier without edges of a role is left out of that panel."))
    domains = sorted({e.domain or "" for e in leakage.edges})
    groups = [P.GroupScores(d or "(none)", [(e.rouge1_after, e.status) for e in forget if (e.domain or "") == d],
                            [(e.score, e.status) for e in retained if (e.domain or "") == d]) for d in domains]
    figures.append(Figure("By domain",
                          P.write_figure(P.draw_groups(groups, t, f"Run {name}: by domain", "domain"),
                                         out / "domains.png"),
                          "As the tiers, grouped by the edges' domain."))
    shown = most_damaged(leakage)
    bar_note = f"Forget edges: all {len(points)}, by edge degree. " + (
        "No retained edge measured." if not retained else
        f"No retained edge lost ROUGE-1 (of {len(retained)})." if not shown else
        f"Retained edges: the {len(shown)} most damaged of the {_count_dropped(leakage)} that lost ROUGE-1 "
        f"(of {len(retained)})" + ("" if len(shown) == _count_dropped(leakage) else "; all: `audit edges --run`")
        + ("; 'after' is their mean over the other edges' unlearnings." if is_sweep(leakage) else "."))
    figures.append(Figure("ROUGE-1 before and after, per edge",
                          P.write_figure(P.draw_before_after(
                              points, [(e.edge, e.rouge1_before, e.rouge1_after, e.status) for e in shown
                                       if e.rouge1_before is not None and e.rouge1_after is not None
                                       and e.status is not None],   # all: a measured retained edge has both
                              f"Run {name}: ROUGE-1 before and after", bar_note), out / "before_after.png"),
                          "Pairs of bars per edge: before unlearning (outline) and after (filled, coloured by status). "
                          + bar_note))
    if is_sweep(leakage):
        retained_after = retained_after or {}
        scored = [classify({"role": "retain", "rouge1_before": e.rouge1_before,
                            "retained_rouge1_after": retained_after[e.edge]}, t)
                  for e in leakage.edges if e.rouge1_before is not None and retained_after.get(e.edge) is not None]
        damage = [(drop, status) for drop, status in scored   # all: both given, a retained edge is scored
                  if drop is not None and status is not None]
        figures.append(Figure("Distributions over the sweep",
                              P.write_figure(P.draw_sweep(points, damage, t,
                                                          f"Run {name}: distributions over the sweep"),
                                             out / "sweep.png"),
                              "Histograms, stacked by status: over the swept edges the forget ROUGE-1 after each "
                              "edge's own unlearning and its deviation score (coloured by the edge's forget status), "
                              "and over every edge its ROUGE-1 drop averaged over the unlearnings of the other edges "
                              "(where the damage fell; damaged or kept by the same threshold as a retained edge). "
                              "The black line is the mean."))
    return figures


# -- Markdown -----------------------------------------------------------------------------------
def render(leakage: RunLeakage, figures: list[Figure]) -> str:
    run, t = leakage.run, leakage.thresholds
    forget = [e for e in leakage.edges if e.role == "forget"]
    sweep = is_sweep(leakage)
    what = (f"per-edge sweep ({run.get('swept_edges', len(forget))} edges unlearned one at a time)" if sweep
            else f"joint unlearning of {len(forget)} forget edge{'s' if len(forget) != 1 else ''}")
    lines = [f"# Audit report: run `{run['key']}`", "",
             f"Method **{run.get('method')}**, {what} of graph `{run.get('graph')}` "
             f"({len(leakage.edges)} edges), model `{run.get('model')}`; status **{run.get('status')}**.", "",
             f"Statuses (`audit/measure/leakage.py`): a forget edge is *leaked* at ROUGE-1 after >= {fmt(t.leaked)}, "
             f"*forgotten* at <= {fmt(t.forgotten)}, *partly forgotten* between; a retained edge is *damaged* "
             f"when its ROUGE-1 drops by >= {fmt(t.damaged)}, else *kept*. "
             "How to read this page: `docs/report.md`.", ""]
    lines += ["## Settings", "", table(["setting", "value"], settings_rows(run)), ""]
    lines += ["## Summary", "", table(["measure", "before", "after", "change", "better"], summary_rows(run)), ""]
    lines += ["## Statuses", "", table(["status", "role", "edges"], status_rows(leakage)), ""]
    lines += forget_section(leakage, forget)
    lines += damaged_section(leakage)
    lines += borderline_section(leakage)
    lines += resurfacing_section(leakage, forget)
    lines += localization_section(leakage)
    lines += ["## Figures", ""]
    for f in figures:
        lines += [f"### {f.title}", "", f"![{f.title}]({f.path.name})", "", f.caption, ""]
    return "\n".join(lines)


def settings_rows(run: Mapping[str, Any]) -> list[list]:
    sha = run.get("graph_sha256")
    rows: list[list] = [["graph", f"`{run.get('graph')}`" + (f" (SHA-256 {sha[:12]}...)" if sha else "")],
                        ["mode", run.get("mode")],
                        ["method", run.get("method")],
                        ["method config", _json(run.get("method_config"))],
                        ["unlearning config", _json(run.get("unlearn_config"))],
                        ["selector", f"`{run.get('selector')}`"]]
    if run.get("cypher"):
        rows.append(["selection query", f"`{run['cypher']}`"])
    edges = run.get("forget_edges") or []
    listed = ": " + ", ".join(f"`{e}`" for e in edges) if len(edges) <= 10 else ""
    rows.append(["forget edges", f"{len(edges)}{listed}"])
    rows += [["retain set (training)", f"{run.get('retain')} ({run.get('retain_edges', MISSING)} edges)"],
             ["model", f"`{run.get('model')}`"],
             ["seed", run.get("seed")],
             ["injection", f"{_json(run.get('injection_config'))}; {run.get('injection_epochs', MISSING)} epochs, "
                           f"target reached: {fmt(run.get('injection_reached'))}"]]
    for label, key in (("equivalence judge", "equivalence"), ("refusals", "refusals"), ("utility set", "utility")):
        if run.get(key) is not None:
            rows.append([label, run[key]])
    if run.get("memorization_config") is not None:
        rows.append(["memorization config", _json(run["memorization_config"])])
    rows += [["versions", f"code {run.get('code_version')}, prompt {run.get('prompt_version')}, templates "
                          f"{run.get('templates')}, metrics {run.get('metric_definitions')}"],
             ["hardware", run.get("hardware")]]
    if run.get("unlearn_steps") is not None:
        rows.append(["unlearning cost", f"{run['unlearn_steps']} steps, {fmt(run.get('unlearn_seconds'))} s, "
                                        f"{fmt(run.get('unlearn_forget_pairs_per_second'))} forget QA pairs/s"])
    rows += [["status", run.get("status")], ["started", run.get("started_at")], ["ended", run.get("ended_at")]]
    if run.get("error"):
        rows.append(["error", run["error"]])
    return rows


def summary_rows(run) -> list[list]:
    """The run's summary measures (``audit.measure.metrics.RUN_MEASURES``), as `audit run` prints them."""
    return [[r["measure"], r["before"], r["after"], r["change"], r["better"]] for r in M.summary_rows(run)]


def status_rows(leakage: RunLeakage) -> list[list]:
    counts = leakage.counts()
    rows = [[s.replace("_", " "), "forget" if s in FORGET_STATUSES else "retained", counts[s]] for s in STATUSES]
    missing = sum(e.status is None for e in leakage.edges)
    if missing:
        rows.append(["not measured", "", missing])
    return rows


def forget_section(leakage: RunLeakage, forget: list[EdgeLeakage]) -> list[str]:
    ds = {p.edge: p.deviation_score for p in forget_points(leakage)}
    order = sorted(forget, key=lambda e: (e.status is None, -(e.rouge1_after or 0.0), e.edge))
    shown = order[:MAX_FORGET_ROWS]
    intro = (f"{len(forget)} forget edge{'s' if len(forget) != 1 else ''}, most leaked first"
             + (f"; the first {len(shown)} shown (`audit edges --run {leakage.run['key']}` lists all)"
                if len(shown) < len(forget) else "") + ". Deviation score: "
             + ("the edge's own unlearning." if is_sweep(leakage)
                else "the edge's ROUGE-1 after with the run's retained ROUGE-1 after."))
    rows = [[f"`{e.edge}`", e.head, e.tail, e.edge_degree, e.component_density, e.rouge1_before, e.rouge1_after,
             ds.get(e.edge), _status(e)] for e in shown]
    return ["## Forget edges", "", intro, "",
            table(["edge", "head", "tail", "degree", "density", "ROUGE-1 before", "ROUGE-1 after", "deviation score",
                   "status"], rows), ""]


def resurfacing_section(leakage: RunLeakage, forget: list[EdgeLeakage]) -> list[str]:
    """The forget edges under each resurfacing check (docs/robustness.md); empty without checks."""
    results = {r.edge: r for r in leakage.results}
    columns = [c for c in EDGE_COLUMNS if any(c in r for r in results.values())]
    if not columns:
        return []
    run = leakage.run
    intro = (f"Checks run after unlearning on the same model (`docs/robustness.md`): "
             f"{', '.join(_checks_run(run.get('resurfacing_config')))}. "
             f"Of {run.get('forget_edges_forgotten', '?')} forget edges forgotten after unlearning "
             f"(ROUGE-1 <= {fmt(leakage.thresholds.forgotten)}), those no longer forgotten under a check are "
             "*resurfaced*; the summary above counts them per check.")
    reading = resurfacing_reading(stored_summary(run))
    if reading:
        intro += f"\n\nIn words: {reading.removeprefix('resurfacing: ')}."
    rows = [[f"`{e.edge}`", e.rouge1_after, *[results[e.edge].get(c) if e.edge in results else None for c in columns],
             ", ".join(resurfaced_under(results[e.edge])) if e.edge in results else ""]
            for e in sorted(forget, key=lambda e: e.edge)[:MAX_FORGET_ROWS]]
    return ["## Resurfacing", "", intro, "", table(["edge", "ROUGE-1 after", *columns, "resurfaced under"], rows), ""]


def localization_section(leakage: RunLeakage) -> list[str]:
    """LACUNA's localization precision (docs/localization.md): each score's ROC AUC against the
    forget mask, the unified variant, the forget edges' neighbours; per swept edge in a sweep.
    Empty without ``--localization``."""
    run = leakage.run
    swept = [r for r in leakage.results if r.get("localization_auc_magnitude") is not None]
    if run.get("localization_auc_magnitude") is None and not swept:
        return []
    intro = ("Did unlearning change the weights that store the forgotten facts? Each attention and MLP weight's "
             "change is scored and each score's ROC AUC against the forget groups' mask is given "
             "(`docs/localization.md`): 1 only the forget weights moved, 0.5 indiscriminate, below 0.5 mostly "
             "elsewhere. |change| is the figure to read; the best score is LACUNA's (an optimistic maximum). "
             f"Masks: {_json(run.get('injection_masks'))}.")
    if swept:   # a sweep: each edge's own unlearning
        rows = [[f"`{r.get('edge')}`", r.get("mask_group"), r.get("localization_auc_magnitude"),
                 r.get("localization_auc"), r.get("localization_score"), r.get("localization_auc_composite")]
                for r in sorted(swept, key=lambda r: r.get("edge"))[:MAX_FORGET_ROWS]]
        return ["## Localization", "", intro, "", table(["edge", "group", "AUC of |change|", "best AUC", "best score",
                                                         "composite"], rows), ""]
    by_score = R.json_value(run.get("localization_auc_by_score")) or {}
    neighbours = R.json_value(run.get("localization_auc_neighbours")) or {}
    rows = [[score, auc] for score, auc in by_score.items()]
    rows += [["composite (cross-validated)", run.get("localization_auc_composite")],
             ["unified: |change|, every group vs none", run.get("localization_auc_unified_magnitude")],
             *[[f"neighbour group `{name}`: |change| vs none", auc] for name, auc in neighbours.items()],
             ["other groups: |change| vs none", run.get("localization_auc_others")]]
    return ["## Localization", "", intro, "", table(["score", "ROC AUC"], rows), ""]


def _checks_run(config) -> list[str]:
    return list((R.json_value(config) or {}).get("checks", [])) or ["?"]


def damaged_section(leakage: RunLeakage) -> list[str]:
    retained = [e for e in leakage.edges if e.role != "forget" and e.status is not None]
    shown = most_damaged(leakage)
    if not shown:
        return ["## Most damaged retained edges", "",
                f"No retained edge lost ROUGE-1 (of {len(retained)} measured)." if retained
                else "No retained edge measured.", ""]
    intro = (f"The {len(shown)} retained edges with the largest ROUGE-1 drop, of the {_count_dropped(leakage)} "
             f"that lost ROUGE-1 (of {len(retained)} measured)"
             + ("; ROUGE-1 after: the edge's mean over the unlearnings of the other edges." if is_sweep(leakage)
                else "."))
    rows = [[f"`{e.edge}`", e.head, e.tail, e.edge_degree, e.component_density, e.rouge1_before, e.rouge1_after,
             e.score, _status(e)] for e in shown]
    return ["## Most damaged retained edges", "", intro, "",
            table(["edge", "head", "tail", "degree", "density", "ROUGE-1 before", "ROUGE-1 after", "drop", "status"],
                  rows), ""]


def _count_dropped(leakage: RunLeakage) -> int:
    return sum(e.role != "forget" and e.status is not None and e.score > 0 for e in leakage.edges)


def borderline_section(leakage: RunLeakage) -> list[str]:
    """The edges whose score lies within the margin of a threshold (``EdgeLeakage.borderline``),
    nearest first: statuses that one token or one seed could flip."""
    t = leakage.thresholds
    at = {"leaked": t.leaked, "forgotten": t.forgotten, "damaged": t.damaged}
    near = sorted((e for e in leakage.edges if e.borderline),
                  key=lambda e: (abs(e.score - at[e.borderline]), e.edge))
    if not near:
        return ["## Borderline edges", "", f"No edge within {fmt(t.margin)} of a threshold (`--margin`).", ""]
    shown = near[:MAX_BORDERLINE_ROWS]
    intro = (f"{len(near)} edge{'s lie' if len(near) != 1 else ' lies'} within {fmt(t.margin)} of a threshold "
             "(`--margin`): one token more or less in an answer could change the status, so the status is weak "
             "evidence; another seed tells more (`audit experiment`). Nearest first"
             + (f"; the first {len(shown)} shown" if len(shown) < len(near) else "")
             + ". Score: a forget edge's ROUGE-1 after, a retained edge's ROUGE-1 drop.")
    rows = [[f"`{e.edge}`", e.role, e.score, _status(e), f"{e.borderline} at {fmt(at[e.borderline])}",
             e.score - at[e.borderline]] for e in shown]
    return ["## Borderline edges", "", intro, "",
            table(["edge", "role", "score", "status", "near threshold", "score - threshold"], rows), ""]


def table(columns: list[str], rows: list[list]) -> str:
    """A Markdown table; numbers right-aligned and formatted by ``fmt``."""
    numeric = [bool(rows) and all(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) or r[i] is None
                                  for r in rows) for i in range(len(columns))]
    head = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---:" if n else "---" for n in numeric) + " |"
    body = ["| " + " | ".join(_cell(v) for v in r) + " |" for r in rows]
    return "\n".join([head, rule] + (body or ["| " + " | ".join("" for _ in columns) + " |"]))


def fmt(value) -> str:
    """One format everywhere: 3 decimals for fractions, whole numbers as they are."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _cell(value) -> str:
    return fmt(value).replace("|", "\\|").replace("\n", " ")


def _status(e: EdgeLeakage) -> str:
    return e.status.replace("_", " ") if e.status else "not measured"


def _json(text) -> str:
    """A config stored as JSON text, compact and key-sorted, as code."""
    if text is None:
        return MISSING
    try:
        value = R.json_value(text)
    except ValueError:
        return f"`{text}`"
    return f"`{json.dumps(value, sort_keys=True, separators=(', ', ': '))}`"
