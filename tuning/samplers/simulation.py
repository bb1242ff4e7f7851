"""A tuning study with no games: samplers compared where the true winrate is known.

The objective is a known smooth function of the ``d + 1`` knot heights of a search space
(:class:`TrueWinrate`): an anisotropic Gaussian bump in the unit cube of the box, mapped to
winrates in ``[0.35, 0.65]``. A trial at a point of true winrate ``p`` "plays" ``n`` games:
its value is ``Binomial(n, p) / n``, and it records its noise like a real trial
(:func:`tuning.samplers.noise.record_noise`). Each sampler of :mod:`tuning.samplers` runs ``trials``
trials on it; the run is scored by the **true** winrate of the point it recommends, by two
rules:

* ``raw``: the trial with the best observed winrate (what Optuna's ``best_trial`` is, and
  what the studies did before the noise-aware GP);
* ``posterior``: the trial with the best posterior mean of the fixed-noise GP fitted to the
  run's trials (:func:`tuning.samplers.noisy_gp.recommend`).

Common random numbers: the binomial draw of trial ``k`` in seed ``s`` uses a stream seeded
by ``(s, n, k)`` and the start-up points of ``botorch``, ``gp`` and ``random`` come from the
same :class:`tuning.samplers.TrialSeededSampler`, so the methods meet the same luck and
their differences are paired by seed.

Run it with ``python scripts/noise_simulation.py`` (``docs/tuning.md``). Results go to a
resumable JSON-lines file (one line per method, games and seed), a summary table and a plot.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution

from agents.figures import save_figure
from agents.stored import expand, read_stored, stored_file
from go_env.validation import check_int
from tuning.samplers import SAMPLERS, make_sampler
from tuning.samplers.noise import record_noise
from tuning.samplers.noisy_gp import recommend
from tuning.search_spaces import SearchSpace, make_space

__all__ = [
    "RECOMMENDERS",
    "SimulationConfig",
    "TrueWinrate",
    "format_table",
    "plot_summary",
    "run_simulation",
    "simulate_run",
    "summarize",
]

LOW, HIGH = 0.35, 0.65
"""Range of the true winrate."""

RECOMMENDERS = ("raw", "posterior")
"""How a run picks its recommended trial (see the module docstring)."""

Progress = Callable[[str], None]


@dataclass(frozen=True)
class TrueWinrate:
    """The known winrate of a point: ``LOW + (HIGH - LOW) * exp(-½ Σ ((z_j - a_j) / s_j)²)``.

    ``z`` is the point in the unit cube of the space's box (log scale for a log parameter),
    ``a`` the optimum and ``s`` the length scales, one per parameter: the knots with a short
    length scale matter most, those with a long one hardly at all. This bump is separable
    (a product of one factor per parameter), which suits samplers that model each parameter
    alone, such as TPE. With ``coupled`` the offsets are first rotated by a fixed random
    orthogonal matrix ``Q`` (``z - a`` becomes ``Q (z - a)``): the same range and optimum,
    but no parameter can be tuned alone, as with knot heights whose effect goes through
    ``∫ exp(g)``.

    Args:
        space: The search space (its distributions define the unit cube).
        optimum: ``a``; default :meth:`default_optimum`.
        lengthscales: ``s``; default :meth:`default_lengthscales`.
        coupled: Rotate the offsets (see above).
    """

    space: SearchSpace
    optimum: tuple[float, ...] = ()
    lengthscales: tuple[float, ...] = ()
    coupled: bool = False

    def __post_init__(self) -> None:
        k = len(self.space.param_names)
        if not self.optimum:
            object.__setattr__(self, "optimum", self.default_optimum(k))
        if not self.lengthscales:
            object.__setattr__(self, "lengthscales", self.default_lengthscales(k))
        if len(self.optimum) != k or len(self.lengthscales) != k:
            raise ValueError(f"optimum and lengthscales need {k} values (one per parameter)")
        if not all(0.0 <= a <= 1.0 for a in self.optimum):
            raise ValueError(f"optimum must lie in the unit cube, got {self.optimum}")
        if not all(s > 0 for s in self.lengthscales):
            raise ValueError(f"lengthscales must be positive, got {self.lengthscales}")

    @staticmethod
    def default_optimum(k: int) -> tuple[float, ...]:
        """``a_j = 0.2 + 0.6 · frac(j φ)`` (φ the golden ratio): spread, away from the faces."""
        golden = (math.sqrt(5) - 1) / 2
        return tuple(round(0.2 + 0.6 * ((j * golden) % 1.0), 4) for j in range(k))

    @staticmethod
    def default_lengthscales(k: int) -> tuple[float, ...]:
        """From 0.3 (first parameter) to 0.9 (last), evenly spaced."""
        return tuple(round(0.3 + 0.6 * j / max(k - 1, 1), 4) for j in range(k))

    def rotation(self) -> np.ndarray:
        """``Q``: the orthogonal factor of a Gaussian matrix drawn with seed 17."""
        k = len(self.optimum)
        q, r = np.linalg.qr(np.random.default_rng(17).normal(size=(k, k)))
        return q * np.sign(np.diag(r))

    def unit(self, params: Mapping[str, float]) -> np.ndarray:
        """The point in the unit cube."""
        out = []
        for name, dist in self.space.distributions().items():
            value, low, high = float(params[name]), dist.low, dist.high
            if dist.log:
                value, low, high = math.log(value), math.log(low), math.log(high)
            out.append((value - low) / (high - low))
        return np.array(out)

    def __call__(self, params: Mapping[str, float]) -> float:
        """The true winrate at ``params``."""
        offset = self.unit(params) - np.array(self.optimum)
        if self.coupled:
            offset = self.rotation() @ offset
        z = offset / np.array(self.lengthscales)
        return LOW + (HIGH - LOW) * math.exp(-0.5 * float(z @ z))


@dataclass(frozen=True, kw_only=True)
class SimulationConfig:
    """The simulation study.

    Args:
        space: Search space name (``monotone``, ``softmax``, with ``+c``).
        d: Segments of ``g`` (``d + 1`` knot heights).
        methods: Samplers compared (names of :data:`tuning.samplers.SAMPLERS`).
        coupled: Use the coupled (rotated) true winrate (:class:`TrueWinrate`).
        games: Games per trial, one run per value.
        seeds: Seeds ``0 .. seeds - 1``.
        trials: Trials per run.
        startup_trials: Uniform trials before a model takes over.
        out: Output folder.
    """

    space: str = "softmax"
    d: int = 5
    methods: tuple[str, ...] = SAMPLERS
    coupled: bool = False
    games: tuple[int, ...] = (60, 200)
    seeds: int = 20
    trials: int = 30
    startup_trials: int = 10
    out: Path = field(default=Path("docs/results/tuning/noise-simulation"))

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "games", tuple(self.games))
        bad = [m for m in self.methods if m not in SAMPLERS]
        if bad or not self.methods:
            raise ValueError(f"unknown methods {bad}; allowed: {', '.join(SAMPLERS)}")
        if not self.games or any(isinstance(g, bool) or g < 1 for g in self.games):
            raise ValueError(f"games must be ints >= 1, got {self.games}")
        for name in ("seeds", "trials", "startup_trials"):
            check_int(name, getattr(self, name), min=1)
        if self.startup_trials >= self.trials:
            raise ValueError(
                f"startup_trials ({self.startup_trials}) must be below trials ({self.trials})"
            )
        self.search_space()  # a clear error for a bad space now

    def search_space(self) -> SearchSpace:
        """The :class:`SearchSpace`."""
        return make_space(self.space, d=self.d)

    def identity(self) -> dict[str, Any]:
        """What decides the results (the header of the results file)."""
        truth = self.truth()
        function: dict[str, Any] = {
            "low": LOW,
            "high": HIGH,
            "optimum": list(truth.optimum),
            "lengthscales": list(truth.lengthscales),
        }
        if self.coupled:
            function["coupled"] = True
        return {
            "space": self.space,
            "d": self.d,
            "trials": self.trials,
            "startup_trials": self.startup_trials,
            "function": function,
        }

    def truth(self) -> TrueWinrate:
        """The true winrate of the study."""
        return TrueWinrate(self.search_space(), coupled=self.coupled)


def simulate_run(
    method: str,
    games: int,
    seed: int,
    *,
    space: SearchSpace,
    truth: TrueWinrate,
    trials: int = 30,
    startup_trials: int = 10,
) -> dict[str, Any]:
    """One run: ``trials`` noisy trials of ``method``, scored by the true winrate.

    Returns:
        A JSON-ready record: the true value of the ``raw`` and ``posterior`` recommendations,
        their observed values, the posterior mean and sd, the best true value among the
        evaluated points, and the time taken.
    """
    start = time.monotonic()
    sampler = make_sampler(method, seed=seed, startup_trials=startup_trials)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    distributions: dict[str, BaseDistribution] = dict(space.distributions())
    true_values = []
    for k in range(trials):
        trial = study.ask(distributions)
        p = truth(trial.params)
        wins = int(np.random.default_rng([seed, games, k]).binomial(games, p))
        record_noise(trial, float(wins), games)
        study.tell(trial, wins / games)
        true_values.append(p)
    done = study.trials
    raw = max(done, key=lambda t: (t.value, -t.number))
    post = recommend(study)
    assert post is not None
    return {
        "method": method,
        "games": games,
        "seed": seed,
        "raw_true": true_values[raw.number],
        "raw_value": raw.value,
        "raw_trial": raw.number,
        "posterior_true": true_values[post.trial.number],
        "posterior_value": post.value,
        "posterior_mean": post.mean,
        "posterior_sd": post.sd,
        "posterior_trial": post.trial.number,
        "best_evaluated_true": max(true_values),
        "seconds": round(time.monotonic() - start, 2),
    }


def _read(path: Path, identity: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of ``path`` (plain, or compressed as recorded: :mod:`agents.stored`)."""
    stored = stored_file(path)
    if stored is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"settings": identity}) + "\n", encoding="utf-8")
        return []
    lines = read_stored(stored).decode("utf-8").splitlines()
    header = json.loads(lines[0]).get("settings") if lines else None
    if header != identity:
        raise ValueError(
            f"{stored} holds a simulation with other settings ({header}); use another --out "
            "or the same settings"
        )
    return [json.loads(line) for line in lines[1:] if line.strip()]


