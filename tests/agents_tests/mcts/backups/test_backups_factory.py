"""Building strategies from spec strings, and binding them to a search."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest

from agents.mcts.backups import (
    BACKUPS,
    backup_spec,
    bind_backup,
    make_backup,
)
from agents.mcts.backups.binding import accepts_board_points
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.softmax import SoftmaxBackup
from agents.mcts.tree import Tree
from agents.plugins import PluginNotFoundError
from agents.spec import SpecError


def test_make_backup_from_specs() -> None:
    assert make_backup("mean") == MeanBackup()
    assert make_backup("softmax:g=[-1,-2],recursive=false") == SoftmaxBackup(
        g=(-1.0, -2.0), recursive=False
    )
    instance = SoftmaxBackup()
    assert make_backup(instance) is instance


def test_unknown_names_and_parameters_are_explained() -> None:
    with pytest.raises(PluginNotFoundError, match="Did you mean 'softmax'"):
        make_backup("sofmax")
    with pytest.raises(SpecError, match="allowed: a, b, points"):
        make_backup("coulom:c=3")
    with pytest.raises(TypeError):
        make_backup(object())  # type: ignore[arg-type]


def test_backup_spec_round_trip() -> None:
    for text in ("mean", "erwa:alpha=0.3", "xie_liu:profile=linear", "monotone:g=[1.0,2.0]"):
        assert backup_spec(make_backup(text)) == text
    # brackets protect the commas; the quoted form still reads the same
    assert make_backup('monotone:g="[1.0,2.0]"') == make_backup("monotone:g=[1.0,2.0]")
    assert make_backup(backup_spec(make_backup("solver:inner=erwa:alpha=0.5"))) == make_backup(
        "solver:inner=erwa:alpha=0.5"
    )


@dataclasses.dataclass(frozen=True, kw_only=True)
class Unregistered:
    n_stats: ClassVar[int] = 0

    def bind(self, n_simulations: int, **extra: object) -> Unregistered:
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        tree.visits[path] += 1


def test_backup_spec_of_an_unregistered_class_explains() -> None:
    with pytest.raises(ValueError, match="not registered"):
        backup_spec(Unregistered())


def test_bind_backup_passes_board_points_only_where_accepted() -> None:
    assert not accepts_board_points(MeanBackup())
    assert accepts_board_points(make_backup("coulom"))
    assert accepts_board_points(Unregistered())  # **kwargs
    assert bind_backup(MeanBackup(), 10, board_points=81) == MeanBackup()
    assert bind_backup(make_backup("coulom"), 10, board_points=49).board_points == 49
    assert bind_backup(make_backup("coulom"), 10).board_points == 81


def test_registry_lists_the_builtins_with_their_distribution() -> None:
    infos = {info.name: info for info in BACKUPS.infos()}
    assert infos["softmax"].value == "agents.mcts.backups.softmax:SoftmaxBackup"
    assert infos["softmax"].distribution.startswith("gomcts ")
