"""One lifecycle for every kind of run (`audit run`, `audit memorization`).

A run is identified by its key and its settings digest. Starting it either finds it complete
with the same settings (nothing to do), resumes it (same key, same settings), refuses it (same
key, other settings), or creates it. Whatever happens while it runs, the Run node says how it
ended: ``done`` with its summary, ``interrupted`` (Ctrl-C), or ``failed`` with the error.

Example:
    life = RunLifecycle(store, R.run_key(run_id, graph, "npo"), settings)
    if (done := life.finished()) is not None:
        return done                              # same key, same settings, complete
    resumed = life.start({"mode": "joint", ...})  # settings, digest and code version added
    with life.running():
        life.advance(phases, context)            # each phase not yet done: run it, write what it gives
        summary = work()
    life.finish(summary)
"""

from __future__ import annotations

import subprocess
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Iterable, Protocol

import torch

from audit.results import repository as R
from audit.results.schema import EdgeResult, FactResult, Run
from audit.run.lock import RunLock
from graphstore import GraphStore
from graphstore.errors import ConfigError

ERROR_CHARS = 500
UNLEARNING_MEMORY_HINT = ("lower --batch-size (and raise --grad-accum to keep the effective batch), lower "
                          "--eval-batch-size, or add --gradient-checkpointing")


@dataclass
class RunState:
    """What a run has written so far: its EdgeResults by edge and its Run node. A phase reads
    here whether it is done."""
    results: dict[str, EdgeResult]
    run: Run
    facts: list[FactResult] = field(default_factory=list)   # Wikidata memorization measures

    def measured(self, edges: Iterable[str], name: str) -> bool:
        """Whether every one of ``edges`` has an EdgeResult with ``name`` set."""
        return all(self.results.get(k) is not None and self.results[k].get(name) is not None for k in edges)


@dataclass
class Writes:
    """What a phase gives to be written: EdgeResult rows (``{edge, ...props}``), Run properties,
    and FactResult rows (``{subject, property, subject_key, ...props}``)."""
    edges: list[dict] = field(default_factory=list)
    run: dict = field(default_factory=dict)
    facts: list[dict] = field(default_factory=list)


class Phase(Protocol):
    """One step of a run: ``done`` says from what is written whether it is needed, ``run`` does it."""
    name: str

    def done(self, state: RunState) -> bool: ...

    def run(self, context) -> Writes | None: ...


class RunLifecycle:
    """The Run node of one run, from creation to its end."""

    def __init__(self, store: GraphStore, key: str, settings: dict, memory_hint: str = UNLEARNING_MEMORY_HINT):
        self.store, self.key, self.settings = store, key, settings
        self.settings_sha256 = R.settings_sha256(settings)
        self.memory_hint = memory_hint   # what to lower when CUDA runs out of memory: the command's own options
        self._lock: RunLock | None = None   # the run's lock file while this process holds it (claim)

    def claim(self, lock_path: Path) -> None:
        """Hold the run for this process until it ends (``finish``, a failure, or the process's
        death): a second process given the same run id is refused at once (audit/run/lock.py).

        Raises:
            ConfigError: another process holds the run; the message names it.
        """
        lock = RunLock(lock_path)
        lock.acquire(self.key)
        self._lock = lock

    def release(self) -> None:
        """Let the run go (see ``claim``)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    def finished(self) -> Run | None:
        """The Run when it is complete with these settings: nothing is left to do."""
        return R.finished_run(self.store, self.key, self.settings_sha256)

    def start(self, props: dict) -> bool:
        """Create the Run (settings that are set, ``props``, the digest and the code version), or
        resume it; returns True when resumed.

        Raises:
            ConfigError: a run with this key exists with other settings.
        """
        node = {**{k: v for k, v in self.settings.items() if v is not None}, **props,
                "settings_sha256": self.settings_sha256, "code_version": code_version()}
        return R.start_run(self.store, self.key, node) is not None

    def update(self, **props) -> None:
        R.update_run(self.store, self.key, **props)

    def state(self) -> RunState:
        """What the run has written so far (``RunState``)."""
        run = R.get_run(self.store, self.key)
        if run is None:
            raise ConfigError(f"run {self.key!r} was deleted while it ran")
        return RunState({r.edge: r for r in R.read_results(self.store, self.key) if r.edge is not None}, run,
                        R.read_fact_results(self.store, self.key))

    def write(self, writes: Writes | None) -> None:
        """Write what a phase gave: its EdgeResult and FactResult rows, then its Run properties."""
        if writes is None:
            return
        if writes.edges:
            R.write_results(self.store, self.key, writes.edges)
        if writes.facts:
            R.write_fact_results(self.store, self.key, writes.facts)
        if writes.run:
            self.update(**writes.run)

    def advance(self, phases: Iterable[Phase], context) -> None:
        """Run each of ``phases`` in order that the written state does not show done, writing
        what it gives before the next one asks: a resumed run does only what is left."""
        for phase in phases:
            if not phase.done(self.state()):
                self.write(phase.run(context))

    @contextmanager
    def running(self):
        """Mark the Run ``interrupted`` or ``failed`` when the body does not finish."""
        try:
            yield self
        except KeyboardInterrupt:
            self.update(status=R.INTERRUPTED, ended_at=R.now())
            self.release()
            raise
        except torch.cuda.OutOfMemoryError as e:
            self.update(status=R.FAILED, ended_at=R.now(), error="out of GPU memory")
            self.release()
            raise ConfigError(f"out of GPU memory; {self.memory_hint}. Re-run with the same --run-id {self.key} "
                              "to resume") from e
        except Exception as e:
            self.update(status=R.FAILED, ended_at=R.now(), error=str(e)[:ERROR_CHARS])
            self.release()
            raise

    def finish(self, summary: dict) -> None:
        """Mark the Run ``done`` with its summary, and let it go."""
        self.update(status=R.DONE, ended_at=R.now(), **summary)
        self.release()


def code_version() -> str:
    """Package version, plus the git commit when running from a checkout."""
    try:
        version = metadata.version("kg-unlearning-audit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{version}+{commit}" if commit else version