def run_simulation(
    config: SimulationConfig, *, progress: Progress | None = print
) -> list[dict[str, Any]]:
    """Run every (games, seed, method) not yet in ``<out>/results.jsonl``; return all records.

    The file is appended to after each run, so an interrupted simulation resumes where it
    stopped.
    """
    space = config.search_space()
    truth = config.truth()
    path = config.out / "results.jsonl"
    records = _read(path, config.identity())
    have = {(r["method"], r["games"], r["seed"]) for r in records}
    todo = [
        (m, g, s)
        for g in config.games
        for s in range(config.seeds)
        for m in config.methods
        if (m, g, s) not in have
    ]
    start = time.monotonic()
    for i, (method, games, seed) in enumerate(todo, 1):
        record = simulate_run(
            method,
            games,
            seed,
            space=space,
            truth=truth,
            trials=config.trials,
            startup_trials=config.startup_trials,
        )
        with expand(path).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        records.append(record)
        if progress is not None:
            spent = time.monotonic() - start
            eta = spent / i * (len(todo) - i)
            progress(
                f"[{i}/{len(todo)}] {method} games={games} seed={seed}: true value "
                f"raw {record['raw_true']:.3f}, posterior {record['posterior_true']:.3f} "
                f"({record['seconds']:.1f} s; about {eta / 60:.0f} min left)"
            )
    return records


