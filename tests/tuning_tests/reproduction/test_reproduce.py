"""Experiment plans and `gomcts reproduce` (tuning/reproduction/plan.py, runner.py)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from scripts_support import kill_after_lines

from agents.cli import main
from agents.matches.results import read_results
from agents.mcts.backups import BACKUPS
from agents.mcts.backups.softmax import SoftmaxBackup
from tuning.reproduction.plan import PlanError, load_plan
from tuning.reproduction.runner import (
    RowChangedError,
    RowWaitingError,
    arena_command,
    match_config,
    run_plan,
)
from tuning.reproduction.table import BEGIN, END

ROOT = Path(__file__).resolve().parents[3]

HEAD = """
[plan]
name = "tiny"
out = "out"
docs = "doc.md"

[setting]
size = 5
komi = 2.5
sims = {sims}
paper_sims = 5000
agent = "mcts:sims={{sims}}"
openings = "random:1"
"""

MATCHES = """
[[row]]
id = "aa"
table = "control"
label = "mean vs mean"
paper = 50.0
candidate = "mean"
games = {games}
seed = 1

[[row]]
id = "coulom"
label = "Coulom vs mean"
paper = "44.9"
candidate = "coulom:a=2,b=16"
games = {games}
seed = 1
compare_with = ["aa"]
"""

STUDY = """
[[row]]
id = "bo"
kind = "study"
space = "softmax"
d = 1
trials = 2
startup_trials = 2
games = 2
batch = 2
seed = 0
sampler = "gp"

