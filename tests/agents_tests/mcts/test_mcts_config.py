"""The ``mcts`` agent plugin: spec strings, defaults and validation."""

from __future__ import annotations

import dataclasses

import pytest

from agents.mcts import DEFAULT_C, MCTSAgent, MCTSConfig
from agents.mcts.backups.mean import MeanBackup
from agents.plugins import PluginNotFoundError
from agents.registry import AGENTS, agent_config, agent_spec, make_agent
from agents.spec import SpecError


def test_registered_as_the_mcts_agent():
    assert "mcts" in AGENTS.names()
    assert AGENTS.get("mcts") is MCTSConfig
    agent = make_agent("mcts:sims=50,seed=1")
    assert isinstance(agent, MCTSAgent) and agent.name == "mcts"


@pytest.mark.parametrize(
    ("spec", "fields"),
    [
        ("mcts:sims=800,c=1.0,backup=mean", {"sims": 800, "c": 1.0, "backup": MeanBackup()}),
        ('mcts:backup="mean"', {"backup": MeanBackup()}),
        ("mcts:time=0.5", {"time": 0.5}),
        ("mcts:seed=3", {"seed": 3}),
        (
            "mcts:policy=puct,fpu=parent,fpu_reduction=0.2,noise_weight=0.25",
            {"policy": "puct", "fpu": "parent", "fpu_reduction": 0.2, "noise_weight": 0.25},
        ),
        (
            "mcts:reuse_tree=true,temperature_moves=8,resign=-0.8,resign_after=50",
            {"reuse_tree": True, "temperature_moves": 8, "resign": -0.8, "resign_after": 50},
        ),
        (
            "mcts:end_scoring=remove_dead,dead_playouts=16",
            {"end_scoring": "remove_dead", "dead_playouts": 16},
        ),
    ],
)
def test_spec_strings(spec, fields):
    config = agent_config(spec)
    for key, value in fields.items():
        assert getattr(config, key) == value
    assert agent_config(agent_spec(config)) == config  # the spec round-trips


def test_defaults_follow_the_papers():
    config = MCTSConfig()
    assert config.backup == MeanBackup() and config.move_choice == "visits"
    assert not config.reuse_tree and config.noise_weight == 0.0
    assert config.exploration == DEFAULT_C["uct"] and config.fpu_mode == "infinite"
    puct = MCTSConfig(policy="puct")
    assert puct.exploration == 0.5 and puct.fpu_mode == "absolute"  # [LL20], AlphaGo Zero
    assert MCTSConfig(c=2.0).exploration == 2.0
    assert isinstance(config.backup_strategy(), MeanBackup)
    with pytest.raises(TypeError):
        MCTSConfig(800)  # type: ignore[call-arg]  # keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.sims = 3  # type: ignore[misc]


def test_unknown_key_lists_the_allowed_keys():
    with pytest.raises(SpecError, match=r"no parameter 'simulations'.*allowed:.*sims"):
        agent_config("mcts:simulations=800")


def test_unknown_backup_suggests_names():
    with pytest.raises(PluginNotFoundError, match="Did you mean 'mean'"):
        MCTSConfig(backup="meen")
    with pytest.raises(PluginNotFoundError, match="unknown backup strategy"):
        agent_config("mcts:backup=meen")
    with pytest.raises(SpecError, match="backup 'mean' has no parameter 'a'"):
        MCTSConfig(backup="mean:a=2")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("sims", 0, r"sims must be an int in \[1, 2147483647\]"),
        ("time", 0.0, "time must be a positive number"),
        ("policy", "ucb", "policy must be one of uct, puct"),
        ("c", -1.0, "c must be a number >= 0"),
        ("fpu", "zero", "fpu must be one of"),
        ("fpu_value", 2.0, r"fpu_value must be a number in \[-1.0, 1.0\]"),
        ("noise_alpha", 0.0, "noise_alpha must be > 0"),
        ("noise_weight", 1.5, "noise_weight"),
        ("score_scale", -2.0, "score_scale"),
        ("end_scoring", "japanese", "end_scoring must be one of tromp_taylor, remove_dead"),
        ("dead_playouts", 0, r"dead_playouts must be an int in \[1, "),
        ("expand_visits", -1, "expand_visits"),
        ("max_nodes", 10, r"max_nodes must be an int in \[1024, "),
        ("pass_prior", -0.1, "pass_prior"),
        ("choice", "robust", "choice must be one of"),
        ("temperature", 0.0, "temperature must be > 0"),
        ("reuse_tree", "yes", "reuse_tree must be True or False"),
        ("resign", -1.5, "resign"),
        ("seed", 1.5, "seed must be an int"),
        ("backup", "", "backup must be a backup spec"),
    ],
)
def test_validation_names_the_field(field, value, message):
    with pytest.raises(ValueError, match=message):
        MCTSConfig(**{field: value})


def test_spec_value_errors_become_spec_errors():
    with pytest.raises(SpecError, match=r"sims must be an int in \[1, "):
        agent_config("mcts:sims=0")
    with pytest.raises(SpecError, match="'abc' is not an integer"):
        agent_config("mcts:sims=abc")
