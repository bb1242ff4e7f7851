from __future__ import annotations

from pathlib import Path

import pytest
from postgres_support import free_port

from agents.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tune", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch"], "unknown search space 'nosuch'; allowed: monotone, softmax"),
        (["monotone", "--bounds", "5", "-5"], "knot-height bounds are reversed or empty"),
        (["softmax+c", "--c-bounds", "0", "1"], "c bounds must be positive"),
        (["softmax", "--games", "7"], "games must be even"),
        (["softmax", "--agent", "random"], "no 'sims' and 'backup' parameters"),
        (["softmax", "--storage", "ftp://host/x"], "unknown storage URL scheme 'ftp'"),
    ],
)
def test_bad_configuration_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, err = run(capsys, *args, "--out", str(tmp_path))
    assert code == 2
    assert err.startswith("gomcts tune: error: ") and message in err


def test_unreachable_storage_url(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("psycopg2")
    url = f"postgresql://tuner:hunter2@127.0.0.1:{free_port()}/optuna"
    code, _, err = run(capsys, "monotone", "--storage", url, "--out", str(tmp_path))
    assert code == 2
    assert "cannot open the study storage" in err and "127.0.0.1" in err
    assert "hunter2" not in err


def test_trials_zero_reports_an_empty_study(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(
        capsys,
        "softmax",
        "--size",
        "5",
        "--agent",
        "mcts:sims=8",
        "--trials",
        "0",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    assert "study softmax-5x5-n8" in out and "no trial has finished yet" in out
    assert (tmp_path / "study.db").exists() and (tmp_path / "summary.json").exists()


def test_the_command_is_registered(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tune", "--help"])
    out = capsys.readouterr().out
    for option in ("--storage", "--trials", "--games", "--tune-c", "--verify-games", "--jobs"):
        assert option in out


def test_the_study_exists_before_the_progress_bar_polls_its_storage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar's thread and the study creation raced on a new SQLite file's schema
    ("IntegrityError: UNIQUE constraint failed: alembic_version.version_num")."""
    import optuna

    from tuning.studies import trial_bar

    seen: list[bool] = []
    real_init = trial_bar.TrialBar.__init__

    def checking_init(self: trial_bar.TrialBar, config: object, **kwargs: object) -> None:
        storage = f"sqlite:///{tmp_path / 'study.db'}"
        seen.append(config.name in optuna.get_all_study_names(storage))  # type: ignore[attr-defined]
        real_init(self, config, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trial_bar.TrialBar, "__init__", checking_init)
    args = ["softmax", "--size", "5", "--agent", "mcts:sims=8", "--trials", "0"]
    code, _, _ = run(capsys, *args, "--out", str(tmp_path))
    assert code == 0 and seen == [True]