[[row]]
id = "tuned"
candidate = "softmax:@study:bo"
games = 2
seed = 3
"""


def write_plan(folder: Path, body: str, *, sims: int = 4, games: int = 4) -> Path:
    path = folder / "plan.toml"
    path.write_text(HEAD.format(sims=sims) + body.format(games=games), encoding="utf-8")
    return path


def quiet(_: str) -> None:
    pass


def test_tiny_plan_runs_end_to_end_with_a_study_reference_and_writes_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_plan(tmp_path, MATCHES + STUDY)
    (tmp_path / "doc.md").write_text(f"before\n{BEGIN}\nplaceholder\n{END}\nafter\n")
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", str(path), "--workers", "1"]) == 0
    plan = load_plan(path)
    for row in ("aa", "coulom", "tuned"):
        _, games = read_results(plan.folder(row) / "results.jsonl")
        assert len(games) == plan.row(row).games
        assert (plan.folder(row) / "summary.json").exists()
        assert (plan.folder(row) / "winrate.png").exists()
        record = json.loads((plan.folder(row) / "row.json").read_text())
        assert record["id"] == row and record["plan"] == "plan.toml"  # given absolute
    study = json.loads((plan.folder("bo") / "study.json").read_text())
    assert study["sampler"] == "gp" and study["params_file"] == "out/bo/best-softmax.json"
    tuned = json.loads((plan.folder("tuned") / "row.json").read_text())["definition"]
    assert "out/bo/best-softmax.json" in tuned["agent_a"]
    assert set(tuned["study_params_sha256"]) == {"bo"}
    table = json.loads((plan.out / "results.json").read_text())
    assert table["plan_file"] == "plan.toml"  # given absolute, written relative to the root
    rows = {row["id"]: row for row in table["rows"]}
    assert rows["aa"]["games"] == 4 and rows["aa"]["paper"] == 50.0
    low, high = rows["aa"]["ci95"]
    assert low <= rows["aa"]["rate"] <= high
    assert rows["coulom"]["paired"][0]["with"] == "aa"
    assert rows["coulom"]["paired"][0]["games"] == 4
    assert rows["bo"]["finished"] and rows["bo"]["sampler"] == "gp"
    markdown = (plan.out / "results.md").read_text()
    assert "| `coulom` |" in markdown and "4/4" in markdown and "4/5000" in markdown
    doc = (tmp_path / "doc.md").read_text()
    assert "placeholder" not in doc and "| `aa` |" in doc and doc.endswith(f"{END}\nafter\n")
    # a second run plays nothing and keeps the results
    lines: list[str] = []
    run_plan(plan, workers=1, say=lines.append)
    assert "14/14 games already played" in lines[0]  # 4 + 4 + 2 trials x 2 + 2
    # a finished study whose trials stopped early played fewer games: none of them is left
    import tuning.reproduction.runner as reproduce_module

    real_played = reproduce_module.played_games
    monkeypatch.setattr(
        reproduce_module,
        "played_games",
        lambda plan, row: 1 if row.id == "bo" else real_played(plan, row),
    )
    lines.clear()
    run_plan(plan, workers=1, say=lines.append)
    assert "14/14 games already played" in lines[0]
    assert "| plan 14/14 games |" in lines[-1]  # and none counted twice


def test_a_started_row_without_games_shows_no_paired_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tuning.reproduction.table import write_table

    path = write_plan(tmp_path, MATCHES, games=2)
    monkeypatch.chdir(tmp_path)
    plan = load_plan(path)
    run_plan(plan, only=["aa"], workers=1, say=quiet)
    header = (plan.folder("aa") / "results.jsonl").read_text().splitlines()[0]
    plan.folder("coulom").mkdir(parents=True, exist_ok=True)
    (plan.folder("coulom") / "results.jsonl").write_text(header + "\n")  # started, no game
    write_table(plan)
    rows = {row["id"]: row for row in json.loads((plan.out / "results.json").read_text())["rows"]}
    assert rows["coulom"]["games"] == 0 and rows["coulom"]["paired"] == []
    assert "0-0 of 0" not in (plan.out / "results.md").read_text()


def test_an_edited_row_is_refused_but_more_games_or_new_labels_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_plan(tmp_path, MATCHES, games=2)
    run_plan(load_plan(path), workers=1, say=quiet)
    edited = write_plan(tmp_path, MATCHES.replace("a=2,b=16", "a=3,b=16"), games=2)
    with pytest.raises(RowChangedError, match=r"'coulom' was edited.*agent_a") as caught:
        run_plan(load_plan(edited), workers=1, say=quiet)
    assert "2 games" in str(caught.value)
    _, games = read_results(tmp_path / "out" / "aa" / "results.jsonl")
    assert len(games) == 2  # nothing was played before the refusal
    assert main(["reproduce", str(edited), "--workers", "1"]) == 2  # the command refuses too
    relabelled = write_plan(
        tmp_path, MATCHES.replace("Coulom vs mean", "Coulom(2,16)").replace("44.9", "45"), games=4
    )
    run_plan(load_plan(relabelled), workers=1, say=quiet)
    _, games = read_results(tmp_path / "out" / "coulom" / "results.jsonl")
    assert len(games) == 4  # extended from 2 to 4 games


def test_a_match_started_by_hand_with_the_printed_command_is_adopted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_plan(tmp_path, MATCHES, games=2)
    plan = load_plan(path)
    assert main(["reproduce", str(path), "--commands", "--workers", "1"]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("gomcts")]
    assert printed[1] == arena_command(plan, plan.row("coulom"), workers=1)  # type: ignore[arg-type]
    assert main([*shlex.split(printed[1])[1:], "--no-progress"]) == 0
    before = (plan.folder("coulom") / "results.jsonl").read_bytes()
    run_plan(plan, only=["coulom"], workers=1, say=quiet)
    assert (plan.folder("coulom") / "results.jsonl").read_bytes() == before  # nothing replayed
    assert (plan.folder("coulom") / "row.json").exists()


def test_a_running_study_shows_its_trials_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tuning.reproduction.runner import study_so_far
    from tuning.reproduction.table import write_table

    monkeypatch.chdir(tmp_path)
    plan = load_plan(write_plan(tmp_path, STUDY))
    write_table(plan, study_state=study_so_far)
    assert "| 0/2 x 2 games | not started |" in (plan.out / "results.md").read_text()
    run_plan(plan, only=["bo"], workers=1, say=quiet)
    (plan.folder("bo") / "study.json").unlink()  # as if its last trials were still running
    table = write_table(plan, study_state=study_so_far)
    so_far = {row["id"]: row for row in table["rows"]}["bo"]["so_far"]
    assert so_far["complete"] == 2 and so_far["running"] == 0 and so_far["games"] == 4
    best = so_far["best_raw"]
    assert best["number"] in (0, 1) and best["games"] == 2
    assert best["ci95"][0] <= best["winrate"] <= best["ci95"][1]
    markdown = (plan.out / "results.md").read_text()
    assert f"| 2/2 x 2 games | in progress; best raw so far trial {best['number']}: " in markdown


def test_a_row_waits_for_its_study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = load_plan(write_plan(tmp_path, STUDY))
    with pytest.raises(RowWaitingError, match=r"study 'bo'.*--only bo"):
        run_plan(plan, only=["tuned"], workers=1, say=quiet)
    assert run_plan(plan, only=["tuned"], workers=1, say=quiet, keep_going=True) == ["tuned"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (MATCHES.replace("seed = 1\n\n[[row]]", "seed = 1\nspeed = 2\n\n[[row]]"), "unknown key"),
        (MATCHES.replace('id = "coulom"', 'id = "aa"'), "used twice"),
        (MATCHES.replace("coulom:a=2", "coulomb:a=2"), "bad backup spec"),
        (MATCHES.replace("coulom:a=2,b=16", "softmax:@study:nope"), "names no study"),
        (MATCHES.replace('compare_with = ["aa"]', 'compare_with = ["zz"]'), "compare_with"),
        (MATCHES.replace("games = {games}\nseed = 1\n\n", "games = 3\nseed = 1\n\n"), "even"),
        (MATCHES.replace("paper = 50.0", "paper = 150.0"), "percent"),
        (STUDY.replace('space = "softmax"', 'space = "power"'), "space must be"),
    ],
)
def test_malformed_plans_are_refused_with_the_row_named(
    tmp_path: Path, body: str, message: str
) -> None:
    path = write_plan(tmp_path, body)
    with pytest.raises(PlanError, match=message):
        load_plan(path)


@dataclass(frozen=True, kw_only=True)
class RenamedSoftmax(SoftmaxBackup):
    """Softmax MCTS under another name: a plugin's backup that declares a tunable space."""


