"""The [run] table of an experiment file: `audit run`'s options shared by every cell, their types,
and the run settings they make for one cell (audit.experiment.cells.request_for). The file's
checks (audit.experiment.spec) build the same settings to refuse a bad value before anything runs.
"""

from __future__ import annotations

from audit.config import (InjectionConfig, LocalizationConfig, ResurfacingConfig, UnlearnConfig, apply_options,
                          check_names)
from graphstore.errors import ConfigError

# [run]: audit run's options shared by every cell, with their types.
RUN_OPTIONS: dict[str, type | tuple[type, ...]] = {
    "epochs": int, "batch_size": int, "grad_accum": int, "lora_r": int, "lora_alpha": int, "retain": str,
    "utility": str, "idk": str, "equivalence": str, "eval_batch_size": int, "inject_target": (int, float),
    "inject_max_epochs": int, "inject_lr": (int, float), "inject_batch_size": int, "inject_seed": int, "device": str,
    "train_on": str, "mixed_passages": str, "chunk_tokens": int, "inject_qa": str,
    "checks": list, "check_options": dict,   # resurfacing checks of every cell (docs/robustness.md)
    "adapter": str, "mask_groups": str, "mask_share": (int, float), "mask_kind": str,   # docs/localization.md
    "localization": bool, "localization_options": dict,
}
TRAINING_OPTIONS = ("train_on", "mixed_passages", "chunk_tokens", "inject_qa")
PATH_OPTIONS = ("utility", "idk")

# [run] keys -> the config fields they set; request_for and the file's checks both build from these
UNLEARN_KEYS = ("epochs", "batch_size", "grad_accum", "lora_r", "lora_alpha", "adapter")
INJECT_KEYS = {"inject_target": "target_rouge1", "inject_max_epochs": "max_epochs", "inject_lr": "lr",
               "mask_groups": "mask_groups", "mask_share": "mask_share", "mask_kind": "mask_kind",
               "inject_batch_size": "batch_size"}


def unlearn_config(run: dict, lr: float | None, seed: int) -> UnlearnConfig:
    """The unlearning settings of a cell: its rate and seed, and [run]'s numbers."""
    return UnlearnConfig(lr=lr, seed=seed, **{k: run[k] for k in UNLEARN_KEYS if k in run})


def injection_config(run: dict, seed: int, inject_seed: int | None = None) -> InjectionConfig:
    """The injection settings of a cell. One injected model per seed by default; with [run]
    inject_seed, one for every seed, so the seeds vary the unlearning only (model-to-model
    spread out of the intervals); with grid.inject_seeds, the cell's own ``inject_seed``
    (several injected models, every seed on each: both spreads, told apart)."""
    if inject_seed is None:
        inject_seed = run.get("inject_seed", seed)
    return InjectionConfig(seed=inject_seed,
                           **{field: run[key] for key, field in INJECT_KEYS.items() if key in run})


def localization_config(run: dict, seed: int = 0) -> LocalizationConfig:
    """The localization measure of ``[run]`` (``localization = true``, ``localization_options =
    {...}``), checked; its seed is the cell's unless the options set one."""
    config = LocalizationConfig(enabled=run.get("localization", False), seed=seed)
    apply_options(config, {k: str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in run.get("localization_options", {}).items()}, "the localization measure")
    config.check()
    return config


def resurfacing_config(run: dict, seed: int = 0) -> ResurfacingConfig:
    """The resurfacing checks of ``[run]`` (``checks = [...]``, ``check_options = {...}``), checked;
    their seed is the cell's unless ``check_options`` sets one."""
    checks = run.get("checks", [])
    if not all(isinstance(name, str) for name in checks):
        raise ConfigError(f"checks {checks!r}: expected a list of names")
    config = ResurfacingConfig(checks=check_names(checks), seed=seed)
    apply_options(config, {k: str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in run.get("check_options", {}).items()}, "a resurfacing check")
    config.check()
    return config
