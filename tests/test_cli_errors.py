"""Files and paths at the command line (issue 31): bad input gets a sentence, not a traceback.

Each test is a reproduction of one defect: an opening book that is a FIFO or a device, a study
name that climbs out of the output folder, a folder that cannot be written, a file given as an
output folder, a plan template with a stray field, a move cap past 64 bits, huge tuning options,
a bad network file for ``gomcts play``.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from agents.cli import main
from agents.matches.openings import MAX_BOOK_BYTES, load_book
from go_env.rules import Rules

RULES = Rules(size=5)


def _error(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 2) -> str:
    """Run ``gomcts ARGV`` in this process; the one-line error it printed."""
    assert main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


# ----------------------------------------------------------------------- opening books


def _refused_without_blocking(fifo: Path, load: object) -> BaseException:
    """Run ``load()`` (which reads ``fifo``) in a thread; the exception it raised at once."""
    done: list[BaseException] = []

    def read() -> None:
        try:
            load()  # type: ignore[operator]
        except BaseException as exc:
            done.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=5)
    if reader.is_alive():  # today's main blocks in open(); release it before failing
        with open(fifo, "w"):
            pass
        reader.join(timeout=5)
        pytest.fail(f"blocked on the FIFO {fifo}")
    assert done, "no error for a FIFO"
    return done[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["book.txt", "results.jsonl"])  # a text book, a results file
def test_a_fifo_as_book_is_refused_at_once(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    error = _refused_without_blocking(fifo, lambda: load_book(fifo, RULES))
    assert isinstance(error, ValueError) and "not a regular file" in str(error)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_plan_whose_book_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    from tuning.reproduction.plan import load_plan
    from tuning.reproduction.runner import match_config

    fifo = tmp_path / "book.txt"
    os.mkfifo(fifo)
    path = tmp_path / "plan.toml"
    text = PLAN.format(agent="mcts:sims={sims}").replace(
        "[[row]]", '[[row]]\nopenings = "book:book.txt"'
    )
    path.write_text(text, encoding="utf-8")
    plan = load_plan(path)
    error = _refused_without_blocking(fifo, lambda: match_config(plan, plan.rows[0]))
    assert isinstance(error, ValueError) and "not a regular file" in str(error)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_book_is_refused_before_reading(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(
        capsys,
        ["arena", "random", "random", "--size", "5", "--games", "2", "--book", "/dev/zero"],
    )
    assert "/dev/zero is not a regular file" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_book_folder_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.sgf")
    error = _refused_without_blocking(tmp_path / "a.sgf", lambda: load_book(tmp_path, RULES))
    assert isinstance(error, ValueError) and "not a regular file" in str(error)


def test_a_book_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    with book.open("wb") as handle:  # sparse: no disk is used
        handle.truncate(MAX_BOOK_BYTES + 1)
    with pytest.raises(ValueError, match=f"at most {MAX_BOOK_BYTES}"):
        load_book(book, RULES)


def test_a_book_within_the_limit_is_read(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("C3 D4  # a comment\n", encoding="utf-8")
    assert len(load_book(book, RULES)) == 1


# ------------------------------------------------------------------------- study names


def test_a_study_name_that_climbs_out_of_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a" / "b" / "out"
    err = _error(
        capsys,
        ["tune", "softmax", "--size", "5", "--agent", "mcts:sims=4", "--games", "2",
         "--batch", "2", "--trials", "0", "--no-outputs", "--quiet", "--out", str(out),
         "--study-name", "../../../x"],
    )  # fmt: skip
    assert "bad study name '../../../x'" in err and "letters, digits" in err
    assert list(tmp_path.iterdir()) == []  # nothing written, inside out or outside


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "", "x" * 129, "a\\b", "sp ace"])
def test_study_config_refuses_names_that_are_no_folder_name(name: str) -> None:
    from tuning.search_spaces import make_space
    from tuning.studies.config import StudyConfig

    with pytest.raises(ValueError, match="bad study name"):
        StudyConfig(space=make_space("softmax"), agent="mcts:sims=4", study_name=name)


def test_usual_study_names_are_accepted() -> None:
    from tuning.search_spaces import make_space
    from tuning.studies.config import StudyConfig

    for name in ("softmax+c-7x7-n32", "monotone-traps-n1000", "bo_1.2"):
        StudyConfig(space=make_space("softmax"), agent="mcts:sims=4", study_name=name)


# ------------------------------------------------------------------- options out of range


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("--heartbeat", str(10**20), "from 0 to 86400"),
        ("--grace", str(10**20), "from 1 to 86400"),
        ("--jobs", str(10**20), "from 1 to 256"),
        ("--jobs", "0", "from 1 to 256"),
        ("--d", str(10**20), "from 1 to 64"),
    ],
)
def test_huge_tune_options_are_refused_when_parsed(
    option: str, value: str, allowed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.cli import build_parser

    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["tune", "softmax", option, value])
    assert exit_.value.code == 2
    assert allowed in capsys.readouterr().err


def test_a_move_cap_past_64_bits_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(capsys, ["play", "--size", "5", "--quiet", "--max-moves", str(2**63)])
    assert "at most 2**63 - 1" in err


def test_the_largest_move_cap_still_plays(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["play", "--size", "5", "--quiet", "--seed", "1", "--max-moves", str(2**63 - 1)]) == 0
    )


# ----------------------------------------------------------------------- plan templates


PLAN = """
[plan]
name = "tiny"
out = "out"

