"""A run's record in its folder (``<cache>/runs/<run id>/``), beside its checkpoints and adapters:
what it was asked, where it ran, how its losses went, and what it found.

- ``config.toml``: every option of `audit run` after defaults (audit/run/options.py); written
  when the run starts, so a failed or interrupted run has it too. ``audit run --config`` reads it,
  ``audit run --rerun RUN_ID`` finds it through the Run node.
- ``environment.json``: Python, torch, transformers, peft, the Neo4j driver, accelerate, the graph
  engine and its version, the platform, the CPU model, the CUDA devices, the threads; written
  when the run starts (again when it resumes: the machine it runs on now).
- ``loss.jsonl``: one line per epoch, ``{phase, epoch, loss, seconds}``: ``inject`` (the injected
  model's own epochs, with ``cached`` when a run before trained it), ``unlearn``, or
  ``unlearn <edge key>`` in a per-edge sweep; ``loss`` is the mean over the epoch's steps.
- ``results.json``: one object, written when the run ends: ``run`` (every property of the Run
  node), ``summary``, ``edges`` (every EdgeResult) and ``facts`` (every FactResult, Wikidata
  graphs), numbers at full precision, JSON-typed properties as objects.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import torch

from audit.models.load import Hardware, cpu_model
from audit.models.ranks import current
from audit.results import repository as R
from audit.results.schema import Run
from audit.run.options import options_toml, read_options, resolved_options, unexpressed
from audit.run.request import RunRequest
from extract.jsonfile import json_safe
from graphstore import GraphStore
from graphstore.errors import ConfigError

CONFIG, ENVIRONMENT, LOSSES, RESULTS = "config.toml", "environment.json", "loss.jsonl", "results.json"
# the packages whose versions a run's results hang on, by distribution name
PACKAGES = ("torch", "transformers", "peft", "tokenizers", "safetensors", "accelerate", "neo4j", "arcadedb-embedded")


class RunRecord:
    """The record files of one run's folder."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._logged: set[tuple[str, int]] | None = None   # (phase, epoch) in loss.jsonl, read once
        self._cut = False                                   # its last line was cut short (a kill)

    def start(self, request: RunRequest, method_config: dict, environment: dict, notes: Sequence[str] = ()) -> None:
        """Write ``config.toml`` (the resolved options, with ``notes`` as comments) and
        ``environment.json``. An option left to a default that depends on the model or method
        (``lr``) is left out of the file, and a note says what it was."""
        self.folder.mkdir(parents=True, exist_ok=True)
        options = resolved_options(request, method_config)
        comments = [f"`audit run`'s options for run {request.run_id or '(unnamed)'}; audit run --config reads this "
                    "file (docs/runs.md, section 8)", *notes]
        missing = unexpressed(request, options)
        if missing:
            comments.append("settings no option of audit run makes (not re-run by --config or --rerun): "
                         + "; ".join(missing))
        _write(self.folder / CONFIG, options_toml(options, comments))
        _write(self.folder / ENVIRONMENT, json.dumps(environment, indent=2) + "\n")

    def log_loss(self, phase: str, epoch: int, loss: float, seconds: float, **extra) -> None:
        """One epoch's line of ``loss.jsonl``, appended, unless the epoch has one (a resumed run
        logs each epoch once: those it trains, and the last kept one if its line was lost)."""
        if (phase, epoch) in self._lines():
            return
        line = {"phase": phase, "epoch": epoch, "loss": json_safe(loss), "seconds": seconds, **extra}
        with (self.folder / LOSSES).open("a", encoding="utf-8") as out:
            out.write(("\n" if self._cut else "") + json.dumps(line) + "\n")   # past a line cut by a kill
        self._lines().add((phase, epoch))
        self._cut = False

    def logged(self, phase: str) -> bool:
        """Whether ``loss.jsonl`` holds lines of ``phase`` already (a resumed run)."""
        return any(p == phase for p, _ in self._lines())

    def _lines(self) -> set[tuple[str, int]]:
        if self._logged is None:
            path = self.folder / LOSSES
            text = path.read_text(encoding="utf-8") if path.exists() else ""
            self._cut = bool(text) and not text.endswith("\n")
            # a line cut by a kill is not a line
            self._logged = {(line["phase"], line["epoch"]) for line in map(_json_or_none, text.splitlines()) if line}
        return self._logged

    def finish(self, store: GraphStore, run: str, summary: dict) -> Path:
        """Write ``results.json`` from the graph: the run's node, ``summary`` and its results."""
        results = {
            "run": R.plain(R.require_run(store, run)), "summary": summary,
            "edges": [R.plain(r) for r in R.read_results(store, run)],
        }
        facts = R.read_fact_results(store, run)
        if facts:
            results["facts"] = [R.plain(f) for f in facts]
        path = self.folder / RESULTS
        _write(path, json.dumps(json_safe(results), indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n")
        return path


def environment(store: GraphStore, hardware: Hardware) -> dict:
    """Where a run runs: versions, engine, platform, CPU and GPU models, threads, processes."""
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    packages["torch"] = torch.__version__   # with its build (2.6.0+cu124): the metadata drops it
    cuda = torch.cuda.is_available()
    return {
        "python": platform.python_version(), "python_implementation": platform.python_implementation(),
        "packages": packages,
        "engine": store.engine, "engine_version": store.server_agent,
        "platform": platform.platform(), "machine": platform.machine(), "cpu": cpu_model(),
        "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
        "device": str(hardware.device), "dtype": str(hardware.dtype).removeprefix("torch."), "hardware": hardware.label,
        "cuda": torch.version.cuda if cuda else None,
        "gpus": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else [],
        "executable": sys.executable,
        # a launched run (torchrun, accelerate launch): its training ran over this many processes,
        # data parallel, or sharded (FSDP: each process held a share of the trained weights)
        "processes": current().world,
        "sharded": current().sharded,
    }


def run_folder(run: Run, cache_dir: Path | None = None) -> Path:
    """Where a run's record is: under ``cache_dir`` when given, else where its lock file was."""
    if cache_dir is not None and run.key is not None:
        return Path(cache_dir) / "runs" / run.key
    if run.lock:
        return Path(run.lock).parent
    raise ConfigError(f"run {run.key} records no folder (made before runs had one); give --cache-dir, the cache "
                      "it ran with")


def stored_options(store: GraphStore, run_id: str, cache_dir: Path | None = None) -> tuple[Path, dict]:
    """The options a stored run ran with (its ``config.toml``), and the file.

    Raises:
        ConfigError: no such run, or its folder has no ``config.toml`` (a run made before runs
            recorded their options, or a folder removed or on another machine).
    """
    run = R.require_run(store, run_id)
    path = run_folder(run, cache_dir) / CONFIG
    if not path.exists():
        raise ConfigError(f"run {run_id} has no {path}: it ran before runs recorded their options, or its cache "
                          "folder is elsewhere (give --cache-dir) or gone; give its options (audit runs "
                          f"{run_id} shows them) or --config FILE")
    return path, read_options(path)


def _json_or_none(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and "phase" in value and "epoch" in value else None


def _write(path: Path, text: str) -> None:
    """Write whole or not at all: a run killed while writing leaves the file it had."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
