"""Is the noise-aware GP's report of its recommended point honest? A calibration study.

It looks like the real studies of ``docs/reproduction.md``: ``d = 3`` (four knot heights in
the Softmax box [-12, 2]), 20 trials of 100 games (a binomial draw of the point's true
winrate), 8 uniform start-up trials, then the noise-aware GP (:mod:`tuning.samplers.noisy_gp`) with
its default settings. After the trials the study recommends the evaluated point with the best
posterior mean (:func:`tuning.samplers.noisy_gp.recommend`) and reports its mean ``m`` and sd ``s``;
the true winrate ``t`` of that point is known, so each run gives ``z = (m - t) / s``. Over
many seeds an honest report has coverage (share of runs with ``|z| <= 1.96``) near 95% and
mean ``z`` near 0; a report biased up by the selection has mean ``z > 0``.

True winrates (``x`` the point in the unit cube, ``x0`` the first knot):

* ``flat``: 0.5 everywhere (trials differ by noise alone, as in both real studies);
* ``cliff``: 0.5, falling steeply to 0.05 where ``x0 > 0.65`` (``g0 > -2.9``: the hot start
  that lost in the real Softmax study);
* ``coupled``: 0.48 plus a ridge of height 0.06 along ``x0 + x1 = 1, x2 = x3`` (no knot can be
  tuned alone; the best points win 54%).

One JSON line per (function, seed) is appended to ``OUT/runs.jsonl`` as it finishes, so the
run resumes where it stopped; ``OUT/summary.json`` and the printed table summarise it::

    nice -n 10 python scripts/bo_calibration.py --seeds 100 --out runs/bo-calibration
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

FUNCTIONS: dict[str, Callable[[np.ndarray], float]] = {
    "flat": lambda x: 0.5,
    "cliff": lambda x: 0.5 - 0.45 / (1.0 + math.exp(-(x[0] - 0.65) / 0.02)),
    "coupled": lambda x: (
        0.48 + 0.06 * math.exp(-((x[0] + x[1] - 1.0) ** 2 + (x[2] - x[3]) ** 2) / 0.1)
    ),
}
"""True winrate of each function at a point of the unit cube (module docstring)."""

LOW, HIGH = -12.0, 2.0
"""The Softmax study's box for every knot height."""

Z95 = 1.959963984540054


