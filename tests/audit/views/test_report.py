"""`audit report` and `audit compare` on real runs: a small PISTOL graph, a scratch model, the
real embedded server.

Every number a table shows is checked against the EdgeResult and Entity nodes read back with
plain Cypher in this file, statuses by the thresholds written out again here; nothing expected
comes from the code under test.
"""

from __future__ import annotations

import csv
import io
import math
import re
import struct
from pathlib import Path

import matplotlib.image
import pytest
from click.testing import CliRunner

from audit.results import repository as R
from audit.views.compare import compare_runs
from audit.config import InjectionConfig, UnlearnConfig
from audit.measure.leakage import LeakageThresholds
from audit.views.report import write_report, write_report_files
from audit.run.runner import RunRequest, run_audit
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore import GraphStore
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

# A star with a tail (6 nodes, 5 edges: density 1/3, sparse) and a triangle (density 1, dense).
EDGES = [("h", "1"), ("h", "2"), ("h", "3"), ("h", "4"), ("1", "5"), ("t1", "t2"), ("t2", "t3"), ("t1", "t3")]
FAST = dict(epochs=6, lr=2e-3, batch_size=4)          # forgets (and damages) nearly everything here
GENTLE = dict(epochs=4, lr=7e-4, batch_size=4)        # leaves part of the forget edges
# Reports need runs, not perfect ones: a short injection keeps the module fast on 2 cores and
# its partly learnt facts give a spread of values.
SHORT_INJECTION = InjectionConfig(max_epochs=20, target_rouge1=0.6)
RUNS = {
    # by hand: h_1 has edge degree 4 + 2 - 1 = 5, h_2..h_4 4 + 1 - 1 = 4 (ties by key), 1_5 2, triangle 3
    "r-ga": (GENTLE, dict(select="top-degree:2", method="ga")),
    "r-npo": (FAST, dict(select="top-degree:2", method="npo", method_options={"beta": "0.5"})),
    "r-sweep": (FAST, dict(select="bottom-degree:2", method="ga", per_edge=True)),     # 1_5 and t1_t2
}
FIGURES = ["degree.png", "density_tiers.png", "domains.png", "before_after.png"]
HAND_RUNS = {   # (edge, role, ROUGE-1 before, after)
    "flat": [("small/h_1", "forget", 1.0, 0.23),           # partly forgotten, 0.03 above forgotten (0.2)
             ("small/h_2", "retain", 1.0, 1.0),            # drop 0: kept, not damaged at all
             ("small/h_3", "retain", 0.8, 0.9),            # drop -0.1: gained
             ("small/h_4", "retain", 1.0, 0.84),           # drop 0.16: kept, 0.04 below damaged (0.2)
             ("small/t1_t2", "retain", 1.0, 0.5)],         # drop 0.5: damaged
    "unharmed": [("small/h_2", "retain", 1.0, 1.0), ("small/h_3", "retain", 0.7, 0.9)],
}
DEFAULT = LeakageThresholds()


@pytest.fixture(scope="module")
def store(settings, run_cache, tmp_path_factory):
    """The module's runs, built once on a store of their own (the shared `store` fixture empties
    the database for every test)."""
    folder = tmp_path_factory.mktemp("report_runs")
    data = folder / "small.json"
    write_dataset(generate_pistol(EDGES, seed=5, employment_fraction=0.4), data)
    with GraphStore.open(settings) as s:
        s.write("MATCH (n) DETACH DELETE n")
        write_graph(s, load_pistol(data, graph="small"))
        for run_id, (unlearn, options) in RUNS.items():
            run_audit(s, RunRequest(graph="small", run_id=run_id, cache_dir=run_cache, device="cpu",
                                    equivalence=None, unlearn=UnlearnConfig(**unlearn), injection=SHORT_INJECTION,
                                    **options), report=lambda _: None)
        # Runs written by hand: one with results for three edges only, one on another graph.
        for run_id, graph, edges in (("partial", "small", ["small/h_2", "small/h_3", "small/t1_t2"]),
                                     ("elsewhere", "other", ["other/a_b"])):
            R.start_run(s, run_id, {"graph": graph, "settings_sha256": run_id, "method": "ga", "mode": "joint"})
            R.write_results(s, run_id, [{"edge": e, "head_key": e, "tail_key": e, "role": "retain",
                                         "rouge1_before": 1.0, "rouge1_after": 0.5} for e in edges])
        # ... and two whose drops are chosen: retained edges that kept or gained ROUGE-1, scores near thresholds
        for run_id, rows in HAND_RUNS.items():
            R.start_run(s, run_id, {"graph": "small", "settings_sha256": run_id, "method": "ga", "mode": "joint"})
            R.write_results(s, run_id, [{"edge": e, "head_key": e, "tail_key": e, "role": role,
                                         "rouge1_before": before, "rouge1_after": after}
                                        for e, role, before, after in rows])
        yield s