[setting]
size = 5
sims = 4
agent = "{agent}"

[[row]]
id = "aa"
candidate = "mean"
games = 2
seed = 1
"""


@pytest.mark.parametrize("agent", ["mcts:sims={sims},c={0}", "mcts:sims={x}", "mcts:sims={sims"])
def test_a_plan_template_with_a_stray_field_is_a_plan_error(tmp_path: Path, agent: str) -> None:
    from tuning.reproduction.plan import PlanError, load_plan

    path = tmp_path / "plan.toml"
    path.write_text(PLAN.format(agent=agent), encoding="utf-8")
    with pytest.raises(PlanError, match=r"bad agent template .*its one field is \{sims\}"):
        load_plan(path)


def test_a_plan_template_with_doubled_braces_is_accepted(tmp_path: Path) -> None:
    from tuning.reproduction.plan import load_plan

    path = tmp_path / "plan.toml"
    path.write_text(PLAN.format(agent="mcts:sims={sims},name={{x}}"), encoding="utf-8")
    assert load_plan(path).rows[0].agent == "mcts:sims={sims},name={{x}}"


# ------------------------------------------------------------------ output folders, disks


def test_an_existing_file_as_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f").write_text("keep me\n")
    for argv in (
        ["arena", "random", "random", "--size", "5", "--games", "2", "--out", str(tmp_path / "f")],
        ["traps", "--out", str(tmp_path / "f" / "sub")],
        ["tune", "softmax", "--out", str(tmp_path / "f")],
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "argument --out" in err and "give a folder, new or existing" in err, err
    assert (tmp_path / "f").read_text() == "keep me\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a full disk)")
def test_a_full_disk_in_the_arena_is_a_sentence_and_keeps_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match"
    out.mkdir()
    (out / "summary.json").symlink_to("/dev/full")  # writing there fails with ENOSPC
    argv = ["arena", "random", "random", "--size", "5", "--games", "2", "--workers", "1",
            "--out", str(out), "--no-sgf", "--no-plot", "--no-progress"]  # fmt: skip
    err = _error(capsys, argv, code=2)
    assert f"writing in {out}: No space left on device" in err
    assert "make room and run the same command again" in err
    assert len([p for p in out.iterdir() if p.name.startswith("results")]) == 1  # games kept


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_output_folder_is_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        argv = ["arena", "random", "random", "--size", "5", "--games", "2", "--workers", "1",
                "--out", str(folder / "m"), "--no-sgf", "--no-plot", "--no-progress"]  # fmt: skip
        err = _error(capsys, argv, code=2)
    finally:
        folder.chmod(0o755)
    assert "Permission denied" in err and str(folder / "m") in err


@pytest.mark.parametrize(
    ("target", "argv"),
    [
        ("tuning.studies.study.run_study",
         ["tune", "softmax", "--size", "5", "--agent", "mcts:sims=4", "--games", "2", "--batch",
          "2", "--quiet"]),
        ("agents.traps.grid.run_grid", ["traps", "--trees", "2", "--no-progress"]),
    ],
)  # fmt: skip
def test_a_read_only_disk_under_tune_and_traps_is_a_sentence(
    target: str,
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What root cannot reproduce with permissions: the write fails with EROFS."""
    where = tmp_path / "out" / "results.jsonl"

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(where))

    monkeypatch.setattr(target, fail)
    err = _error(capsys, [*argv, "--out", str(tmp_path / "out")], code=2)
    assert f"{where}: {os.strerror(errno.EROFS)}" in err


