"""Time of the localization measure (``audit/measure/localization.py``) on models of the scratch sizes.

For each size of ``audit.config.SIZES`` (tiny: the demo's model; small), random weights of the
Llama attention and MLP matrices of that size (embeddings and norms are never scored, so the
vocabulary does not matter), six LACUNA-like element-wise mask groups of ~6.5% each (forget
0, 2, 4; retain 1, 3, 5), an injection that moves masked weights and, less, every weight
(neutral text), and an unlearning that moves every weight a little, forget weights a little more.
Prints the seconds of ``localization(...)`` without and with the unmasked control, and without
the composite, the weights scored (a stratified sample of 2M above that), and the ratios. One
torch thread; the machine's load average is printed first, since a loaded machine is slower.

    .venv/bin/python bench/bench_localization.py
    .venv/bin/python bench/bench_localization.py --sizes tiny small base --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import torch

from audit.config import SIZES
from audit.measure.localization import DEFAULT_MAX_WEIGHTS, localization

GROUPS, GROUP_SHARE = 6, 0.065
FORGET, RETAIN = {0, 2, 4}, {1, 3, 5}


def llama_shapes(size: str) -> dict[str, tuple[int, int]]:
    spec = SIZES[size]
    h, i = spec.hidden_size, spec.intermediate_size
    shapes = {}
    for layer in range(spec.layers):
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            shapes[f"model.layers.{layer}.self_attn.{proj}.weight"] = (h, h)
        shapes[f"model.layers.{layer}.mlp.gate_proj.weight"] = (i, h)
        shapes[f"model.layers.{layer}.mlp.up_proj.weight"] = (i, h)
        shapes[f"model.layers.{layer}.mlp.down_proj.weight"] = (h, i)
    return shapes


def model(size: str, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    pre, injected, unlearned, groups, ctrl_injected, ctrl_unlearned = {}, {}, {}, {}, {}, {}
    for name, shape in llama_shapes(size).items():
        u = torch.rand(shape, generator=gen)
        ids = (u / GROUP_SHARE).floor().long()
        groups[name] = torch.where(ids < GROUPS, ids, torch.full(shape, -1))
        masked, forget = groups[name] >= 0, torch.isin(groups[name], torch.tensor(sorted(FORGET)))
        pre[name] = torch.randn(shape, generator=gen) * 0.02
        neutral = torch.randn(shape, generator=gen) * 1e-3
        injected[name] = pre[name] + neutral + masked * torch.randn(shape, generator=gen) * 3e-3
        unlearned[name] = injected[name] + torch.randn(shape, generator=gen) * 1e-4 * (1 + 0.05 * forget)
        ctrl_injected[name] = pre[name] + neutral + torch.randn(shape, generator=gen) * 1e-3
        ctrl_unlearned[name] = ctrl_injected[name] + torch.randn(shape, generator=gen) * 1e-4
    return pre, injected, unlearned, groups, (ctrl_injected, ctrl_unlearned)


def timed(repeat: int, **kwargs):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = localization(**kwargs)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=[s for s in ("tiny", "small") if s in SIZES],
                        choices=list(SIZES), help="scratch sizes to time")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement; the fastest is kept")
    parser.add_argument("--max-weights", type=int, default=DEFAULT_MAX_WEIGHTS, help="sample above this many")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread; load average {os.getloadavg()}")
    print(f"{'size':6} {'weights':>9} {'scored':>9} {'sampled':>7} {'plain s':>8} {'control s':>9} {'ratio':>6} "
          f"{'no comp s':>9} {'comp share':>10} {'AUC mag':>7} {'AUC best':>16}")
    for size in args.sizes:
        pre, injected, unlearned, groups, control = model(size)
        common = dict(pre=pre, injected=injected, unlearned=unlearned, groups=groups, forget=FORGET,
                      retain=RETAIN, max_weights=args.max_weights)
        plain, result = timed(args.repeat, **common)
        with_control, result_c = timed(args.repeat, **common, control=control)
        cheap, _ = timed(args.repeat, **common, control=control, composite=False)
        print(f"{size:6} {result.total_weights:>9,} {result.weights:>9,} {str(result.sampled):>7} {plain:>8.2f} "
              f"{with_control:>9.2f} {with_control / plain:>6.2f} {cheap:>9.2f} {1 - cheap / with_control:>10.0%} "
              f"{result_c.auc_magnitude:>7.4f} {result_c.auc:>7.4f} {result_c.best_score:>8}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
