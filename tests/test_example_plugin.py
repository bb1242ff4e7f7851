"""The example plugin distribution (examples/backup-plugin) works through the real install path.

It is pip-installed into this environment (once; skipped when already installed) and then
found through its entry point, exactly as a researcher's own plugin would be.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.mcts.backups import BACKUPS, make_backup
from agents.mcts.testing import run_random_search

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "backup-plugin"
DIST = "gomcts-backup-example"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Install the example distribution unless it is already installed; return its name."""
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        source = tmp_path_factory.mktemp("example") / "backup-plugin"
        shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--no-deps",
                "--no-build-isolation",
                "--quiet",
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
        importlib.invalidate_caches()
    BACKUPS.refresh()
    return "window_mean"


def test_found_through_its_entry_point(installed: str) -> None:
    info = {i.name: i for i in BACKUPS.infos()}[installed]
    assert info.distribution.startswith(f"{DIST} ")
    assert info.value == "gomcts_backup_example.window_mean:WindowMeanBackup"
    cls = BACKUPS.get(installed)
    assert cls.__module__ == "gomcts_backup_example.window_mean"
    strategy = make_backup(f"{installed}:window=4")
    assert strategy.window == 4


def test_runs_backups_on_a_tree(installed: str) -> None:
    tree = run_random_search(make_backup(f"{installed}:window=2"), n_simulations=50, seed=0)
    assert tree.visits[0] == 50
    assert np.isfinite(tree.value[: tree.size]).all()


def test_mcts_agent_plays_a_5x5_game_with_the_plugin(installed: str) -> None:
    try:
        importlib.import_module("agents.mcts.agent")
    except ImportError as exc:
        pytest.skip(f"agents.mcts.agent does not import yet: {exc}")
    from agents.game import play_game
    from agents.registry import make_agent
    from go_env.rules import Rules

    rules = Rules(size=5, komi=0.5, max_moves=60)
    black = make_agent(f"mcts:sims=50,backup={installed}")
    white = make_agent("mcts:sims=50")
    result = play_game(black, white, rules)
    assert result.state.move_number > 0
    assert result.result  # a finished game with a result string ("B+3.5", "W+R"...)
