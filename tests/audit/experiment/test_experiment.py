"""`audit experiment`: the grid expands as written, bad files are refused with the key named,
a killed experiment resumes without redoing finished cells, and the table's aggregates equal an
independent computation from the EdgeResults read back with Cypher."""

from __future__ import annotations

import itertools
import json
import math
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.experiment import aggregate as A
from audit.experiment.cost import CELL, estimate_cost
from audit.experiment.grid import Cell, expand, protocol_trials, trial_run_id
from audit.experiment.cells import choose_rate, run_experiment
from audit.experiment.spec import load_spec
from audit.experiment.stats import spearman, t_interval
from audit.results.schema import EdgeResult
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import PistolVariant, Rename
from graphstore.errors import InputDataError

from conftest import pistol_file

EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "2"), ("3", "4")]
# t quantiles from a printed table (two-sided 95 %): df 1 -> 12.706, df 2 -> 4.303
T_975 = {1: 12.706, 2: 4.303}


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def dataset(tmp_path) -> Path:
    path = tmp_path / "exp_graph.json"
    write_dataset(generate_pistol(EDGES, seed=5), path)
    return path


def experiment_file(folder: Path, dataset: Path, body: str, name: str = "e1") -> Path:
    return write(folder / f"{name}.toml", f'name = "{name}"\n[[graphs]]\nname = "expg"\npistol = "{dataset.name}"\n'
                                          + body)


FAST = """
[run]
epochs = 3
equivalence = "none"
inject_max_epochs = 10
inject_target = 0.5
batch_size = 4
"""


# -- the grid -----------------------------------------------------------------------------------
def test_the_grid_is_every_combination(tmp_path, dataset):
    spec = load_spec(experiment_file(tmp_path, dataset, """
[grid]
selectors = ["top-degree:1", "edges:0_1"]
methods = ["ga", "npo"]
seeds = [0, 1, 2]
models = ["scratch:tiny"]
per_edge = [false, true]
lrs = [0.001, 0.003]
[method_options]
npo = [{beta = 0.1}, {beta = 0.5}]
""" + FAST))
    cells = expand(spec)
    # per selector: ga (1 option set) + npo (2 option sets) = 3, times 2 rates, 2 modes, 3 seeds
    assert len(cells) == 2 * 3 * 2 * 2 * 3
    expected = {(s, m, o, lr, pe, seed)
                for s in ("top-degree:1", "edges:0_1")
                for m, o in (("ga", ()), ("npo", (("beta", 0.1),)), ("npo", (("beta", 0.5),)))
                for lr, pe, seed in itertools.product((0.001, 0.003), (False, True), (0, 1, 2))}
    assert {(c.selector, c.method, c.options, c.lr, c.per_edge, c.seed) for c in cells} == expected
    # seeds innermost: a cell's seeds run one after another
    assert [c.seed for c in cells[:3]] == [0, 1, 2] and len({c.group() for c in cells[:3]}) == 1
    # run ids: stable, distinct per cell, and another shared option makes other runs
    ids = [c.run_id(spec.name, spec.run) for c in cells]
    assert len(set(ids)) == len(ids) and ids == [c.run_id(spec.name, spec.run) for c in expand(spec)]
    assert cells[0].run_id(spec.name, {**spec.run, "epochs": 4}) != ids[0]


def test_a_method_may_have_its_own_protocol_grid(tmp_path, dataset):
    spec = load_spec(experiment_file(tmp_path, dataset, '[grid]\nselectors = ["a"]\nmethods = ["ga", "dpo"]\n'
                                     'seeds = [0]\n[lr_protocol]\ngrid = [0.001, 0.0002]\n'
                                     'methods = {dpo = [0.01, 0.002]}\n'))
    assert spec.lr_protocol.grid_for("ga") == (0.0002, 0.001) and spec.lr_protocol.grid_for("dpo") == (0.002, 0.01)
    assert spec.lr_protocol.selector == "a" and spec.lr_protocol.retain_threshold == 0.8
    # the trials: one joint run per rate of the method's own grid, default options, the protocol's seed
    trials = protocol_trials(spec, "expg", "dpo", "scratch:tiny")
    assert [(c.lr, c.selector, c.options, c.per_edge, c.seed) for c in trials] == [(0.002, "a", (), False, 0),
                                                                                  (0.01, "a", (), False, 0)]
    # their runs belong to the experiment "<name>-lr", apart from the cells'
    assert trial_run_id(spec, trials[0]) == trials[0].run_id("e1-lr", spec.run) != trials[0].run_id("e1", spec.run)


