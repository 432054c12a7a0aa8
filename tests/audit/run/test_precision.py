"""The localization phase end to end (LACUNA's localization precision): real masked injections,
real unlearnings, the weights read back from the run folder. OracleGrad moves only the forget
mask, so its |change| separates it perfectly (AUC 1.0) and nothing else moved, bit for bit; an
unrestricted method's AUC is computed from the same weights; what needs a mask is refused first."""

from __future__ import annotations

import json
import re

import pytest
import torch
from safetensors.torch import load_file

from audit.config import InjectionConfig, LocalizationConfig, UnlearnConfig
from audit.models.load import load_model, select_hardware
from audit.run.full_weights import WEIGHTS_FILE
from audit.run.masked import load_masks
from audit.run.plan import plan
from audit.run.request import RunRequest
from audit.run.runner import run_audit
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

EDGES = [("0", "1"), ("0", "2"), ("1", "3"), ("2", "3"), ("3", "4")]


@pytest.fixture()
def request_for(store, tmp_path, run_cache):
    path = tmp_path / "located.json"
    write_dataset(generate_pistol(EDGES, seed=6), path)
    write_graph(store, load_pistol(path, graph="located"))

    def make(run_id: str, method: str, **overrides) -> RunRequest:
        options = dict(graph="located", select="edges:0_1", method=method, run_id=run_id, device="cpu",
                       equivalence=None, cache_dir=run_cache,
                       injection=InjectionConfig(max_epochs=10, eval_every=10, mask_groups="forget", mask_share=0.1),
                       unlearn=UnlearnConfig(epochs=2, lr=1e-3, adapter="full"),
                       localization=LocalizationConfig(enabled=True, control=False))
        return RunRequest(**{**options, **overrides})

    return make


def test_oraclegrad_moves_only_the_forget_weights_and_scores_1(store, request_for):
    outcome = run_audit(store, request_for("located-og", "oraclegrad"), report=lambda line: None)
    summary = outcome.summary
    assert summary["localization_auc_magnitude"] == 1.0
    p = plan(store, request_for("located-og", "oraclegrad"))
    key = store.read("MATCH (r:Run {key: 'located-og'}) RETURN r.injection_key AS key")[0]["key"]
    injected_folder = p.request.cache_dir / "injected" / key
    masks = load_masks(injected_folder)
    injected = dict(load_model(str(injected_folder / "model"), select_hardware("cpu")).named_parameters())
    unlearned = load_file(str(p.run_dir / "adapter" / WEIGHTS_FILE))
    moved_outside = [n for n, w in unlearned.items() if n not in masks.group_of and not torch.equal(w, injected[n])]
    assert moved_outside == []   # embeddings, norms, output layer: OracleGrad zeroes their gradient
    for name, group in masks.group_of.items():
        now, before = unlearned[name], injected[name].detach()
        assert torch.equal(now[group != 0], before[group != 0]), name   # outside the forget mask: bit for bit
    assert any(not torch.equal(unlearned[n][g == 0], injected[n].detach()[g == 0]) for n, g in masks.group_of.items())


def test_an_unrestricted_method_moves_every_weight_and_scores_far_below(store, request_for):
    gd = run_audit(store, request_for("located-gd", "gd"), report=lambda line: None).summary
    assert 0.0 <= gd["localization_auc_magnitude"] < 0.9
    rows = store.read("MATCH (r:Run {key: 'located-gd'}) RETURN r.localization_auc_by_score AS by, "
                      "r.mask_groups AS groups, r.injection_masks AS masks")
    assert '"magnitude"' in rows[0]["by"] and '"forget": ["located/0_1"]' in rows[0]["groups"]
    group = store.read("MATCH (x:EdgeResult {run: 'located-gd'}) RETURN x.edge AS edge, x.mask_group AS g "
                       "ORDER BY edge")
    assert {r["edge"]: r["g"] for r in group} == {"located/0_1": 0, "located/0_2": 1, "located/1_3": 1,
                                                  "located/2_3": 1, "located/3_4": 1}


