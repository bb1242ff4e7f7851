from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import optuna
import pytest
from optuna.samplers import GPSampler
from optuna.trial import TrialState
from study_support import tiny_study

from agents.matches.results import ResultsFile
from agents.plugins import PluginError
from agents.registry import agent_config
from tuning.samplers.noisy_gp import posterior_at_trials
from tuning.studies.study import (
    StudyConfig,
    StudyIdentityError,
    TrialSeededSampler,
    load_study,
    run_study,
)


def results_file(config: StudyConfig, number: int) -> Path:
    return config.objective_config().results_file(number)


def games_in(path: Path) -> list[int]:
    return [json.loads(line)["index"] for line in path.read_text().splitlines()[1:]]


def test_tiny_study_completes_with_the_gp_sampler(tmp_path: Path) -> None:
    config = tiny_study(tmp_path, sampler="gp")
    lines: list[str] = []
    report = run_study(config, progress=lines.append)
    study = load_study(config)
    assert isinstance(study.sampler, GPSampler)
    trials = study.trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 5
    # the start-up trials are uniform; from then on the GP proposes the points
    assert all("gp:relative_params:0" not in t.system_attrs for t in trials[:3])
    assert all("gp:relative_params:0" in t.system_attrs for t in trials[3:])
    for t in trials:
        assert t.user_attrs["games"] == 4 and games_in(results_file(config, t.number)) == [
            0,
            1,
            2,
            3,
        ]
        assert t.value == t.user_attrs["points"] / 4
        assert t.intermediate_values.keys() == {2, 4}
        assert -10 <= t.params["g0"] <= 10
    assert any("best" in line and "trial 4" in line for line in lines)
    # outputs: a parameter file that the backup loads, the plots, the verification match
    raw_best = max(trials, key=lambda t: (t.value, -t.number))
    assert report.best_raw["number"] == raw_best.number
    # the recommendation is the best posterior mean of the fixed-noise GP, whatever sampler
    post = posterior_at_trials(trials)
    best = post.trials[int(np.argmax(post.mean))]
    assert report.best["number"] == best.number
    assert report.best["posterior_mean"] == pytest.approx(max(post.mean))
    # reported honestly: the estimate is the posterior mean less the selection bias
    b = report.best
    assert b["estimate"] == pytest.approx(b["posterior_mean"] - b["selection_bias"])
    assert f"estimate {b['estimate']:.3f}" in report.format()
    word = "less" if b["selection_bias"] >= 0 else "plus"
    assert (
        f"the posterior mean {b['posterior_mean']:.3f} {word} {abs(b['selection_bias']):.3f}, "
        "its estimated bias" in report.format()
    )
    meta = json.loads(Path(report.best_file).read_text())["meta"]
    assert meta["estimate"] == pytest.approx(b["estimate"]) and "selection_bias" in meta
    best_file = Path(report.best_file)
    spec = f'mcts:sims=8,backup="monotone:{best_file}"'
    assert list(agent_config(spec).backup_strategy().g) == [best.params[f"g{j}"] for j in range(3)]
    for plot in (report.profile_plot, report.history_plot):
        assert Path(plot).stat().st_size > 10_000
    assert report.verification["games"] == 4
    assert 0 <= report.verification["ci95"][0] <= report.verification["winrate"] <= 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["best"]["number"] == best.number
    for key in ("estimate", "posterior_mean", "posterior_sd", "selection_bias"):
        assert summary["best"][key] == pytest.approx(b[key])
    # its paths are relative to its folder: the folder can move, a re-run elsewhere rewrites it
    assert summary["best_file"] == best_file.name and summary["history_plot"] == "history.png"
    assert summary["storage"] == f"sqlite:///{Path(config.storage_url[10:]).name}"
    assert "recommended trial" in report.format() and "95% Wilson interval" in report.format()
    assert json.loads(best_file.read_text())["meta"]["posterior_sd"] == report.best["posterior_sd"]
    # the same command again: nothing to do; one more trial: exactly one more
    run_study(config, progress=None, outputs=False)
    assert len(load_study(config).trials) == 5
    run_study(tiny_study(tmp_path, trials=6, sampler="gp"), progress=None, outputs=False)
    again = load_study(config).trials
    assert len(again) == 6 and [t.value for t in again[:5]] == [t.value for t in trials]


def test_clear_losers_are_completed_with_their_running_winrate(tmp_path: Path) -> None:
    config = tiny_study(
        tmp_path,
        agent="mcts:sims=2",
        baseline="mcts:sims=64",
        games=12,
        batch=4,
        prune_z=1.0,
        prune_min_games=4,
        trials=2,
        startup_trials=5,
        verify_games=0,
    )
    run_study(config, progress=None)
    trials = load_study(config).trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 2  # none left PRUNED
    for t in trials:
        assert t.user_attrs["stopped_early"] is True
        games = t.user_attrs["games"]
        assert games < 12 and games % 4 == 0
        assert t.value == t.user_attrs["points"] / games
        assert t.user_attrs["ci_high"] < 0.5 or games >= 4
        assert len(games_in(results_file(config, t.number))) == games