def test_play_with_a_bad_network_file_is_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"this is no checkpoint\n")
    err = _error(capsys, ["play", "--black", f"net:model={bad}", "--size", "5", "--quiet"])
    assert f"{bad} is not a readable checkpoint" in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400, err


# ------------------------------------------------------- what a study records, default folders


def test_a_study_records_its_folder_relative_to_its_storage_and_no_host_name(
    tmp_path: Path,
) -> None:
    import socket

    from study_support import tiny_study

    from tuning.studies.config import OUT_KEY
    from tuning.studies.resume import load_study, study_config

    config = tiny_study(tmp_path / "out", storage=str(tmp_path / "db" / "study.db"))
    study = load_study(config)
    attrs = study.user_attrs
    assert attrs[OUT_KEY] == "../out"
    assert socket.gethostname() not in repr(attrs)
    assert study_config(config.name, tmp_path / "db" / "study.db").out_dir == tmp_path / "out"
    default = tiny_study(tmp_path / "run")
    assert load_study(default).user_attrs[OUT_KEY] == "."


def test_default_output_folders_are_under_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.cli import build_parser
    from tuning.studies.cli import config_from_args

    monkeypatch.chdir(tmp_path)
    parser = build_parser()
    assert parser.parse_args(["arena", "random", "random"]).out == "runs/arena"
    assert parser.parse_args(["traps"]).out == "runs/traps"
    tune = parser.parse_args(["tune", "softmax", "--agent", "mcts:sims=8", "--size", "5"])
    assert config_from_args(tune).out_dir == Path("runs/tune/softmax-5x5-n8")
    from tuning.search_spaces import make_space
    from tuning.studies.config import StudyConfig

    api = StudyConfig(space=make_space("softmax"), agent="mcts:sims=8", rules=Rules(size=5))
    assert api.out_dir == Path("runs/tune/softmax-5x5-n8")  # the Python API's default too
    old = tmp_path / "runs" / "softmax-5x5-n8"
    old.mkdir(parents=True)
    (old / "study.db").touch()  # a study started under the earlier default is continued there
    assert config_from_args(tune).out_dir == Path("runs/softmax-5x5-n8")


def test_the_python_api_bounds_d_jobs_and_heartbeats_too() -> None:
    from tuning.search_spaces import MAX_D, make_space
    from tuning.studies.config import MAX_JOBS, MAX_SECONDS, StudyConfig

    with pytest.raises(ValueError, match=f"at most {MAX_D}"):
        make_space("softmax", d=10**20)
    space = make_space("softmax")
    for field, value in (
        ("jobs", MAX_JOBS + 1),
        ("heartbeat_interval", 10**20),
        ("grace_period", MAX_SECONDS + 1),
    ):
        with pytest.raises(ValueError, match=rf"{field} must be an int in \[1, "):
            StudyConfig(space=space, agent="mcts:sims=4", **{field: value})
