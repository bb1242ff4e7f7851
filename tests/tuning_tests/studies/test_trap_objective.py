"""Trap trees as the objective of a tuning study (``gomcts tune ... --objective traps``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import optuna
import pytest

from agents.cli import main
from agents.traps import TrapSearch, TrapTreeConfig, tree_seed
from tuning.search_spaces import make_space
from tuning.studies.objective import SEED_TRIAL
from tuning.studies.trap_objective import (
    TrapObjective,
    TrapObjectiveConfig,
    trap_seed,
    verify_on_fresh_trees,
)

TINY = TrapTreeConfig(b=3, depth=6, rho=0.3, k=1, deceptive=True)


def test_a_trial_is_the_winning_move_rate_on_its_own_trees() -> None:
    space = make_space("softmax", d=2)
    config = TrapObjectiveConfig(trees=TINY, sims=60, n_trees=8)
    objective = TrapObjective(space, config, study_seed=3)
    study = optuna.create_study(direction="maximize")
    study.enqueue_trial({"g0": -2.0, "g1": -1.0, "g2": 0.0})
    study.optimize(objective, n_trials=1)
    trial = study.trials[0]
    spec = trial.user_attrs["candidate"]
    assert spec == "softmax:g=[-2.0,-1.0,0.0]"
    seed = trap_seed(3, SEED_TRIAL, 0)
    assert trial.user_attrs["tree_seed"] == seed
    wins = sum(TrapSearch(spec, TINY).run(tree_seed(seed, i), 60).winning for i in range(8))
    assert trial.value == wins / 8
    assert (trial.user_attrs["games"], trial.user_attrs["points"]) == (8, wins)
    assert trial.user_attrs["ci_low"] <= trial.value <= trial.user_attrs["ci_high"]


def test_verification_is_paired_with_mean_on_fresh_trees(tmp_path: Path) -> None:
    space = make_space("monotone", d=1)
    config = TrapObjectiveConfig(trees=TINY, sims=40, n_trees=4, verify_trees=6)
    result = verify_on_fresh_trees(space, config, {"g0": 0.0, "g1": 1.0}, 5, out=tmp_path)
    assert result.baseline == "mean" and result.candidate.startswith("monotone:g=[0.0,1.0]")
    assert [c["backup"] for c in result.cells] == ["mean", result.candidate]
    assert result.cells[1]["vs_winning"] is not None
    assert (tmp_path / "table.md").read_text() == result.table
    assert (tmp_path / "results.jsonl").exists()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["candidate"] == result.candidate and summary["seed"] == result.seed
    assert summary["trees"] == 6 and summary["cells"] == json.loads(json.dumps(result.cells))


def test_bad_objective_settings_are_named() -> None:
    with pytest.raises(ValueError, match="n_trees must be an int >= 1"):
        TrapObjectiveConfig(n_trees=0)
    with pytest.raises(ValueError, match="policy must be one of"):
        TrapObjectiveConfig(policy="ucb")


def test_tune_command_runs_a_study_on_trap_trees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "tune",
        "softmax",
        "--objective",
        "traps",
        "--d",
        "1",
        "--trials",
        "3",
        "--startup-trials",
        "2",
        "--trap-sims",
        "40",
        "--trap-trees",
        "6",
        "--verify-trees",
        "8",
        "--b",
        "3",
        "--depth",
        "6",
        "--k",
        "1",
        "--rho",
        "0.3",
        "--deceptive",
        "--out",
        str(tmp_path),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "softmax-traps-n40" in out and "over 6 trees" in out
    assert "verification on 8 fresh trap trees" in out and "| mean | 40 | 8 |" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["trials"]["complete"] == 3
    assert summary["best"]["unit"] == "trees"
    assert f"its raw rate {summary['best']['winrate']:.3f} over 6 trees" in out
    assert " games" not in out
    assert (tmp_path / "verify-traps" / "table.md").exists()
    assert (tmp_path / "best-softmax.json").exists()
    # the same study with other trees is refused
    changed = [*args[:-1], str(tmp_path), "--sigma", "0.6"]
    changed[changed.index("--trials") + 1] = "4"
    assert main(changed) != 0
    assert "other settings" in capsys.readouterr().err


def test_a_trap_study_continues_from_plain_python_with_its_own_objective(
    tmp_path: Path,
) -> None:
    from tuning.samplers.noisy_gp import NoisyGPSampler
    from tuning.studies.resume import load_objective, load_study, study_config
    from tuning.studies.study import StudyConfig, run_study

    traps = TrapObjectiveConfig(trees=TINY, sims=30, n_trees=5, verify_trees=4)
    config = StudyConfig(
        space=make_space("softmax", d=1),
        agent="mcts:sims=30",
        trials=2,
        startup_trials=2,
        verify_games=0,
        traps=traps,
        out=tmp_path,
    )
    run_study(config, progress=None, outputs=False)
    storage = tmp_path / "study.db"
    study = load_study(config.name, storage)
    assert isinstance(study.sampler, NoisyGPSampler)
    resumed = study_config(config.name, storage)
    assert resumed.traps is not None and resumed.traps.identity() == traps.identity()
    assert resumed.identity() == config.identity()
    assert resumed.verify_games == 0  # no Go games: the verification is on fresh trees
    objective = load_objective(study)
    assert isinstance(objective, TrapObjective) and objective.config == resumed.traps
    study.optimize(objective, n_trials=1)
    third = study.trials[2]
    assert third.user_attrs["unit"] == "trees" and third.user_attrs["games"] == 5
    assert third.user_attrs["tree_seed"] == trap_seed(config.seed, SEED_TRIAL, 2)
    # the verification settings may change, the trees may not
    more = dataclasses.replace(traps, verify_trees=10, workers=2)
    assert study_config(config.name, storage, traps=more).traps == more
    with pytest.raises(ValueError, match="traps cannot be changed"):
        study_config(config.name, storage, traps=dataclasses.replace(traps, sims=40))
