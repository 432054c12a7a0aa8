"""An experiment's cells on Ray: each cell one Ray task, every worker writing to one graph.

    audit experiment FILE --workers 4            # a local Ray cluster, started for the run
    audit experiment FILE --ray 10.0.0.5:6379    # an existing cluster (``ray start --head``)

Each cell is the same ``audit run`` as in one process (``cells.run_cell``), in a worker that
opens its own connection to the store. A task asks for one CPU, and one GPU when the cluster
has GPUs (``gpus_per_cell``); a worker's torch gets ``AUDIT_THREADS`` threads when it is
set, else the machine's cores divided by the workers. What a worker needs is checked before any cell starts, each failure one clear
error: Ray installed, the cluster reachable, the GPUs a cell asks for present on some node,
the graph reachable from every node (a probe task on each), and no embedded store with a
cluster that has machines other than this one (the embedded server lives in a folder here).

Failures: a worker that dies (killed, out of memory) has its cell retried by Ray
(``CELL_RETRIES``); the retried run resumes from its checkpoints through the run lifecycle,
since the run lock went with the dead process. A cell that raises stops the experiment (the
other cells are cancelled; those that finished stay done) and its error is the command's.
A killed driver resumes as before: run the command again. Two workers that need the same
injected model share it: one trains it, the other waits for it (``audit.run.injection``).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from audit.experiment.grid import Cell
from audit.experiment.spec import ExperimentSpec
from audit.models.load import threads_given
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError, StoreError
from graphstore.settings import ConnectionSettings

CELL_RETRIES = 2            # Ray retries a cell whose worker process died this many times
PROBE_TIMEOUT_S = 60        # how long a node's probe may take to open the graph


@dataclass(frozen=True)
class Workers:
    """Where the cells run: a local cluster of ``count`` workers, or the cluster at ``address``."""

    count: int | None = None
    address: str | None = None
    gpus_per_cell: float | None = None   # None: 1 when the cluster has GPUs, else 0

    def __post_init__(self):
        if (self.count is None) == (self.address is None):
            raise ConfigError("give either --workers N (a local Ray cluster) or --ray ADDRESS (an existing one)")
        if self.count is not None and self.count < 1:
            raise ConfigError(f"--workers must be at least 1, got {self.count}")
        if self.gpus_per_cell is not None and self.gpus_per_cell < 0:
            raise ConfigError(f"--gpus-per-cell must not be negative, got {self.gpus_per_cell}")


@dataclass(frozen=True)
class Cluster:
    """What the checks found: the resources a cell asks for, and how many cells run at once."""

    nodes: int
    cpus: float
    gpus: float
    gpus_per_cell: float
    threads_per_worker: int

    def describe(self) -> str:
        gpus = f", {self.gpus:g} GPU(s), {self.gpus_per_cell:g} a cell" if self.gpus else ", no GPU"
        return (f"Ray: {self.nodes} node(s), {self.cpus:g} CPU(s){gpus}; torch on {self.threads_per_worker} "
                f"thread(s) a worker")


def _ray():
    try:
        import ray
    except ImportError:
        raise ConfigError("experiment workers need Ray: pip install 'ray==2.60.0' (or the project's "
                          "'distributed' extra)") from None
    return ray


def start(workers: Workers, settings: ConnectionSettings) -> Cluster:
    """Start or join the cluster and check everything a cell needs (see the module's notes).

    Raises:
        ConfigError: Ray missing, the cluster unreachable, GPUs asked that no node has, an
            embedded store with machines other than this one.
        StoreError: a node's worker cannot reach the graph.
    """
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    try:
        if workers.address is not None:
            _check_reachable(workers.address)
            ray.init(address=workers.address, include_dashboard=False, log_to_driver=False,
                     logging_level="ERROR")
        else:
            ray.init(address="local", num_cpus=workers.count, include_dashboard=False, log_to_driver=False,
                     logging_level="ERROR")
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as e:
        raise ConfigError(f"cannot start or reach the Ray cluster{f' at {workers.address}' if workers.address else ''}: "
                          f"{' '.join(str(e).split())[:300]}") from e
    try:
        return _check(ray, workers, settings)
    except BaseException:
        ray.shutdown()
        raise


def stop() -> None:
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()


def _check_reachable(address: str) -> None:
    """A Ray address that does not answer is refused in seconds, not after Ray's long wait."""
    if address == "auto":   # the cluster this machine runs: Ray finds it or says it has none
        return
    parts = urllib.parse.urlsplit(address if "://" in address else f"//{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None:
        raise ConfigError(f"--ray {address!r}: expected HOST:PORT (the head's GCS port, 6379), [IPv6]:PORT or "
                          "ray://HOST:PORT")
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as e:
        raise ConfigError(f"--ray {address}: nothing answers there ({e}); is `ray start --head` running on "
                          "that machine, and is the port open?") from e


def _check(ray, workers: Workers, settings: ConnectionSettings) -> Cluster:
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    total = ray.cluster_resources()
    cpus, gpus = float(total.get("CPU", 0)), float(total.get("GPU", 0))
    most_gpus = max((float(n.get("Resources", {}).get("GPU", 0)) for n in nodes), default=0.0)
    per_cell = workers.gpus_per_cell if workers.gpus_per_cell is not None else (1.0 if gpus else 0.0)
    if per_cell > most_gpus:
        raise ConfigError(f"a cell asks for {per_cell:g} GPU(s) but no node of the cluster has that many "
                          f"(the most on one node: {most_gpus:g}); lower --gpus-per-cell")
    if settings.embedded and workers.address is not None and workers.address.startswith("ray://"):
        raise ConfigError(f"the graph is the embedded store in {settings.store_dir}, on this machine, and ray:// "
                          "runs every task on the cluster's machines: give a Neo4j URI every worker can reach "
                          "(--uri bolt://host:7687)")
    if settings.embedded:
        elsewhere = embedded_elsewhere(nodes, ray.get_runtime_context().get_node_id())
        if elsewhere:
            raise ConfigError(f"the graph is the embedded store in {settings.store_dir}, on this machine, and the "
                              f"cluster has workers elsewhere ({', '.join(elsewhere)}): give a Neo4j URI every "
                              "worker can reach (--uri bolt://host:7687)")
    cores = os.cpu_count() or 1
    # AUDIT_THREADS when given; else a local cluster shares this machine's cores, and on a
    # cluster Ray gives a task one core
    threads = threads_given() or (max(1, cores // workers.count) if workers.count is not None else 1)
    _probe_nodes(ray, nodes, worker_settings(settings))
    return Cluster(len(nodes), cpus, gpus, per_cell, threads)


def embedded_elsewhere(nodes: list[dict], here: str) -> list[str]:
    """The addresses of the nodes other than the driver's (node id ``here``): their workers
    run on other machines and cannot reach an embedded store kept on this one."""
    return sorted({n["NodeManagerAddress"] for n in nodes if n["NodeID"] != here})


def worker_settings(settings: ConnectionSettings) -> ConnectionSettings:
    """The settings a worker opens the store with: the embedded folder made absolute (a worker
    does not start where the driver did)."""
    return dataclasses.replace(settings, store_dir=Path(settings.store_dir).resolve())


def _probe(settings: ConnectionSettings) -> str:
    with GraphStore.open(settings) as store:
        store.read(Q.GRAPH_LIST)   # the graphs there: the connection, the database and a read all work
    return socket.gethostname()


def _probe_nodes(ray, nodes: list[dict], settings: ConnectionSettings) -> None:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    probe = ray.remote(num_cpus=0)(_probe)
    for node in nodes:
        strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
        try:
            ray.get(probe.options(scheduling_strategy=strategy).remote(settings), timeout=PROBE_TIMEOUT_S)
        except Exception as e:   # a task's error arrives wrapped: say which node and what it said
            cause = getattr(e, "cause", None) or e
            raise StoreError(f"a worker on {node['NodeManagerAddress']} cannot reach the graph: "
                             f"{' '.join(str(cause).split())[:300]}") from e


def run_cells(cluster: Cluster, settings: ConnectionSettings, spec: ExperimentSpec,
              work: list[tuple[int, Cell, str]], cache_dir: Path,
              run_cell: Callable[..., dict]) -> Iterator[tuple[int, Cell, str, dict, float, str]]:
    """Run ``work`` (position, cell, run id) as Ray tasks; yield each as it ends, with its Run
    summary, seconds and where it ran. The first cell that raises stops the others (they are
    cancelled) and its error is raised here."""
    ray = _ray()
    task = ray.remote(_cell_task).options(
        num_cpus=1, num_gpus=cluster.gpus_per_cell, max_retries=CELL_RETRIES, retry_exceptions=False,
        runtime_env={"env_vars": {"AUDIT_THREADS": str(cluster.threads_per_worker)}})
    shared = ray.put((worker_settings(settings), spec, Path(cache_dir).resolve(), run_cell))
    pending = {task.remote(shared, cell, run_id): (position, cell, run_id) for position, cell, run_id in work}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        position, cell, run_id = pending.pop(done[0])
        try:
            summary, took, where = ray.get(done[0])
        except Exception as e:
            for ref in pending:
                ray.cancel(ref, force=True)
            cause = getattr(e, "cause", None)
            if isinstance(cause, BaseException):   # the cell's own error, not Ray's wrapper
                raise cause from None
            raise
        yield position, cell, run_id, summary, took, where


def _cell_task(shared, cell: Cell, run_id: str) -> tuple[dict, float, str]:
    """One cell in a worker: its own connection, the same run as in one process."""
    settings, spec, cache_dir, run_cell = shared
    started = time.perf_counter()
    with GraphStore.open(settings) as store:
        summary = run_cell(store, spec, cell, run_id, cache_dir)
    return summary, time.perf_counter() - started, f" on {socket.gethostname()} (pid {os.getpid()})"
