"""What the commands print (issue 20): the tune bar, training lines above the bar, the main
study's help, and full agent specs in the SGF of ``gomcts play``."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import main as gomcts
from go_env.sgf import load_sgf

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("bar", [True, False])
def test_tune_shows_a_bar_of_trials_on_stderr_and_plain_lines_on_stdout(
    tmp_path: Path, bar: bool
) -> None:
    proc = subprocess.run(
        [
            sys.executable, "-m", "agents.cli", "tune", "softmax", "--size", "5",
            "--agent", "mcts:sims=8", "--games", "2", "--batch", "2", "--trials", "2",
            "--startup-trials", "2", "--sampler", "random", "--no-outputs", "--out", "o",
            *([] if bar else ["--no-progress"]),
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert ("2/2" in proc.stderr and "best winrate" in proc.stderr) == bar, proc.stderr
    lines = proc.stdout.splitlines()
    assert sum("done: winrate" in line for line in lines) == 2
    assert all(line.startswith(("study ", "[softmax]")) for line in lines), lines
    assert "%|" not in proc.stdout  # no bar fragment in the progress lines


def test_training_log_lines_go_above_the_live_bar() -> None:
    from tqdm import tqdm

    from agents.nets.training.cli import log_line

    out = io.StringIO()
    bar = tqdm(total=10, file=out, unit="step", mininterval=0)
    bar.update(3)
    log_line('{"step": 3}', file=out)
    bar.update(1)
    bar.close()
    text = out.getvalue()
    # The bar's line is cleared ('\r' and blanks) before the JSON line, which stands alone.
    assert '\n{"step": 3}\n' in text.replace("\r", "\n")
    before = text[: text.index('{"step": 3}')]
    assert before.endswith("\r") or before.endswith("\n")
    assert "step/s]" not in text[text.index('{"step": 3}') - 3 : text.index('{"step": 3}')]


def test_main_study_help_says_it_takes_gomcts_tune_options() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "main_study.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=True,
    )
    assert "gomcts tune options" in proc.stdout
    assert "gomcts tune --help" in proc.stdout.replace("\n", " ")


def test_play_sgf_records_the_full_specs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.sgf"
    code = gomcts(
        [
            "play", "--black", "mcts:sims=4,c=0.7", "--white", "random", "--size", "5",
            "--seed", "3", "--quiet", "--sgf", str(path),
        ]
    )  # fmt: skip
    assert code == 0
    record = load_sgf(path)
    assert record.black == "mcts:sims=4,c=0.7,seed=3"
    assert record.white == "random:seed=4"


def test_a_reader_that_goes_away_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """``gomcts list | head -1`` printed a BrokenPipeError traceback."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from agents.cli import main\n"
        "sys.exit(main(['list']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `head` after its lines, before the command has written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_list_names_the_shipped_networks() -> None:
    """``gomcts list`` shows what ``net:NAME`` takes. Neither it nor any other command's parser
    imports torch (1-2 s of every command's start), so that a torch-free install lists too."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from agents.cli import main\n"
        "assert main(['list']) == 0\n"
        "assert 'torch' not in sys.modules, 'listing imported torch'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("shipped networks", 1)[1].splitlines()[1:]
    names = [line.split()[0] for line in listed]
    assert names == ["supervised", "paper-9x9", "strong-9x9", "strong-9x9-b6"]
    assert all(line.endswith(" bytes") for line in listed)
