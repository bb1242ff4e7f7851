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
run resumes where it stopped; ``OUT/summary.json``, ``OUT/summary.md`` and the printed tables
summarise it::

    nice -n 10 python scripts/bo_calibration.py --seeds 100 --out runs/bo-calibration

Each line keeps the run's trials (points in the unit cube, values, true winrates). With
``--rescore RUNS.jsonl`` no sampler runs: the report of every stored run is computed again by
the current model (:func:`rescore_one`), so that two models are compared on the same trials,
in about 1 s a run instead of about 5::

    nice -n 10 python scripts/bo_calibration.py --rescore runs/bo-calibration/runs.jsonl \
        --out runs/bo-calibration-rescored

``--rescore ... --bootstrap-sd`` reports, instead of the posterior sd, the sd of the best
mean's error in the first level of the selection correction's bootstrap (the chosen mean less
its point's value in the bootstrap's world): a width that adapts to the trials (measured in
``docs/tuning.md``, not shipped). ``--first-seed`` runs another range of seeds (to split a
study, or to add fresh runs).
Each record also holds the reports of the other corrections (:data:`CORRECTIONS`) at the
same point, and a second table compares them on the same trials.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
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
    from tuning.samplers.noisy_gp import NoisyGPSampler

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
    return _report(function, seed, games, study)


CORRECTIONS = ("none", "selection", "single", "iterated")
"""The reports each run records beside the shipped one, all at the same recommended point
with the same posterior sd: the posterior mean with no correction; ``selection``, the
correction shipped before (a single parametric bootstrap of the choice alone: the chosen
mean less that point's average posterior mean over the draws, :func:`selection_only`);
``single``, the bootstrap of the best mean's total error without its second level;
``iterated``, what :func:`tuning.samplers.noisy_gp.recommend` reports
(:func:`tuning.samplers.noisy_gp.selection_bias`)."""


def selection_only(post: Any, draws: int = 500) -> float:
    """The correction shipped before: the choice's effect on the chosen posterior mean.

    Draw every trial's value again around the posterior means with its own noise, recompute
    the means, choose the best, and average the chosen mean less that point's average mean
    over all draws. Kept to compare on the same trials (it leaves out the smoother's pull on
    a real winner, so it over-corrects there).
    """
    from tuning.samplers.noisy_gp import _bootstrap_rng

    rng = _bootstrap_rng(post)
    values = post.mean[None, :] + post.noise_sd[None, :] * rng.standard_normal(
        (draws, len(post.mean))
    )
    means = post.resample(values)
    picks = np.argmax(means, axis=1)
    return float(np.mean(means[np.arange(draws), picks] - means.mean(axis=0)[picks]))


def bootstrap_error_sd(post: Any, draws: int = 500) -> float:
    """The sd of the best posterior mean's error in the selection bootstrap's first level.

    The world of :func:`tuning.samplers.noisy_gp.selection_bias` (the posterior means taken
    as the truth), its trials drawn again ``draws`` times: the sd over the draws of the chosen
    mean less its point's value there, a width that follows the trials where the posterior
    sd does not. Measured as an alternative report (``--bootstrap-sd``), not shipped.
    """
    from tuning.samplers.noisy_gp import _bootstrap_rng, _total_error

    rng = _bootstrap_rng(post)
    errors, _ = _total_error(post.resample, post.mean[None, :], post.noise_sd, 1.0, rng, draws)
    return float(np.std(errors))


