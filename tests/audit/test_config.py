"""Named presets of the memorization measure (audit/config.py): their values against the paper
they cite, options given beside them, and the refusal of a name that is none of them."""

from __future__ import annotations

import pytest

from audit.config import (MEMORIZATION_PRESETS, MemorizationConfig, memorization_config,
                          memorization_config_from_options, memorization_preset)
from graphstore.errors import ConfigError


def test_wikimem_preset_is_the_papers_protocol():
    # WikiMem (Staufer 2025, arXiv:2507.11128), read from the paper, not from our code:
    # Sec. 6 "one base template and ten paraphrased variants" and "100 counterfactual values";
    # Sec. 5 "We use alpha = 1"; Sec. 7 the reported rate is strict ("if just one template variant
    # fails for a given property, it does not count as memorized"; Limitations: "all 11 template
    # variants"); footnote 7: values equal when their sentence embeddings' cosine similarity > 0.75.
    config = memorization_config("wikimem")
    assert config.counterfactuals == 100
    assert 1 + config.paraphrases == 11 and config.paraphrases == 10
    assert config.contexts == 0          # Table 1's templates are those 11, no contextualized canaries
    assert config.alpha == 1.0
    assert config.criterion == "strict"
    assert config.equivalence == "embedding:0.75"
    assert config.preset == "wikimem"    # recorded with the run's settings
    # what the preset does not fix stays at the measure's defaults
    defaults = MemorizationConfig()
    assert (config.variants, config.seed, config.batch_size) == (defaults.variants, defaults.seed, defaults.batch_size)
    assert "arXiv:2507.11128" in memorization_preset("wikimem").source


def test_every_preset_sets_only_fields_of_the_config_and_passes_its_checks():
    fields = set(MemorizationConfig.__dataclass_fields__)
    for name, preset in MEMORIZATION_PRESETS.items():
        assert preset.name == name and set(preset.settings) <= fields - {"preset"}
        memorization_config(name).check()


def test_no_preset_leaves_the_defaults():
    assert memorization_config() == MemorizationConfig()
    assert MemorizationConfig().criterion == "mean" and MemorizationConfig().preset is None


def test_options_given_beside_a_preset_override_it():
    config = memorization_config("wikimem", counterfactuals=20, equivalence=None, criterion="lenient", seed=7)
    assert (config.counterfactuals, config.equivalence, config.criterion, config.seed) == (20, None, "lenient", 7)
    assert (config.paraphrases, config.contexts, config.alpha, config.preset) == (10, 0, 1.0, "wikimem")


def test_memorization_options_apply_the_preset_first_wherever_it_is_given():
    # --memorization-option counterfactuals=20 --memorization-option preset=wikimem: 20 wins all the same
    config = memorization_config_from_options({"counterfactuals": "20", "preset": "wikimem", "equivalence": "none"}, seed=3)
    assert (config.counterfactuals, config.equivalence, config.seed) == (20, None, 3)
    assert (config.paraphrases, config.contexts, config.criterion, config.preset) == (10, 0, "strict", "wikimem")
    assert memorization_config_from_options({}, seed=3) == MemorizationConfig(seed=3)


@pytest.mark.parametrize("build", [lambda: memorization_config("wikimen"),
                                   lambda: memorization_config_from_options({"preset": "wikimen"}),
                                   lambda: MemorizationConfig(preset="wikimen").check()])
def test_an_unknown_preset_is_refused_with_the_valid_names(build):
    with pytest.raises(ConfigError) as refused:
        build()
    assert str(refused.value) == "unknown memorization preset 'wikimen'; valid: wikimem"


def test_an_unknown_criterion_is_refused_with_the_valid_ones():
    with pytest.raises(ConfigError, match=r"^memorization criterion 'any' is not known; valid: mean, strict, lenient$"):
        memorization_config("wikimem", criterion="any")


def test_default_settings_keep_the_digest_runs_had_before_criterion_and_preset():
    # the fields a memorization run's digest held before the preset and the criterion existed
    before = {"counterfactuals", "paraphrases", "contexts", "context_facts", "variants", "alpha", "seed",
              "batch_size", "equivalence"}
    assert set(MemorizationConfig().identity()) == before
    strict = MemorizationConfig(criterion="strict", preset="wikimem").identity()
    assert set(strict) == before | {"criterion", "preset"} and strict["criterion"] == "strict"
