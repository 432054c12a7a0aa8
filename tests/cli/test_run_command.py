"""`audit run`'s config files and re-runs, and its refusals of a model that is not one, through
click's CliRunner against the real server. A re-run is checked by the digest of its settings,
read back with Cypher, against the stored run's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from audit.run.methods import method_class
from audit.run.options import RUN_OPTIONS
from cli.main import cli
from cli.run import _merged
from cli.run import run as run_command
from conftest import small_pistol_run
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

EDGES = [("0", "1"), ("0", "2"), ("1", "3")]
MODEL_CHOICES = ("a folder written by save_pretrained, a hub id, a .gguf file, "
                 "a model package (audit models) or scratch[:SIZE]")


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def digest(store, run: str) -> str:
    return store.read("MATCH (r:Run {key: $run}) RETURN r.settings_sha256 AS s", run=run)[0]["s"]


def test_every_option_of_the_command_can_be_in_a_config_file():
    where_and_how = {"config_file", "rerun", "fmt", "store_dir", "uri", "user", "password", "database"}
    assert {p.name for p in run_command.params} - where_and_how == set(RUN_OPTIONS)


def test_a_stored_run_is_made_again_from_its_config_file_or_its_id(store, store_args, tmp_path, run_cache):
    run = small_pistol_run(store, tmp_path, run_cache, "again", "again-ga", EDGES, seed=7)
    config = run_cache / "runs" / run / "config.toml"

    same = invoke("run", "--config", str(config), *store_args)   # the same options and id: nothing to do
    assert same.exit_code == 0, same.output
    assert f"run {run} is already complete; nothing to do" in same.output and f"run {run}: done" in same.output

    # the command line over the file: this graph is looked for, and refused
    other = invoke("run", "--config", str(config), "--graph", "nosuch", *store_args)
    assert other.exit_code == 1 and "Error: no graph named 'nosuch'" in other.output
    other = invoke("run", "--rerun", run, "--select", "widest:3", *store_args)
    assert other.exit_code == 1 and "Error: unknown selector 'widest'" in other.output

    # method settings merge by name, and are dropped with the method they belong to
    npo = tmp_path / "npo.toml"
    npo.write_text('graph = "again"\nselect = "top-degree:1"\nmethod = "npo"\nmethod_option = {beta = "x"}\n')
    merged = invoke("run", "--config", str(npo), "--method-option", "retain_weight=1", *store_args)
    assert merged.exit_code == 1 and "Error: method npo option beta='x': expected a float" in merged.output
    merged = invoke("run", "--config", str(npo), "--method", "ga", "--method-option", "gamma=1", *store_args)
    assert merged.exit_code == 1 and "Error: method ga has no option 'gamma'; valid: (none)" in merged.output

    rerun = invoke("run", "--rerun", run, *store_args)
    assert rerun.exit_code == 0, rerun.output
    new = [line.split()[1].rstrip(":") for line in rerun.output.splitlines() if line.startswith(f"run {run}-rerun-")]
    assert len(new) == 1 and digest(store, new[0]) == digest(store, run)
    assert store.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 2

    # a rate left to its default is not written as given: a re-run on another model or method
    # takes that one's default; the file says which rate the run used
    lines = [line for line in config.read_text(encoding="utf-8").splitlines()
             if not line.startswith(("lr =", "run_id =", "epochs ="))]
    default = tmp_path / "default-lr.toml"
    default.write_text("\n".join([*lines, 'run_id = "again-default"', "epochs = 1"]) + "\n", encoding="utf-8")
    made = invoke("run", "--config", str(default), *store_args)
    assert made.exit_code == 0, made.output
    written = (run_cache / "runs" / "again-default" / "config.toml").read_text(encoding="utf-8")
    assert not any(line.startswith("lr =") for line in written.splitlines())
    assert f"# lr: not given; this run used {method_class('ga').scratch_lr:g}, the default for ga on a model of width 96" \
        in written.splitlines()


def test_a_run_without_a_config_file_to_rerun_says_what_to_do(store, store_args, tmp_path):
    from audit.results import repository as R

    R.start_run(store, "old", {"settings_sha256": "x", "graph": "g", "lock": str(tmp_path / "runs" / "old" / "run.lock")})
    result = invoke("run", "--rerun", "old", *store_args)
    assert result.exit_code == 1
    assert (f"Error: run old has no {tmp_path / 'runs' / 'old' / 'config.toml'}: it ran before runs recorded their "
            "options, or its cache folder is elsewhere (give --cache-dir) or gone; give its options (audit runs old "
            "shows them) or --config FILE") in result.output
    assert invoke("run", "--rerun", "nosuch", *store_args).output.startswith("Error: no run 'nosuch'; runs there: old")


def test_a_config_file_with_an_unknown_or_mistyped_option_is_refused(store, store_args, tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('graph = "demo"\nepoch = 3\n', encoding="utf-8")
    result = invoke("run", "--config", str(path), *store_args)
    assert result.exit_code == 1
    assert result.output == (f"Error: {path}: unknown option 'epoch' (did you mean 'epochs'?); the valid keys are "
                             "audit run's long options, e.g. method, epochs, lr, seed (audit run --help lists them)\n")
    path.write_text('graph = "demo"\nepochs = "many"\n', encoding="utf-8")
    result = invoke("run", "--config", str(path), *store_args)
    assert result.exit_code == 1
    assert result.output == f"Error: {path}: epochs = \"many\": expected a whole number\n"
    path.write_text('select = "top-degree:1"\n', encoding="utf-8")
    result = invoke("run", "--config", str(path), *store_args)
    assert result.exit_code == 2
    assert result.output.startswith("Error: Missing option '--graph' (or graph = NAME in the --config file)")


def test_a_folder_without_config_json_is_refused_before_a_run_starts(store, store_args, tmp_path):
    path = tmp_path / "g.json"
    write_dataset(generate_pistol(EDGES, seed=7), path)
    write_graph(store, load_pistol(path, graph="g"))
    folder = tmp_path / "weights-only"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"\0")
    result = invoke("run", "--graph", "g", "--select", "edges:0_1", "--model", str(folder), "--device", "cpu",
                    "--cache-dir", str(tmp_path / "cache"), *store_args)
    assert result.exit_code == 1
    assert result.output == (f"Error: --model {folder}: no config.json there, so not a Hugging Face model folder; "
                             f"give {MODEL_CHOICES}\n")
    assert store.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0   # no failed run left behind


def test_runs_as_json_is_one_object_at_full_precision(store, store_args):
    from audit.results import repository as R

    R.start_run(store, "precise", {"settings_sha256": "x", "graph": "g", "unlearn_seconds": 0.123456789012345,
                                   "unlearn_config": {"lr": 1e-3, "epochs": 20}, "forget_edges": ["g/0_1"]})
    out = json.loads(invoke("runs", "precise", "--format", "json", *store_args).output)
    assert out["unlearn_seconds"] == 0.123456789012345 and out["unlearn_config"] == {"lr": 1e-3, "epochs": 20}
    assert out["key"] == "precise" and out["forget_edges"] == ["g/0_1"] and out["status"] == "running"
    csv_rows = invoke("runs", "precise", "--format", "csv", *store_args).output.splitlines()
    assert "unlearn_seconds,0.123456789012345" in csv_rows


# -- how the command line, --config files and a --rerun's stored options merge ---------------------
def merged(layers: list[dict], *args: str) -> dict:
    """``_merged`` for the command line ``args`` over ``layers`` (earliest first), as `audit run` calls it."""
    ctx = run_command.make_context("run", list(args))
    return _merged(ctx, {k: v for k, v in ctx.params.items() if k in RUN_OPTIONS}, [(f"layer{i}.toml", layer)
                                                                                 for i, layer in enumerate(layers)])


def test_method_settings_go_with_their_method_whichever_layer_names_it():
    npo = {"graph": "g", "method": "npo", "method_option": {"beta": 0.1, "retain_weight": 0.0}}
    assert merged([npo])["method_option"] == {"beta": 0.1, "retain_weight": 0.0}
    assert merged([npo, {"method": "ga"}])["method"] == "ga"
    assert merged([npo, {"method": "ga"}])["method_option"] == {}          # a later file names another method
    assert merged([npo], "--method", "ga")["method_option"] == {}           # so does the command line
    assert merged([npo, {"method_option": {"beta": 0.3}}])["method_option"] == {"beta": 0.3, "retain_weight": 0.0}
    assert merged([npo], "--method-option", "beta=0.5")["method_option"] == {"beta": "0.5", "retain_weight": 0.0}


def test_a_memorization_preset_replaces_the_settings_below_it():
    stored = {"graph": "g", "memorization_option": {"counterfactuals": 50, "contexts": 4, "criterion": "mean"}}
    assert merged([stored], "--memorization-option", "preset=wikimem")["memorization_option"] == {"preset": "wikimem"}
    assert merged([stored, {"memorization_option": {"preset": "wikimem", "contexts": 1}}])["memorization_option"] == \
        {"preset": "wikimem", "contexts": 1}
    assert merged([stored], "--memorization-option", "contexts=2")["memorization_option"] == \
        {"counterfactuals": 50, "contexts": "2", "criterion": "mean"}


def test_select_and_cypher_replace_each_other():
    cypher = "MATCH ()-[f:FACT]->() RETURN f.key AS key"
    assert (lambda o: (o["select"], o["cypher"]))(merged([{"graph": "g", "select": "top-degree:2"}], "--cypher", cypher)) \
        == (None, cypher)
    assert (lambda o: (o["select"], o["cypher"]))(merged([{"graph": "g", "cypher": cypher}], "--select", "edges:0_1")) \
        == ("edges:0_1", None)
    assert (lambda o: (o["select"], o["cypher"]))(merged([{"graph": "g", "select": "top-degree:2"}, {"cypher": cypher}])) \
        == (None, cypher)


def test_flags_and_checks_can_be_turned_off_over_a_stored_run():
    stored = {"graph": "g", "per_edge": True, "no_inject": True, "gradient_checkpointing": True,
              "check": ["relearn"], "check_option": {"relearn_steps": 20}}
    assert (lambda o: (o["per_edge"], o["no_inject"], o["gradient_checkpointing"]))(merged([stored])) == (True, True, True)
    off = merged([stored], "--joint", "--inject", "--no-gradient-checkpointing", "--check", "none")
    assert (off["per_edge"], off["no_inject"], off["gradient_checkpointing"], off["check"], off["check_option"]) == \
        (False, False, False, (), {})


@pytest.mark.parametrize("name, value, expected", [
    ("epochs", 10.5, "a whole number"), ("epochs", True, "a whole number"), ("seed", "3", "a whole number"),
    ("lr", True, "a number"), ("per_edge", 1, "true or false"), ("no_inject", "yes", "true or false"),
    ("lora_targets", ["q_proj", "v_proj"], "a text"), ("check", [1, 2], "a list of texts"),
])
def test_a_config_value_of_the_wrong_type_is_refused_not_coerced(name, value, expected):
    with pytest.raises(ConfigError) as refused:
        merged([{"graph": "g", name: value}])
    assert str(refused.value).startswith(f"layer0.toml: {name} = ") and str(refused.value).endswith(f"expected {expected}")


def test_a_config_value_of_the_right_type_is_taken():
    o = merged([{"graph": "g", "epochs": 3, "lr": 1, "per_edge": True, "lora_targets": "q_proj,v_proj", "check": "relearn"}])
    assert (o["epochs"], o["lr"], o["per_edge"], o["lora_targets"], o["check"]) == (3, 1.0, True, "q_proj,v_proj",
                                                                                    ("relearn",))