def _t_interval(values: Sequence[float]) -> tuple[float, float, float]:
    from scipy import stats

    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, mean, mean
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half


def summarize(
    records: Sequence[dict[str, Any]], *, reference: tuple[str, str] = ("botorch", "posterior")
) -> list[dict[str, Any]]:
    """Mean true value of the recommended point, with its 95% t-interval, per row.

    A row is (games, method, recommender). ``regret`` is ``HIGH - mean``; ``diff`` is the
    mean difference to ``reference`` over the seeds both have (paired), with its interval;
    ``observed`` is the mean raw value of the pick and ``reported`` what the study reports
    for it (the raw value, or the posterior mean): ``reported - mean`` is its optimism.
    """
    rows = []
    by_key = {(r["method"], r["games"], r["seed"]): r for r in records}
    for games in sorted({r["games"] for r in records}):
        methods = [m for m in SAMPLERS if any(r["method"] == m for r in records)]
        for method in methods:
            for rec in RECOMMENDERS:
                runs = [r for r in records if r["games"] == games and r["method"] == method]
                values = [r[f"{rec}_true"] for r in runs]
                mean, low, high = _t_interval(values)
                row: dict[str, Any] = {
                    "games": games,
                    "method": method,
                    "recommender": rec,
                    "seeds": len(values),
                    "mean": mean,
                    "ci95": [low, high],
                    "regret": HIGH - mean,
                    "observed": float(np.mean([r[f"{rec}_value"] for r in runs])),
                    "reported": float(
                        np.mean(
                            [
                                r["posterior_mean" if rec == "posterior" else "raw_value"]
                                for r in runs
                            ]
                        )
                    ),
                    "best_evaluated": float(np.mean([r["best_evaluated_true"] for r in runs])),
                }
                ref_method, ref_rec = reference
                pairs = [
                    (r[f"{rec}_true"], by_key[(ref_method, games, r["seed"])][f"{ref_rec}_true"])
                    for r in runs
                    if (ref_method, games, r["seed"]) in by_key
                ]
                if pairs and (method, rec) != reference:
                    d_mean, d_low, d_high = _t_interval([a - b for a, b in pairs])
                    row["diff"] = {"mean": d_mean, "ci95": [d_low, d_high], "seeds": len(pairs)}
                rows.append(row)
    return rows