def test_the_protocol_forgets_most_within_the_retain_threshold():
    def trial(lr, forget, retain):
        return {"lr": lr, "forget_rouge1": forget, "retain_rouge1": retain}
    # GA on sample_data_1 as measured: 1e-3 forgets most while keeping 0.866 >= 0.8; 2e-3 forgets
    # everything but keeps 0.09
    trials = [trial(2e-4, 1.0, 1.0), trial(5e-4, 0.65, 0.997), trial(1e-3, 0.1, 0.866), trial(2e-3, 0.0, 0.09)]
    assert choose_rate(trials, 0.8) == (trials[2], True)
    assert choose_rate(trials, 0.9) == (trials[1], True)
    # a tie in forgetting: the one that keeps more
    assert choose_rate([trial(1e-3, 0.0, 0.85), trial(2e-3, 0.0, 0.95)], 0.8)[0]["lr"] == 2e-3
    # none keeps enough: the one that keeps the most, and the record says so
    assert choose_rate([trial(1e-3, 0.0, 0.5), trial(2e-3, 0.0, 0.3)], 0.8) == ({"lr": 1e-3, "forget_rouge1": 0.0,
                                                                                "retain_rouge1": 0.5}, False)


def test_inject_seed_fixes_the_injected_model_across_seeds(tmp_path, dataset):
    from audit.experiment.cells import request_for
    body = '[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0, 1]\n'
    plain = load_spec(experiment_file(tmp_path, dataset, body, name="p"))
    fixed = load_spec(experiment_file(tmp_path, dataset, body + "[run]\ninject_seed = 7\n", name="f"))
    for spec, expected in ((plain, [0, 1]), (fixed, [7, 7])):
        requests = [request_for(spec, c, c.run_id(spec.name, spec.run), tmp_path) for c in expand(spec)]
        assert [r.injection.seed for r in requests] == expected and [r.unlearn.seed for r in requests] == [0, 1]


def test_inject_seeds_run_every_seed_on_each_injected_model(tmp_path, dataset):
    from audit.experiment.cells import request_for
    body = '[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0, 1]\ninject_seeds = [3, 5]\n'
    spec = load_spec(experiment_file(tmp_path, dataset, body, name="n"))
    cells = expand(spec)
    requests = [request_for(spec, c, c.run_id(spec.name, spec.run), tmp_path) for c in cells]
    assert [(r.injection.seed, r.unlearn.seed) for r in requests] == [(3, 0), (3, 1), (5, 0), (5, 1)]
    assert len({c.run_id(spec.name, spec.run) for c in cells}) == 4 and len({c.group() for c in cells}) == 1


def test_a_grid_without_inject_seeds_keeps_its_run_ids():
    # the id as it was made before cells had an injected model: sha256 of the cell's fields
    import hashlib
    import json
    cell = Cell("g", "edges:a", "ga", (), 0.001, "scratch:tiny", False, 2)
    old = {"experiment": "x", "cell": {"graph": "g", "selector": "edges:a", "method": "ga", "options": [],
                                       "lr": 0.001, "model": "scratch:tiny", "per_edge": False, "seed": 2},
           "run": {"epochs": 3}}
    digest = hashlib.sha256(json.dumps(old, sort_keys=True, default=str).encode()).hexdigest()[:10]
    assert cell.run_id("x", {"epochs": 3}) == f"x-ga-{digest}"


