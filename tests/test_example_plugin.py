"""The example plugin distribution (examples/backup-plugin) works through the real install path.

It is pip-installed, as a researcher's own plugin would be, but into a temporary folder
(``pip install --target``) put first on ``sys.path`` for this module's tests, so that the
environment the suite runs in is left as it was: the folder leaves ``sys.path`` and the
plugin's modules leave ``sys.modules`` afterwards. Entry-point discovery
(``importlib.metadata``) reads the distribution's metadata from that folder like from
site-packages; a subprocess sees it with the folder on ``PYTHONPATH`` (:func:`plugin_env`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agents.mcts.backups import BACKUPS, make_backup
from agents.mcts.evaluator_plugins import EVALUATORS
from agents.mcts.testing import run_random_search

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "backup-plugin"
DIST = "gomcts-backup-example"
PACKAGE = "gomcts_backup_example"


def _forget_plugin_modules() -> None:
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The example distribution installed into a temporary folder, on ``sys.path`` meanwhile."""
    work = tmp_path_factory.mktemp("example")
    source = work / "backup-plugin"
    target = work / "site"
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
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    BACKUPS.refresh()
    EVALUATORS.refresh()
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        _forget_plugin_modules()
        importlib.invalidate_caches()
        BACKUPS.refresh()
        EVALUATORS.refresh()


@pytest.fixture(scope="module")
def installed(plugin_path: Path) -> str:
    """The name of the example's backup, discoverable through its entry point."""
    return "window_mean"


def plugin_env(plugin_path: Path) -> dict[str, str]:
    """The environment of a subprocess that should see the plugin (``PYTHONPATH``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_path), env.get("PYTHONPATH")]))
    return env


def test_installed_outside_the_environment(plugin_path: Path) -> None:
    """The distribution found is the temporary one; the environment's site-packages has none."""
    dist = importlib.metadata.distribution(DIST)
    assert Path(str(dist.locate_file(""))).resolve() == plugin_path.resolve()
    for folder in {p for p in sys.path if p.endswith("site-packages")}:
        assert not list(Path(folder).glob("gomcts_backup_example*")), folder


def test_a_subprocess_finds_it_through_pythonpath(plugin_path: Path, installed: str) -> None:
    code = (
        "from agents.mcts.backups import BACKUPS, make_backup\n"
        f"print(type(make_backup('{installed}:window=3')).__name__, "
        f"{{i.name: i.distribution for i in BACKUPS.infos()}}['{installed}'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=plugin_env(plugin_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"WindowMeanBackup {DIST} ")


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


def test_its_evaluator_is_used_by_mcts_evaluator(plugin_path: Path) -> None:
    from agents.game import play_game
    from agents.registry import agent_config, agent_spec, make_agent
    from go_env.rules import Rules

    info = {i.name: i for i in EVALUATORS.infos()}["area_value"]
    assert info.distribution.startswith(f"{DIST} ")
    config = agent_config('mcts:sims=30,seed=2,evaluator="area_value:scale=3"')
    assert type(config.evaluator).__module__ == "gomcts_backup_example.area_value"
    assert agent_config(agent_spec(config)) == config
    rules = Rules(size=5, komi=0.5, max_moves=40)
    result = play_game(make_agent(config), make_agent("mcts:sims=30,seed=3"), rules)
    assert result.state.move_number > 0 and result.result


def test_window_mean_is_tuned_by_a_tiny_study(plugin_path: Path, tmp_path: Path) -> None:
    """``gomcts tune window_mean``: the space comes from the plugin, through its entry point."""
    pytest.importorskip("optuna")
    from study_support import tiny_study

    from tuning.search_spaces import make_space, tunable_backups
    from tuning.studies.study import load_study

    assert "window_mean" in tunable_backups()
    space = make_space("window_mean")
    assert space.param_names == ["window"] and space.box is None
    with pytest.raises(ValueError, match="takes no bounds"):
        make_space("window_mean", bounds=(1.0, 3.0))
    config = tiny_study(
        tmp_path, space, games=2, trials=3, sampler="random", seed=5, verify_games=2
    )
    from tuning.studies.study import run_study

    report = run_study(config, progress=None)
    trials = load_study(config).trials
    assert len(trials) == 3
    for trial in trials:
        assert 1.0 <= trial.params["window"] <= 16.0
        window = round(trial.params["window"])
        assert trial.user_attrs["candidate"] == f'mcts:sims=8,backup="window_mean:window={window}"'
    best = json.loads(Path(report.best_file).read_text())
    assert best["backup"] == "window_mean" and isinstance(best["params"]["window"], int)
    assert Path(report.profile_plot).stat().st_size > 5_000  # a drawn profile (octree palette)
    assert report.verification["games"] == 2


def test_gomcts_tune_takes_it_by_name(plugin_path: Path, tmp_path: Path) -> None:
    """The command line finds the plugin's space through its entry point like a built-in's."""
    pytest.importorskip("optuna")
    out = tmp_path / "out"
    args = shlex.split(
        "tune window_mean --size 5 --komi 0.5 --agent mcts:sims=8 --games 2 --batch 2 "
        "--trials 2 --startup-trials 3 --sampler random --verify-games 0 --no-outputs "
        "--no-progress"
    )
    done = subprocess.run(
        [sys.executable, "-m", "agents.cli", *args, "--out", str(out)],
        env=plugin_env(plugin_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "study" in done.stdout and "window_mean" in done.stdout
    lines = [
        json.loads(line)
        for path in sorted(out.rglob("trial-*.jsonl"))
        for line in path.read_text().splitlines()[:1]
    ]
    assert len(lines) == 2, done.stdout
    assert all("window_mean:window=" in json.dumps(line) for line in lines)
