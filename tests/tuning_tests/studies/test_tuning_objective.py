from __future__ import annotations

import optuna
import pytest
from optuna.trial import TrialState

from tuning.studies.objective import SEED_TRIAL, SEED_VERIFY, WilsonPruner, derive_seed
from tuning.studies.recovery import origin_of, process_alive, process_identity, retry_trial


def _reported(pruner: WilsonPruner, points: list[tuple[int, float]]) -> bool:
    study = optuna.create_study(direction="maximize", pruner=pruner)
    trial = study.ask()
    for games, rate in points:
        trial.report(rate, step=games)
    return trial.should_prune()


def test_pruner_stops_only_clear_losers() -> None:
    pruner = WilsonPruner(z=2.576, min_games=8)
    # 0 of 8: upper 99% Wilson bound z^2 / (n + z^2) = 0.453 < 0.5
    assert pruner.upper_bound(0.0, 8) == pytest.approx(2.576**2 / (8 + 2.576**2))
    assert _reported(pruner, [(4, 0.0), (8, 0.0)])
    # 0 of 4 would also be below... no: 0.624 > 0.5, and 4 < min_games anyway
    assert not _reported(pruner, [(4, 0.0)])
    assert not _reported(WilsonPruner(z=2.576, min_games=2), [(4, 0.0)])
    # 3 of 10 is bad but not clearly below 0.5
    assert not _reported(pruner, [(10, 0.3)])
    # 20 of 100 is
    assert _reported(pruner, [(100, 0.2)])
    assert not _reported(pruner, [])


@pytest.mark.parametrize("kwargs", [{"threshold": 1.0}, {"z": 0.0}, {"min_games": 0}])
def test_pruner_settings_are_checked(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        WilsonPruner(**kwargs)


def test_seeds_differ_by_purpose_and_number() -> None:
    seeds = {derive_seed(7, p, n) for p in (SEED_TRIAL, SEED_VERIFY) for n in range(50)}
    assert len(seeds) == 100
    assert derive_seed(7, SEED_TRIAL, 3) == derive_seed(7, SEED_TRIAL, 3)
    assert derive_seed(8, SEED_TRIAL, 3) != derive_seed(7, SEED_TRIAL, 3)


def test_retry_keeps_parameters_origin_and_counts_attempts() -> None:
    study = optuna.create_study(direction="maximize")
    first = study.ask()
    first.suggest_float("g0", -1, 1)
    study.tell(first, state=TrialState.FAIL)
    failed = study.trials[0]
    assert retry_trial(study, failed, max_retry=2, reason="test")
    second = study.ask()
    assert second.suggest_float("g0", -1, 1) == failed.params["g0"]  # the queued value
    assert origin_of(second) == 0 and second.user_attrs["attempt"] == 1
    study.tell(second, state=TrialState.FAIL)
    assert retry_trial(study, study.trials[1], max_retry=2, reason="test")
    third = study.ask()
    third.suggest_float("g0", -1, 1)
    assert origin_of(third) == 0 and third.user_attrs["attempt"] == 2
    study.tell(third, state=TrialState.FAIL)
    lines: list[str] = []
    assert not retry_trial(
        study, study.trials[2], max_retry=2, reason="test", progress=lines.append
    )
    assert "left FAIL" in lines[0]
    assert not [t for t in study.trials if t.state == TrialState.WAITING]


def test_a_trial_without_parameters_is_not_retried() -> None:
    study = optuna.create_study()
    trial = study.ask()
    study.tell(trial, state=TrialState.FAIL)
    assert not retry_trial(study, study.trials[0], max_retry=3, reason="test")


def test_process_identity_and_liveness() -> None:
    me = process_identity()
    assert process_alive(me)
    assert not process_alive({**me, "start": (me["start"] or 0) + 1}) or me["start"] is None
    assert not process_alive({"host": me["host"], "pid": 2**22 + 12345, "start": None})