def test_start_up_points_depend_on_seed_and_trial_number_only() -> None:
    def points(seed: int, skip: int) -> list[float]:
        """Points of trials 0..4 when the first ``skip`` come from elsewhere (a resumed study)."""
        study = optuna.create_study(sampler=TrialSeededSampler(seed))
        for _ in range(skip):
            study.enqueue_trial({"x": 0.5})
        study.optimize(lambda t: t.suggest_float("x", -1, 1), n_trials=5)
        return [t.params["x"] for t in study.trials]

    first = points(5, 0)
    assert first == points(5, 0) and len(set(first)) == 5
    assert points(5, 2)[2:] == first[2:]
    assert points(6, 0) != first


def test_other_settings_under_the_same_name_are_refused(tmp_path: Path) -> None:
    load_study(tiny_study(tmp_path))
    with pytest.raises(StudyIdentityError, match=r"games: stored 4, now 6"):
        load_study(tiny_study(tmp_path, games=6))
    load_study(tiny_study(tmp_path, games=6, study_name="other"))  # a new name is a new study


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"games": 5}, "games must be even"),
        ({"batch": 3}, "batch must be even"),
        ({"agent": "random"}, "no 'sims' and 'backup' parameters"),
        ({"agent": "mcts:sims=0"}, r"sims must be an int in \[1, "),
        ({"trials": -1}, "trials must be an int >= 0"),
        ({"sampler": "cmaes"}, "unknown sampler 'cmaes'; allowed: botorch, gp, tpe, random"),
    ],
)
def test_bad_study_settings(tmp_path: Path, changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tiny_study(tmp_path, **changes)


def test_unknown_baseline_agent(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="unknown agent 'nosuchagent'"):
        tiny_study(tmp_path, baseline="nosuchagent")


def test_results_file_header_matches_the_trial_match(tmp_path: Path) -> None:
    config = tiny_study(tmp_path)
    objective = config.objective_config()
    params = {"g0": 0.0, "g1": 1.0, "g2": 2.0}
    match = objective.match(params, 3)
    assert match.agent_a == 'mcts:sims=8,backup="monotone:g=[0.0,1.0,2.0]"'
    assert match.agent_b == "mcts:sims=8" and match.seed != objective.match(params, 4).seed
    assert ResultsFile(objective.results_file(3), match.identity()).load() == {}


def test_jobs_run_trials_in_parallel_processes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = tiny_study(tmp_path, jobs=2, trials=2, games=2, startup_trials=5, verify_games=0)
    lines: list[str] = []
    run_study(config, progress=lines.append, outputs=False)
    trials = load_study(config).trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * len(trials)
    assert 2 <= len(trials) <= 3
    pids = {t.user_attrs["worker"]["pid"] for t in trials}
    assert os.getpid() not in pids
    # The jobs' lines reach the caller's progress callable (the bar's writer in gomcts tune),
    # each whole, and none is printed past it onto the terminal.
    assert any(line.startswith(("[job 0] ", "[job 1] ")) for line in lines)
    assert all(line.startswith(("[job 0] ", "[job 1] ")) for line in lines[1:])
    assert any("done: winrate" in line for line in lines)
    assert "[job " not in capfd.readouterr().out


def test_the_noise_aware_gp_study_continues_from_plain_python(tmp_path: Path) -> None:
    from tuning.samplers.noisy_gp import NoisyGPSampler
    from tuning.studies.objective import Objective, WilsonPruner
    from tuning.studies.resume import load_objective, study_config
    from tuning.studies.resume import load_study as resume

    config = tiny_study(tmp_path / "run", trials=4)
    assert config.sampler == "botorch"  # the default
    report = run_study(config, progress=None, outputs=False)
    assert report is None
    storage = str(tmp_path / "run" / "study.db")
    # optuna.load_study alone: the trials, but TPE and the median pruner
    plain = optuna.load_study(study_name=config.name, storage=f"sqlite:///{storage}")
    assert isinstance(plain.sampler, optuna.samplers.TPESampler)
    assert isinstance(plain.pruner, optuna.pruners.MedianPruner)
    # tuning.studies.resume.load_study: the study's own sampler, pruner and objective
    study = resume(config.name, storage)
    assert isinstance(study.sampler, NoisyGPSampler) and study.sampler.seed == config.seed
    assert study.sampler.n_startup_trials == config.startup_trials
    assert isinstance(study.pruner, WilsonPruner) and study.pruner.min_games == config.min_games
    assert study_config(config.name, storage).identity() == config.identity()
    objective = load_objective(study)
    assert isinstance(objective, Objective)
    assert objective.config == config.objective_config()  # games go where the study keeps them
    study.optimize(objective, n_trials=1)
    trials = study.trials
    assert len(trials) == 5 and trials[4].state == TrialState.COMPLETE
    assert trials[4].user_attrs["variance"] > 0
    assert games_in(results_file(config, 4)) == [0, 1, 2, 3]
    # the trial after the start-up ones came from the GP, not from the uniform stream
    uniform = TrialSeededSampler(config.seed)
    assert trials[4].params != {
        name: uniform.sample_independent(study, trials[4], name, dist)
        for name, dist in config.space.distributions().items()
    }
    # the outputs: the recommendation is the best posterior mean, and it is verified
    finished = run_study(config, progress=None)
    post = posterior_at_trials(load_study(config).trials)
    assert finished.best["number"] == post.trials[int(np.argmax(post.mean))].number
    assert 0 < finished.best["posterior_sd"] < 0.5
    assert finished.verification["games"] == 4
    # clear errors
    with pytest.raises(ValueError, match=r"no study 'nope' in sqlite:///.*the studies there: "):
        resume("nope", storage)
    with pytest.raises(ValueError, match="the file does not exist"):
        resume(config.name, str(tmp_path / "missing.db"))
    with pytest.raises(ValueError, match="games cannot be changed"):
        study_config(config.name, storage, games=8)
    gp = tiny_study(tmp_path / "gp", trials=1, sampler="gp", verify_games=0)
    run_study(gp, progress=None, outputs=False)
    assert isinstance(resume(gp.name, str(tmp_path / "gp" / "study.db")).sampler, GPSampler)
    with pytest.raises(StudyIdentityError, match="sampler: stored 'gp', now 'botorch'"):
        load_study(tiny_study(tmp_path / "gp", trials=1))


def test_a_study_moved_with_its_folder_continues_where_it_now_is(tmp_path: Path) -> None:
    import shutil

    from tuning.studies.resume import load_objective, study_config
    from tuning.studies.resume import load_study as resume

    config = tiny_study(tmp_path / "made", trials=3, sampler="random")
    run_study(config, progress=None, outputs=False)
    moved = tmp_path / "moved"
    shutil.move(str(tmp_path / "made"), moved)  # the folder it was made in is gone
    storage = str(moved / "study.db")
    assert study_config(config.name, storage).out_dir == moved
    study = resume(config.name, storage)
    study.optimize(load_objective(study), n_trials=1)
    assert not (tmp_path / "made").exists()
    assert (moved / "games" / config.name / "trial-00003.jsonl").is_file()
    # the stored folder wins while it exists
    other = tiny_study(tmp_path / "out", trials=1, sampler="random", storage=str(tmp_path / "s.db"))
    run_study(other, progress=None, outputs=False)
    assert study_config(other.name, tmp_path / "s.db").out_dir == (tmp_path / "out").resolve()


def test_an_interrupted_trial_is_not_reported_by_optuna_but_other_failures_are(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    from tuning.studies.study import quiet_interrupts

    quiet_interrupts()
    quiet_interrupts()  # once is enough: no second filter
    assert len(logging.getLogger("optuna.study._optimize").filters) == 1
    study = optuna.create_study()

    def interrupted(trial: optuna.Trial) -> float:
        raise KeyboardInterrupt("signal 15")

    def broken(trial: optuna.Trial) -> float:
        raise ValueError("a real failure")

    with caplog.at_level(logging.WARNING, logger="optuna"):
        with pytest.raises(KeyboardInterrupt):
            study.optimize(interrupted, n_trials=1)
        assert [r for r in caplog.records if r.name == "optuna.study._optimize"] == []
        with pytest.raises(ValueError):
            study.optimize(broken, n_trials=1)
    messages = [r.getMessage() for r in caplog.records if r.name == "optuna.study._optimize"]
    assert len(messages) == 2 and "Trial 1 failed with parameters" in messages[0]
    assert "a real failure" in messages[0] and messages[1] == "Trial 1 failed with value None."


def test_the_summary_names_files_in_its_folder_relative_to_it(tmp_path: Path) -> None:
    from tuning.studies.outputs import StudyReport, _portable

    def report(storage: str, best: str) -> StudyReport:
        return StudyReport(
            study="s",
            storage=storage,
            trials={},
            best=None,
            best_file=best,
            profile_plot=None,
            history_plot=str(tmp_path / "history.png"),
            verification=None,
        )

    inside = _portable(report(f"journal:{tmp_path}/study.log", str(tmp_path / "b.json")), tmp_path)
    assert inside["storage"] == "journal:study.log" and inside["best_file"] == "b.json"
    assert inside["profile_plot"] is None and inside["history_plot"] == "history.png"
    server = "postgresql://user:***@db:5432/studies"
    elsewhere = _portable(report(server, "/elsewhere/b.json"), tmp_path)
    assert elsewhere["storage"] == server and elsewhere["best_file"] == "/elsewhere/b.json"