def test_a_text_graph_is_built_from_its_corpora_and_trains_as_the_file_says(store, tmp_path):
    from audit.experiment.cells import _ensure_graphs, request_for
    examples = Path(__file__).resolve().parents[3] / "examples" / "text"
    path = write(tmp_path / "t.toml", f"""
name = "t"
[[graphs]]
name = "marwick"
forget = ['{examples / "forget.txt"}']
retain = ['{examples / "retain.jsonl"}']
[grid]
selectors = ["split:forget"]
methods = ["npo"]
seeds = [0]
[run]
train_on = "passages"
mixed_passages = "drop"
chunk_tokens = 64
""")
    spec = load_spec(path)
    assert spec.graphs[0].forget == (examples / "forget.txt",) and spec.graphs[0].source_files
    _ensure_graphs(store, spec, report=lambda line: None)
    assert store.graph("marwick")["source"] == "text"
    request = request_for(spec, expand(spec)[0], "r", tmp_path)
    assert (request.training.train_on, request.training.mixed_passages, request.training.chunk_tokens) == \
        ("passages", "drop", 64)


def test_protocol_rates_fill_the_grid():
    from audit.experiment.spec import ExperimentSpec, GraphSpec, LrProtocol
    spec = ExperimentSpec("e", Path("e.toml"), "0", (GraphSpec("g"),), ("edges:a",), ("ga", "npo"), (0,),
                          lr_protocol=LrProtocol((1e-3, 3e-3), "edges:a"))
    cells = expand(spec, {("g", "ga", "scratch:tiny"): 3e-3, ("g", "npo", "scratch:tiny"): 1e-3})
    assert [(c.method, c.lr) for c in cells] == [("ga", 3e-3), ("npo", 1e-3)]


# -- bad files ----------------------------------------------------------------------------------
BAD = {
    "unknown top key": ('[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\nseeds = [0]\n[rnu]\nepochs = 1\n',
                        "rnu: unknown key"),
    "unknown method": ('[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga", "gx"]\nseeds = [0]\n',
                       "grid.methods[1]: unknown unlearning method 'gx'"),
    "seed not a number": ('[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\nseeds = [0, "one"]\n',
                          "grid.seeds[1]: expected a whole number"),
    "missing seeds": ('[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\n', "grid.seeds: missing"),
    "bad run option type": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\n[run]\nepochs = "ten"\n',
                            "run.epochs: expected a whole number"),
    "unknown method option": ('[grid]\nselectors = ["a"]\nmethods = ["npo"]\nseeds = [0]\n[method_options]\n'
                              'npo = [{betta = 0.1}]\n', "method_options.npo[0]:"),
    "rates twice": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\nlrs = [0.001]\n[lr_protocol]\n'
                    'grid = [0.001]\n', "lr_protocol: give grid.lrs"),
    "threshold out of range": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\n[lr_protocol]\n'
                               'grid = [0.001]\nretain_threshold = 2\n', "lr_protocol.retain_threshold"),
    "duplicate seed": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0, 0]\n', "grid.seeds: a value is listed twice"),
    "not toml": ('[grid\nselectors = 1\n', "not TOML"),
    "one injected model and several": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\n'
                                       'inject_seeds = [0, 1]\n[run]\ninject_seed = 0\n',
                                       "grid.inject_seeds: give [run] inject_seed"),
    "injected model past 64 bits": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\n'
                                    'inject_seeds = [1, 36893488147419103232]\n',
                                    "grid.inject_seeds[1]: 36893488147419103232: must fit in 64 bits"),
    "injected model twice": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\ninject_seeds = [1, 1]\n',
                             "grid.inject_seeds: a value is listed twice"),
    "protocol grid of a method not in the grid": ('[grid]\nselectors = ["a"]\nmethods = ["ga"]\nseeds = [0]\n'
                                                  '[lr_protocol]\ngrid = [0.001]\nmethods = {dpo = [0.01]}\n',
                                                  "lr_protocol.methods.dpo: unknown key"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_file_is_refused_naming_the_key(tmp_path, dataset, case):
    body, message = BAD[case]
    path = experiment_file(tmp_path, dataset, body)
    with pytest.raises(InputDataError, match=f"^{path}: " + _escape(message)):
        load_spec(path)


def test_a_bad_file_is_one_error_line(tmp_path, dataset):
    path = experiment_file(tmp_path, dataset, BAD["unknown method"][0])
    result = CliRunner().invoke(cli, ["experiment", str(path), "--dry-run"])
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        f"Error: {path}: grid.methods[1]: unknown unlearning method 'gx'; valid: ga, gd, kl, dpo, idk, npo, simnpo, oraclegrad"]


