"""An experiment file (TOML or YAML), read and checked whole before anything runs.

Every key is known: an unknown or mistyped one is refused with its place named
(``Error: exp.toml: grid.methods[2]: unknown unlearning method 'gx'; valid: ...``), so a typo
cannot silently run a different grid. The layout (docs/experiments.md has the full reference):

    name = "pistol_table2"                   # the Experiment node's key (default: the file name)
    description = "..."

    [[graphs]]                               # built from the file when missing; or just a name
    name = "sample_data_1"
    pistol = "../../shared/data/pistol/sample_data_1.json"   # relative to the experiment file

    [grid]                                   # every combination is one cell = one `audit run`
    selectors = ["edges:A_B", "edges:A_C"]
    methods = ["ga", "gd", "kl", "dpo", "idk", "npo", "simnpo"]
    seeds = [0, 1, 2]
    inject_seeds = [0, 1, 2]                 # optional: every seed on each of these injected models
    models = ["scratch:tiny"]                # default ["scratch:tiny"]
    per_edge = [false]                       # default [false]
    lrs = [3e-4]                             # optional; else [lr_protocol], else the method default

    [method_options]                         # optional: a list of option sets per method
    npo = [{beta = 0.1}, {beta = 0.5}]

    [run]                                    # options of every cell (audit run's flags)
    epochs = 20
    idk = "../../shared/data/pistol/idontknow.jsonl"

    [lr_protocol]                            # PISTOL Sec. 5: one rate per method and model
    grid = [1e-4, 3e-4, 1e-3]
    selector = "edges:A_B"                   # the forget set the rate is chosen on
    retain_threshold = 0.8                   # retained ROUGE-1 must stay at or above this
    methods = {dpo = [1e-3, 3e-3, 1e-2]}     # optional: a method's own grid
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from audit.build import PistolVariant, pistol_variant
from audit.config import INT64_MAX, SIZES, InjectionConfig, TrainingDataConfig, UnlearnConfig, apply_options
from audit.experiment.run_table import (INJECT_KEYS, PATH_OPTIONS, RUN_OPTIONS, TRAINING_OPTIONS, UNLEARN_KEYS,
                                        injection_config, localization_config, resurfacing_config, unlearn_config)
from audit.experiment.strict_yaml import load_yaml
from audit.measure.equivalence import JUDGES
from audit.run.methods import METHODS as UNLEARNING_METHODS, method_class
from extract.jsonfile import read_utf8
from graphstore.errors import ConfigError, InputDataError, KeyValidationError
from graphstore.records import validate_graph_name

SUFFIXES = (".toml", ".yaml", ".yml")
TOP_KEYS = ("name", "description", "graphs", "grid", "method_options", "run", "lr_protocol")
GRID_KEYS = ("selectors", "methods", "seeds", "inject_seeds", "models", "per_edge", "lrs")
GRAPH_KEYS = ("name", "pistol", "split", "forget", "retain", "keep_entities", "rename")
PROTOCOL_KEYS = ("grid", "methods", "selector", "seed", "retain_threshold")

# A grid is the product of its lists: a bound on what is expanded, printed and stored. Each cell
# is a full unlearning run, so 100,000 is past any real grid.
MAX_CELLS = 100_000


@dataclass(frozen=True)
class GraphSpec:
    name: str
    pistol: Path | None = None     # built from this PISTOL file when the graph is missing
    split: str = "retain"
    forget: tuple[Path, ...] = ()  # or from these text corpora (audit build --forget ... --retain ...)
    retain: tuple[Path, ...] = ()
    variant: PistolVariant | None = None   # PISTOL: part of the file, entities renamed

    @property
    def source_files(self) -> bool:
        return self.pistol is not None or bool(self.forget)


@dataclass(frozen=True)
class LrProtocol:
    """PISTOL's learning-rate protocol: per method and model, the rate of ``grid`` that forgets
    most (lowest forget ROUGE-1) on ``selector`` while the retained ROUGE-1 stays at or above
    ``retain_threshold``; then held fixed across forget sets and seeds."""
    grid: tuple[float, ...]
    selector: str
    seed: int = 0
    retain_threshold: float = 0.8
    methods: dict[str, tuple[float, ...]] = field(default_factory=dict)   # a method's own grid

    def grid_for(self, method: str) -> tuple[float, ...]:
        return self.methods.get(method, self.grid)


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    path: Path
    sha256: str                                  # of the file's bytes: a changed file is a new experiment
    graphs: tuple[GraphSpec, ...]
    selectors: tuple[str, ...]
    methods: tuple[str, ...]
    seeds: tuple[int, ...]
    models: tuple[str, ...] = ("scratch:tiny",)
    per_edge: tuple[bool, ...] = (False,)
    lrs: tuple[float, ...] | None = None         # None: the protocol's choice, or the method default
    method_options: dict[str, tuple[dict, ...]] = field(default_factory=dict)
    run: dict = field(default_factory=dict)
    lr_protocol: LrProtocol | None = None
    description: str = ""
    inject_seeds: tuple[int, ...] | None = None  # nested: every seed on each injected model


def load_spec(path: Path) -> ExperimentSpec:
    """Read and check an experiment file.

    Raises:
        InputDataError: not TOML/YAML, or a key unknown, missing or of the wrong type; the
            message names the file and the key.
    """
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise InputDataError(path, f"an experiment file is TOML or YAML ({', '.join(SUFFIXES)})")
    raw, text = read_utf8(path)
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else load_yaml(text)
    except RecursionError:
        raise InputDataError(path, "nested too deeply to be an experiment (hundreds of levels of tables)") from None
    except tomllib.TOMLDecodeError as e:
        raise InputDataError(path, f"not TOML: {e}") from e
    except yaml.YAMLError as e:
        raise InputDataError(path, f"not YAML: {' '.join(str(e).split())}") from e
    return _check(path, data, hashlib.sha256(raw).hexdigest())


class _Checker:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, message: str):
        raise InputDataError(self.path, f"{key}: {message}")

    def table(self, value, key: str, allowed: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"expected a table of {', '.join(allowed)}, got {type(value).__name__}")
        unknown = [k for k in value if k not in allowed]
        if unknown:
            self.fail(f"{key}.{unknown[0]}" if key else unknown[0],
                      f"unknown key; valid: {', '.join(allowed)}")
        return value

    def items(self, value, key: str, kind: type | tuple[type, ...], nonempty: bool = True) -> list:
        if not isinstance(value, list) or (nonempty and not value):
            self.fail(key, "expected a non-empty list")
        for i, item in enumerate(value):
            if isinstance(item, bool) and kind is not bool or not isinstance(item, kind):
                self.fail(f"{key}[{i}]", f"expected {_kind_name(kind)}, got {item!r}")
        if len(set(map(repr, value))) != len(value):
            self.fail(key, "a value is listed twice")
        return value


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({int: "a whole number", float: "a number", str: "a string", bool: "true or false",
                        dict: "a table"}[k] for k in kinds)


def _check(path: Path, data, sha256: str) -> ExperimentSpec:
    c = _Checker(path)
    c.table(data, "", TOP_KEYS)
    for required in ("graphs", "grid"):
        if required not in data:
            c.fail(required, "missing")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        c.fail("name", "expected a non-empty string")
    try:
        validate_graph_name(name)   # the same alphabet keeps run ids readable
    except KeyValidationError:
        c.fail("name", f"{name!r}: use letters, digits, '_', '.', '-' (set name = ... when the file name has others)")

    graphs = _graphs(c, data["graphs"], path.parent)
    grid = c.table(data["grid"], "grid", GRID_KEYS)
    for required in ("selectors", "methods", "seeds"):
        if required not in grid:
            c.fail(f"grid.{required}", "missing")
    selectors = c.items(grid["selectors"], "grid.selectors", str)
    methods = [m.lower() for m in c.items(grid["methods"], "grid.methods", str)]
    for i, m in enumerate(methods):
        if m not in UNLEARNING_METHODS:
            c.fail(f"grid.methods[{i}]", f"unknown unlearning method {m!r}; valid: {', '.join(UNLEARNING_METHODS)}")
    seeds = c.items(grid["seeds"], "grid.seeds", int)
    models = c.items(grid.get("models", ["scratch:tiny"]), "grid.models", str)
    for i, m in enumerate(models):
        if m.startswith("scratch") and m.partition(":")[2] not in ("", *SIZES):
            c.fail(f"grid.models[{i}]", f"unknown scratch size in {m!r}; valid: {', '.join(SIZES)}")
    per_edge = c.items(grid.get("per_edge", [False]), "grid.per_edge", bool)
    lrs = _rates(c, grid["lrs"], "grid.lrs", sort=False) if "lrs" in grid else None
    inject_seeds = c.items(grid["inject_seeds"], "grid.inject_seeds", int) if "inject_seeds" in grid else None
    for key, values in (("grid.seeds", seeds), ("grid.inject_seeds", inject_seeds or ())):
        for i, seed in enumerate(values):
            if not -INT64_MAX - 1 <= seed <= INT64_MAX:   # as audit run checks: here, not at the first cell
                c.fail(f"{key}[{i}]", f"{seed!r}: must fit in 64 bits (at most {INT64_MAX})")

    options = _method_options(c, data.get("method_options", {}), methods)
    cells = (len(graphs) * len(selectors) * len(per_edge) * len(seeds) * len(models) * max(1, len(lrs or ()))
             * len(inject_seeds or (0,)) * sum(len(options.get(m, ({},))) for m in methods))
    if cells > MAX_CELLS:
        c.fail("grid", f"{cells:,} cells (the product of its lists); at most {MAX_CELLS:,} make one experiment")
    run = _run_options(c, data.get("run", {}), path.parent)
    _run_numbers(c, run)
    if inject_seeds is not None and "inject_seed" in run:
        c.fail("grid.inject_seeds", "give [run] inject_seed (one injected model) or grid.inject_seeds, not both")
    protocol = _protocol(c, data["lr_protocol"], selectors, methods) if "lr_protocol" in data else None
    if protocol is not None and lrs is not None:
        c.fail("lr_protocol", "give grid.lrs (fixed rates) or [lr_protocol] (rates chosen per method), not both")
    description = data.get("description", "")
    if not isinstance(description, str):
        c.fail("description", "expected a string")
    return ExperimentSpec(name, path.resolve(), sha256, graphs, tuple(selectors), tuple(methods), tuple(seeds),
                          tuple(models), tuple(per_edge), lrs, options, run, protocol, description,
                          tuple(inject_seeds) if inject_seeds else None)


def _graphs(c: _Checker, value, base: Path) -> tuple[GraphSpec, ...]:
    if not isinstance(value, list) or not value:
        c.fail("graphs", "expected a non-empty list of graph names or tables {name, pistol}")
    out = []
    for i, item in enumerate(value):
        key = f"graphs[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        c.table(item, key, GRAPH_KEYS)
        name = item.get("name")
        if not isinstance(name, str):
            c.fail(f"{key}.name", "missing or not a string")
        pistol = item.get("pistol")
        if pistol is not None:
            if not isinstance(pistol, str):
                c.fail(f"{key}.pistol", "expected a path")
            pistol = (base / pistol).resolve()
            if not pistol.is_file():
                c.fail(f"{key}.pistol", f"no such file {pistol}")
        split = item.get("split", "retain")
        if split not in ("retain", "forget"):
            c.fail(f"{key}.split", "expected retain or forget")
        corpora = {}
        for part in ("forget", "retain"):
            paths = item.get(part, [])
            if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
                c.fail(f"{key}.{part}", "expected a list of text corpus paths")
            corpora[part] = tuple((base / p).resolve() for p in paths)
            for p in corpora[part]:
                if not p.is_file():
                    c.fail(f"{key}.{part}", f"no such file {p}")
        if corpora["retain"] and not corpora["forget"]:
            c.fail(f"{key}.retain", "a text graph needs forget corpora too")
        if pistol is not None and corpora["forget"]:
            c.fail(key, "give either a PISTOL file or text corpora, not both")
        variant = _variant(c, item, key)
        if variant is not None and pistol is None:
            c.fail(key, "keep_entities and rename change a PISTOL file; give pistol = ...")
        out.append(GraphSpec(name, pistol, split, corpora["forget"], corpora["retain"], variant))
    if len({g.name for g in out}) != len(out):
        c.fail("graphs", "a graph is listed twice")
    return tuple(out)


def _variant(c: _Checker, item: dict, key: str) -> PistolVariant | None:
    """keep_entities = ["20", ...] and rename = {"20" = "Goldman Sachs"} or
    {"20" = {name = "Goldman Sachs", address = "200 West Street"}}."""
    entities = item.get("keep_entities", [])
    if not isinstance(entities, list) or not all(isinstance(e, (str, int)) for e in entities):
        c.fail(f"{key}.keep_entities", "expected a list of entity labels")
    rename = item.get("rename", {})
    if not isinstance(rename, dict):
        c.fail(f"{key}.rename", "expected a table: label = new name, or label = {name, address}")
    names, addresses = {}, {}
    for label, given in rename.items():
        new = given
        if isinstance(given, dict):
            c.table(given, f"{key}.rename.{label}", ("name", "address"))
            new, address = given.get("name"), given.get("address")
            if address is not None:
                if not isinstance(address, str) or not address.strip():
                    c.fail(f"{key}.rename.{label}.address", "expected a non-empty string")
                addresses[label] = address
        if not isinstance(new, str) or not new.strip():
            c.fail(f"{key}.rename.{label}", "expected a new name (a non-empty string)")
        names[label] = new
    return pistol_variant(entities, names, addresses)   # every address has its name here


def _method_options(c: _Checker, value, methods: list[str]) -> dict[str, tuple[dict, ...]]:
    c.table(value, "method_options", tuple(methods))
    out = {}
    for method, sets in value.items():
        key = f"method_options.{method}"
        c.items(sets, key, dict)
        for i, options in enumerate(sets):
            try:
                apply_options(method_class(method).config_class(), {k: str(v) for k, v in options.items()},
                              f"method {method}")
            except Exception as e:   # ConfigError: an unknown option or a value of the wrong type
                c.fail(f"{key}[{i}]", str(e))
        out[method] = tuple(dict(sorted(o.items())) for o in sets)
    return out


def _run_options(c: _Checker, value, base: Path) -> dict:
    c.table(value, "run", tuple(RUN_OPTIONS))
    out = {}
    for key, v in value.items():
        kind = RUN_OPTIONS[key]
        if (isinstance(v, bool) and kind is not bool) or not isinstance(v, kind):
            c.fail(f"run.{key}", f"expected {_kind_name(kind)}, got {v!r}")
        if key == "retain" and not re.fullmatch(r"all|neighbours|sample:[1-9][0-9]*", v):
            c.fail("run.retain", f"{v!r}: expected all, neighbours or sample:N")
        if key == "equivalence" and v != "none" and JUDGES.find(v.partition(":")[0]) is None:
            c.fail("run.equivalence", f"{v!r}: expected none or a judge spec ({', '.join(JUDGES)}[:...])")
        if key == "device" and not re.fullmatch(r"auto|cpu|mps|cuda(:[0-9]+)?", v):
            c.fail("run.device", f"{v!r}: expected auto, cpu, cuda, cuda:N or mps")
        if key in TRAINING_OPTIONS:
            try:
                TrainingDataConfig(**{key: v}).check()
            except ConfigError as e:
                c.fail(f"run.{key}", str(e))
        if key in ("checks", "check_options"):
            try:
                resurfacing_config({key: v})
            except ConfigError as e:
                c.fail(f"run.{key}", str(e))
        if key == "localization_options":
            try:
                localization_config({key: v})
            except ConfigError as e:
                c.fail(f"run.{key}", str(e))
        if key in ("adapter", "mask_groups", "mask_kind", "mask_share"):
            try:   # checked as audit run checks them (a mask's settings with a group choice)
                if key == "adapter":
                    UnlearnConfig(adapter=v).check()
                else:
                    InjectionConfig(**{"mask_groups": "forget", key: v}).check()
            except ConfigError as e:
                c.fail(f"run.{key}", str(e))
        if key in PATH_OPTIONS:
            v = (base / v).resolve()
            if not v.is_file():
                c.fail(f"run.{key}", f"no such file {v}")
            v = str(v)
        out[key] = v
    return out


def _run_numbers(c: _Checker, run: dict) -> None:
    """The numbers of [run] in range, checked as `audit run` checks its options, so that a bad
    value is refused before anything runs (``--dry-run`` included), naming the file and key."""
    for key in (*UNLEARN_KEYS, *INJECT_KEYS, "inject_seed"):
        if key in run:
            one = {key: run[key]}
            config = unlearn_config(one, None, 0) if key in UNLEARN_KEYS else injection_config(one, 0)
            try:
                config.check()
            except ConfigError as e:
                c.fail(f"run.{key}", f"{run[key]!r}: {str(e).split(': ', 1)[-1]}")
    if "eval_batch_size" in run and not 1 <= run["eval_batch_size"] <= INT64_MAX:
        c.fail("run.eval_batch_size", f"{run['eval_batch_size']!r}: must be a positive whole number")


def _rates(c: _Checker, value, key: str, sort: bool = True) -> tuple[float, ...]:
    rates = c.items(value, key, (int, float))
    if not all(0 < lr < float("inf") for lr in rates):   # NaN fails both comparisons
        c.fail(key, "learning rates must be positive finite numbers")
    return tuple(float(x) for x in (sorted(rates) if sort else rates))


def _protocol(c: _Checker, value, selectors: list[str], methods: list[str]) -> LrProtocol:
    c.table(value, "lr_protocol", PROTOCOL_KEYS)
    if "grid" not in value:
        c.fail("lr_protocol.grid", "missing")
    grid = _rates(c, value["grid"], "lr_protocol.grid")
    own = c.table(value.get("methods", {}), "lr_protocol.methods", tuple(methods))
    own = {m: _rates(c, rates, f"lr_protocol.methods.{m}") for m, rates in own.items()}
    selector = value.get("selector", selectors[0])
    if not isinstance(selector, str):
        c.fail("lr_protocol.selector", "expected a selector spec")
    seed = value.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        c.fail("lr_protocol.seed", "expected a whole number")
    threshold = value.get("retain_threshold", 0.8)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        c.fail("lr_protocol.retain_threshold", "expected a number from 0 to 1")
    return LrProtocol(grid, selector, seed, float(threshold), own)