@pytest.mark.parametrize("method, overrides, message", [
    ("oraclegrad", {"injection": InjectionConfig(), "localization": LocalizationConfig()},
     "--method oraclegrad needs a masked injection: add --mask-groups forget"),
    ("gd", {"injection": InjectionConfig()}, "--localization needs a masked injection"),
    ("oraclegrad", {"unlearn": UnlearnConfig(lr=1e-3)}, "--method oraclegrad trains the model's own weights inside "
                                                        "the forget mask: add --adapter full"),
    ("gd", {"per_edge": True}, "--per-edge with --mask-groups forget puts every forget edge in one group"),
    # five edges, each in its own group of 30 %: 150 % of the weights
    ("gd", {"injection": InjectionConfig(mask_groups="edge", mask_share=0.3)},
     "--mask-groups edge: 5 groups of --mask-share 0.3 do not fit in the weights (at most 0.2 each)"),
])
def test_what_needs_a_mask_is_refused_before_anything_runs(store, request_for, method, overrides, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        plan(store, request_for("refused", method, **overrides))
    assert store.read("MATCH (r:Run {key: 'refused'}) RETURN count(r) AS n")[0]["n"] == 0


def test_the_precision_shows_where_a_researcher_looks(store, request_for, store_args, tmp_path):
    """`audit edges --run` has each edge's group, the report a Localization section with every
    score, `audit compare` the two runs' precision, the page's data the run's figure."""
    from click.testing import CliRunner

    from audit.views.graph import load_view
    from audit.views.report import write_report
    from cli.main import cli

    run_audit(store, request_for("shown-gd", "gd"), report=lambda line: None)
    run_audit(store, request_for("shown-og", "oraclegrad"), report=lambda line: None)
    edges = CliRunner().invoke(cli, ["edges", "--run", "shown-gd", *store_args])
    assert edges.exit_code == 0 and "mask_group" in edges.output.splitlines()[0]
    report = write_report(store, "shown-og", tmp_path / "report").read_text(encoding="utf-8")
    section = report.split("## Localization", 1)[1].split("\n## ", 1)[0]
    assert "| magnitude | 1.000 |" in section and "composite (cross-validated)" in section
    compared = CliRunner().invoke(cli, ["compare", "shown-gd", "shown-og", *store_args])
    assert compared.exit_code == 0 and "localization precision, ROC AUC of |change| against the forget mask" \
        in compared.output and "vs 1.000" in compared.output
    assert load_view(store, "shown-og").run["localization_auc_magnitude"] == 1.0


def test_a_sweep_measures_each_edge_against_its_own_group(store, request_for):
    """--mask-groups edge with --per-edge: each forget edge in its own weights, unlearned on its
    own; OracleGrad then moves only that edge's group, so each edge's AUC is 1.0, and its graph
    neighbours' groups are measured apart (0.5: left as the unmasked weights were)."""
    request = request_for("swept-og", "oraclegrad", select="edges:0_1,3_4", per_edge=True,
                          injection=InjectionConfig(max_epochs=10, eval_every=10, mask_groups="edge", mask_share=0.1))
    summary = run_audit(store, request, report=lambda line: None).summary
    rows = store.read("MATCH (x:EdgeResult {run: 'swept-og'}) WHERE x.role = 'forget' "
                      "RETURN x.edge AS edge, x.mask_group AS g, x.localization_auc_magnitude AS auc, "
                      "x.localization_auc_neighbours AS near ORDER BY edge")
    assert [(r["edge"], r["g"], r["auc"]) for r in rows] == [("located/0_1", 0, 1.0), ("located/3_4", 4, 1.0)]
    # 0_1's neighbours share 0 or 1: 0_2 and 1_3; 3_4's share 3: 1_3 and 2_3
    assert set(json.loads(rows[0]["near"])) == {"located/0_2", "located/1_3"}
    assert set(json.loads(rows[1]["near"])) == {"located/1_3", "located/2_3"}
    assert all(v == 0.5 for r in rows for v in json.loads(r["near"]).values())
    assert summary["localization_auc_magnitude"] == 1.0   # the mean over the swept edges