def test_yaml_reads_like_toml(tmp_path, dataset):
    path = write(tmp_path / "y.yaml", f"name: y\ngraphs: [{{name: expg, pistol: {dataset.name}}}]\n"
                                      "grid: {selectors: ['top-degree:1'], methods: [ga], seeds: [0, 1]}\n")
    assert len(expand(load_spec(path))) == 2


def test_a_graph_may_be_a_pistol_variant(tmp_path):
    data = tmp_path / "d.json"
    data.write_bytes(pistol_file("sample_data_2.json").read_bytes())
    body = ('[[graphs]]\nname = "famous"\npistol = "d.json"\nkeep_entities = ["20", "21", 22]\n'
            'rename = { "20" = { name = "Goldman Sachs", address = "200 West Street" }, "21" = "Big Co" }\n'
            '[grid]\nselectors = ["edges:20_21"]\nmethods = ["ga"]\nseeds = [0]\n')
    variant = load_spec(write(tmp_path / "v.toml", body)).graphs[0].variant
    assert variant == PistolVariant(("20", "21", "22"), (Rename("20", "Goldman Sachs", "200 West Street"),
                                                         Rename("21", "Big Co")))
    bad = body.replace("address =", "adress =")
    with pytest.raises(InputDataError, match=r"graphs\[0\]\.rename\.20\.adress: unknown key"):
        load_spec(write(tmp_path / "b.toml", bad))


def _escape(text: str) -> str:
    import re
    return re.escape(text)


# -- statistics ---------------------------------------------------------------------------------
def test_t_interval_matches_the_printed_table():
    values = [0.2, 0.4, 0.9]
    i = t_interval(values)
    half = T_975[2] * statistics.stdev(values) / math.sqrt(3)
    assert i.mean == pytest.approx(0.5) and i.low == pytest.approx(0.5 - half, abs=1e-3)
    assert i.high == pytest.approx(0.5 + half, abs=1e-3) and t_interval([0.3]).low is None


def test_the_papers_deviation_score_is_of_the_means_and_never_above_the_mean_of_scores():
    row = A.CellRow("c", "g", "edges:A_B", "ga", 1e-3, "m", "joint",
                    values={"forget_rouge1_after": [0.1, 0.5], "retain_rouge1_after": [0.9, 0.9],
                            "deviation_score": [100 * math.hypot(0.1, 0.1), 100 * math.hypot(0.5, 0.1)]})
    assert row.paper_deviation_score() == pytest.approx(100 * math.hypot(0.3, 0.1))     # 31.62
    assert row.interval("deviation_score").mean == pytest.approx(32.57, abs=0.01)       # (14.14 + 50.99) / 2
    # PISTOL's Table 2, Llama2-7B, GA on AB: 0.521 and 0.845 give its 54.4
    one = A.CellRow("c", "g", "s", "ga", None, "m", "joint",
                    values={"forget_rouge1_after": [0.521], "retain_rouge1_after": [0.845]})
    assert round(one.paper_deviation_score(), 1) == 54.4


def test_spearman_of_a_monotone_relation_is_one():
    c = spearman([1, 2, 3, 4, 5, 6], [0.1, 0.5, 0.6, 2.0, 3.0, 3.1])
    assert c.rho == pytest.approx(1.0) and c.high == pytest.approx(1.0) and c.n == 6
    assert spearman([1, 1, 1], [1, 2, 3]).rho is None


def test_the_bootstrap_resamples_edges_not_measurements():
    # two edges measured three times each: rho is defined, but two edges cannot give an interval
    c = spearman([8, 8, 8, 14, 14, 14], [10, 12, 11, 30, 31, 29], clusters=["a"] * 3 + ["b"] * 3)
    assert c.rho > 0.8 and (c.low, c.high, c.n, c.clusters) == (None, None, 6, None)
    # four edges: an interval, over edges
    c = spearman([1, 1, 2, 2, 3, 3, 4, 4], [1, 1.1, 2, 2.1, 3, 3.1, 4, 4.1], clusters=list("aabbccdd"))
    assert c.rho > 0.95 and c.clusters == 4 and c.low is not None