def _report(
    function: str,
    seed: int,
    games: int,
    study: Any,
    input_warp: bool = False,
    bootstrap_sd: bool = False,
) -> dict[str, Any]:
    """The record of a finished study: its recommendation by the current model, its trials.

    ``mean``, ``sd`` and ``z`` are the shipped report's (with ``bootstrap_sd``, ``sd`` is
    :func:`bootstrap_error_sd`); ``corrections`` holds the estimate and ``z`` of each of
    :data:`CORRECTIONS` at the same point.
    """
    from tuning.samplers.noisy_gp import posterior_at_trials, recommendation_of, selection_bias

    post = posterior_at_trials(study.trials, input_warp=input_warp)
    pick = recommendation_of(post)
    if bootstrap_sd and post.resample is not None:
        pick = dataclasses.replace(pick, sd=bootstrap_error_sd(post))
    true = float(pick.trial.user_attrs["truth"])
    before = float(pick.posterior_mean if pick.posterior_mean is not None else pick.mean)
    biases = {
        "none": 0.0,
        "selection": selection_only(post) if post.resample is not None else 0.0,
        "single": selection_bias(post, second_level=None),
        "iterated": pick.selection_bias,
    }

    def z(estimate: float) -> float:
        return (estimate - true) / pick.sd if pick.sd > 0 else math.inf

    return {
        "function": function,
        "seed": seed,
        "trials": len(study.trials),
        "games": games,
        "trial": pick.trial.number,
        "mean": pick.mean,
        "sd": pick.sd,
        "posterior_mean": pick.posterior_mean,
        "selection_bias": pick.selection_bias,
        "raw": pick.value,
        "truth": true,
        "best_truth": max(float(t.user_attrs["truth"]) for t in study.trials),
        "z": z(pick.mean),
        "corrections": {
            name: {"mean": before - bias, "z": z(before - bias)} for name, bias in biases.items()
        },
        "points": [[round(_unit(t.params, i), 6) for i in range(4)] for t in study.trials],
        "values": [float(t.value) for t in study.trials],
        "truths": [float(t.user_attrs["truth"]) for t in study.trials],
    }


def _unit(params: dict[str, float], i: int) -> float:
    return (params[f"g{i}"] - LOW) / (HIGH - LOW)


def rescore_one(
    record: dict[str, Any], input_warp: bool = False, bootstrap_sd: bool = False
) -> dict[str, Any]:
    """The record of a stored run, its recommendation computed again by the current model.

    The run's trials (points, values, true winrates) are rebuilt as a finished study, so
    that models can be compared on the same trials without running the sampler again;
    ``input_warp`` fits the report's GP with learnt input warping; ``bootstrap_sd`` reports
    :func:`bootstrap_error_sd` as the sd.

    Raises:
        ValueError: When the record lacks its trials (a run recorded before they were kept).
    """
    import optuna
    from optuna.distributions import BaseDistribution, FloatDistribution
    from optuna.trial import create_trial

    from tuning.samplers.noise import VARIANCE_ATTR, winrate_variance

    missing = [k for k in ("points", "values", "truths", "games") if k not in record]
    if missing:
        raise ValueError(
            f"run {record.get('function')!r} seed {record.get('seed')!r} has no "
            f"{', '.join(missing)}: only runs that recorded their trials can be re-scored"
        )
    games = int(record["games"])
    space: dict[str, BaseDistribution] = {f"g{i}": FloatDistribution(LOW, HIGH) for i in range(4)}
    study = optuna.create_study(direction="maximize")
    for point, value, truth in zip(
        record["points"], record["values"], record["truths"], strict=True
    ):
        points = round(float(value) * games, 6)
        study.add_trial(
            create_trial(
                params={f"g{i}": LOW + float(x) * (HIGH - LOW) for i, x in enumerate(point)},
                distributions=space,
                value=float(value),
                user_attrs={
                    "games": games,
                    "points": points,
                    VARIANCE_ATTR: winrate_variance(points, games),
                    "truth": float(truth),
                },
            )
        )
    return _report(
        str(record["function"]), int(record["seed"]), games, study, input_warp, bootstrap_sd
    )


