"""Specs and plugin objects, both ways: ``build(spec)`` and ``spec_of(obj)`` for every built-in.

A spec is parsed once into a config holding built plugins; capabilities are class attributes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from agents.mcts.backups import BACKUPS
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.config import MCTSConfig
from agents.mcts.evaluator_plugins import EVALUATORS, MixEvaluatorConfig, RolloutEvaluatorConfig
from agents.plugins import DuplicatePluginError, PluginNotFoundError
from agents.registry import AGENTS, agent_config, agent_spec, make_agent
from agents.spec import SpecError
from go_env.rules import Rules
from go_env.state import GoState

BUILT_IN = "gomcts "  # the distribution of our own entry points


def _built_in(registry) -> list[str]:
    return sorted({i.name for i in registry.infos() if i.distribution.startswith(BUILT_IN)})


# Non-default specs of every built-in, besides its defaults.
SPECS = {
    "gomcts.agents": [
        "random:seed=3",
        "mcts:sims=200,backup=softmax",
        'mcts:sims=50,c=1.2,backup="coulom:a=3,b=8",policy=puct',
        'mcts:backup="solver:inner=softmax:g=[-1,-2]",choice=value',
        'mcts:evaluator="net:lam=0.5,symmetry=none",policy=puct',
        'mcts:evaluator="mix:value=rollout,lam=0.25"',
        'gtp:cmd="gnugo --mode gtp --level 3",timeout=5',
        "net:temperature=0.5",
    ],
    "gomcts.backups": [
        "erwa:alpha=0.3",
        "coulom:a=3,b=8",
        "xie_liu:profile=linear",
        "maxmcts:lam=0.5",
        "monotone:g=[1.0,-2.5,3.0],zero_based=true",
        "softmax:g=[-6,-5],recursive=false",
        "power_mean:p=2.5",
        "solver:softmax",
        'solver:inner="coulom:a=2.5"',
    ],
    "gomcts.evaluators": [
        "net:symmetry=average,cache=10",
        "net:model.pt,lam=0.5",
        "mix:lam=0.75",
        'mix:value="net:symmetry=none",lam=0.1',
        "mix:value=rollout",
    ],
}
REGISTRIES = {"gomcts.agents": AGENTS, "gomcts.backups": BACKUPS, "gomcts.evaluators": EVALUATORS}


@pytest.mark.parametrize("group", sorted(REGISTRIES))
def test_every_built_in_round_trips(group: str) -> None:
    registry = REGISTRIES[group]
    names = _built_in(registry)
    assert names, f"no built-in {group}"
    objects = [registry.build(spec) for spec in SPECS[group]]
    for name in names:
        if name != "gtp":  # the GTP agent needs its engine command
            objects.append(registry.build(name))
    covered = {registry.name_of(type(obj)) for obj in objects}
    assert covered == set(names), f"no round trip for {set(names) - covered}"
    for obj in objects:
        spec = registry.spec_of(obj)
        again = registry.build(spec)
        assert again == obj, spec
        assert registry.spec_of(again) == spec  # the canonical spec is a fixed point


def test_spec_of_names_non_defaults_only() -> None:
    assert AGENTS.spec_of(agent_config("mcts:backup=mean,sims=1000")) == "mcts"
    assert agent_spec(agent_config("mcts:sims=200,backup=softmax")) == (
        "mcts:sims=200,backup=softmax"
    )
    assert BACKUPS.spec_of(BACKUPS.build("solver:inner=softmax")) == "solver:softmax"


def test_unregistered_object_has_no_spec() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Loose:
        n_stats: ClassVar[int] = 0

        def bind(self, n_simulations: int) -> Loose:
            return self

        def backup(self, tree, path, leaf_value) -> None:
            pass

    with pytest.raises(ValueError, match=r"not registered in the group 'gomcts\.backups'"):
        BACKUPS.spec_of(Loose())


class _Counting:
    built = 0


@dataclass(frozen=True, kw_only=True)
class CountingMean(MeanBackup):
    """The mean backup, counting its constructions."""

    def __post_init__(self) -> None:
        _Counting.built += 1


@pytest.fixture
def counting():
    BACKUPS.register("counting_mean", CountingMean)
    _Counting.built = 0
    try:
        yield "counting_mean"
    finally:
        BACKUPS.unregister("counting_mean")


def test_a_nested_backup_is_built_once(counting: str) -> None:
    agent = make_agent(f"mcts:sims=20,seed=1,backup={counting}")
    state = GoState(Rules(size=5, komi=0.5))
    agent.reset()
    agent.act(state)
    assert _Counting.built == 1  # parsed once; the config, the agent and the search share it
    assert agent.config.backup is agent.search.params.backup
    assert agent_spec(agent.config) == f"mcts:sims=20,backup={counting},seed=1"


@dataclass(frozen=True, kw_only=True)
class ProvingMean(MeanBackup):
    """A plugin claiming the "proves values" capability, under a name that says nothing."""

    proves_values: ClassVar[bool] = True


def test_capabilities_are_class_attributes() -> None:
    BACKUPS.register("plain_name", ProvingMean)
    try:
        config = MCTSConfig(backup="plain_name")
        assert config.uses_solver and config.move_choice == "secure"
    finally:
        BACKUPS.unregister("plain_name")
    assert not MCTSConfig(backup="mean").uses_solver
    assert MCTSConfig(backup="solver").uses_solver


def test_config_accepts_specs_and_instances() -> None:
    by_spec = MCTSConfig(backup="softmax:g=[-3,-3]", evaluator="mix:value=rollout")
    by_object = MCTSConfig(
        backup=BACKUPS.build("softmax:g=[-3,-3]"),
        evaluator=MixEvaluatorConfig(value=RolloutEvaluatorConfig()),
    )
    assert by_spec == by_object
    replaced = dataclasses.replace(by_spec, backup="mean")
    assert replaced.backup == MeanBackup() and replaced.evaluator is by_spec.evaluator
    with pytest.raises(ValueError, match="backup must be a backup spec string such as 'mean'"):
        MCTSConfig(backup=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="evaluator must be a evaluator spec string"):
        MCTSConfig(evaluator="  ")


def test_unknown_evaluator_suggests_names() -> None:
    with pytest.raises(PluginNotFoundError, match=r"unknown leaf evaluator 'rollut'.*'rollout'"):
        MCTSConfig(evaluator="rollut")
    no_x = "evaluator 'rollout' has no parameter 'x'; allowed: playout, rollouts"
    with pytest.raises(SpecError, match=no_x):
        agent_config("mcts:evaluator=rollout:x=1")
    bad_playout = (
        "parameter 'playout': 'fast' is not allowed; "
        "allowed: light, heavy, nakade, patterns, lowlib$"
    )
    with pytest.raises(SpecError, match=bad_playout):
        agent_config("mcts:evaluator=rollout:playout=fast")
    with pytest.raises(SpecError, match=bad_playout):
        agent_config('mcts:evaluator="net:lam=0.5,playout=fast"')
    with pytest.raises(SpecError, match=r"playout=heavy sets the policy .* and lam is 0"):
        agent_config('mcts:evaluator="net:playout=heavy"')
    with pytest.raises(SpecError, match=r"rollouts=4 sets the rollouts per leaf .* lam is 0"):
        agent_config('mcts:evaluator="net:rollouts=4"')
    with pytest.raises(SpecError, match=r"rollouts.*an int in \[1, 64\]"):
        agent_config("mcts:evaluator=rollout:rollouts=0")
    with pytest.raises(SpecError, match=r"rollouts.*an int in \[1, 64\]"):
        agent_config('mcts:evaluator="mix:value=rollout,lam=0.5,rollouts=100"')
    with pytest.raises(SpecError, match=r"lam must be a number in \[0, 1\]"):
        agent_config('mcts:evaluator="mix:value=rollout,lam=2"')


def test_mix_of_rollouts_evaluates_leaves() -> None:
    from agents.mcts.search import Search

    config = MCTSConfig(sims=40, seed=2, evaluator="mix:value=rollout,lam=0.5")
    evaluator = config.make_evaluator()
    assert evaluator is not None and evaluator.uniform_priors
    search = Search(config.search_params(), evaluator)
    search.set_root(GoState(Rules(size=5, komi=0.5)))
    stats = search.run(sims=40)
    assert stats.simulations == 40 and np.isfinite(search.tree.value[: search.tree.size]).all()


def test_heavy_rollouts_are_built_from_each_spec_that_plays_rollouts() -> None:
    light = MCTSConfig(sims=8, seed=2)
    assert light.make_evaluator() is None  # the search's own light rollouts, seeded as before
    heavy = MCTSConfig(sims=8, seed=2, evaluator="rollout:playout=heavy").make_evaluator()
    assert heavy is not None and heavy.playout == "heavy"
    mix = MCTSConfig(sims=8, evaluator="mix:value=rollout,lam=0.5,playout=heavy")
    assert mix.make_evaluator().rollout.playout == "heavy"
    nakade = MCTSConfig(sims=8, evaluator="mix:value=rollout,lam=0.5,playout=nakade")
    assert nakade.make_evaluator().rollout.playout == "nakade"


def test_averaged_rollouts_are_built_from_each_spec_that_plays_rollouts() -> None:
    light = MCTSConfig(sims=8, seed=2, evaluator="rollout:rollouts=4").make_evaluator()
    assert light is not None and (light.playout, light.rollouts) == ("light", 4)
    mix = MCTSConfig(sims=8, evaluator="mix:value=rollout,lam=0.5,rollouts=3")
    assert mix.make_evaluator().rollout.rollouts == 3
    assert MCTSConfig(sims=8, evaluator="mix:value=rollout").make_evaluator().rollout.rollouts == 1


def test_register_refuses_a_taken_name() -> None:
    with pytest.raises(DuplicatePluginError):
        EVALUATORS.register("rollout", RolloutEvaluatorConfig)