# -- running, resuming, aggregating -------------------------------------------------------------
def test_an_experiment_runs_resumes_and_aggregates(store, store_args, tmp_path, dataset, run_cache):
    path = experiment_file(tmp_path, dataset, """
[grid]
selectors = ["edges:0_1", "edges:3_4"]
methods = ["ga"]
seeds = [0, 1]
lrs = [0.003]
""" + FAST)
    spec = load_spec(path)
    lines: list[str] = []

    class Killed(BaseException):
        pass

    def kill_at_third_cell(line: str) -> None:
        lines.append(line)
        if line.startswith("cell 3/4"):
            raise Killed

    with pytest.raises(Killed):
        run_experiment(store, spec, run_cache, report=kill_at_third_cell)
    done_first = {r["key"] for r in store.read("MATCH (r:Run {status: 'done'}) RETURN r.key AS key")}
    assert len(done_first) == 2

    lines.clear()
    outcome = run_experiment(store, spec, run_cache, report=lines.append)
    assert (outcome.cells, outcome.ran, outcome.skipped) == (4, 2, 2)
    assert estimate_cost(store, spec).count(CELL) == (4, 4)   # a dry run now: every cell done, nothing to pay
    assert not any(line.startswith(("cell 1/4", "cell 2/4")) for line in lines)   # finished cells skipped
    linked = store.read("MATCH (:Experiment {key: 'e1'})-[:HAS_RUN {role: 'cell'}]->(r:Run) "
                        "RETURN r.key AS key, r.status AS status")
    assert len(linked) == 4 and {r["status"] for r in linked} == {"done"}
    assert done_first <= {r["key"] for r in linked}

    # the aggregates, independently: per cell, per run, the forget edge's ROUGE-1 after (one
    # edge, so its QA mean), the retained edges' QA mean, DS from those, then t over the seeds
    cells, points = A.read_experiment(store, "e1")
    rows = {r.selector: r for r in cells}
    assert set(rows) == {"edges:0_1", "edges:3_4"}
    for selector, row in rows.items():
        forget_values, retain_values, ds_values = [], [], []
        for run in row.runs:
            results = store.read("MATCH (x:EdgeResult {run: $run}) RETURN x.role AS role, x.rouge1_qa_after AS qa",
                                 run=run)
            forget = [v for r in results if r["role"] == "forget" for v in r["qa"]]
            retain = [v for r in results if r["role"] == "retain" for v in r["qa"]]
            f, rr = sum(forget) / len(forget), sum(retain) / len(retain)
            forget_values.append(f)
            retain_values.append(rr)
            ds_values.append(100 * math.sqrt(f ** 2 + (1 - rr) ** 2))
        for measure, values in (("forget_rouge1_after", forget_values), ("retain_rouge1_after", retain_values),
                                ("deviation_score", ds_values)):
            i = row.interval(measure)
            half = T_975[1] * statistics.stdev(values) / math.sqrt(2)
            assert i.n == 2 and i.mean == pytest.approx(statistics.fmean(values), abs=1e-9)
            assert i.high - i.mean == pytest.approx(half, rel=1e-3, abs=1e-9)
        # PISTOL's DS of the cell: from the mean ROUGE-1s, not the mean of the runs' DS
        f, rr = statistics.fmean(forget_values), statistics.fmean(retain_values)
        assert row.paper_deviation_score() == pytest.approx(100 * math.sqrt(f ** 2 + (1 - rr) ** 2), abs=1e-9)

    # paired: selector a minus b per seed, independently from the same read-back values
    by_run = {}
    for run in {r for row in rows.values() for r in row.runs}:
        res = store.read("MATCH (x:EdgeResult {run: $run}) RETURN x.role AS role, x.rouge1_qa_after AS qa", run=run)
        seed = store.read("MATCH (r:Run {key: $run}) RETURN r.seed AS seed", run=run)[0]["seed"]
        by_run[run] = (seed, sum(v for r in res if r["role"] == "forget" for v in r["qa"])
                       / sum(len(r["qa"]) for r in res if r["role"] == "forget"))
    seeds_a = {by_run[r][0]: by_run[r][1] for r in rows["edges:0_1"].runs}
    seeds_b = {by_run[r][0]: by_run[r][1] for r in rows["edges:3_4"].runs}
    (pair,) = A.paired(list(rows.values()), "edges:0_1", "edges:3_4", "forget_rouge1_after")
    assert pair.differences == pytest.approx([seeds_a[s] - seeds_b[s] for s in (0, 1)], abs=1e-12)

    # the per-edge points: one per run (joint runs of one forget edge), with the edge's structure
    structure = {r["key"]: r for r in store.read(
        "MATCH ()-[f:FACT]->() WHERE f.graph = 'expg' RETURN f.key AS key, f.edge_degree AS degree")}
    assert len(points) == 4 and all(p.edge_degree == structure[p.edge]["degree"] for p in points)

    # the command prints the table and writes the figures without running anything
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["experiment", str(path), "--table-only", "--format", "csv", "--output", str(out),
                                      *store_args])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith(
        "graph,selector,method,options,lr,model,mode,seeds,injected_models,deviation_score_paper,forget_rouge1_after")
    assert {p.name for p in out.iterdir()} >= {"table.md", "table.csv", "deviation_by_cell.png",
                                               "deviation_vs_edge_degree.png", "deviation_vs_component_density.png"}