def test_a_study_row_takes_any_backup_with_a_tunable_space(tmp_path: Path) -> None:
    BACKUPS.register("renamed_softmax", RenamedSoftmax)
    try:
        body = STUDY.replace('"softmax', '"renamed_softmax')
        plan = load_plan(write_plan(tmp_path, body))
        assert plan.row("bo").space == "renamed_softmax"  # type: ignore[union-attr]
    finally:
        BACKUPS.unregister("renamed_softmax")
    with pytest.raises(PlanError, match=r"declares tunable parameters \(.*softmax.*got 'coulom"):
        load_plan(write_plan(tmp_path, STUDY.replace('"softmax:@study', '"coulom:@study')))
    with pytest.raises(PlanError, match=r"space must be .*coulom"):
        load_plan(write_plan(tmp_path, STUDY.replace('space = "softmax"', 'space = "coulom"')))


def test_bad_openings_and_agent_templates_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(HEAD.format(sims=4).replace("random:1", "shuffle:1") + MATCHES.format(games=2))
    with pytest.raises(PlanError, match="openings must be 'book:PATH' or 'random:K'"):
        load_plan(path)
    path.write_text(
        HEAD.format(sims=4).replace("mcts:sims={sims}", "mcts:sims=8") + MATCHES.format(games=2)
    )
    with pytest.raises(PlanError, match=r"must contain \{sims\}"):
        load_plan(path)