LABELS = {
    "botorch": "noise-aware GP (BoTorch)",
    "gp": "Optuna GPSampler",
    "tpe": "TPE",
    "random": "random search",
}


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of :func:`summarize`'s rows."""
    lines = [
        "| games/trial | sampler | recommends | true winrate of the pick [95% CI] | regret "
        "| vs noise-aware GP (paired) | reported for the pick | best true among evaluated |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        diff = r.get("diff")
        d = (
            "reference"
            if diff is None
            else (f"{diff['mean']:+.3f} [{diff['ci95'][0]:+.3f}, {diff['ci95'][1]:+.3f}]")
        )
        rec = "best posterior mean" if r["recommender"] == "posterior" else "best raw trial"
        lines.append(
            f"| {r['games']} | {LABELS.get(r['method'], r['method'])} | {rec} | "
            f"{r['mean']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] | {r['regret']:.3f} | "
            f"{d} | {r['reported']:.3f} | {r['best_evaluated']:.3f} |"
        )
    return "\n".join(lines)


def plot_summary(path: Path, rows: Sequence[dict[str, Any]], *, title: str = "") -> Path:
    """True winrate of the pick with 95% intervals, one panel per games-per-trial."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = sorted({r["games"] for r in rows})
    fig, axes = plt.subplots(1, len(games), figsize=(5.2 * len(games), 4.2), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, g in zip(axes, games, strict=True):
        sub = [r for r in rows if r["games"] == g]
        methods = list(dict.fromkeys(r["method"] for r in sub))
        for j, rec in enumerate(RECOMMENDERS):
            pts = [r for r in sub if r["recommender"] == rec]
            x = np.array([methods.index(r["method"]) for r in pts]) + (j - 0.5) * 0.25
            y = np.array([r["mean"] for r in pts])
            err = np.array([[r["mean"] - r["ci95"][0], r["ci95"][1] - r["mean"]] for r in pts]).T
            label = "best posterior mean" if rec == "posterior" else "best raw trial"
            ax.errorbar(x, y, yerr=err, fmt="os"[j], capsize=3, label=f"recommends {label}")
            obs = [r["reported"] for r in pts]
            ax.scatter(x, obs, marker="_", s=120, color=f"C{j}", alpha=0.6)
        ax.axhline(HIGH, color="black", linestyle="--", linewidth=1, label=f"optimum ({HIGH})")
        ax.set_xticks(range(len(methods)))
        ax.set_xticklabels([LABELS.get(m, m) for m in methods], rotation=15, fontsize=8)
        ax.set_title(f"{g} games per trial")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(
        "true winrate of the recommended point (95% CI)\n(dash: what is reported for it)"
    )
    axes[0].legend(fontsize=8, loc="lower left")
    for ax in axes:
        ax.set_ylim(LOW, HIGH + 0.05)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def write_outputs(config: SimulationConfig, records: Sequence[dict[str, Any]]) -> dict[str, Path]:
    """Write ``summary.json``, ``table.md`` and ``true-value.png`` in ``config.out``."""
    rows = summarize(records)
    out = config.out
    summary = {"settings": config.identity(), "config": asdict(config), "rows": rows}
    (out / "summary.json").write_text(
        json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8"
    )
    (out / "table.md").write_text(format_table(rows) + "\n", encoding="utf-8")
    return {
        "summary": out / "summary.json",
        "table": out / "table.md",
        "plot": plot_summary(
            out / "true-value.png",
            rows,
            title=f"{config.trials} trials per run, {config.seeds} seeds"
            + (", coupled truth" if config.coupled else ""),
        ),
    }
