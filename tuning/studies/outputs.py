"""What a finished study leaves behind: best parameters, plots and a verification match.

In the study's output folder:

* ``best-<backup>.json``: the recommended knot heights as a backup parameter file
  (:mod:`agents.mcts.backups.params_io`), loadable as ``mcts:backup="monotone:FILE"``; its
  ``meta`` holds the budget, board, study, trial, winrate, the estimate, posterior mean and
  sd and selection bias and, when tuned, ``c``;
* ``profile.png``: what the best trial's parameters mean (and, faintly, the next best's),
  drawn by the backup itself (:class:`agents.mcts.backups.tunable.Tunable`): Monotone, the
  weight ``w(n)`` of the ``n``-th return relative to standard MCTS's uniform weights, and the
  step size ``f(n)/F(n)`` against ``1/n``; Softmax, the temperature ``τ(n)`` over the node's
  visit count; none when the backup draws nothing;
* ``history.png``: every trial's winrate with its 95% Wilson interval, trials stopped early
  marked apart, the GP's posterior mean and sd at each trial, the recommended trial and
  the best raw winrate so far;
* ``verify-trial<k>.jsonl``: the verification match of the best parameters (loaded from the
  file above) against the baseline, resumable like every arena match;
* ``summary.json``: all of this in numbers; its paths (the files above, an SQLite storage
  in the folder) are relative to the folder, so the folder can be moved or committed and a
  re-run on another machine writes the same file.

The recommended trial is the evaluated point with the best **posterior mean** of the
fixed-noise GP (:func:`tuning.samplers.noisy_gp.recommend`), whatever sampler proposed the
points: it is reported by its **estimate**, the posterior mean less its estimated bias
(``selection_bias``, :func:`tuning.samplers.noisy_gp.selection_bias`: what choosing the best
of the posterior means adds, less what the smoother takes from a real winner), with its
posterior standard deviation, beside its raw winrate and the uncorrected posterior mean; it
is what the parameter file holds and the verification match plays. The trial with the best
raw winrate is reported too; its winrate is biased upwards (it won a selection among noisy
values). The verification match, with games the study never saw, is the honest measure.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from agents.figures import save_figure
from agents.matches.arena import MatchConfig, MatchResult, run_match
from agents.matches.stats import wilson_interval
from agents.mcts.backups.params_io import write_params
from agents.mcts.backups.tunable import Curve
from tuning.paths import relative_inside
from tuning.samplers.noisy_gp import (
    Posterior,
    Recommendation,
    posterior_at_trials,
    recommendation_of,
)
from tuning.search_spaces import SearchSpace
from tuning.studies.config import Progress, StudyConfig
from tuning.studies.objective import SEED_VERIFY, derive_seed, origin_of
from tuning.studies.resume import load_study
from tuning.studies.storage import hide_password, storage_file

__all__ = [
    "StudyReport",
    "best_trial",
    "finish_study",
    "plot_history",
    "plot_profile",
    "ranked_trials",
    "recommended",
    "verify_best",
    "write_best",
]


def _full(trial: FrozenTrial) -> bool:
    return not trial.user_attrs.get("stopped_early", False)


def ranked_trials(study: optuna.Study) -> list[FrozenTrial]:
    """COMPLETE trials, best first: those that played all their games, by winrate, then the rest."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return sorted(done, key=lambda t: (not _full(t), -(t.value or 0.0), t.number))


def best_trial(study: optuna.Study) -> FrozenTrial | None:
    """The best COMPLETE trial (see the module docstring), ``None`` when there is none."""
    ranked = ranked_trials(study)
    return ranked[0] if ranked else None


def recommended(study: optuna.Study) -> tuple[Recommendation, Posterior] | None:
    """The trial with the best posterior mean, and the posterior at every COMPLETE trial.

    ``None`` when no trial is COMPLETE.
    """
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not done:
        return None
    post = posterior_at_trials(done)
    pick = recommendation_of(post)  # the studies maximise the winrate
    return pick, post


