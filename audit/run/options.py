"""`audit run`'s options by name, both ways: the ``RunRequest`` they make, and the options a
request resolves to (every one, defaults included). A run writes its resolved options to its
folder as ``config.toml`` (audit/run/record.py), which ``audit run --config FILE`` and
``audit run --rerun RUN_ID`` read back.

The names are the command's long options without the dashes, with ``_`` for ``-`` (``-`` is
read too): ``inject_max_epochs = 40`` is ``--inject-max-epochs 40``. A flag is true or false;
a repeatable ``NAME=VALUE`` option (``method_option``, ``memorization_option``,
``check_option``) is a table (``method_option = {beta = 0.2}``) or a list of ``"NAME=VALUE"``
texts; ``check`` is a list of names.

    request = request_from_options({"graph": "demo", "select": "top-degree:2", "cache_dir": ".audit/cache"})
    resolved_options(request, method_config)   # -> {"graph": "demo", ..., "epochs": 20, ...}
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit.config import (EVAL_BATCH_SIZE, InjectionConfig, LocalizationConfig, ResurfacingConfig, TrainingDataConfig,
                          UnlearnConfig, apply_options, as_dict, check_names, memorization_config_from_options)
from audit.run.request import RunRequest
from graphstore.errors import InputDataError

# Every option of `audit run` that says what to run, in the order of its --help (not --config,
# --rerun, --format or the connection options: they say where and how to show it).
RUN_OPTIONS = (
    "graph", "select", "cypher", "method", "method_option", "model", "per_edge", "retain", "utility", "idk", "run_id",
    "epochs", "lr", "batch_size", "grad_accum", "lora_r", "lora_alpha", "lora_targets", "seed",
    "gradient_checkpointing", "inject_target", "inject_max_epochs", "inject_lr", "no_inject", "memorization_option",
    "inject_batch_size", "eval_batch_size", "equivalence", "train_on", "mixed_passages", "chunk_tokens", "inject_qa",
    "check", "check_option", "adapter", "mask_groups", "mask_share", "mask_kind", "localization",
    "localization_option", "device", "cache_dir",
)
SETTING_OPTIONS = ("method_option", "memorization_option", "check_option", "localization_option")   # NAME=VALUE

_unlearn, _inject = UnlearnConfig(), InjectionConfig()
# The command's defaults (cli/run.py shows the same in --help).
DEFAULTS: dict[str, Any] = {
    "select": None, "cypher": None, "method": "npo", "method_option": {}, "model": "scratch:tiny", "per_edge": False,
    "retain": "all", "utility": None, "idk": None, "run_id": None, "epochs": _unlearn.epochs, "lr": None,
    "batch_size": _unlearn.batch_size, "grad_accum": _unlearn.grad_accum, "lora_r": _unlearn.lora_r,
    "lora_alpha": _unlearn.lora_alpha, "lora_targets": _unlearn.lora_targets, "seed": _unlearn.seed,
    "gradient_checkpointing": False, "inject_target": _inject.target_rouge1, "inject_max_epochs": _inject.max_epochs,
    "inject_lr": None, "no_inject": False, "memorization_option": {}, "inject_batch_size": _inject.batch_size,
    "eval_batch_size": EVAL_BATCH_SIZE, "equivalence": "embedding", "train_on": "qa", "mixed_passages": "forget",
    "chunk_tokens": None, "inject_qa": "auto", "check": (), "check_option": {}, "adapter": _unlearn.adapter,
    "mask_groups": None, "mask_share": _inject.mask_share, "mask_kind": _inject.mask_kind, "localization": False,
    "localization_option": {}, "device": "auto",
}


def request_from_options(options: dict) -> RunRequest:
    """The run ``options`` ask for (names of ``RUN_OPTIONS``, typed values; the ``NAME=VALUE``
    options as ``{name: text}``; ``cache_dir`` given). What is not given takes the command's default."""
    o = {**DEFAULTS, **options}
    seed = o["seed"]
    unlearn = UnlearnConfig(epochs=o["epochs"], lr=o["lr"], batch_size=o["batch_size"], grad_accum=o["grad_accum"],
                            lora_r=o["lora_r"], lora_alpha=o["lora_alpha"], lora_targets=o["lora_targets"], seed=seed,
                            gradient_checkpointing=o["gradient_checkpointing"], adapter=o["adapter"])
    unlearn.check()   # first: a bad --seed is refused as itself, not as a setting built from it
    return RunRequest(
        graph=o["graph"], select=o["select"], cypher=o["cypher"], method=o["method"].lower(),
        method_options=_settings(o["method_option"]), model=o["model"], retain=o["retain"], utility=_path(o["utility"]),
        idk=_path(o["idk"]), per_edge=o["per_edge"], run_id=o["run_id"], device=o["device"],
        eval_batch_size=o["eval_batch_size"], equivalence=None if o["equivalence"] == "none" else o["equivalence"],
        cache_dir=Path(o["cache_dir"]),
        injection=InjectionConfig(target_rouge1=o["inject_target"], max_epochs=o["inject_max_epochs"],
                                  lr=o["inject_lr"], batch_size=o["inject_batch_size"], seed=seed,
                                  enabled=not o["no_inject"],
                                  mask_groups=None if o["mask_groups"] in (None, "none") else o["mask_groups"],
                                  mask_share=o["mask_share"], mask_kind=o["mask_kind"]),
        memorization=memorization_config_from_options(_settings(o["memorization_option"]), seed=seed),
        unlearn=unlearn,
        training=TrainingDataConfig(train_on=o["train_on"], mixed_passages=o["mixed_passages"],
                                    chunk_tokens=o["chunk_tokens"], inject_qa=o["inject_qa"]),
        resurfacing=apply_options(ResurfacingConfig(checks=check_names(o["check"]), seed=seed),
                                  _settings(o["check_option"]), "a resurfacing check"),
        localization=apply_options(LocalizationConfig(enabled=o["localization"], seed=seed),
                                   _settings(o["localization_option"]), "the localization measure"),
    )