def test_a_nested_grid_reports_variance_components(store, store_args, tmp_path, dataset, run_cache):
    path = experiment_file(tmp_path, dataset, """
[grid]
selectors = ["edges:0_1", "edges:3_4"]
methods = ["ga"]
seeds = [0, 1]
inject_seeds = [0, 1]
lrs = [0.003]
""" + FAST, name="nest")
    run_experiment(store, load_spec(path), run_cache, report=lambda line: None)
    rows = {r.selector: r for r in A.read_experiment(store, "nest")[0]}
    assert sorted(rows["edges:0_1"].inject_seeds) == [0, 0, 1, 1] and rows["edges:0_1"].nested()
    # independently: each run's forget ROUGE-1 and its injected model, read back with Cypher
    for selector, row in rows.items():
        by_model: dict[int, list[float]] = {}
        for run in row.runs:
            (r,) = store.read("MATCH (r:Run {key: $run}) RETURN r.injection_config AS inj, "
                              "r.forget_rouge1_after AS f", run=run)
            by_model.setdefault(json.loads(r["inj"])["seed"], []).append(r["f"])
        means = [statistics.fmean(v) for v in by_model.values()]
        msw = statistics.fmean(statistics.variance(v) for v in by_model.values())   # 2 seeds per model
        c = row.components("forget_rouge1_after")
        assert (c.models, c.runs) == (2, 4) and c.within_models == pytest.approx(msw, abs=1e-12)
        assert c.between_models == pytest.approx(max(0.0, statistics.variance(means) - msw / 2), abs=1e-12)
        i = row.interval("forget_rouge1_after")   # over the two models' means: t with 1 degree of freedom
        assert i.n == 2 and i.mean == pytest.approx(statistics.fmean(means))
        assert i.high - i.mean == pytest.approx(T_975[1] * statistics.stdev(means) / math.sqrt(2), rel=1e-3, abs=1e-9)
    (pair,) = A.paired(list(rows.values()), "edges:0_1", "edges:3_4", "forget_rouge1_after")
    assert sorted(pair.models) == [0, 0, 1, 1] and pair.interval().n == 2
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["experiment", str(path), "--table-only", "--output", str(out), *store_args])
    assert result.exit_code == 0, result.output
    assert "sd_between_models" in result.output and "over the injected models' means" in result.output
    lines = (out / "components.csv").read_text().splitlines()
    assert lines[0].startswith("graph,selector,method,options,lr,model,measure,injected_models,runs,mean")
    assert len(lines) == 1 + 2 * len(A.COMPONENT_MEASURES)


