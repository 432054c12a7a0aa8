"""How fast does `audit` start? Wall time of commands that need no model, side by side for
two checkouts of the code (e.g. before and after a change), in one run, rounds interleaved so a
busy spell of the machine hits both.

Each measurement is a fresh interpreter running ``cli.main`` from the checkout (``PYTHONPATH``)
with this virtual environment's packages, against one store with a small PISTOL graph. Prints,
per command, the median wall time of each checkout and their ratio; then the top imports of
``audit --help`` under ``python -X importtime`` for each.

    git worktree add /tmp/before 2292a4a
    .venv/bin/python bench/bench_startup.py --before /tmp/before --rounds 5
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = [["--help"], ["status"], ["edges", "--graph", "bench"], ["query", "RETURN 1 AS one"], ["runs"],
            ["run", "--help"]]


def wall(repo: Path, args: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=repo, env={**env, "PYTHONPATH": str(repo)},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def top_imports(repo: Path, env: dict, n: int = 8) -> list[tuple[str, float]]:
    """The slowest packages imported by `audit --help`: each package's outermost import, cumulative
    (so torch counts with what it pulls in, wherever it was first imported from)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "cli.main", "--help"], cwd=repo,
                          env={**env, "PYTHONPATH": str(repo)}, capture_output=True, text=True, check=True)
    totals: dict[str, float] = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
        if match:
            name = match.group(3).split(".")[0]
            totals[name] = max(totals.get(name, 0.0), int(match.group(1)) / 1e6)
    return sorted(totals.items(), key=lambda kv: -kv[1])[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout (e.g. a git worktree)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "after": REPO}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "AUDIT_HOME": str(Path(tmp) / "store"), "AUDIT_EMBEDDED_IDLE_TIMEOUT": "300"}
        data = Path(tmp) / "g.json"
        subprocess.run([sys.executable, "-m", "cli.main", "generate", "pistol", "--topology", "chain", "--nodes", "6",
                        "--output", str(data)], cwd=REPO, env={**env, "PYTHONPATH": str(REPO)}, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "cli.main", "build", "--pistol", str(data), "--graph", "bench"],
                       cwd=REPO, env={**env, "PYTHONPATH": str(REPO)}, check=True, stdout=subprocess.DEVNULL)
        try:
            print(f"# bench_startup: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, {args.rounds} rounds, "
                  f"median wall seconds (fresh interpreter each)")
            print(f"{'command':30} {'before':>8} {'after':>8} {'before/after':>13}")
            for command in COMMANDS:
                times: dict[str, list[float]] = {k: [] for k in checkouts}
                for _ in range(args.rounds):
                    for name, repo in checkouts.items():
                        times[name].append(wall(repo, command, env))
                before, after = (statistics.median(times[k]) for k in ("before", "after"))
                print(f"{'audit ' + ' '.join(command[:2]):30} {before:8.2f} {after:8.2f} {before / after:12.1f}x",
                      flush=True)
            for name, repo in checkouts.items():
                tops = ", ".join(f"{pkg} {sec:.2f}s" for pkg, sec in top_imports(repo, env))
                print(f"importtime of `audit --help`, {name}: {tops}")
            print(f"# load after: {os.getloadavg()[0]:.2f}")
        finally:
            subprocess.run([sys.executable, "-m", "cli.main", "server", "stop"], cwd=REPO,
                           env={**env, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