# -- expected values, from Cypher -----------------------------------------------------------------
def edges_of(store, run: str) -> dict[str, dict]:
    """Per edge of a run: role, names, structure and ROUGE-1, straight from the nodes."""
    rows = store.read(
        "MATCH (x:EdgeResult {run: $run}) "
        "MATCH (h:Entity {key: x.head_key}) MATCH (t:Entity {key: x.tail_key}) "
        "RETURN x.edge AS edge, x.role AS role, h.name AS head, t.name AS tail, x.edge_degree AS degree, "
        "x.component_density AS density, x.domain AS domain, x.rouge1_before AS before, "
        "x.rouge1_after AS after, x.retained_rouge1_after AS retained_after, x.deviation_score AS ds", run=run)
    return {r["edge"]: dict(r) for r in rows}


def qa_mean(store, run: str, role: str, phase: str) -> float:
    return store.read(f"MATCH (x:EdgeResult {{run: $run, role: $role}}) UNWIND x.rouge1_qa_{phase} AS v "
                      "RETURN avg(v) AS m", run=run, role=role)[0]["m"]


def score(row: dict) -> float:
    """A forget edge's ROUGE-1 after; a retained edge's ROUGE-1 drop (a sweep: after the others)."""
    if row["role"] == "forget":
        return row["after"]
    after = row["after"] if row["after"] is not None else row["retained_after"]
    return row["before"] - after


def status(row: dict, t: LeakageThresholds = DEFAULT) -> str:
    s = score(row)
    if row["role"] == "forget":
        return "leaked" if s >= t.leaked else "forgotten" if s <= t.forgotten else "partly_forgotten"
    return "damaged" if s >= t.damaged else "kept"


