"""The MCTS agent: a search per move, move choice, temperature, tree reuse, resignation."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from agents.base import AgentError
from agents.base import Resignation as BaseResignation
from agents.mcts.evaluators import Evaluator
from agents.mcts.params import SearchParams
from agents.mcts.requests import LeafRequest, SearchRequest, Steps, answer_alone
from agents.mcts.search import Search
from agents.mcts.stats import SearchStats
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN
from go_env.state import Color, GoState

__all__ = [
    "EXTEND_ROUND",
    "AgentSettings",
    "MCTSAgent",
    "Resignation",
    "choose_move",
    "is_unstable",
]


class AgentSettings(Protocol):
    """What the agent reads of its :class:`~agents.mcts.config.MCTSConfig`.

    The config builds agents (``MCTSConfig().build()``), so this module does not import it,
    not even for type checking: the two modules would tie each other in a cycle.
    """

    @property
    def name(self) -> str: ...  # noqa: D102
    @property
    def sims(self) -> int: ...  # noqa: D102
    @property
    def time(self) -> float | None: ...  # noqa: D102
    @property
    def seed(self) -> int | None: ...  # noqa: D102
    @property
    def move_choice(self) -> str: ...  # noqa: D102
    @property
    def secure_a(self) -> float: ...  # noqa: D102
    @property
    def pass_guard(self) -> bool: ...  # noqa: D102
    @property
    def temperature(self) -> float: ...  # noqa: D102
    @property
    def temperature_moves(self) -> int: ...  # noqa: D102
    @property
    def reuse_tree(self) -> bool: ...  # noqa: D102
    @property
    def resign(self) -> float | None: ...  # noqa: D102
    @property
    def resign_after(self) -> int: ...  # noqa: D102
    @property
    def extend(self) -> float: ...  # noqa: D102

    def search_params(self) -> SearchParams: ...  # noqa: D102


VALUE_MIN_SHARE = 0.1
"""Under ``choice="value"``, children with fewer than this share of the top visit count are
not considered (a lucky child with a handful of visits is not a reliable best move)."""


EXTEND_ROUND = 0.5
"""One round of a move's extension (``MCTSConfig.extend``), as a share of the move's budget."""


def is_unstable(stats: SearchStats) -> bool:
    """Whether the most-visited move is not the best-valued one: the search has not settled.

    Huang, Coulom and Lin, *Time management for Monte-Carlo tree search applied to the game
    of Go* (TAAI 2010), "UNST": when the move with the most simulations is not the one with
    the highest win rate, search on. The rivals compared are the children with at least
    :data:`VALUE_MIN_SHARE` of the top visit count (the candidates of ``choice="value"``),
    so that a child seen a few times with a lucky mean does not count; the most-visited child
    is the one ``choice="visits"`` plays (ties by value). A root with a proven win (MCTS-Solver)
    is settled.
    """
    visits, values = stats.visits, stats.values
    if visits.size == 0 or int(visits.max()) == 0 or bool((stats.proven == PROVEN_WIN).any()):
        return False
    top = int(np.argmax(visits + 0.25 * (values + 1.0)))
    rivals = visits >= max(VALUE_MIN_SHARE * int(visits.max()), 1)
    return bool((values[rivals] > values[top]).any())


class Resignation(BaseResignation):
    """The MCTS agent resigns the game.

    Attributes:
        color: The colour that resigns.
        value: The search's value of the best move, below the resignation threshold.
    """

    def __init__(self, color: Color, value: float) -> None:
        super().__init__(color, f"{color.name.lower()} resigns (value {value:+.3f})")
        self.value = value


def choose_move(
    stats: SearchStats,
    rule: str,
    *,
    pass_move: int | None = None,
    pass_ends_game: bool = False,
    secure_a: float = -1.0,
    rng: np.random.Generator | None = None,
    temperature: float | None = None,
) -> int:
    """The move to play from the root statistics.

    A child proven to win (MCTS-Solver) is played at once; children proven to lose are only
    played when nothing else is left. Otherwise:

    * ``temperature`` given: sample with probabilities ``visits ** (1 / temperature)``.
    * ``"visits"``: most visits, ties by value.
    * ``"value"``: best mean value among the children with at least :data:`VALUE_MIN_SHARE`
      of the top visit count.
    * ``"secure"``: best ``q + secure_a / sqrt(n)`` among visited children (MCTS-Solver's
      secure child; ``secure_a = -1``, the default, is a lower confidence bound, see
      :class:`~agents.mcts.config.MCTSConfig`).

    **Pass guard** (when ``pass_move`` is given): a pass chosen by the rule is compared with
    the non-pass move ``a`` the same rule (without sampling) would choose: it is played only
    if ``q_pass - q_a`` exceeds one standard error of the difference,
    ``sqrt(1/n_pass + 1/n_a)`` (outcomes in ``[-1, 1]`` have variance at most 1). When the pass
    ends the game (``pass_ends_game``: the opponent just passed) its value is exact, and it is
    played whenever it is at least the value of the rule's choice (so a won game is closed
    and a hopeless one is not dragged to the move cap). Why: rollout values saturate in won or
    lost positions, where visits spread evenly and an early pass would otherwise be played by
    chance; at the end of a game the moves left (filling one's own eyes) lose clearly and the
    pass still passes the test.

    Raises:
        ValueError: For an unknown rule, or a temperature without a generator.
    """
    moves, visits, values = stats.moves, stats.visits, stats.values
    if moves.size == 0:
        raise ValueError("the root has no children; run the search first")
    if rule not in ("visits", "value", "secure"):
        raise ValueError(f"unknown move-choice rule {rule!r}; allowed: visits, value, secure")
    if temperature is not None and rng is None:
        raise ValueError("temperature sampling needs a generator (rng)")
    wins = np.flatnonzero(stats.proven == PROVEN_WIN)
    if wins.size:
        return int(moves[wins[np.argmax(visits[wins])]])
    keep = stats.proven != PROVEN_LOSS
    if not keep.any():
        keep = np.ones(moves.size, dtype=bool)
    choice = _pick(stats, keep, rule, secure_a, rng, temperature)
    if pass_move is None:
        return int(moves[choice])
    at = np.flatnonzero(keep & (moves == pass_move) & (visits > 0))
    if pass_ends_game and at.size:  # an exact outcome, at least as good as the rule's move
        return pass_move if values[at[0]] >= values[choice] else int(moves[choice])
    if int(moves[choice]) != pass_move:
        return int(moves[choice])
    others = keep & (moves != pass_move) & (visits > 0)
    if not others.any():
        return pass_move
    alt = _pick(stats, others, rule, secure_a, None, None)
    gain = float(values[choice] - values[alt])
    error = float(np.sqrt(1.0 / max(int(visits[choice]), 1) + 1.0 / int(visits[alt])))
    return pass_move if gain > error else int(moves[alt])


def _pick(
    stats: SearchStats,
    keep: np.ndarray,
    rule: str,
    secure_a: float,
    rng: np.random.Generator | None,
    temperature: float | None,
) -> int:
    """Index of the child chosen by ``rule`` (or sampled) among the ``keep`` children."""
    visits, values = stats.visits, stats.values
    if int(visits[keep].sum()) == 0:  # nothing searched among the candidates: take the prior
        return int(np.argmax(np.where(keep, stats.priors, -np.inf)))
    if temperature is not None and rng is not None:
        weights = np.where(keep, visits.astype(np.float64), 0.0) ** (1.0 / temperature)
        total = weights.sum()
        if total > 0 and np.isfinite(total):
            return int(rng.choice(visits.size, p=weights / total))
    if rule == "visits":  # most visits; values (within [-1, 1]) only break ties
        score = np.where(keep, visits + 0.25 * (values + 1.0), -np.inf)
    elif rule == "value":
        share = VALUE_MIN_SHARE * visits[keep].max()
        score = np.where(keep & (visits >= max(share, 1)), values, -np.inf)
    else:
        safe = np.maximum(visits, 1)
        score = np.where(keep & (visits > 0), values + secure_a / np.sqrt(safe), -np.inf)
    return int(np.argmax(score))


class MCTSAgent:
    """Plays the move found by a Monte-Carlo tree search (see :class:`MCTSConfig`).

    Args:
        config: The configuration (:class:`~agents.mcts.config.MCTSConfig`; the agent module
            does not import it, so that the config can build agents without an import cycle:
            ``MCTSConfig().build()`` or ``make_agent("mcts")`` builds the default agent).
        evaluator: Leaf evaluator (e.g. a network, or a
            :class:`~agents.mcts.evaluators.MixedEvaluator`); ``None``: random rollouts.

    Attributes:
        last_stats: The statistics of the last search (``None`` before the first move).
    """

    def __init__(self, config: AgentSettings, *, evaluator: Evaluator | None = None) -> None:
        if config is None:
            raise TypeError(
                "MCTSAgent needs its MCTSConfig: MCTSConfig().build() (or "
                "make_agent('mcts')) builds the default agent"
            )
        self.config = config
        self.name = self.config.name
        self.search = Search(self.config.search_params(), evaluator)
        self._rng = np.random.default_rng(
            np.random.SeedSequence(self.config.seed).spawn(1)[0]
            if self.config.seed is not None
            else None
        )
        self.last_stats: SearchStats | None = None

    def reset(self) -> None:
        """Forget the previous game's tree (generators keep running)."""
        self.search.clear()
        self.last_stats = None

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """Search from ``state`` (left unchanged) and return the chosen move.

        Raises:
            AgentError: When the game is already over.
            Resignation: When resigning is enabled and the position is lost beyond the
                threshold.
        """
        self._root_at(state)
        return self._choose(state, answer_alone(self._searches()))

    def act_steps(self, state: GoState, observation: dict[str, Any] | None = None) -> Steps[int]:
        """:meth:`act` as a coroutine that yields its search.

        It yields a :class:`~agents.mcts.requests.SearchRequest` (this agent's search, its
        root set, and its budget; one more for each round of ``extend``) and is resumed with
        the search's :class:`~agents.mcts.stats.SearchStats`; it returns the move :meth:`act` would
        choose. Alone (:func:`~agents.mcts.requests.answer_alone`) the search runs as in
        :meth:`act`; many games at once (:func:`agents.mcts.multi.round_robin`) run their
        searches in rounds with their leaves evaluated together
        (:class:`agents.mcts.search_set.SearchSet`).

        Raises:
            AgentError, Resignation: As :meth:`act`.
        """
        self._root_at(state)
        stats: SearchStats = yield from self._searches()
        return self._choose(state, stats)

    def act_leaf_steps(
        self, state: GoState, observation: dict[str, Any] | None = None
    ) -> Steps[int]:
        """:meth:`act` as a coroutine that yields each leaf evaluation of its search.

        Each ``yield`` is a :class:`~agents.mcts.requests.LeafRequest` (this agent's
        evaluator and the leaves of :meth:`Search.steps <agents.mcts.search.Search.steps>`);
        resume it with their ``(priors, values)``. For a driver that answers leaves itself;
        :meth:`act_steps` (one request per move) is the faster way to play many games.

        Raises:
            AgentError, Resignation: As :meth:`act`.
        """
        self._root_at(state)
        evaluator = self.search.evaluator
        searches = self._searches()
        request = next(searches)
        while True:
            steps = self.search.steps(sims=request.sims, seconds=request.time_limit)
            try:
                batch = next(steps)
                while True:
                    answer = yield LeafRequest(evaluator, batch)
                    batch = steps.send(answer)
            except StopIteration as stop:
                found: SearchStats = stop.value
            try:
                request = searches.send(found)
            except StopIteration as done:
                return self._choose(state, done.value)

    def _searches(self) -> Generator[SearchRequest, SearchStats, SearchStats]:
        """The searches of one move: its budget, then rounds of extension while unstable.

        Yields a :class:`~agents.mcts.requests.SearchRequest` per search (the move's
        ``sims`` or ``time``, then :data:`EXTEND_ROUND` of it a round while
        :func:`is_unstable` and ``extend`` lasts), each resumed with its statistics, and
        returns the statistics of the tree after the last, with the simulations and seconds
        of all of them.
        """
        stats: SearchStats = yield self._request(1.0)
        left = self.config.extend
        while left > 0 and is_unstable(stats):
            share = min(EXTEND_ROUND, left)
            left -= share
            more: SearchStats = yield self._request(share)
            stats = replace(
                more,
                simulations=stats.simulations + more.simulations,
                elapsed=stats.elapsed + more.elapsed,
            )
        return stats

    def _request(self, share: float) -> SearchRequest:
        """A search of ``share`` of the move's budget (simulations, or seconds with ``time``)."""
        config = self.config
        if config.time is not None:
            return SearchRequest(self.search, time_limit=config.time * share)
        return SearchRequest(self.search, sims=max(1, round(config.sims * share)))

    def _root_at(self, state: GoState) -> None:
        """Re-root the tree at ``state`` (tree reuse) or start a new one."""
        if state.is_over:
            raise AgentError(f"the game is over (result {state.result()}); no move to choose")
        if not (self.config.reuse_tree and self.search.advance(state)):
            self.search.set_root(state)

    def _choose(self, state: GoState, stats: SearchStats) -> int:
        """The move to play after the search (or a :class:`Resignation`)."""
        config = self.config
        self.last_stats = stats
        sample = state.move_number < config.temperature_moves
        move = choose_move(
            stats,
            config.move_choice,
            pass_move=state.pass_move if config.pass_guard else None,
            pass_ends_game=state.consecutive_passes >= 1,
            secure_a=config.secure_a,
            rng=self._rng,
            temperature=config.temperature if sample else None,
        )
        if (
            config.resign is not None
            and state.move_number >= config.resign_after
            and stats.visits.sum() > 0
        ):
            value = stats.value_of(move)
            if value < config.resign:
                raise Resignation(state.to_play, value)
        return move

    def close(self) -> None:
        """Drop the tree."""
        self.reset()