def test_a_book_row_uses_the_book_and_its_digest(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text("C3 C4\nB2 D4 # second\n")
    path = write_plan(
        tmp_path, MATCHES.replace("seed = 1\n", 'seed = 1\nopenings = "book:book.txt"\n', 1)
    )
    plan = load_plan(path)
    config = match_config(plan, plan.row("aa"))  # type: ignore[arg-type]
    assert len(config.book) == 2 and config.opening(3) == config.book[1]
    assert "--book book.txt" in arena_command(plan, plan.row("aa"))  # type: ignore[arg-type]


def test_the_plan_resumes_after_a_kill(tmp_path: Path) -> None:
    body = MATCHES.replace('id = "coulom"', 'id = "second"')
    path = write_plan(tmp_path, body, sims=24, games=8)
    cmd = [sys.executable, "-m", "agents.cli", "reproduce", str(path), "--workers", "1"]
    results = tmp_path / "out" / "aa" / "results.jsonl"
    killed_at = kill_after_lines(cmd, results, 3, timeout=120) - 1
    assert 2 <= killed_at < 8
    assert not (tmp_path / "out" / "second" / "results.jsonl").exists()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{killed_at}/16 games already played" in done.stdout
    # the same plan run without interruption elsewhere gives the same games
    other = tmp_path / "again"
    other.mkdir()
    again = write_plan(other, body, sims=24, games=8)
    run_plan(load_plan(again), workers=1, say=quiet)
    for row in ("aa", "second"):
        _, resumed = read_results(tmp_path / "out" / row / "results.jsonl")
        _, straight = read_results(other / "out" / row / "results.jsonl")
        assert [resumed[i].deterministic() for i in range(8)] == [
            straight[i].deterministic() for i in range(8)
        ]


def test_the_shipped_plan_loads_and_names_the_setting() -> None:
    plan = load_plan(ROOT / "experiments" / "li-lim-9x9.toml")
    assert plan.setting.sims == 200 and plan.setting.paper_sims == 5000
    assert plan.setting.komi == 7.5 and plan.setting.size == 9
    ids = plan.ids
    assert ids.index("bo-softmax") < ids.index("confirm-softmax")
    config = match_config(plan, plan.row("coulom-2-16"))  # type: ignore[arg-type]
    assert config.agent_a.startswith("mcts:sims=200,policy=puct,c=0.5,evaluator=net")
    assert config.agent_b == "mcts:sims=200,policy=puct,c=0.5,evaluator=net,choice=visits,batch=1"
    assert len(config.book) == 1000
    games = {row.id: row.games for row in plan.rows}
    assert games["aa-mean"] == 200 and games["coulom-2-16"] == 800
    assert games["confirm-softmax"] == games["confirm-monotone"] == 1200


def test_progress_lines_estimate_the_time_left() -> None:
    from tuning.reproduction.runner import PlanProgress

    lines: list[str] = []
    progress = PlanProgress(
        total=100, done=40, say=lines.append, work_total=100, work_done=40, every=3600.0
    )
    assert "about unknown left" in progress.line("aa", 0, 10)
    progress.started -= 120.0  # 2 minutes for the 2 games below: 60 s a game
    progress.game("aa", 1, 10)
    assert lines == []  # not yet time for a line
    progress.game("aa", 2, 10, force=True)
    assert lines[-1].startswith("[plan] aa: 2/10 | plan 42/100 games | 60.0 s/game")
    assert lines[-1].endswith("about 58 min left")
    progress.work_done = 0
    assert "about 1 h 40 min left" in progress.line("aa", 2, 10)


def test_the_time_left_weighs_games_by_their_simulations() -> None:
    """Games left at N = 800 take four times those at N = 200 (the plan's re-check row)."""
    from tuning.reproduction.runner import PlanProgress

    lines: list[str] = []
    progress = PlanProgress(
        total=22, done=0, say=lines.append, work_total=12 * 200 + 10 * 800, work_done=0
    )
    progress.started -= 120.0  # 2 games of N = 200 in 2 minutes
    progress.game("a", 1, 12, sims=200)
    progress.game("a", 2, 12, sims=200, force=True)
    assert " | 60.0 s/game | about 50 min left" in lines[-1]  # 10 x 1 min + 10 x 4 min
    progress.add(0, 800)  # the N = 800 row starts: its games are shown at their own rate
    assert " | 240.0 s/game | about 50 min left" in progress.line("b", 0, 10)


def test_a_retried_trial_and_its_origin_count_their_games_once() -> None:
    import optuna
    from optuna.trial import TrialState

    from tuning.reproduction.runner import _study_games

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study()
    lost = study.ask()  # its worker died after 30 games
    lost.set_user_attr("games", 30)
    study.tell(lost, state=TrialState.FAIL)
    study.enqueue_trial({}, user_attrs={"origin": 0, "retry_of": 0, "attempt": 1})
    retry = study.ask()  # it kept the 30 games and played the other 70
    retry.set_user_attr("games", 100)
    study.tell(retry, 0.5)
    other = study.ask()
    other.set_user_attr("games", 40)
    assert _study_games(study) == 140


def test_progress_counts_the_games_in_play_as_half_played() -> None:
    """64 games at once: the first to finish took one game's wall time, not 64 games' time."""
    from tuning.reproduction.runner import PlanProgress

    lines: list[str] = []
    progress = PlanProgress(
        total=1000, done=0, say=lines.append, work_total=1000, work_done=0, in_flight=64
    )
    progress.started -= 330.0  # the first game finished after 330 s of wall time
    progress.game("aa", 1, 1000, force=True)
    # 1 finished + 63 half played = 32.5 games in 330 s: about 10 s a game, not 330
    assert " | 10.2 s/game | " in lines[-1]


def test_a_hand_started_match_with_other_settings_is_refused_by_the_arena(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_plan(tmp_path, MATCHES, games=2)
    plan = load_plan(path)
    command = shlex.split(arena_command(plan, plan.row("aa"), workers=1))  # type: ignore[arg-type]
    command[command.index("--seed") + 1] = "2"  # not the plan's seed
    assert main([*command[1:], "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["reproduce", str(path), "--workers", "1", "--only", "aa"]) == 2
    assert "seed" in capsys.readouterr().err


def test_games_per_worker_from_the_plan_or_the_command_plays_the_same_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one").mkdir()
    (tmp_path / "many").mkdir()
    lone = load_plan(write_plan(tmp_path / "one", MATCHES, games=4))
    run_plan(lone, only=["coulom"], workers=1, say=quiet)
    head = HEAD.replace('openings = "random:1"', 'openings = "random:1"\ngames_per_worker = 3')
    path = tmp_path / "many" / "plan.toml"
    path.write_text(head.format(sims=4) + MATCHES.format(games=4), encoding="utf-8")
    shared = load_plan(path)
    assert shared.setting.games_per_worker == 3
    command = arena_command(shared, shared.row("coulom"), workers=1)  # type: ignore[arg-type]
    assert command.split("--games-per-worker ")[1].startswith("3 ")
    assert main(["reproduce", str(path), "--only", "coulom", "--workers", "1"]) == 0
    _, one = read_results(lone.folder("coulom") / "results.jsonl")
    _, many = read_results(shared.folder("coulom") / "results.jsonl")
    assert [many[i].deterministic() for i in range(4)] == [one[i].deterministic() for i in range(4)]
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", str(path), "--games-per-worker", "0"])
    assert stopped.value.code == 2
    assert "--games-per-worker: must be an int >= 1" in capsys.readouterr().err
    bad = head.replace("games_per_worker = 3", "games_per_worker = 0")
    path.write_text(bad.format(sims=4) + MATCHES.format(games=4), encoding="utf-8")
    with pytest.raises(PlanError, match="games_per_worker must be a positive integer"):
        load_plan(path)