def summarize(
    records: Sequence[dict[str, Any]], correction: str | None = None
) -> dict[str, dict[str, float]]:
    """Per function: runs, coverage of the 95% interval, mean z (and its s.e.), bias.

    ``bias`` is the estimate's (the posterior mean less the correction), ``raw_bias`` the
    chosen trial's raw value's. ``correction`` (one of :data:`CORRECTIONS`) scores that
    report instead of the shipped one (runs recorded without it are left out).
    """
    out: dict[str, dict[str, float]] = {}

    def report(r: dict[str, Any]) -> dict[str, Any]:
        return r if correction is None else r["corrections"][correction]

    for function in FUNCTIONS:
        rows = [
            r
            for r in records
            if r["function"] == function
            and (correction is None or correction in r.get("corrections", {}))
        ]
        if not rows:
            continue
        z = np.array([report(r)["z"] for r in rows], dtype=float)
        n = len(rows)
        covered = float(np.mean(np.abs(z) <= Z95))
        out[function] = {
            "runs": n,
            "coverage": covered,
            "coverage_se": math.sqrt(covered * (1 - covered) / n),
            "mean_z": float(np.mean(z)),
            "mean_z_se": float(np.std(z, ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
            "sd_z": float(np.std(z, ddof=1)) if n > 1 else math.nan,
            "bias": float(np.mean([report(r)["mean"] - r["truth"] for r in rows])),
            "mean_sd": float(np.mean([r["sd"] for r in rows])),
            "raw_bias": float(np.mean([r["raw"] - r["truth"] for r in rows])),
        }
    return out


def format_table(summary: dict[str, dict[str, float]]) -> str:
    """A markdown table of :func:`summarize`'s result, with the targets."""
    lines = [
        "| function | runs | coverage of the 95% interval (target 90-97%) | mean z (target "
        "|z| <= 0.3) | sd of z | estimate - truth | raw - truth | mean posterior sd |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for function, s in summary.items():
        lines.append(
            f"| {function} | {s['runs']:.0f} | {100 * s['coverage']:.1f}% "
            f"(± {100 * s['coverage_se']:.1f}) | {s['mean_z']:+.2f} (± {s['mean_z_se']:.2f}) | "
            f"{s['sd_z']:.2f} | {s['bias']:+.4f} | {s['raw_bias']:+.4f} | {s['mean_sd']:.4f} |"
        )
    return "\n".join(lines)


WIDTH_SCALES = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2)
"""Multiples of the reported sd at which :func:`width_frontier` scores each function."""


def homogeneity_p(record: dict[str, Any]) -> float:
    """The p-value of a chi-square test that a run's trials share one winrate.

    The statistic is ``sum (v_i - vbar)^2 / (vbar (1 - vbar) / games)`` on ``trials - 1``
    degrees of freedom: what the trials alone can say about whether the box holds any signal
    (the real studies' test, ``docs/reproduction.md``).
    """
    from scipy.stats import chi2

    values = np.asarray(record["values"], dtype=float)
    level = float(np.clip(values.mean(), 1e-6, 1 - 1e-6))
    stat = float(np.sum((values - level) ** 2) / (level * (1 - level) / int(record["games"])))
    return float(chi2.sf(stat, len(values) - 1))


def width_frontier(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Could any width meet the coverage target on every function at once?

    The estimate is kept and the interval's sd multiplied by each of :data:`WIDTH_SCALES`;
    per function, the coverage at each scale. Where no scale puts every function in
    90-97%, a report meets the targets only if its width tells the functions apart from the
    trials; ``homogeneity`` (the share of runs whose trials reject a common winrate at 5%,
    :func:`homogeneity_p`) says how often the trials can.
    """
    scales: dict[str, dict[str, float]] = {}
    homogeneity: dict[str, float] = {}
    for function in FUNCTIONS:
        rows = [r for r in records if r["function"] == function]
        if not rows:
            continue
        error = np.array([r["mean"] - r["truth"] for r in rows])
        sd = np.array([r["sd"] for r in rows])
        scales[function] = {
            f"{k:g}": float(np.mean(np.abs(error) <= Z95 * k * sd)) for k in WIDTH_SCALES
        }
        kept = [r for r in rows if "values" in r]
        if kept:
            homogeneity[function] = float(np.mean([homogeneity_p(r) < 0.05 for r in kept]))
    meets = [
        f"{k:g}"
        for k in WIDTH_SCALES
        if scales and all(0.90 <= s[f"{k:g}"] <= 0.97 for s in scales.values())
    ]
    return {"coverage_at_scale": scales, "scales_meeting_target": meets, "homogeneity": homogeneity}


def format_frontier(frontier: dict[str, Any]) -> str:
    """A markdown table of :func:`width_frontier`: coverage per function at each sd scale."""
    scales = frontier["coverage_at_scale"]
    functions = list(scales)
    lines = [
        "| sd x | " + " | ".join(functions) + " |",
        "|---|" + "---|" * len(functions),
    ]
    for k in WIDTH_SCALES:
        cells = [f"{100 * scales[f][f'{k:g}']:.0f}%" for f in functions]
        lines.append(f"| {k:g} | " + " | ".join(cells) + " |")
    homogeneity = ", ".join(
        f"{f} {100 * share:.0f}%" for f, share in frontier["homogeneity"].items()
    )
    meets = ", ".join(frontier["scales_meeting_target"]) or "none"
    lines.append("")
    lines.append(f"Scales that put every function in 90-97%: {meets}.")
    lines.append(f"Runs whose trials reject a common winrate (chi-square, 5%): {homogeneity}.")
    return "\n".join(lines)


def format_corrections(by_correction: dict[str, dict[str, dict[str, float]]]) -> str:
    """A markdown table: per correction, each function's coverage and mean z (± s.e.)."""
    functions = [f for f in FUNCTIONS if any(f in s for s in by_correction.values())]
    lines = [
        "| correction | " + " | ".join(f"{f}: coverage, mean z" for f in functions) + " |",
        "|---|" + "---|" * len(functions),
    ]
    for name, summary in by_correction.items():
        cells = [
            f"{100 * summary[f]['coverage']:.0f}%, {summary[f]['mean_z']:+.2f} "
            f"(± {summary[f]['mean_z_se']:.2f})"
            if f in summary
            else "-"
            for f in functions
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rounded(value: Any, digits: int = 6) -> Any:
    """``value`` with every float rounded to ``digits`` decimals (a record's stored form).

    Winrates, z-scores and points in the unit cube need no more, and the stored runs of a
    100-seed study shrink by a third.
    """
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, digits) for v in value]
    return value


def _done(path: Path) -> list[dict[str, Any]]:
    """The records of ``path`` (a recorded ``runs.jsonl.gz`` is read as well).

    A last line cut short by an interruption is dropped (its run is played again); any other
    line that is not a JSON object is damage and stops the script with its line number.
    """
    from agents.nets.training.jsonl import parse_rows
    from agents.stored import read_stored

    if not path.exists():
        return []
    try:
        return parse_rows(read_stored(path).decode("utf-8"), str(path))
    except ValueError as exc:
        raise SystemExit(f"{exc}: mend or remove that line, then run again") from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Run the calibration study (resumable), print the table, write ``summary.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="runs per function (default 100)")
    parser.add_argument(
        "--first-seed", type=int, default=0, help="seeds FIRST .. FIRST + SEEDS - 1 (default 0)"
    )
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
    parser.add_argument(
        "--rescore",
        metavar="RUNS.jsonl",
        help="compute the report again, with the current model, on the trials of the runs "
        "stored in RUNS.jsonl (no sampler is run; --seeds, --first-seed, --trials, --games and "
        "--startup are ignored); the new records go to OUT/runs.jsonl",
    )
    parser.add_argument(
        "--input-warp",
        action="store_true",
        help="with --rescore: fit the report's GP with learnt input warping (measured in "
        "docs/tuning.md, not shipped)",
    )
    parser.add_argument(
        "--bootstrap-sd",
        action="store_true",
        help="with --rescore: report the sd of the best mean's error in the selection "
        "bootstrap instead of the posterior sd (measured in docs/tuning.md, not shipped)",
    )
    args = parser.parse_args(argv)
    if args.first_seed < 0:
        parser.error(f"--first-seed must be >= 0, got {args.first_seed}")
    for name in ("seeds", "trials", "games", "startup", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.startup >= args.trials:
        parser.error(f"--startup ({args.startup}) must be below --trials ({args.trials})")
    for flag in ("input_warp", "bootstrap_sd"):
        if getattr(args, flag) and args.rescore is None:
            name = "--" + flag.replace("_", "-")
            parser.error(f"{name} changes the report only: give it with --rescore")

    import optuna
    import torch

    torch.set_num_threads(args.threads)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.jsonl"
    jobs: list[tuple[str, int, Callable[[], dict[str, Any]]]] = []
    if args.rescore is not None:
        source = Path(args.rescore)
        if not source.is_file():
            parser.error(f"--rescore: no file {source}")
        if path.exists() and path.resolve() == source.resolve():
            parser.error(f"--rescore reads {source}: write the new records to another --out")
        stored = [r for r in _done(source) if r.get("function") in args.functions]
        if not stored:
            parser.error(f"--rescore: {source} holds no run of {', '.join(args.functions)}")
        setting = {"trials": stored[0].get("trials"), "games": stored[0].get("games")}
        records = [r for r in _done(path) if all(r.get(k) == v for k, v in setting.items())]
        done = {(r["function"], r["seed"]) for r in records}
        seeds = range(min(r["seed"] for r in stored), max(r["seed"] for r in stored) + 1)
        jobs = [
            (
                r["function"],
                r["seed"],
                functools.partial(rescore_one, r, args.input_warp, args.bootstrap_sd),
            )
            for r in stored
            if (r["function"], r["seed"]) not in done
        ]
    else:
        setting = {"trials": args.trials, "games": args.games}
        records = [r for r in _done(path) if all(r.get(k) == v for k, v in setting.items())]
        done = {(r["function"], r["seed"]) for r in records}
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        jobs = [
            (
                f,
                s,
                functools.partial(
                    run_one, f, s, trials=args.trials, games=args.games, startup=args.startup
                ),
            )
            for s in seeds
            for f in args.functions
            if (f, s) not in done
        ]
    print(f"{len(done)} runs on disk, {len(jobs)} to go", flush=True)
    start = time.monotonic()
    for k, (function, seed, job) in enumerate(jobs, 1):
        try:
            record = job()
        except ValueError as error:
            parser.error(str(error))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(rounded(record)) + "\n")
        records.append(rounded(record))
        per_run = (time.monotonic() - start) / k
        print(
            f"[{k}/{len(jobs)}] {function} seed {seed}: mean {record['mean']:.3f} sd "
            f"{record['sd']:.3f} truth {record['truth']:.3f} z {record['z']:+.2f}; "
            f"{per_run:.1f} s a run, about {per_run * (len(jobs) - k) / 60:.0f} min left",
            flush=True,
        )
    chosen = [r for r in records if r["function"] in args.functions and r["seed"] in seeds]
    summary = summarize(chosen)
    by_correction = {name: summarize(chosen, name) for name in CORRECTIONS}
    frontier = width_frontier(chosen)
    (out / "summary.json").write_text(
        json.dumps(
            {
                "setting": {**setting, "startup": args.startup}
                if args.rescore is None
                else {
                    **setting,
                    "rescored": str(args.rescore),
                    "input_warp": args.input_warp,
                    "bootstrap_sd": args.bootstrap_sd,
                },
                "functions": summary,
                "corrections": by_correction,
                "width_frontier": frontier,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    tables = "\n\n".join(
        [format_table(summary), format_corrections(by_correction), format_frontier(frontier)]
    )
    (out / "summary.md").write_text(
        f"# BO calibration: {len(chosen)} runs\n\n"
        "Written by `scripts/bo_calibration.py` from `runs.jsonl`; the shipped report, every "
        "correction at the same points, and the width frontier.\n\n" + tables + "\n",
        encoding="utf-8",
    )
    print(tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