# -- reading what was written ---------------------------------------------------------------------
def md_table(text: str, heading: str) -> list[dict]:
    """The first Markdown table under ``## heading``, as dicts of cell text."""
    lines = text.split(f"## {heading}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        block.append([c.strip().strip("`") for c in line.strip("|").split(" | ")])
    header, body = block[0], block[2:]
    return [dict(zip(header, cells)) for cells in body]


def close(cell: str, value: float) -> bool:
    """Shown with exactly 3 decimals, and equal to the value to that precision."""
    return bool(re.fullmatch(r"-?\d+\.\d{3}", cell)) and abs(float(cell) - value) <= 5e-4 + 1e-9


def check_png(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    assert 600 <= width <= 2400 and 300 <= height <= 1200, (path, width, height)
    assert len(data) < 400_000, (path, len(data))
    image = matplotlib.image.imread(path)
    assert image.shape[:2] == (height, width)
    assert image.std() > 0.02, f"{path} is blank"
    return width, height


# -- the report -----------------------------------------------------------------------------------
def test_joint_report_tables_match_the_results(store, tmp_path):
    path = write_report(store, "r-ga", tmp_path / "out")
    assert path == tmp_path / "out" / "report.md"
    text = path.read_text(encoding="utf-8")
    for name in FIGURES:
        check_png(tmp_path / "out" / name)
        assert f"]({name})" in text                       # embedded with a relative link
    assert not (tmp_path / "out" / "sweep.png").exists()  # a joint run has no sweep figure
    assert set(re.findall(r"\]\(([^)]+\.png)\)", text)) == set(FIGURES)

    run = store.read("MATCH (r:Run {key: 'r-ga'}) RETURN r AS run")[0]["run"]
    settings = {r["setting"]: r["value"] for r in md_table(text, "Settings")}
    assert settings["method"] == "ga" and settings["selector"] == "top-degree:2" and settings["mode"] == "joint"
    assert settings["model"] == "scratch:tiny" and settings["seed"] == str(run["seed"])
    assert settings["hardware"] == run["hardware"] and run["code_version"] in settings["versions"]
    assert '"epochs": 4' in settings["unlearning config"] and '"lr": 0.0007' in settings["unlearning config"]

    rows = edges_of(store, "r-ga")
    forget = {k: r for k, r in rows.items() if r["role"] == "forget"}
    retained = {k: r for k, r in rows.items() if r["role"] == "retain"}
    assert sorted(forget) == ["small/h_1", "small/h_2"]

    summary = {r["measure"].split(" (")[0].split(",")[0]: r for r in md_table(text, "Summary")}
    f_before, f_after = qa_mean(store, "r-ga", "forget", "before"), qa_mean(store, "r-ga", "forget", "after")
    r_before, r_after = qa_mean(store, "r-ga", "retain", "before"), qa_mean(store, "r-ga", "retain", "after")
    forget_row = summary["forget ROUGE-1"]
    assert close(forget_row["before"], f_before) and close(forget_row["after"], f_after)
    assert close(forget_row["change"], f_after - f_before)
    retained_row = summary["retained ROUGE-1"]
    assert close(retained_row["before"], r_before) and close(retained_row["after"], r_after)
    ds = summary["deviation score"]
    assert close(ds["after"], 100 * math.sqrt(f_after ** 2 + (1 - r_after) ** 2))
    memorized = store.read("MATCH (x:EdgeResult {run: 'r-ga', role: 'forget'}) "
                           "RETURN sum(x.memorized_before) AS b, sum(x.memorized_after) AS a")[0]
    row = summary["forget QA answers memorized"]
    assert (row["before"], row["after"]) == (str(memorized["b"]), str(memorized["a"]))

    counts = {r["status"]: int(r["edges"]) for r in md_table(text, "Statuses")}
    for name in ("leaked", "partly_forgotten", "forgotten", "damaged", "kept"):
        assert counts[name.replace("_", " ")] == sum(status(r) == name for r in rows.values())

    table = md_table(text, "Forget edges")
    # most leaked first, ties by key
    assert [r["edge"] for r in table] == sorted(forget, key=lambda k: (-forget[k]["after"], k))
    for shown in table:
        r = forget[shown["edge"]]
        assert (shown["head"], shown["tail"], shown["degree"]) == (r["head"], r["tail"], str(r["degree"]))
        assert close(shown["density"], r["density"]) and close(shown["ROUGE-1 before"], r["before"])
        assert close(shown["ROUGE-1 after"], r["after"])
        # a joint run: the edge's own ROUGE-1 after with the run's retained ROUGE-1 after
        assert close(shown["deviation score"], 100 * math.sqrt(r["after"] ** 2 + (1 - r_after) ** 2))
        assert shown["status"] == status(r).replace("_", " ")

    damaged = md_table(text, "Most damaged retained edges")
    # only the edges that lost ROUGE-1 can be damaged at all
    expected = sorted((k for k in retained if score(retained[k]) > 0), key=lambda k: (-score(retained[k]), k))[:10]
    assert [r["edge"] for r in damaged] == expected and expected
    for shown in damaged:
        r = retained[shown["edge"]]
        assert close(shown["ROUGE-1 before"], r["before"]) and close(shown["ROUGE-1 after"], r["after"])
        assert close(shown["drop"], r["before"] - r["after"]) and shown["status"] == status(r)


def test_sweep_report_has_the_distributions(store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = write_report_files(store, "r-sweep")                # default folder: report-<run>/
    out = Path("report-r-sweep")
    assert files == [out / "report.md"] + [out / n for n in FIGURES] + [out / "sweep.png"]
    for png in files[1:]:
        check_png(tmp_path / png)
    text = (tmp_path / out / "report.md").read_text(encoding="utf-8")
    assert "](sweep.png)" in text and "per-edge sweep (2 edges unlearned one at a time)" in text

    rows = edges_of(store, "r-sweep")
    forget = {k: r for k, r in rows.items() if r["role"] == "forget"}
    assert sorted(forget) == ["small/1_5", "small/t1_t2"]
    for shown in md_table(text, "Forget edges"):
        r = forget[shown["edge"]]
        assert close(shown["ROUGE-1 after"], r["after"]) and close(shown["deviation score"], r["ds"])
        assert shown["status"] == status(r).replace("_", " ")
    # retained edges of a sweep: ROUGE-1 after = the mean over the unlearnings of the other edges
    retained = {k: r for k, r in rows.items() if r["role"] == "retain"}
    damaged = md_table(text, "Most damaged retained edges")
    assert [r["edge"] for r in damaged] == sorted((k for k in retained if score(retained[k]) > 0),
                                                  key=lambda k: (-score(retained[k]), k))
    for shown in damaged:
        r = retained[shown["edge"]]
        assert r["after"] is None
        assert close(shown["ROUGE-1 after"], r["retained_after"]) and close(shown["drop"], score(r))
        assert shown["status"] == status(r)


def test_report_thresholds_change_the_statuses(store, tmp_path):
    rows = edges_of(store, "r-npo")
    t = LeakageThresholds(leaked=0.3, forgotten=0.05, damaged=0.5)
    text = write_report(store, "r-npo", tmp_path, t).read_text(encoding="utf-8")
    assert "ROUGE-1 after >= 0.300, *forgotten* at <= 0.050" in text and "drops by >= 0.500" in text
    counts = {r["status"]: int(r["edges"]) for r in md_table(text, "Statuses")}
    for name in ("leaked", "partly_forgotten", "forgotten", "damaged", "kept"):
        assert counts[name.replace("_", " ")] == sum(status(r, t) == name for r in rows.values())


def test_most_damaged_leaves_out_edges_that_did_not_drop(store, tmp_path):
    text = write_report(store, "flat", tmp_path / "flat").read_text(encoding="utf-8")
    damaged = md_table(text, "Most damaged retained edges")
    # drops by hand: t1_t2 0.5, h_4 0.16; h_2 (0) and h_3 (-0.1) lost nothing
    assert [r["edge"] for r in damaged] == ["small/t1_t2", "small/h_4"]
    assert [r["drop"] for r in damaged] == ["0.500", "0.160"] and [r["status"] for r in damaged] == ["damaged", "kept"]
    assert "of the 2 that lost ROUGE-1 (of 4 measured)" in text
    assert "Retained edges: the 2 most damaged of the 2 that lost ROUGE-1 (of 4)." in text   # before/after note

    text = write_report(store, "unharmed", tmp_path / "unharmed").read_text(encoding="utf-8")
    section = text.split("## Most damaged retained edges\n", 1)[1].split("##", 1)[0]
    assert section.strip() == "No retained edge lost ROUGE-1 (of 2 measured)."
    assert "No retained edge lost ROUGE-1 (of 2)." in text
    assert "## Borderline edges\n\nNo edge within 0.050 of a threshold" in text   # drops 0 and -0.2


def test_borderline_edges_are_listed_nearest_first(store, tmp_path):
    text = write_report(store, "flat", tmp_path / "flat").read_text(encoding="utf-8")
    assert "2 edges lie within 0.050 of a threshold" in text
    assert md_table(text, "Borderline edges") == [
        {"edge": "small/h_1", "role": "forget", "score": "0.230", "status": "partly forgotten",
         "near threshold": "forgotten at 0.200", "score - threshold": "0.030"},
        {"edge": "small/h_4", "role": "retain", "score": "0.160", "status": "kept",
         "near threshold": "damaged at 0.200", "score - threshold": "-0.040"}]

    # a real run, with a margin wide enough that every forget edge is near one of its two thresholds
    rows = edges_of(store, "r-npo")
    t = LeakageThresholds(margin=0.3)
    near = {}
    for k, r in rows.items():
        at = {"forgotten": t.forgotten, "leaked": t.leaked} if r["role"] == "forget" else {"damaged": t.damaged}
        distance, name = min((abs(score(r) - v), name) for name, v in at.items())
        if distance <= t.margin + 1e-9:
            near[k] = (distance, name, score(r) - at[name])
    shown = md_table(write_report(store, "r-npo", tmp_path / "npo", t).read_text(encoding="utf-8"), "Borderline edges")
    assert [r["edge"] for r in shown] == sorted(near, key=lambda k: (near[k][0], k))
    assert sum(rows[k]["role"] == "forget" for k in near) == 2
    for r in shown:
        distance, name, signed = near[r["edge"]]
        assert r["near threshold"] == f"{name} at {getattr(t, name):.3f}" and close(r["score - threshold"], signed)
        assert close(r["score"], score(rows[r["edge"]])) and r["status"] == status(rows[r["edge"]], t).replace("_", " ")


# -- compare --------------------------------------------------------------------------------------
def expected_comparison(store, run_a: str, run_b: str, t: LeakageThresholds):
    a, b = edges_of(store, run_a), edges_of(store, run_b)
    rows = {k: (a[k]["role"], status(a[k], t), status(b[k], t), score(a[k]), score(b[k])) for k in a if k in b}
    leaks_a = sorted(k for k, r in rows.items() if r[0] == "forget" and r[1] == "leaked" and r[2] != "leaked")
    leaks_b = sorted(k for k, r in rows.items() if r[0] == "forget" and r[2] == "leaked" and r[1] != "leaked")
    return rows, leaks_a, leaks_b


def test_compare_two_methods(store, tmp_path):
    ga, npo = edges_of(store, "r-ga"), edges_of(store, "r-npo")
    # Thresholds from the data, so that one forget edge leaks after exactly one of the runs.
    edge = next(k for k in sorted(ga) if ga[k]["role"] == "forget" and ga[k]["after"] != npo[k]["after"])
    low, high = sorted([ga[edge]["after"], npo[edge]["after"]])
    for t in (DEFAULT, LeakageThresholds(leaked=(low + high) / 2, forgotten=0.0)):
        comparison = compare_runs(store, "r-ga", "r-npo", t)
        rows, leaks_a, leaks_b = expected_comparison(store, "r-ga", "r-npo", t)
        assert [r.edge for r in comparison.rows] == sorted(rows, key=lambda k: (rows[k][0] != "forget", k))
        for r in comparison.rows:
            role, status_a, status_b, score_a, score_b = rows[r.edge]
            assert (r.role, r.status_a, r.status_b) == (role, status_a, status_b)
            assert r.score_a == pytest.approx(score_a) and r.score_b == pytest.approx(score_b)
            assert r.difference == pytest.approx(score_b - score_a)
        assert comparison.leaks_only_a == leaks_a and comparison.leaks_only_b == leaks_b
        assert comparison.only_in_a == comparison.only_in_b == [] and comparison.notes == []
    assert edge in leaks_a + leaks_b            # the data-made thresholds split that edge


def test_compare_counts_edges_in_one_run_and_flags_other_roles(store):
    comparison = compare_runs(store, "r-ga", "partial")
    assert [r.edge for r in comparison.rows] == ["small/h_2", "small/h_3", "small/t1_t2"]
    assert comparison.only_in_a == sorted(set(edges_of(store, "r-ga")) - {"small/h_2", "small/h_3", "small/t1_t2"})
    assert comparison.only_in_b == []
    mixed = {r.edge: r for r in comparison.rows}["small/h_2"]       # forget in r-ga, retained in partial
    assert mixed.role == "forget/retain" and mixed.difference is None
    assert any("forget edges in one run and retained in the other" in n for n in comparison.notes)
    # a joint run against a sweep: said, not refused
    assert any("differ in mode" in n for n in compare_runs(store, "r-ga", "r-sweep").notes)


def test_compare_refuses_runs_of_different_graphs(store):
    with pytest.raises(ConfigError, match=r"runs 'r-ga' \(graph 'small'\) and 'elsewhere' \(graph 'other'\) "
                                          r"are on different graphs"):
        compare_runs(store, "r-ga", "elsewhere")
    with pytest.raises(ConfigError, match="no run 'nope'"):
        compare_runs(store, "r-ga", "nope")


# -- the command line -----------------------------------------------------------------------------
def test_cli_report(store, store_args, tmp_path):
    out = tmp_path / "rep"
    result = CliRunner().invoke(cli, ["report", "--run", "r-ga", "--output", str(out), *store_args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"wrote {out / n}" for n in ["report.md"] + FIGURES]
    assert all((out / n).exists() for n in ["report.md"] + FIGURES)


@pytest.mark.parametrize("args, message", [
    (["report", "--run", "nope"], "Error: no run 'nope'; runs there: "),
    (["report", "--run", "r-ga", "--leaked", "0.1", "--forgotten", "0.5"],
     "Error: leakage thresholds: need 0 <= forgotten (0.5) < leaked (0.1) <= 1"),
    (["compare", "r-ga", "nope"], "Error: no run 'nope'; runs there: "),
    (["compare", "r-ga", "elsewhere"], "Error: runs 'r-ga' (graph 'small') and 'elsewhere' (graph 'other') are on "
                                       "different graphs; compare two runs of one graph"),
])
def test_cli_errors_are_one_line(store, store_args, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)                 # where report-<run>/ would be made
    result = CliRunner().invoke(cli, [*args, *store_args])
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    if "no run" in message:                     # the known runs are named
        assert "r-ga" in result.output
    assert not list(tmp_path.iterdir())


def test_cli_compare(store, store_args, tmp_path):
    runner = CliRunner()
    base = ["compare", "r-ga", "r-npo", *store_args]
    rows, leaks_a, leaks_b = expected_comparison(store, "r-ga", "r-npo", DEFAULT)

    table = runner.invoke(cli, base, catch_exceptions=False)
    assert table.exit_code == 0, table.output
    assert f"({len(rows)} rows)" in table.output
    assert f"leaked after A (r-ga) but not B (r-npo): {len(leaks_a)}" in table.output
    assert f"leaked after B (r-npo) but not A (r-ga): {len(leaks_b)}" in table.output

    out = tmp_path / "cmp"
    result = runner.invoke(cli, [*base, "--format", "csv", "--output", str(out)], catch_exceptions=False)
    assert result.exit_code == 0
    printed = list(csv.DictReader(io.StringIO(result.stdout)))          # the summary went to stderr
    written = list(csv.DictReader((out / "compare.csv").open(encoding="utf-8")))
    assert printed == written and len(written) == len(rows)
    for r in written:
        role, status_a, status_b, score_a, score_b = rows[r["edge"]]
        assert (r["role"], r["status_a"], r["status_b"]) == (role, status_a, status_b)
        assert float(r["difference"]) == pytest.approx(score_b - score_a)
    check_png(out / "compare.png")
    assert f"wrote {out / 'compare.png'}" in result.stderr


@pytest.mark.parametrize("command", ["report", "compare"])
def test_help_has_examples(command):
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "Examples:" in result.output and "--leaked" in result.output
