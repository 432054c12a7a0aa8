"""`audit run`'s options by name: a request's resolved options written as TOML read back to the
same request, and a file's unknown or mistyped option refused with its name and the file."""

from __future__ import annotations

import dataclasses
import json

import pytest

from audit.config import as_dict
from audit.run.methods import method_class
from audit.run.options import (DEFAULTS, RUN_OPTIONS, options_toml, read_options, request_from_options,
                               resolved_options, unexpressed)
from graphstore.errors import InputDataError

GIVEN = {"graph": "demo", "select": "top-degree:2", "method": "NPO", "method_option": {"beta": "0.3"},
         "utility": "../shared/data/pistol/factual_data.json", "epochs": 3, "lr": 1e-3, "seed": 7,
         "equivalence": "none", "check": ("relearn", "quantize"), "check_option": {"relearn_steps": "3"},
         "memorization_option": {"preset": "wikimem", "counterfactuals": "20"}, "cache_dir": "/tmp/cache",
         "inject_lr": 0.1 + 0.2}   # 0.30000000000000004: a float that only a full-precision file keeps


def test_resolved_options_read_back_make_the_same_request(tmp_path):
    request = request_from_options(GIVEN)
    method_config = as_dict(method_class("npo").config_class(beta=0.3))
    options = resolved_options(request, method_config)
    assert set(options) <= set(RUN_OPTIONS) and "select" in options and "cypher" not in options   # unset: absent
    path = tmp_path / "config.toml"
    path.write_text(options_toml(options, ["a comment"]), encoding="utf-8")
    assert path.read_text(encoding="utf-8").startswith("# a comment\ngraph = \"demo\"\n")
    again = request_from_options(read_options(path))
    # every setting alike; the method's options are all of them now, the given ones among them
    assert dataclasses.replace(again, method_options=request.method_options) == request
    assert again.method_options == {"beta": "0.3", "retain_weight": "0.0"}
    assert again.injection.lr == 0.30000000000000004 and again.resurfacing.checks == ("quantize", "relearn")
    assert again.memorization.counterfactuals == 20 and again.memorization.criterion == "strict"   # the preset's
    assert unexpressed(request, options) == []


def test_a_setting_no_option_makes_is_named(tmp_path):
    request = request_from_options({**GIVEN, "check": (), "check_option": {}})
    request = dataclasses.replace(request, injection=dataclasses.replace(request.injection, seed=3))
    options = resolved_options(request, {})
    assert unexpressed(request, options) == ["injection.seed = 3"]


def test_json_files_and_dashes_and_lists_are_read(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"graph": "demo", "inject-max-epochs": 40, "method-option": ["beta=0.2"]}))
    assert read_options(path) == {"graph": "demo", "inject_max_epochs": 40, "method_option": {"beta": "0.2"}}


@pytest.mark.parametrize("text, message", [
    ("epoch = 3", "unknown option 'epoch' (did you mean 'epochs'?); the valid keys are audit run's long options, "
                  "e.g. method, epochs, lr, seed (audit run --help lists them)"),
    ("colour = 3", "unknown option 'colour'; the valid keys are audit run's long options, "
                   "e.g. method, epochs, lr, seed (audit run --help lists them)"),
    ("inject_lr = 1\ninject-lr = 2", "option inject_lr is given twice (as inject_lr and inject-lr)"),
    ("method_option = 3", "method_option: expected a table (e.g. method_option = {beta = 0.2}) or a list of "
                          "\"NAME=VALUE\" texts, got 3"),
])
def test_a_bad_file_names_itself_and_the_option(tmp_path, text, message):
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputDataError) as refused:
        read_options(path)
    assert str(refused.value) == f"{path}: {message}"


def test_a_file_that_is_not_toml_says_so(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text("epochs = 3\nepochs = 4", encoding="utf-8")   # a key twice: tomllib's words follow
    with pytest.raises(InputDataError) as refused:
        read_options(path)
    assert str(refused.value).startswith(f"{path}: not TOML: ")
    assert str(refused.value).endswith(" (a .json file is read as JSON)")


def test_the_defaults_are_the_configs_defaults():
    request = request_from_options({"graph": "demo", "cache_dir": "c"})
    assert request.unlearn.epochs == DEFAULTS["epochs"] == 20 and request.injection.max_epochs == 150
    assert request.equivalence == "embedding" and request.method == "npo" and request.model == "scratch:tiny"
