"""Gymnasium and PettingZoo conventions: registered ids, observation layouts, seeding."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import go_env
from go_env.single_agent import GoVsOpponentEnv
from go_env.state import GoState

ROOT = Path(__file__).resolve().parents[2]


def _passer(state: GoState) -> int:
    return state.pass_move


def test_import_go_env_registers_both_ids_under_one_namespace() -> None:
    code = (
        "import sys, gymnasium, go_env\n"
        "e = gymnasium.make('go_env/GoVsOpponent-v0', opponent=lambda s: s.pass_move,"
        " board_size=5)\n"
        "e.reset(seed=0)\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('agents', 'tuning')]\n"
        "e = gymnasium.make('go_env/GoVsAgent-v0', opponent='random', board_size=5)\n"
        "e.reset(seed=0)\n"
        "print(sorted(i for i in gymnasium.registry if i.startswith('go_env/')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, timeout=120, capture_output=True, text=True
    ).stdout
    assert out.strip() == "['go_env/GoVsAgent-v0', 'go_env/GoVsOpponent-v0']"


def test_the_old_id_still_works_with_a_deprecation_warning() -> None:
    import agents.gym_env  # noqa: F401 - registers the old id

    with pytest.warns(DeprecationWarning, match="go_env/GoVsAgent-v0"):
        env = gymnasium.make("GoVsAgent-v0", opponent="random", board_size=5)
    env.reset(seed=0)


def _sb3_image_warnings(space: spaces.Box) -> list[str]:
    """The warnings of Stable-Baselines3's ``check_env`` about one ``Box`` of observations.

    SB3 (``stable_baselines3/common/env_checker.py``, ``_check_box_obs`` and
    ``_check_image_input``) takes any 3-D Box for an image: it warns when the dtype is not
    uint8, when the bounds are not [0, 255] and when a side is under 36; a shape neither 1-D
    nor 3-D is "unconventional".
    """
    found = []
    if len(space.shape) == 3:
        if space.dtype != np.uint8:
            found.append("dtype")
        if np.any(space.low != 0) or np.any(space.high != 255):
            found.append("bounds")
        channels_first = space.shape[0] < space.shape[-1]
        side = space.shape[-1] if channels_first else space.shape[0]
        if side < 36 or space.shape[1] < 36:
            found.append("resolution")
    elif len(space.shape) != 1:
        found.append("shape")
    return found


def test_the_default_observation_is_one_sb3_takes_without_warnings() -> None:
    env = gymnasium.make("go_env/GoVsOpponent-v0", opponent=_passer, board_size=9)
    space = env.observation_space["observation"]
    assert isinstance(space, spaces.Box)
    assert _sb3_image_warnings(space) == []
    assert space.dtype == np.float32 and space.shape == (17 * 81,)
    assert _sb3_image_warnings(spaces.Box(0, 1, (9, 9, 17), dtype=np.int8)) == [
        "dtype",
        "bounds",
        "resolution",
    ]  # the three warnings, for the "hwc" layout
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's own checker: no warning either
        check_env(env.unwrapped, skip_render_check=True)


def test_the_layouts_hold_the_same_planes() -> None:
    observations = {}
    for fmt in ("hwc", "chw", "flat"):
        env = GoVsOpponentEnv(lambda s: 12, colour="white", board_size=5, observation_format=fmt)
        obs, _ = env.reset(seed=0)
        assert env.observation_space["observation"].contains(obs["observation"])
        observations[fmt] = obs["observation"]
    hwc = observations["hwc"]
    assert hwc.dtype == np.int8 and hwc.shape == (5, 5, 17)
    np.testing.assert_array_equal(observations["chw"], hwc.transpose(2, 0, 1))
    np.testing.assert_array_equal(observations["flat"], observations["chw"].ravel())
    assert observations["chw"].dtype == observations["flat"].dtype == np.float32
    with pytest.raises(ValueError, match="observation_format must be one of hwc, chw, flat"):
        GoVsOpponentEnv(_passer, observation_format="nchw")  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["hwc", "chw", "flat"])
def test_pettingzoo_api_test_passes_in_every_layout(fmt: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "not a NumPy array": a dict, by design
        api_test(go_env.env(board_size=5, observation_format=fmt), num_cycles=60)
    raw = go_env.raw_env(board_size=5, observation_format=fmt)
    raw.reset()
    obs = raw.observe("black_0")["observation"]
    assert raw.observation_space("black_0")["observation"].contains(obs)


def _readme_loop() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    loop = next(b for b in blocks if "env.agent_iter()" in b)
    return loop


def test_the_readme_loop_is_reproducible_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    code = _readme_loop() + "\nHISTORY = env.unwrapped.game_state.history\n"
    runs = []
    for _ in range(2):
        namespace: dict[str, Any] = {}
        exec(compile(code, "README.md", "exec"), namespace)
        runs.append(namespace["HISTORY"])
    printed = capsys.readouterr().out.split()
    assert runs[0] == runs[1] and len(runs[0]) > 10
    assert printed[0] == printed[1]


def test_seeded_resets_seed_the_action_spaces() -> None:
    env = go_env.env(board_size=5)
    draws = []
    for _ in range(2):
        env.reset(seed=3)
        draws.append([env.action_space("black_0").sample() for _ in range(20)])
    assert draws[0] == draws[1]
    single = GoVsOpponentEnv(_passer, board_size=5)
    single.reset(seed=3)
    first = [single.action_space.sample() for _ in range(20)]
    single.reset(seed=3)
    assert first == [single.action_space.sample() for _ in range(20)]


def test_the_docs_show_the_ids_the_training_example_and_the_first_compile() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    environment = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    for text in (readme, environment):
        assert "go_env/GoVsOpponent-v0" in text and "go_env/GoVsAgent-v0" in text
        assert "examples/sb3_maskable_ppo.py" in text
    assert "compile" in readme and "cached" in readme
    assert (ROOT / "examples" / "sb3_maskable_ppo.py").is_file()


def test_the_sb3_example_without_sb3_says_what_to_install() -> None:
    code = (
        "import runpy, sys\n"
        "sys.modules['sb3_contrib'] = None\n"
        "runpy.run_path('examples/sb3_maskable_ppo.py', run_name='__main__')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 1
    assert "pip install stable-baselines3 sb3-contrib" in proc.stderr


def test_the_sb3_example_trains_and_evaluates() -> None:
    pytest.importorskip("sb3_contrib")
    proc = subprocess.run(
        [sys.executable, "examples/sb3_maskable_ppo.py", "--steps", "512", "--eval-every",
         "512", "--eval-games", "2"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=True,
    )  # fmt: skip
    rows = [line.split() for line in proc.stdout.splitlines()[1:-1]]
    assert [row[0] for row in rows] == ["0", "512"]
    assert all(0.0 <= float(row[1]) <= 1.0 for row in rows)
