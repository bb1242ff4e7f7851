"""Spec values that passed validation and failed later (issue 20) are refused at validation,
with the parameter's name and its allowed range."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import go_env
from agents.mcts.backups.params_io import ParamsFileError, read_params
from agents.registry import agent_config
from agents.spec import SpecError

BIG = str(2**63)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:seed=-1", r"seed must be an int in \[0, 9223372036854775807\] or None"),
        ("random:seed=-1", r"seed must be an int in \[0, 9223372036854775807\] or None"),
        ("mcts:seed=" + str(2**64), r"seed must be an int in \[0, "),
        ("mcts:batch=" + str(10**20), r"batch must be an int in \[1, 4096\]"),
        ("mcts:expand_visits=" + BIG, r"expand_visits must be an int in \[0, 2147483647\]"),
        ("mcts:dead_playouts=" + BIG, r"dead_playouts must be an int in \[1, 2147483647\]"),
        ("mcts:virtual_loss=" + BIG, r"virtual_loss must be an int in \[0, 2147483647\]"),
        ("mcts:sims=" + str(10**30), r"sims must be an int in \[1, 2147483647\]"),
        ("mcts:max_nodes=" + BIG, r"max_nodes must be an int in \[1024, 2147483647\]"),
        ("mcts:temperature_moves=" + BIG, r"temperature_moves must be an int in \[0, "),
        ("mcts:resign_after=" + BIG, r"resign_after must be an int in \[0, "),
        ("mcts:sims=" + "9" * 4000, r"sims must be an int in \[1, 2147483647\], got an int of"),
    ],
)
def test_out_of_range_values_are_refused_naming_the_parameter_and_range(
    spec: str, words: str
) -> None:
    with pytest.raises(SpecError, match=words):
        agent_config(spec)


def test_the_largest_allowed_values_still_build() -> None:
    config = agent_config(f"mcts:seed={2**63 - 1},sims=2147483647,batch=4096,virtual_loss=3")
    assert config.seed == 2**63 - 1 and config.batch == 4096
    agent_config(f"random:seed={2**63 - 1}").build()


def _params_file(path: Path, params: object) -> Path:
    doc = {"format": "gomcts-backup-params", "version": 1, "backup": "softmax", "params": params}
    path.write_text(json.dumps(doc))
    return path


def test_a_params_file_nested_100000_deep_is_a_params_file_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ParamsFileError, match="nested too deeply"):
        read_params(path)


def test_a_params_file_with_an_integer_beyond_floats_is_a_params_file_error(
    tmp_path: Path,
) -> None:
    path = _params_file(tmp_path / "big.json", {"g": [1.0, 10**400]})
    with pytest.raises(SpecError, match="too large"):
        agent_config(f'mcts:backup="softmax:file={path}"')


def test_go_env_refuses_a_komi_beyond_floats() -> None:
    with pytest.raises(ValueError, match=r"komi must be a finite number of magnitude at most"):
        go_env.env(komi=10**400)


@pytest.mark.parametrize("action", [True, np.bool_(False), 1.0, "3", np.array([1, 2])])
def test_env_step_refuses_a_non_integer_action_with_a_clear_type_error(action: object) -> None:
    env = go_env.env(board_size=5)
    env.reset(seed=0)
    with pytest.raises(TypeError, match=r"action of black_0 must be an int from 0 to 25"):
        env.step(action)
    env.step(12)  # the game goes on
    assert env.agent_selection == "white_0"