def write_best(
    config: StudyConfig, trial: FrozenTrial, recommendation: Recommendation | None = None
) -> Path:
    """Write ``trial``'s parameters as ``<out>/best-<backup>.json``; return its path.

    With ``recommendation`` (for the same trial) the ``meta`` also holds its posterior mean
    and standard deviation.
    """
    space = config.space
    meta: dict[str, Any] = {
        "n_simulations": config.n_simulations,
        "board_size": config.rules.size,
        "komi": config.rules.komi,
        "study": config.name,
        "trial": trial.number,
        "winrate": trial.value,
        "games": trial.user_attrs.get("games"),
        "ci95": [trial.user_attrs.get("ci_low"), trial.user_attrs.get("ci_high")],
        "agent": trial.user_attrs.get("candidate"),
        "baseline": config.baseline_spec,
        "search_space": space.identity(),
    }
    if recommendation is not None:
        meta["recommended_by"] = "best posterior mean of the fixed-noise GP"
        meta["estimate"] = recommendation.mean
        meta["posterior_mean"] = recommendation.posterior_mean
        meta["posterior_sd"] = recommendation.sd
        meta["selection_bias"] = recommendation.selection_bias
    if space.tune_c:
        meta["c"] = trial.params["c"]
    path = config.out_dir / f"best-{space.backup}.json"
    return write_params(path, space.backup, space.backup_params(trial.params), meta=meta)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_profile(
    path: Path,
    space: SearchSpace,
    trials: list[FrozenTrial],
    n_simulations: int,
    *,
    title: str = "",
    others: int = 4,
) -> Path | None:
    """Plot what ``trials[0]`` (bold) and up to ``others`` more (faint) mean to the backup.

    The backup draws its own profile (:meth:`agents.mcts.backups.tunable.Tunable.plot_profile`:
    Monotone the weight of the n-th return and the update step, Softmax the temperature).

    Args:
        path: The PNG file.
        space: The study's search space.
        trials: Trials, best first.
        n_simulations: ``N`` (the knots span ``[0, N]``).
        title: Figure title.
        others: How many trials after the first to draw faintly.

    Returns:
        The file, or ``None`` when the backup draws no profile (no file is written).
    """
    plt = _pyplot()
    tunable = space.tunable
    curves = [
        Curve(trial.params, _style(rank, trial)) for rank, trial in enumerate(trials[: 1 + others])
    ]
    fig = plt.figure(figsize=tunable.figure_size)
    axes = tunable.plot_profile(fig, curves, d=space.d, n_simulations=n_simulations)
    if not axes:
        plt.close(fig)
        return None
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def _style(rank: int, trial: FrozenTrial) -> dict[str, Any]:
    label = f"trial {trial.number}: {trial.value:.3f} ({trial.user_attrs.get('games', '?')} games)"
    if rank == 0:
        return {"color": "C3", "linewidth": 2.4, "label": "best, " + label, "zorder": 3}
    colour = ("C0", "C1", "C2", "C4", "C5", "C6")[(rank - 1) % 6]
    return {"color": colour, "linewidth": 1, "alpha": 0.6, "label": label}