def test_a_changed_file_is_refused_unless_replace(store, tmp_path, dataset, run_cache):
    body = '[grid]\nselectors = ["edges:0_1"]\nmethods = ["ga"]\nseeds = [0]\nlrs = [0.003]\n' + FAST
    path = experiment_file(tmp_path, dataset, body, name="e2")
    run_experiment(store, load_spec(path), run_cache, report=lambda line: None)
    write(path, path.read_text() + "# a comment changes the file\n")
    with pytest.raises(Exception, match="experiment 'e2' was run from another version"):
        run_experiment(store, load_spec(path), run_cache, report=lambda line: None)
    outcome = run_experiment(store, load_spec(path), run_cache, replace=True, report=lambda line: None)
    assert (outcome.ran, outcome.skipped) == (0, 1)   # the same cell: its run is reused


def test_cells_have_stable_groups():
    cell = Cell("g", "edges:a", "npo", (("beta", 0.1),), 0.001, "scratch:tiny", False, 3)
    assert cell.group() == "g edges:a npo[beta=0.1] lr=0.001 scratch:tiny joint"


# -- PISTOL's Table 4: independent retained edges --------------------------------------------------
def _result(edge: str, role: str, domain: str, component: int, after: float, **more) -> EdgeResult:
    return EdgeResult.from_props({"key": f"r/{edge}", "edge": edge, "role": role, "domain": domain,
                                  "component": component, "rouge1_after": after, **more})


def test_independent_retained_edges_are_those_outside_the_forget_edges_component():
    # sample_data_1's shape: A_C forgotten in component 0; A_C2 (sales) and A_n (employment) share
    # it; E1_F1 (sales) and E1_q1 (employment) form component 1, E2_F2 component 2
    results = [_result("g/A_C", "forget", "sales", 0, 0.1), _result("g/A_C2", "retain", "sales", 0, 0.4),
               _result("g/A_n", "retain", "employment", 0, 0.6), _result("g/E1_F1", "retain", "sales", 1, 0.8),
               _result("g/E1_q1", "retain", "employment", 1, 1.0), _result("g/E2_F2", "retain", "sales", 2, 0.9)]
    values = A.run_values({"mode": "joint"}, results)
    assert values["retain_rouge1_after_sales"] == pytest.approx((0.4 + 0.8 + 0.9) / 3)
    assert values["retain_rouge1_after_sales_independent"] == pytest.approx((0.8 + 0.9) / 2)
    assert values["retain_rouge1_after_employment"] == pytest.approx((0.6 + 1.0) / 2)
    assert values["retain_rouge1_after_employment_independent"] == pytest.approx(1.0)
    # per-edge: each forget edge's own unlearning measured the others
    sweep = [_result("g/A_C", "forget", "sales", 0, 0.1, retain_edges_after=["g/A_C2", "g/E1_F1", "g/E1_q1"],
                     retain_rouge1_by_edge=[0.3, 0.7, 0.5]),
             _result("g/E1_F1", "forget", "sales", 1, 0.2, retain_edges_after=["g/A_C", "g/A_C2", "g/E1_q1"],
                     retain_rouge1_by_edge=[0.9, 0.8, 0.2]),
             _result("g/A_C2", "retain", "sales", 0, 0.5), _result("g/E1_q1", "retain", "employment", 1, 0.6)]
    values = A.run_values({"mode": "per-edge"}, sweep)
    # not counted: forget edges measured in another's unlearning (E1_F1 in A_C's, A_C in E1_F1's)
    assert values["retain_rouge1_after_sales"] == pytest.approx((0.3 + 0.8) / 2)
    assert values["retain_rouge1_after_sales_independent"] == pytest.approx(0.8)          # A_C2 after E1_F1's
    assert values["retain_rouge1_after_employment_independent"] == pytest.approx(0.5)     # E1_q1 after A_C's


def test_an_edge_without_a_component_is_never_counted_independent():
    results = [_result("g/A_C", "forget", "sales", 0, 0.1), _result("g/X", "retain", "sales", None, 0.5),
               _result("g/E1_F1", "retain", "sales", 1, 0.8)]
    values = A.run_values({"mode": "joint"}, results)
    assert values["retain_rouge1_after_sales_independent"] == pytest.approx(0.8)
    assert values["retain_rouge1_after_sales"] == pytest.approx((0.5 + 0.8) / 2)
