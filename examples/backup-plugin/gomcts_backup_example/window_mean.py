"""``window_mean``: each node's value is the mean of its last ``window`` returns.

The sliding-window average of Aurélien Garivier and Eric Moulines, *On upper-confidence bound
policies for switching bandit problems*, ALT 2011 (SW-UCB), used as an MCTS backup: the returns
through a node drift as the search below it improves, and a window forgets the early, poorer
ones. With ``window`` at least the number of visits it is the standard mean.

The last returns of each node live in a ring buffer in ``tree.stats`` (``n_stats = 16`` columns,
so ``window <= 16``): the k-th return goes to column ``(k - 1) % window``.

The window is tunable (:class:`WindowTunable`): ``gomcts tune window_mean`` searches it in
``[1, 16]`` on a log scale and draws the weight of a return by its age.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups.tunable import Tunable, TunableParam
from agents.mcts.tree import Tree

__all__ = ["MAX_WINDOW", "WindowMeanBackup", "WindowTunable"]

MAX_WINDOW = 16


@njit(cache=True)
def _window_mean_backup(visits, value, stats, path, leaf_value, window):  # pragma: no cover
    x = -leaf_value  # the return credited to the leaf; its sign alternates on the way up
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        stats[node, (n - 1) % window] = x
        count = min(n, window)
        total = 0.0
        for j in range(count):
            total += stats[node, j]
        value[node] = total / count
        x = -x


class WindowTunable(Tunable):
    """``window`` in ``[1, MAX_WINDOW]``, log scale, rounded to an integer."""

    def parameters(self, *, d, bounds):
        return (TunableParam("window", 1.0, float(MAX_WINDOW), log=True, integer=True),)

    def plot_profile(self, fig, curves, *, d, n_simulations):
        """Weight of a node's return by its age (0: the latest), at ``N`` visits."""
        ax = fig.subplots()
        age = np.arange(min(n_simulations, 4 * MAX_WINDOW))
        for curve in reversed(curves):
            window = round(curve.point["window"])
            ax.step(age, np.where(age < window, 1.0 / window, 0.0), where="post", **curve.style)
        mean = np.full(age.shape, 1.0 / n_simulations)
        ax.plot(age, mean, color="black", linestyle="--", linewidth=1, label="standard MCTS")
        ax.set(
            xlabel="age of the return (0: the latest)",
            ylabel="weight in the node's value",
            title="window_mean: weight of a return",
        )
        return [ax]


@dataclass(frozen=True, kw_only=True)
class WindowMeanBackup:
    """Mean of the last ``window`` returns through each node.

    Attributes:
        window: Number of returns kept, 1..16 (1 keeps the last return only). Default 8.
    """

    n_stats: ClassVar[int] = MAX_WINDOW
    tunable: ClassVar[Tunable] = WindowTunable()

    window: int = 8

    def __post_init__(self) -> None:
        if (
            isinstance(self.window, bool)
            or not isinstance(self.window, int)
            or not (1 <= self.window <= MAX_WINDOW)
        ):
            raise ValueError(
                f"window_mean: parameter 'window' must be an int in "
                f"[1, {MAX_WINDOW}], got {self.window!r}"
            )

    def bind(self, n_simulations: int) -> WindowMeanBackup:
        """No dependence on the budget."""
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Record the return at every node of ``path`` and average its window."""
        _window_mean_backup(
            tree.visits, tree.value, tree.stats, path, float(leaf_value), self.window
        )