def plot_history(
    path: Path,
    study: optuna.Study,
    *,
    title: str = "",
    posterior: Posterior | None = None,
    pick: FrozenTrial | None = None,
) -> Path:
    """Plot every COMPLETE trial's winrate with its 95% Wilson interval and the best so far.

    With ``posterior``, the GP's posterior mean ± one sd at each trial is drawn beside it,
    and ``pick`` (the recommended trial) is marked.
    """
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    done = sorted(
        study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)), key=lambda t: t.number
    )
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for full, marker, colour, label in (
        (True, "o", "C0", "all games"),
        (False, "x", "C3", "stopped early (clear loser)"),
    ):
        group = [t for t in done if _full(t) == full]
        if not group:
            continue
        x = [t.number for t in group]
        y = np.array([t.value for t in group], dtype=float)
        low = np.array(
            [t.user_attrs.get("ci_low", v) for t, v in zip(group, y, strict=True)], dtype=float
        )
        high = np.array(
            [t.user_attrs.get("ci_high", v) for t, v in zip(group, y, strict=True)], dtype=float
        )
        ax.errorbar(
            x,
            y,
            yerr=[y - low, high - y],
            fmt=marker,
            color=colour,
            alpha=0.8,
            capsize=2,
            linewidth=0.8,
            label=label,
        )
    best, xs, ys = -math.inf, [], []
    for t in done:
        if _full(t) and t.value is not None and t.value > best:
            best = t.value
        if best > -math.inf:
            xs.append(t.number)
            ys.append(best)
    if xs:
        ax.step(xs, ys, where="post", color="C2", linewidth=1.8, label="best raw so far")
    if posterior is not None:
        numbers = np.array([t.number for t in posterior.trials]) + 0.3
        ax.errorbar(
            numbers,
            posterior.mean,
            yerr=posterior.sd,
            fmt="D",
            markersize=3,
            color="C1",
            alpha=0.8,
            capsize=1.5,
            linewidth=0.8,
            label="GP posterior mean ± sd",
        )
    if pick is not None:
        ax.plot(
            [pick.number],
            [pick.value],
            marker="*",
            markersize=14,
            color="C3",
            linestyle="none",
            label=f"recommended (trial {pick.number})",
        )
    ax.axhline(0.5, color="black", linestyle="--", linewidth=1, label="baseline (0.5)")
    ax.set(
        xlabel="trial",
        ylabel="winrate vs baseline (95% Wilson interval)",
        title=title or f"optimisation history of {study.study_name}",
        ylim=(0, 1),
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def verify_best(
    config: StudyConfig,
    trial: FrozenTrial,
    best_file: Path,
    *,
    progress: Progress | None = None,
    every: int = 50,
) -> MatchResult:
    """Play the verification match: the parameters loaded from ``best_file`` vs the baseline.

    Its seed derives from the study seed and the trial's origin with another purpose than
    the trials' seeds, so none of its games was seen by the study.

    Args:
        config: The study.
        trial: The trial whose parameters ``best_file`` holds.
        best_file: The parameter file (the candidate loads it, as a user would).
        progress: Receives a line every ``every`` games (a progress bar instead when stderr
            is a terminal).
        every: Games between two progress lines.
    """
    space = config.space
    # the candidate loads the file, as a user would, when the backup reads parameter files
    loaded = f"{space.backup}:{best_file.resolve()}" if space.reads_params_file else None
    candidate = space.candidate(config.agent, trial.params, backup=loaded)
    match = MatchConfig(
        agent_a=candidate,
        agent_b=config.baseline_spec,
        games=config.verify_games,
        rules=config.rules,
        seed=derive_seed(config.seed, SEED_VERIFY, origin_of(trial)),
        opening_moves=config.opening_moves,
        book=config.openings(),
    )
    results = config.out_dir / f"verify-trial{trial.number:05d}.jsonl"
    bar = progress is not None and sys.stderr.isatty()

    def on_game(game: Any, result: MatchResult) -> None:
        done = len(result.games)
        if progress is not None and not bar and (done % every == 0 or done == match.games):
            est = result.estimate
            progress(
                f"verification: {done}/{match.games} games, winrate {est.rate:.3f} "
                f"[{est.rate_low:.3f}, {est.rate_high:.3f}]"
            )

    return run_match(
        match,
        results=results,
        workers=config.verify_workers,
        progress=bar,
        on_game=on_game,
        ray=config.ray,
        games_per_worker=config.games_per_worker,
    )


@dataclass
class StudyReport:
    """The outcome of a study (``summary.json``).

    Attributes:
        study: Study name.
        storage: Storage URL (password hidden).
        trials: Counts of trials by state (and of those stopped early).
        best: The recommended trial (best GP posterior mean): number, raw winrate, games,
            interval, posterior mean and sd, parameters, agent spec.
        best_file: The best parameters file.
        profile_plot: The weight-profile plot.
        history_plot: The optimisation-history plot.
        verification: The verification match: games, tally, winrate and Wilson interval
            (``None`` when not played).
        best_raw: The trial with the best raw winrate among those that played all their
            games: number, winrate, games, posterior mean and sd.
    """

    study: str
    storage: str
    trials: dict[str, int]
    best: dict[str, Any] | None
    best_file: str | None
    profile_plot: str | None
    history_plot: str | None
    verification: dict[str, Any] | None
    best_raw: dict[str, Any] | None = None

    def format(self) -> str:
        """A human-readable summary."""
        lines = [
            f"study {self.study} in {self.storage}",
            "trials: " + ", ".join(f"{v} {k}" for k, v in self.trials.items() if v),
        ]
        if self.best is None:
            lines.append("no trial has finished yet")
            return "\n".join(lines)
        b = self.best
        params = ", ".join(f"{k}={v:.4g}" for k, v in b["params"].items())
        # a trial of the trap-tree objective is a winning-move rate over trees
        unit = b.get("unit", "games")
        rate = "winrate" if unit == "games" else "rate"
        lines.append(
            f"recommended trial {b['number']} (best GP posterior mean): estimate "
            f"{b['estimate']:.3f} (sd {b['posterior_sd']:.3f}; the posterior mean "
            f"{b['posterior_mean']:.3f} {'less' if b['selection_bias'] >= 0 else 'plus'} "
            f"{abs(b['selection_bias']):.3f}, its estimated bias: what choosing the best of "
            "the posterior means adds, less what the smoother takes from a real winner); "
            f"its raw {rate} "
            f"{b['winrate']:.3f} over {b['games']} {unit} "
            f"[{b['ci95'][0]:.3f}, {b['ci95'][1]:.3f}]"
        )
        raw = self.best_raw
        if raw is not None and raw["number"] != b["number"]:
            lines.append(
                f"best raw {rate}: trial {raw['number']}, {raw['winrate']:.3f} over "
                f"{raw['games']} {unit} (posterior mean {raw['posterior_mean']:.3f}; selected "
                "among noisy trials: biased up)"
            )
        lines += [
            f"best parameters: {params}",
            f"best parameters file: {self.best_file}",
            f"best agent: {b['agent']}",
        ]
        v = self.verification
        if v is not None:
            lines.append(
                f"verification: {v['games']} new games vs {v['baseline']}: winrate "
                f"{v['winrate']:.3f}, 95% Wilson interval [{v['ci95'][0]:.3f}, "
                f"{v['ci95'][1]:.3f}] (+{v['wins']} ={v['draws']} -{v['losses']})"
            )
        lines += [
            f"weight-profile plot: {self.profile_plot}",
            f"optimisation-history plot: {self.history_plot}",
        ]
        return "\n".join(lines)


def finish_study(config: StudyConfig, *, progress: Progress | None = None) -> StudyReport:
    """Write the outputs of the study (see the module docstring) and return its report."""
    study = load_study(config, progress=progress)
    all_trials = study.get_trials(deepcopy=False)
    counts = {s.name.lower(): sum(t.state == s for t in all_trials) for s in TrialState}
    ranked = ranked_trials(study)
    counts["stopped_early"] = sum(not _full(t) for t in ranked)
    report = StudyReport(
        study=config.name,
        storage=hide_password(config.storage_url),
        trials=counts,
        best=None,
        best_file=None,
        profile_plot=None,
        history_plot=None,
        verification=None,
    )
    out = config.out_dir
    picked = recommended(study)
    if ranked and picked is not None:
        pick, post = picked
        best = pick.trial
        at = {t.number: i for i, t in enumerate(post.trials)}
        title = (
            f"{config.name}: {config.rules.size}x{config.rules.size}, "
            f"N = {config.n_simulations} simulations per move"
        )
        best_file = write_best(config, best, pick)
        report.best_file = str(best_file)
        report.best = {
            "number": best.number,
            "winrate": best.value,
            "games": best.user_attrs.get("games"),
            "unit": best.user_attrs.get("unit", "games"),
            "ci95": [best.user_attrs.get("ci_low"), best.user_attrs.get("ci_high")],
            "estimate": pick.mean,
            "posterior_mean": pick.posterior_mean,
            "posterior_sd": pick.sd,
            "selection_bias": pick.selection_bias,
            "params": dict(best.params),
            "agent": best.user_attrs.get("candidate"),
        }
        raw = ranked[0]
        report.best_raw = {
            "number": raw.number,
            "winrate": raw.value,
            "games": raw.user_attrs.get("games"),
            "unit": raw.user_attrs.get("unit", "games"),
            "posterior_mean": float(post.mean[at[raw.number]]),
            "posterior_sd": float(post.sd[at[raw.number]]),
        }
        by_mean = sorted(post.trials, key=lambda t: -post.mean[at[t.number]])
        profile = plot_profile(
            out / "profile.png", config.space, by_mean, config.n_simulations, title=title
        )
        report.profile_plot = None if profile is None else str(profile)
        report.history_plot = str(
            plot_history(out / "history.png", study, title=title, posterior=post, pick=best)
        )
        if config.verify_games and config.traps is None:  # trap trees: verify_on_fresh_trees
            if progress is not None:
                progress(
                    f"verification: {config.verify_games} games of the recommended "
                    f"parameters (trial {best.number}) vs {config.baseline_spec}"
                )
            result = verify_best(config, best, best_file, progress=progress)
            tally = result.tally
            low, high = wilson_interval(tally.points, tally.games)
            report.verification = {
                "games": tally.games,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "winrate": tally.rate,
                "ci95": [low, high],
                "candidate": result.config.agent_a,
                "baseline": result.config.agent_b,
                "seed": result.config.seed,
                "summary": result.summary(),
            }
    (out / "summary.json").write_text(
        json.dumps(_portable(report, out), indent=2, default=str) + "\n", encoding="utf-8"
    )
    return report


def _portable(report: StudyReport, folder: Path) -> dict[str, Any]:
    """``report`` as ``summary.json`` holds it: paths inside ``folder`` relative to it."""
    doc = asdict(report)
    for key in ("best_file", "profile_plot", "history_plot"):
        if doc[key] is not None:
            doc[key] = relative_inside(doc[key], folder)
    file = storage_file(doc["storage"])
    if file is not None:  # a server's URL stays
        prefix, path = file
        doc["storage"] = prefix + relative_inside(path, folder)
    return doc
