"""The optional analysis hook of an agent, and its ``lz-analyze`` output format.

GUIs such as Sabaki and Lizzie show a running search through the ``lz-analyze`` command of
Leela Zero, or KataGo's ``kata-analyze``: the engine answers ``=`` and then streams lines of
``info`` records until the next command arrives. Any agent can take part by offering one
method (duck-typed; agents without it answer with an empty stream)::

    def analyze(self, state, *, report, should_stop, interval):
        '''Search ``state`` until ``should_stop()`` is true, calling ``report(infos)`` with a
        list of MoveInfo about every ``interval`` seconds (and once at the end).'''

``state`` is the engine's own copy; the agent may keep it. ``should_stop`` is cheap to call
(the engine checks whether a command is waiting), so a search calls it between batches of
simulations.

Agents without ``analyze`` that expose a ``search`` object with ``set_root(state)`` and
``run(seconds=...)`` returning root statistics (``moves``, ``visits``, ``values`` in
``[-1, 1]`` for the player to move, ``priors``, ``pv``), as the MCTS agent does, are analysed
through :func:`search_analyze`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from go_env.coords import to_gtp
from go_env.state import GoState

__all__ = [
    "Analyzer",
    "MoveInfo",
    "analysis_hook",
    "format_kata_info",
    "format_lz_info",
    "infos_from_stats",
    "search_analyze",
]

AnalyzeHook = Callable[..., None]


@dataclass(frozen=True)
class MoveInfo:
    """Search statistics of one candidate move at the root.

    Attributes:
        move: The move (action index; ``N*N`` is pass).
        visits: Simulations through the move.
        winrate: Estimated probability that the player to move wins after this move, in
            ``[0, 1]``.
        prior: Prior probability of the move (uniform for agents without a policy).
        pv: Principal variation starting with ``move`` (action indices).
    """

    move: int
    visits: int
    winrate: float
    prior: float
    pv: tuple[int, ...] = ()


@runtime_checkable
class Analyzer(Protocol):
    """An agent that can stream its search statistics (see the module docstring)."""

    def analyze(
        self,
        state: GoState,
        *,
        report: Callable[[Sequence[MoveInfo]], None],
        should_stop: Callable[[], bool],
        interval: float,
    ) -> None:
        """Search ``state`` until ``should_stop()``; ``report`` every ``interval`` seconds."""


def infos_from_stats(stats: Any) -> list[MoveInfo]:
    """Move infos of the visited root children of a search's statistics.

    ``stats`` has arrays ``moves``, ``visits``, ``values`` (mean value in ``[-1, 1]`` for the
    player to move) and ``priors``, and the principal variation ``pv``.
    """
    pv = tuple(int(m) for m in getattr(stats, "pv", ()))
    out = []
    for move, visits, value, prior in zip(
        stats.moves, stats.visits, stats.values, stats.priors, strict=True
    ):
        if int(visits) > 0:
            line = pv if pv and pv[0] == int(move) else (int(move),)
            out.append(
                MoveInfo(int(move), int(visits), (float(value) + 1.0) / 2.0, float(prior), line)
            )
    return out


def search_analyze(
    search: Any,
    state: GoState,
    *,
    report: Callable[[Sequence[MoveInfo]], None],
    should_stop: Callable[[], bool],
    interval: float,
    step: float = 0.05,
) -> None:
    """Analyse through a search object (see the module docstring) in slices of ``step`` s."""
    search.set_root(state)
    last = time.perf_counter()
    stats = None
    while not should_stop():
        stats = search.run(seconds=step)
        now = time.perf_counter()
        if now - last >= interval:
            report(infos_from_stats(stats))
            last = now
    if stats is not None:
        report(infos_from_stats(stats))


def analysis_hook(agent: Any) -> AnalyzeHook | None:
    """The agent's ``analyze`` method, or :func:`search_analyze` over its ``search``, or None."""
    analyze = getattr(agent, "analyze", None)
    if callable(analyze):
        return analyze
    search = getattr(agent, "search", None)
    if callable(getattr(search, "set_root", None)) and callable(getattr(search, "run", None)):

        def hook(state: GoState, **kwargs: Any) -> None:
            search_analyze(search, state, **kwargs)

        return hook
    return None


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, float(value)))


def _format_info(infos: Sequence[MoveInfo], size: int, fraction: Callable[[float], str]) -> str:
    """The ``info move ...`` records of ``infos``, most visited first, joined by spaces.

    ``fraction`` writes a winrate or a prior (the one difference between the Leela Zero and
    KataGo formats).
    """
    ranked = sorted(infos, key=lambda info: (-info.visits, -info.winrate, info.move))
    records = []
    for order, info in enumerate(ranked):
        pv = info.pv if info.pv else (info.move,)
        records.append(
            f"info move {to_gtp(info.move, size)} visits {int(info.visits)} "
            f"winrate {fraction(info.winrate)} prior {fraction(info.prior)} order {order} "
            f"pv {' '.join(to_gtp(m, size) for m in pv)}"
        )
    return " ".join(records)


def format_lz_info(infos: Sequence[MoveInfo], size: int) -> str:
    """One ``lz-analyze`` line for a list of candidate moves, most visited first.

    Each record reads ``info move D4 visits 120 winrate 5312 prior 1523 order 0 pv D4 C3``
    (Leela Zero's format: ``winrate`` and ``prior`` in units of 1/10000). An empty list gives
    an empty string.
    """
    return _format_info(infos, size, lambda x: str(round(_clamp(x) * 10000)))


def format_kata_info(infos: Sequence[MoveInfo], size: int) -> str:
    """One ``kata-analyze`` line for a list of candidate moves, most visited first.

    Each record reads ``info move D4 visits 120 winrate 0.531200 prior 0.152300 order 0 pv D4
    C3``: KataGo's GTP analysis format (``winrate`` and ``prior`` as fractions, the winrate
    for the player to move, as KataGo reports by default). KataGo's score and utility fields
    are left out: the agents here estimate no score. An empty list gives an empty string.
    """
    return _format_info(infos, size, lambda x: f"{_clamp(x):.6f}")