def run_one(function: str, seed: int, *, trials: int, games: int, startup: int) -> dict[str, Any]:
    """One simulated study; returns its record (the recommendation and its z-score)."""
    import optuna

    from tuning.samplers import TrialSeededSampler
    from tuning.samplers.noise import record_noise
    from tuning.samplers.noisy_gp import NoisyGPSampler, recommend

    truth = FUNCTIONS[function]
    names = [f"g{i}" for i in range(4)]

    def unit(params: dict[str, float]) -> np.ndarray:
        return np.array([(params[n] - LOW) / (HIGH - LOW) for n in names])

    def objective(trial: optuna.Trial) -> float:
        params = {n: trial.suggest_float(n, LOW, HIGH) for n in names}
        p = truth(unit(params))
        wins = int(np.random.default_rng([seed, trial.number, 7]).binomial(games, p))
        record_noise(trial, float(wins), games)
        trial.set_user_attr("truth", p)
        return wins / games

    sampler = NoisyGPSampler(
        seed=seed, n_startup_trials=startup, independent_sampler=TrialSeededSampler(seed)
    )
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.optimize(objective, n_trials=trials)
    pick = recommend(study)
    assert pick is not None
    true = float(pick.trial.user_attrs["truth"])
    best_true = max(float(t.user_attrs["truth"]) for t in study.trials)
    return {
        "function": function,
        "seed": seed,
        "trials": trials,
        "games": games,
        "trial": pick.trial.number,
        "mean": pick.mean,
        "sd": pick.sd,
        "raw": pick.value,
        "truth": true,
        "best_truth": best_true,
        "z": (pick.mean - true) / pick.sd if pick.sd > 0 else math.inf,
        "points": [[round(float(v), 6) for v in unit(t.params)] for t in study.trials],
        "values": [float(t.value) for t in study.trials],  # type: ignore[arg-type]
        "truths": [float(t.user_attrs["truth"]) for t in study.trials],
    }


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per function: runs, coverage of the 95% interval, mean z (and its s.e.), bias."""
    out: dict[str, dict[str, float]] = {}
    for function in FUNCTIONS:
        rows = [r for r in records if r["function"] == function]
        if not rows:
            continue
        z = np.array([r["z"] for r in rows], dtype=float)
        n = len(rows)
        covered = float(np.mean(np.abs(z) <= Z95))
        out[function] = {
            "runs": n,
            "coverage": covered,
            "coverage_se": math.sqrt(covered * (1 - covered) / n),
            "mean_z": float(np.mean(z)),
            "mean_z_se": float(np.std(z, ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
            "sd_z": float(np.std(z, ddof=1)) if n > 1 else math.nan,
            "bias": float(np.mean([r["mean"] - r["truth"] for r in rows])),
            "mean_sd": float(np.mean([r["sd"] for r in rows])),
            "raw_bias": float(np.mean([r["raw"] - r["truth"] for r in rows])),
        }
    return out


def format_table(summary: dict[str, dict[str, float]]) -> str:
    """A markdown table of :func:`summarize`'s result, with the targets."""
    lines = [
        "| function | runs | coverage of the 95% interval (target 90-97%) | mean z (target "
        "|z| <= 0.3) | sd of z | posterior mean - truth | raw - truth | mean posterior sd |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for function, s in summary.items():
        lines.append(
            f"| {function} | {s['runs']:.0f} | {100 * s['coverage']:.1f}% "
            f"(± {100 * s['coverage_se']:.1f}) | {s['mean_z']:+.2f} (± {s['mean_z_se']:.2f}) | "
            f"{s['sd_z']:.2f} | {s['bias']:+.4f} | {s['raw_bias']:+.4f} | {s['mean_sd']:.4f} |"
        )
    return "\n".join(lines)


def _done(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption: its run is played again
    return records


def main(argv: Sequence[str] | None = None) -> int:
    """Run the calibration study (resumable), print the table, write ``summary.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="runs per function (default 100)")
    parser.add_argument(
        "--functions",
        nargs="+",
        default=list(FUNCTIONS),
        choices=list(FUNCTIONS),
        help="true winrate functions (default: all)",
    )
    parser.add_argument("--trials", type=int, default=20, help="trials per study (default 20)")
    parser.add_argument("--games", type=int, default=100, help="games per trial (default 100)")
    parser.add_argument("--startup", type=int, default=8, help="start-up trials (default 8)")
    parser.add_argument("--out", default="runs/bo-calibration", help="output folder")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    for name in ("seeds", "trials", "games", "startup", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.startup >= args.trials:
        parser.error(f"--startup ({args.startup}) must be below --trials ({args.trials})")

    import optuna
    import torch

    torch.set_num_threads(args.threads)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.jsonl"
    setting = {"trials": args.trials, "games": args.games}
    records = [r for r in _done(path) if all(r.get(k) == v for k, v in setting.items())]
    done = {(r["function"], r["seed"]) for r in records}
    todo = [(f, s) for s in range(args.seeds) for f in args.functions if (f, s) not in done]
    print(f"{len(done)} runs on disk, {len(todo)} to go", flush=True)
    start = time.monotonic()
    for k, (function, seed) in enumerate(todo, 1):
        record = run_one(function, seed, trials=args.trials, games=args.games, startup=args.startup)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        records.append(record)
        per_run = (time.monotonic() - start) / k
        print(
            f"[{k}/{len(todo)}] {function} seed {seed}: mean {record['mean']:.3f} sd "
            f"{record['sd']:.3f} truth {record['truth']:.3f} z {record['z']:+.2f}; "
            f"{per_run:.1f} s a run, about {per_run * (len(todo) - k) / 60:.0f} min left",
            flush=True,
        )
    chosen = [r for r in records if r["function"] in args.functions and r["seed"] < args.seeds]
    summary = summarize(chosen)
    (out / "summary.json").write_text(
        json.dumps(
            {"setting": {**setting, "startup": args.startup}, "functions": summary}, indent=2
        )
        + "\n",
        encoding="utf-8",
    )
    print(format_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