def resolved_options(request: RunRequest, method_config: dict) -> dict:
    """Every option of ``request``, defaults resolved (``method_config``: the method's settings,
    all of them), as ``request_from_options`` takes them back; an option left unset (no
    ``--select`` when ``--cypher`` chose) is absent."""
    u, i, t, r = request.unlearn, request.injection, request.training, request.resurfacing
    options = {
        "graph": request.graph, "select": request.select, "cypher": request.cypher, "method": request.method,
        "method_option": _typed(method_config), "model": request.model, "per_edge": request.per_edge,
        "retain": request.retain, "utility": request.utility, "idk": request.idk, "run_id": request.run_id,
        "epochs": u.epochs, "lr": u.lr, "batch_size": u.batch_size, "grad_accum": u.grad_accum, "lora_r": u.lora_r,
        "lora_alpha": u.lora_alpha, "lora_targets": u.lora_targets, "seed": u.seed,
        "gradient_checkpointing": u.gradient_checkpointing, "inject_target": i.target_rouge1,
        "inject_max_epochs": i.max_epochs, "inject_lr": i.lr, "no_inject": not i.enabled,
        # the preset first names where the settings started; the settings given are all of them
        "memorization_option": _typed({k: v for k, v in as_dict(request.memorization).items()
                                       if k != "seed" and not (k == "preset" and v is None)}),
        "inject_batch_size": i.batch_size, "eval_batch_size": request.eval_batch_size,
        "equivalence": request.equivalence or "none", "train_on": t.train_on, "mixed_passages": t.mixed_passages,
        "chunk_tokens": t.chunk_tokens, "inject_qa": t.inject_qa, "check": list(r.checks),
        # --check-option is refused without --check
        "check_option": _typed({k: v for k, v in as_dict(r).items() if k not in ("checks", "seed")})
        if r.checks else {},
        "adapter": u.adapter, "mask_groups": i.mask_groups,
        **({"mask_share": i.mask_share, "mask_kind": i.mask_kind} if i.mask_groups is not None else {}),
        "localization": request.localization.enabled,
        "localization_option": _typed({k: v for k, v in as_dict(request.localization).items()
                                       if k not in ("enabled", "seed")}) if request.localization.enabled else {},
        "device": request.device, "cache_dir": request.cache_dir,
    }
    return {k: str(v) if isinstance(v, Path) else v for k, v in options.items() if v is not None}


