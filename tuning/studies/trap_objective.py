"""Trap trees as the objective of a tuning study: the BO loop where the truth is known.

``gomcts tune softmax --objective traps ...`` runs the same study (:mod:`tuning.studies.study`: the
same storage, sampler, search space, resumption and outputs) with this objective instead of
arena games. A trial searches ``n_trees`` trap trees (``docs/traps.md``) with the trial's
backup at ``sims`` simulations, through :func:`agents.traps.grid.run_grid`, and its value is
the **winning-move rate**: the share of trees where the decision is a winning move. A trial
takes seconds, and the rate has the noise of a proportion over ``n_trees`` trees, recorded as
the user attributes ``games`` (the trees) and ``points`` (the winning decisions), as a
winrate over games is, so a noise-aware sampler reads it the same way.

Trees: trial ``t`` (or the trial it retries) searches the trees of the grid seed
``derive_seed(study seed, SEED_TRIAL, t) mod 10^9``: fresh trees for every trial, so the
value is a noisy measurement of the rate over the tree family, not a fit to one set of trees.
:func:`verify_on_fresh_trees` compares the recommended parameters with the baseline backup,
paired, on ``verify_trees`` trees of the seed ``derive_seed(study seed, SEED_VERIFY, 0) mod
10^9``, which no trial has seen.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna

from agents.matches.stats import wilson_interval
from agents.traps import (
    POLICIES,
    GridConfig,
    TrapTreeConfig,
    markdown_table,
    run_grid,
    summarise,
)
from go_env.validation import check_int
from tuning.search_spaces import SearchSpace
from tuning.studies.objective import SEED_TRIAL, SEED_VERIFY, derive_seed, origin_of

__all__ = [
    "TrapObjective",
    "TrapObjectiveConfig",
    "TrapVerification",
    "trap_seed",
    "verify_on_fresh_trees",
]

Progress = Callable[[str], None]

SEED_MODULUS = 10**9


def trap_seed(study_seed: int, purpose: int, number: int) -> int:
    """The grid seed of a trial's (or the verification's) trees."""
    return derive_seed(study_seed, purpose, number) % SEED_MODULUS


@dataclass(frozen=True, kw_only=True)
class TrapObjectiveConfig:
    """What a trap-tree trial searches.

    Attributes:
        trees: The tree family (default: deceptive traps, where backups differ).
        sims: Simulations per search (the budget ``N`` the backup is bound to).
        n_trees: Trees per trial.
        policy: Tree policy (:data:`agents.traps.POLICIES`).
        c: Exploration constant; ``None`` the project's default (unless the space tunes c).
        baseline: Backup the recommendation is compared with on fresh trees.
        verify_trees: Fresh trees of that comparison (0: none).
        workers: Worker processes of a trial's searches.
    """

    trees: TrapTreeConfig = field(default_factory=lambda: TrapTreeConfig(deceptive=True))
    sims: int = 1000
    n_trees: int = 200
    policy: str = "uct"
    c: float | None = None
    baseline: str = "mean"
    verify_trees: int = 500
    workers: int = 1

    def __post_init__(self) -> None:
        for name, low in (("sims", 1), ("n_trees", 1), ("verify_trees", 0), ("workers", 1)):
            check_int(f"traps objective: {name}", getattr(self, name), min=low)
        if self.policy not in POLICIES:
            raise ValueError(
                f"traps objective: policy must be one of {', '.join(POLICIES)}, got {self.policy!r}"
            )

    def identity(self) -> dict[str, Any]:
        """What decides the trials (stored with the study); not the verification or workers."""
        return {
            "trees": self.trees.to_dict(),
            "sims": self.sims,
            "n_trees": self.n_trees,
            "policy": self.policy,
            "c": self.c,
        }

    def grid(self, backups: tuple[str, ...], seed: int, n_trees: int, c: float | None) -> Any:
        """The grid of one trial or of the verification."""
        return GridConfig(
            trees=self.trees,
            backups=backups,
            budgets=(self.sims,),
            n_trees=n_trees,
            seed=seed,
            policy=self.policy,
            c=c,
            chunk=max(1, -(-n_trees // (4 * self.workers))),
        )


class TrapObjective:
    """The Optuna objective: the winning-move rate of the trial's backup on trap trees.

    Args:
        space: The search space (its backup and knots; ``c`` when it tunes it).
        config: The trees and the search.
        study_seed: The study seed (the trial's trees derive from it).
        progress: Receives a line per trial (``None``: silent).
    """

    def __init__(
        self,
        space: SearchSpace,
        config: TrapObjectiveConfig,
        study_seed: int,
        progress: Progress | None = None,
    ) -> None:
        self.space = space
        self.config = config
        self.study_seed = study_seed
        self.progress = progress

    def backup_and_c(self, params: Mapping[str, float]) -> tuple[str, float | None]:
        """The backup spec and exploration constant of a point."""
        c = float(params["c"]) if self.space.tune_c else self.config.c
        return self.space.backup_spec(params), c

    def __call__(self, trial: optuna.Trial) -> float:
        """Search the trial's trees; return the winning-move rate."""
        params = self.space.suggest(trial)
        spec, c = self.backup_and_c(params)
        origin = origin_of(trial)
        seed = trap_seed(self.study_seed, SEED_TRIAL, origin)
        config = self.config
        results = run_grid(config.grid((spec,), seed, config.n_trees, c), workers=config.workers)
        trees = results.cell(spec, config.sims)
        wins = sum(t.winning for t in trees)
        trapped = [t for t in trees if t.root_traps > 0]
        low, high = wilson_interval(wins, len(trees))
        trial.set_user_attr("origin", origin)
        trial.set_user_attr("candidate", spec)
        trial.set_user_attr("tree_seed", seed)
        trial.set_user_attr("unit", "trees")
        trial.set_user_attr("games", len(trees))
        trial.set_user_attr("points", wins)
        trial.set_user_attr("ci_low", low)
        trial.set_user_attr("ci_high", high)
        trial.set_user_attr(
            "trap_rate", sum(t.trap for t in trapped) / len(trapped) if trapped else None
        )
        return wins / len(trees)


@dataclass(frozen=True)
class TrapVerification:
    """The recommended backup against the baseline on fresh trees, paired.

    Attributes:
        candidate: The recommended backup's spec.
        baseline: The baseline backup.
        seed: Grid seed of the fresh trees.
        table: Markdown table (rates with 95% intervals, paired sign tests).
        cells: The summaries (as dicts).
    """

    candidate: str
    baseline: str
    seed: int
    table: str
    cells: list[dict[str, Any]]


def verify_on_fresh_trees(
    space: SearchSpace,
    config: TrapObjectiveConfig,
    params: Mapping[str, float],
    study_seed: int,
    *,
    out: str | Path | None = None,
    progress: bool = False,
) -> TrapVerification:
    """Search ``config.verify_trees`` fresh trees with the baseline and with ``params``.

    Args:
        space: The study's search space.
        config: The objective's settings.
        params: The recommended point.
        study_seed: The study seed (the fresh trees' seed derives from it).
        out: Folder for the resumable results file, the table (``table.md``) and the
            numbers (``summary.json``: the point, the trees' seed, each backup's rates).
        progress: Show a progress bar.
    """
    objective = TrapObjective(space, config, study_seed)
    spec, c = objective.backup_and_c(params)
    seed = trap_seed(study_seed, SEED_VERIFY, 0)
    grid = config.grid((config.baseline, spec), seed, config.verify_trees, c)
    grid = dataclasses.replace(grid, chunk=50)
    results_file = Path(out) / "results.jsonl" if out is not None else None
    results = run_grid(grid, results=results_file, workers=config.workers, progress=progress)
    summaries = summarise(results)
    table = markdown_table(summaries, grid.reference)
    verification = TrapVerification(
        candidate=spec,
        baseline=config.baseline,
        seed=seed,
        table=table,
        cells=[dataclasses.asdict(s) for s in summaries],
    )
    if out is not None:
        (Path(out) / "table.md").write_text(table, encoding="utf-8")
        summary = {
            "params": dict(params),
            "candidate": spec,
            "baseline": config.baseline,
            "seed": seed,
            "trees": config.verify_trees,
            "sims": config.sims,
            "setup": grid.setup(),
            "cells": verification.cells,
        }
        (Path(out) / "summary.json").write_text(
            json.dumps(summary, indent=1) + "\n", encoding="utf-8"
        )
    return verification
