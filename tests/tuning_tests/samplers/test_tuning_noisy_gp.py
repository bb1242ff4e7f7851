"""The noise-aware GP: each trial's noise, the sampler, its recommendation, the simulation."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution

from tuning.samplers import SAMPLERS, TrialSeededSampler, make_sampler, noisy_gp, proposed_by_model
from tuning.samplers.noise import VARIANCE_ATTR, record_noise, trial_variance, winrate_variance
from tuning.samplers.noisy_gp import NoisyGPSampler, posterior_at_trials, recommend
from tuning.samplers.simulation import (
    SimulationConfig,
    TrueWinrate,
    run_simulation,
    simulate_run,
    summarize,
    write_outputs,
)
from tuning.search_spaces import make_space

X = {"x": FloatDistribution(0.0, 1.0)}


def test_winrate_variance_is_binomial_with_a_shrink_at_the_edges() -> None:
    # (w + 1/2) / (n + 1) then p(1-p)/n
    assert winrate_variance(30, 60) == pytest.approx(0.5 * 0.5 / 60)
    assert winrate_variance(45, 60) == pytest.approx((45.5 / 61) * (15.5 / 61) / 60)
    # a trial that lost or won every game is not exact
    assert winrate_variance(0, 20) == pytest.approx((0.5 / 21) * (20.5 / 21) / 20)
    assert winrate_variance(20, 20) == pytest.approx(winrate_variance(0, 20))
    assert winrate_variance(10.5, 20) > 0  # draws are half points
    # more games, less noise
    assert winrate_variance(120, 200) < winrate_variance(36, 60)
    with pytest.raises(ValueError, match="games must be an int >= 1"):
        winrate_variance(0, 0)
    with pytest.raises(ValueError, match=r"points must be a number in \[0, games=10\]"):
        winrate_variance(11, 10)


def test_a_trial_records_its_noise_and_old_trials_are_read_from_games_and_points() -> None:
    study = optuna.create_study(direction="maximize")
    trial = study.ask(X)
    assert record_noise(trial, 15.0, 20) == winrate_variance(15.0, 20)
    study.tell(trial, 0.75)
    done = study.trials[0]
    assert done.user_attrs == {
        "games": 20,
        "points": 15.0,
        VARIANCE_ATTR: pytest.approx((15.5 / 21) * (5.5 / 21) / 20),
    }
    assert trial_variance(done) == winrate_variance(15.0, 20)
    old = study.ask(X)
    old.set_user_attr("games", 60)
    old.set_user_attr("points", 30.0)
    study.tell(old, 0.5)
    assert trial_variance(study.trials[1]) == winrate_variance(30.0, 60)
    bare = study.ask(X)
    study.tell(bare, 0.5)
    with pytest.raises(ValueError, match=r"trial 2 has no noise.*'variance'.*record_noise"):
        trial_variance(study.trials[2])


def _fixed_study(points: list[tuple[float, float, int]]) -> optuna.Study:
    study = optuna.create_study(direction="maximize")
    for x, wins, games in points:
        study.enqueue_trial({"x": x})
        trial = study.ask(X)
        record_noise(trial, wins, games)
        study.tell(trial, wins / games)
    return study


def test_the_recommendation_is_the_best_posterior_mean_not_the_luckiest_trial() -> None:
    # precise trials (400 games) along a smooth curve, and one lucky 2-game trial that won both
    # near the low end of the curve
    curve = [(x, round(400 * (0.45 + 0.2 * x)), 400) for x in (0.0, 0.3, 0.5, 0.7, 0.9)]
    study = _fixed_study([*curve, (0.15, 2, 2)])
    post = posterior_at_trials(study.trials)
    pick = recommend(study)
    assert pick is not None
    assert pick.trial.number == int(np.argmax(post.mean))
    assert study.best_trial.number == 5  # the raw best is the lucky one ...
    assert pick.trial.number == 4  # ... the posterior mean trusts 400 games more
    assert pick.value == pytest.approx(curve[-1][1] / 400)
    assert pick.posterior_mean == pytest.approx(pick.value, abs=0.02)  # precise: barely shrunk
    assert pick.mean == pytest.approx(pick.value, abs=0.03)  # and the choice costs little
    assert post.mean[5] < 0.55  # the lucky trial is pulled down to its neighbours
    assert 0 < pick.sd < 0.03
    assert post.sd[5] < post.noise_sd[5] / 5  # its neighbours know more than its 2 games
    assert pick.noise_sd == pytest.approx(winrate_variance(curve[-1][1], 400) ** 0.5)
    assert "posterior mean" in pick.describe() and "400 games" in pick.describe()
    tree_trial = study.trials[4]
    tree_trial.user_attrs["unit"] = "trees"  # a trial of the trap-tree objective
    assert dataclasses.replace(pick, trial=tree_trial).describe().endswith("over 400 trees")


def _noisy_objective(seed: int):
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        y = trial.suggest_float("y", 0.0, 1.0)
        p = 0.35 + 0.3 * np.exp(-((x - 0.7) ** 2 + (y - 0.3) ** 2) / 0.18)
        wins = np.random.default_rng([seed, trial.number]).binomial(40, p)
        record_noise(trial, float(wins), 40)
        return wins / 40

    return objective


def test_the_sampler_runs_a_tiny_study_reproducibly() -> None:
    def run(seed: int) -> optuna.Study:
        sampler = NoisyGPSampler(
            seed=seed, n_startup_trials=4, independent_sampler=TrialSeededSampler(seed)
        )
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.optimize(_noisy_objective(0), n_trials=8)
        return study

    study = run(3)
    params = [t.params for t in study.trials]
    # start-up points are the trial-seeded ones; after them the GP proposes its own
    uniform = optuna.create_study(sampler=TrialSeededSampler(3))
    uniform.optimize(lambda t: t.suggest_float("x", 0, 1) + t.suggest_float("y", 0, 1), 8)
    assert params[:4] == [t.params for t in uniform.trials[:4]]
    assert all(p != u.params for p, u in zip(params[4:], uniform.trials[4:], strict=True))
    assert all(0 <= p["x"] <= 1 and 0 <= p["y"] <= 1 for p in params)
    assert [proposed_by_model(t) for t in study.trials] == [False] * 4 + [True] * 4
    assert [t.params for t in run(3).trials] == params  # same seed, same study
    assert [t.params for t in run(4).trials][4:] != params[4:]
    pick = recommend(study)
    post = posterior_at_trials(study.trials)
    assert pick is not None and pick.trial.number == int(np.argmax(post.mean))


def test_the_sampler_knows_pending_trials_and_minimisation() -> None:
    sampler = NoisyGPSampler(seed=0, n_startup_trials=3)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    objective = _noisy_objective(1)
    study.optimize(lambda t: 1 - objective(t), n_trials=4)
    running = study.ask()  # a trial another worker runs
    running.suggest_float("x", 0, 1)
    running.suggest_float("y", 0, 1)
    nxt = study.ask()
    x, y = nxt.suggest_float("x", 0, 1), nxt.suggest_float("y", 0, 1)
    assert (x, y) != (running.params["x"], running.params["y"])
    pick = recommend(study)
    post = posterior_at_trials([t for t in study.trials if t.state.is_finished()])
    assert pick is not None and pick.trial.number == post.trials[int(np.argmin(post.mean))].number


def test_the_gp_is_told_each_trials_recorded_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    # trials of 2, 40 and 400 games: the GP must get each one's own variance, not one level
    study = _fixed_study([(0.1, 1, 2), (0.4, 20, 40), (0.6, 250, 400), (0.9, 30, 40)])
    seen: list[np.ndarray] = []
    real_fit = noisy_gp._fit

    def spy(x: np.ndarray, y: np.ndarray, yvar: np.ndarray, **options: bool) -> object:
        seen.append(np.array(yvar))
        return real_fit(x, y, yvar, **options)

    monkeypatch.setattr(noisy_gp, "_fit", spy)
    expected = [trial_variance(t) for t in study.trials]
    assert expected[0] > 10 * expected[2]
    posterior_at_trials(study.trials)
    study.sampler = NoisyGPSampler(seed=0, n_startup_trials=2, num_restarts=2, raw_samples=32)
    trial = study.ask(X)
    assert noisy_gp.PROPOSED_KEY in study.trials[-1].system_attrs
    assert 0 <= trial.params["x"] <= 1
    assert len(seen) == 2
    for yvar in seen:
        assert yvar == pytest.approx(expected)
    # a trial that recorded no noise is refused by name, not given a made-up one
    bare = study.ask({"x": FloatDistribution(0.0, 1.0)})
    study.tell(bare, 0.5)
    with pytest.raises(ValueError, match=r"trial 5 has no noise"):
        study.ask(X)


def test_a_pending_trial_pushes_the_next_proposal_away(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(8, 2))
    p = 0.35 + 0.3 * np.exp(-((x[:, 0] - 0.7) ** 2 + (x[:, 1] - 0.3) ** 2) / 0.18)
    y = rng.binomial(40, p) / 40
    yvar = np.array([winrate_variance(40 * v, 40) for v in y])
    sampler = NoisyGPSampler(seed=0, n_startup_trials=3, num_restarts=4, raw_samples=64)
    alone = sampler._propose(x, y, yvar, None, 5)
    assert sampler._propose(x, y, yvar, None, 5) == pytest.approx(alone)  # seeded
    # the same seed and data, with a trial already running at that point: the acquisition
    # (noisy EI over the joint posterior with the pending point) looks elsewhere
    other = sampler._propose(x, y, yvar, alone[None, :], 5)
    assert np.linalg.norm(other - alone) > 0.1
    # and sample_relative hands the running trials of other workers over as pending points
    study = _fixed_study([(float(v), 20, 40) for v in (0.1, 0.4, 0.6, 0.9)])
    running = study.ask(X)
    given: list[np.ndarray | None] = []

    def record(
        x: np.ndarray, y: np.ndarray, yvar: np.ndarray, pending: np.ndarray | None, seed: int
    ) -> np.ndarray:
        given.append(pending)
        return x[0]

    monkeypatch.setattr(sampler, "_propose", record)
    study.sampler = sampler
    study.ask(X)
    assert given[0] is not None and given[0].tolist() == [[running.params["x"]]]


def test_bad_sampler_settings_and_names() -> None:
    with pytest.raises(ValueError, match="n_startup_trials must be an int >= 1"):
        NoisyGPSampler(n_startup_trials=0)
    with pytest.raises(ValueError, match="unknown sampler 'bo'; allowed: botorch, gp, tpe, random"):
        make_sampler("bo", seed=0, startup_trials=3)
    assert isinstance(make_sampler("botorch", seed=0, startup_trials=3), NoisyGPSampler)
    assert SAMPLERS[0] == "botorch"


def test_the_true_winrate_spans_its_range() -> None:
    space = make_space("softmax", d=5)
    truth = TrueWinrate(space)
    low, high = space.box
    optimum = {f"g{j}": low + a * (high - low) for j, a in enumerate(truth.optimum)}
    assert truth(optimum) == pytest.approx(0.65)
    corner = {f"g{j}": low for j in range(6)}
    assert 0.35 <= truth(corner) < 0.4
    with pytest.raises(ValueError, match="need 6 values"):
        TrueWinrate(space, optimum=(0.5,))


def test_a_small_simulation_scores_the_recommended_points(tmp_path: Path) -> None:
    config = SimulationConfig(
        methods=("botorch", "random"), games=(20,), seeds=2, trials=7, startup_trials=4,
        out=tmp_path,
    )  # fmt: skip
    lines: list[str] = []
    records = run_simulation(config, progress=lines.append)
    assert len(records) == 4 and len(lines) == 4
    space = config.search_space()
    truth = TrueWinrate(space)
    for r in records:
        assert 0.35 <= r["posterior_true"] <= r["best_evaluated_true"] <= 0.65
        assert 0.35 <= r["raw_true"] <= r["best_evaluated_true"]
    # the random runs' start-up points are those of the GP runs: paired by seed
    again = simulate_run("random", 20, 0, space=space, truth=truth, trials=7, startup_trials=4)
    first = next(r for r in records if r["method"] == "random" and r["seed"] == 0)
    assert again["raw_true"] == first["raw_true"]
    # resumable: nothing left to run
    assert len(run_simulation(config, progress=lines.append)) == 4 and len(lines) == 4
    rows = summarize(records)
    assert {(r["method"], r["recommender"]) for r in rows} == {
        (m, k) for m in ("botorch", "random") for k in ("raw", "posterior")
    }
    ref = next(r for r in rows if r["method"] == "botorch" and r["recommender"] == "posterior")
    assert "diff" not in ref and ref["ci95"][0] <= ref["mean"] <= ref["ci95"][1]
    assert ref["regret"] == pytest.approx(0.65 - ref["mean"])
    paths = write_outputs(config, records)
    assert "| 20 | noise-aware GP (BoTorch) | best posterior mean |" in paths["table"].read_text()
    assert paths["plot"].stat().st_size > 10_000
    assert json.loads(paths["summary"].read_text())["rows"] == json.loads(json.dumps(rows))
    other = SimulationConfig(
        methods=("random",), games=(20,), seeds=1, trials=8, startup_trials=4, out=tmp_path
    )
    with pytest.raises(ValueError, match="other settings"):
        run_simulation(other, progress=None)
    with pytest.raises(ValueError, match="unknown methods"):
        SimulationConfig(methods=("bo",))


def test_the_recommendation_is_corrected_for_choosing_the_best_posterior_mean() -> None:
    # 20 trials of 100 games at points that differ by noise alone (true winrate 0.5): the
    # best posterior mean is the luckiest region, and the correction takes most of it back
    rng = np.random.default_rng(5)
    xs = rng.uniform(size=20)
    flat = _fixed_study([(float(x), float(rng.binomial(100, 0.5)), 100) for x in xs])
    pick = recommend(flat)
    assert pick is not None and pick.posterior_mean is not None
    assert pick.selection_bias > 0.002
    assert pick.mean == pytest.approx(pick.posterior_mean - pick.selection_bias)
    assert 0.2 * pick.sd < pick.selection_bias < 2 * pick.sd  # about one posterior sd
    assert "less" in pick.describe() and "for the selection and the smoothing" in pick.describe()
    raised = dataclasses.replace(pick, selection_bias=-0.004, mean=pick.posterior_mean + 0.004)
    assert f"posterior mean {pick.posterior_mean:.3f} plus 0.004 for" in raised.describe()
    # one region clearly better (0.8 against 0.3 elsewhere): the choice costs nearly nothing
    clear = _fixed_study(
        [(float(x), float(rng.binomial(100, 0.8 if x > 0.7 else 0.3)), 100) for x in xs]
    )
    sharp = recommend(clear)
    assert sharp is not None and sharp.trial.params["x"] > 0.7
    assert abs(sharp.selection_bias) < pick.selection_bias
    # the same study gives the same correction (seeded by its number of trials)
    again = recommend(flat)
    assert again is not None and again.selection_bias == pick.selection_bias


def test_the_second_level_keeps_the_correction_for_noise_and_removes_it_for_a_real_winner() -> None:
    rng = np.random.default_rng(5)
    xs = rng.uniform(size=20)
    # pure noise: the bootstrap's world (the posterior means) is nearly the true flat one, so
    # the second level changes little: the correction stays about the single bootstrap's
    flat = posterior_at_trials(
        _fixed_study([(float(x), float(rng.binomial(100, 0.5)), 100) for x in xs]).trials
    )
    single = noisy_gp.selection_bias(flat, second_level=None)
    double = noisy_gp.selection_bias(flat)
    assert single > 0.2 * flat.sd[np.argmax(flat.mean)]
    assert abs(double - single) < 0.3 * single
    # a real winner (0.58 where x > 0.7, 0.5 elsewhere): the posterior means' region is
    # lower than the truth's, so the single bootstrap takes its choice for more luck than it
    # is; the second level sees that and the correction turns to the smoother's pull down
    for seed in (5, 6, 7):
        rng = np.random.default_rng(seed)
        xs = rng.uniform(size=20)
        real = posterior_at_trials(
            _fixed_study(
                [(float(x), float(rng.binomial(100, 0.58 if x > 0.7 else 0.5)), 100) for x in xs]
            ).trials
        )
        first = noisy_gp.selection_bias(real, second_level=None)
        second = noisy_gp.selection_bias(real)
        assert second < first and second < 0, (seed, first, second)
    with pytest.raises(ValueError, match="draws must be an int >= 1"):
        noisy_gp.selection_bias(flat, draws=0)
    with pytest.raises(ValueError, match=r"second_level must be \(worlds, draws\)"):
        noisy_gp.selection_bias(flat, second_level=(10, 0))


def test_the_signal_variance_is_learnt_not_the_spread_of_the_values() -> None:
    # pure noise: the averaged posterior shrinks every trial towards the common level, far
    # more than a model whose signal variance is the values' spread would
    rng = np.random.default_rng(2)
    xs = rng.uniform(size=20)
    study = _fixed_study([(float(x), float(rng.binomial(100, 0.5)), 100) for x in xs])
    post = posterior_at_trials(study.trials)
    spread = np.ptp(post.value)
    assert np.ptp(post.mean) < 0.5 * spread
    assert np.all(post.sd < post.noise_sd)  # the pooled trials know more than one alone


def test_input_warping_fits_a_warp_and_the_smoother_uses_the_warped_points() -> None:
    torch = pytest.importorskip("torch")
    # a step at x = 0.7: the warp is free to stretch it; the default model has no warp
    points = [(k / 9, 20.0 + (14.0 if k / 9 > 0.7 else 0.0), 40) for k in range(10)]
    x = np.array([[p[0]] for p in points])
    y = np.array([w / g for _, w, g in points])
    yvar = np.full(10, 1 / 160)
    plain = noisy_gp._fit(x, y, yvar)
    assert getattr(plain.model, "input_transform", None) is None
    warped = noisy_gp._fit(x, y, yvar, input_warp=True)
    assert type(warped.model.input_transform).__name__ == "Warp"
    with torch.no_grad():
        warped_x = warped.model.input_transform(torch.as_tensor(x)).numpy()
        base = warped.model.covar_module.kernels[1].base_kernel
        expected = base(torch.as_tensor(warped_x)).to_dense().numpy()
    assert not np.allclose(warped_x, x)  # the fitted warp moves the points
    assert np.allclose(noisy_gp._correlation(warped), expected)
    post = posterior_at_trials(_fixed_study(points).trials, input_warp=True)
    assert np.all(np.isfinite(post.mean)) and np.all(post.sd > 0)