def unexpressed(request: RunRequest, options: dict) -> list[str]:
    """The settings of ``request`` that its options do not make (a request built by a library
    caller or an experiment, e.g. another injection seed): ``config.toml`` says so beside them."""
    again = dataclasses.replace(request_from_options(options), method_options=request.method_options)
    out = []
    for name in ("injection", "unlearn", "training", "resurfacing", "memorization", "localization"):
        mine, theirs = as_dict(getattr(request, name)), as_dict(getattr(again, name))
        out += [f"{name}.{k} = {mine[k]!r}" for k in mine if mine[k] != theirs.get(k)]
    return out


def _settings(config: dict) -> dict[str, str]:
    """A config's fields as ``NAME=VALUE`` texts give them (apply_options): None as ``none``."""
    return {k: "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for k, v in config.items()}


def _typed(config: dict) -> dict:
    """A config's fields with their types, None as ``none`` (TOML has no null)."""
    return {k: "none" if v is None else v for k, v in config.items()}


def _path(value) -> Path | None:
    return None if value is None else Path(value)


# -- the file -------------------------------------------------------------------------------------
def read_options(path: Path) -> dict:
    """The options of a TOML or JSON file (by its suffix), names checked, ``-`` read as ``_``;
    the ``NAME=VALUE`` options as ``{name: text}``. Values keep the file's types: the command
    line checks them as it checks its own (cli/run.py).

    Raises:
        InputDataError: not TOML or JSON, or an unknown option (the message lists the valid ones).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except json.JSONDecodeError as e:
        raise InputDataError(path, f"not JSON: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputDataError(path, f"not TOML: {e} (a .json file is read as JSON)") from None
    if not isinstance(data, dict):
        raise InputDataError(path, "expected an object of option names and values")
    options = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if name not in RUN_OPTIONS:
            close = difflib.get_close_matches(name, RUN_OPTIONS, n=1)
            raise InputDataError(path, f"unknown option {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                                 + "; the valid keys are audit run's long options, e.g. method, epochs, lr, seed "
                                 "(audit run --help lists them)")
        if name in options:
            raise InputDataError(path, f"option {name} is given twice (as {name} and {name.replace('_', '-')})")
        options[name] = _settings_of(path, name, value) if name in SETTING_OPTIONS else value
    return options


def _settings_of(path: Path, name: str, value) -> dict[str, str]:
    """A ``NAME=VALUE`` option from a table or a list of texts."""
    if isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
        return _settings(value)
    if isinstance(value, list) and all(isinstance(v, str) and "=" in v for v in value):
        return dict(v.split("=", 1) for v in value)
    raise InputDataError(path, f"{name}: expected a table (e.g. {name} = {{beta = 0.2}}) or a list of "
                               f"\"NAME=VALUE\" texts, got {json.dumps(value, default=str)[:60]}")


def options_toml(options: dict, comments: Sequence[str] = ()) -> str:
    """``options`` as TOML that ``read_options`` reads back (scalars, lists of texts, tables of
    texts), each ``#`` line of ``comments`` first."""
    lines = [f"# {line}" for line in comments]
    for name in RUN_OPTIONS:
        if name in options:
            value = options[name]
            if isinstance(value, dict):
                text = "{" + ", ".join(f"{_key(k)} = {_scalar(v)}" for k, v in value.items()) + "}"
            elif isinstance(value, (list, tuple)):
                text = "[" + ", ".join(_scalar(v) for v in value) + "]"
            else:
                text = _scalar(value)
            lines.append(f"{name} = {text}")
    return "\n".join(lines) + "\n"


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else _scalar(name)


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):   # refused by every config check; kept readable as text
            return json.dumps(str(value))
        return repr(value)
    if isinstance(value, int):
        return str(value)
    # a JSON string is a TOML basic string, but for DEL, which TOML wants escaped too
    return json.dumps(str(value), ensure_ascii=False).replace("\x7f", "\\u007f")
