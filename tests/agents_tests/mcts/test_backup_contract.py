"""Every built-in backup strategy passes the plugin conformance kit."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pytest

from agents.mcts.backups import BACKUPS, make_backup
from agents.mcts.testing import BackupContract
from agents.mcts.tree import Tree
from agents.spec import parse_spec

BUILTIN = sorted(
    info.name for info in BACKUPS.infos() if info.value.startswith("agents.mcts.backups.")
)

# Non-default settings, so the round trip and the options are exercised too.
VARIANTS = [
    "erwa:alpha=0.3,variant=unbiased",
    "erwa:alpha=1.0",
    "coulom:a=0.0,b=4.0",
    "coulom:a=8,b=64,points=25",
    "xie_liu:profile=linear,beta=3.0",
    "maxmcts:lam=0.0",
    "maxmcts:lam=0.5",
    "monotone:g=[2.0,-1.5,8.0],zero_based=true",
    "monotone:g=[-inf,-inf]",
    "softmax:g=[-1.0,0.5,2.0],recursive=false,self_mixed=false",
    "softmax:g=[30.0,30.0]",
    "power_mean:p=16.0,recursive=false",
    "power_mean:p=1.0,self_mixed=false",
    'solver:inner="softmax:g=[-2.0,-1.0]"',
    "solver:inner=maxmcts:lam=0.25",
    "solver:coulom",
]


def test_builtins_are_all_registered() -> None:
    assert {
        "mean",
        "erwa",
        "coulom",
        "xie_liu",
        "maxmcts",
        "monotone",
        "softmax",
        "power_mean",
        "solver",
    } <= set(BUILTIN)


class TestBuiltinBackups(BackupContract):
    @pytest.fixture(params=BUILTIN + VARIANTS)
    def strategy(self, request: pytest.FixtureRequest) -> Any:
        return make_backup(request.param)

    @pytest.fixture
    def backup_name(self, strategy: Any) -> str:
        from agents.mcts.backups import backup_spec

        return parse_spec(backup_spec(strategy))[0]


# ------------------------------------------------------------------ the kit catches mistakes
def _mean_update(
    tree: Tree,
    path: np.ndarray,
    leaf_value: float,
    sign: float = -1.0,
    scale: float = 1.0,
    skip_root: bool = False,
) -> None:
    x = sign * leaf_value
    for i in range(len(path) - 1, -1, -1):
        node = path[i]
        x_node = x
        x = -x
        if skip_root and i == 0:
            continue
        tree.visits[node] += 1
        tree.value[node] += (scale * x_node - tree.value[node]) / tree.visits[node]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SkipsRoot:
    n_stats: ClassVar[int] = 0

    def bind(self, n_simulations: int) -> SkipsRoot:
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        _mean_update(tree, path, leaf_value, skip_root=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class WrongSign(SkipsRoot):
    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        _mean_update(tree, path, leaf_value, sign=1.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class OutOfRange(SkipsRoot):
    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        _mean_update(tree, path, leaf_value, scale=3.0)


@dataclasses.dataclass(kw_only=True)
class NotFrozen:
    n_stats: ClassVar[int] = 0
    k: int = 1

    def bind(self, n_simulations: int) -> NotFrozen:
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        _mean_update(tree, path, leaf_value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Noisy(SkipsRoot):
    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        noise = float(np.random.default_rng().uniform(-1e-3, 1e-3))
        _mean_update(tree, path, float(np.clip(leaf_value + noise, -1, 1)))


@dataclasses.dataclass(frozen=True, kw_only=True)
class KeepsOldArrays(SkipsRoot):
    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        if "_visits" not in self.__dict__:  # caches the arrays: breaks when the tree grows
            self.__dict__["_visits"] = tree.visits
            self.__dict__["_value"] = tree.value
        visits, value = self.__dict__["_visits"], self.__dict__["_value"]
        x = -leaf_value
        for node in path[::-1]:
            if node < visits.shape[0]:
                visits[node] += 1
                value[node] += (x - value[node]) / visits[node]
            x = -x


@dataclasses.dataclass(frozen=True, kw_only=True)
class LossySpec(SkipsRoot):
    weights: dict = dataclasses.field(default_factory=lambda: {"a": 1})

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        _mean_update(tree, path, leaf_value)


@pytest.mark.parametrize(
    "strategy, check",
    [
        (SkipsRoot(), "test_visits_increment_by_one_along_the_path_only"),
        (WrongSign(), "test_sign_convention"),
        (OutOfRange(), "test_values_finite_and_within_bounds"),
        (NotFrozen(), "test_is_frozen_keyword_only_dataclass"),
        (Noisy(), "test_deterministic"),
        (KeepsOldArrays(), "test_independent_of_array_growth"),
    ],
)
def test_the_kit_rejects_broken_strategies(strategy: Any, check: str) -> None:
    with pytest.raises(AssertionError):
        getattr(BackupContract(), check)(strategy)


def test_the_kit_rejects_parameters_that_do_not_survive_a_spec() -> None:
    strategy = LossySpec(weights={"a": 2})
    with pytest.raises((AssertionError, ValueError)):
        BackupContract().test_spec_round_trip(strategy, "lossy")
