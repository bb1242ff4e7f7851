"""Self-play games: K games in one process sharing one network call per round.

:func:`play_selfplay_games` is the generator of self-play data: given an evaluator (a
:class:`~agents.nets.evaluator.NetEvaluator`, or anything with the evaluator protocol) and
the game indices to play, it plays ``games_at_once`` games at a time as coroutines
(:func:`selfplay_game_steps`) and answers the leaves of all of them with one network call
per round (:func:`agents.mcts.multi.round_robin`, :class:`~agents.mcts.multi.SharedEvaluation`).
It yields each :class:`~agents.nets.training.records.GameRecord` as soon as its game ends. A
faster driver can replace it with the same arguments and records.

Each move is searched one of two ways:

* ``search="gumbel"``: Gumbel AlphaZero's root search (:mod:`agents.mcts.gumbel`; Danihelka
  et al., ICLR 2022): the move is the one sequential halving picks (the Gumbel draws are the
  exploration), the target is the improved policy ``softmax(logits + sigma(completedQ))``.
* ``search="puct"``: AlphaZero's PUCT search with Dirichlet noise at the root (Silver et al.,
  Nature 2017); the target is the visit distribution; the first ``temperature_moves`` moves
  are sampled by visit counts, the rest take the most visited (with the library's pass guard,
  :func:`agents.mcts.agent.choose_move`).

**Playout cap randomisation** (David J. Wu, *Accelerating self-play learning in Go*, 2019,
§3.1): a move gets a *full* search of ``sims`` simulations with probability ``full_share``
and its target is recorded; the other moves get a *fast* search of ``fast_sims`` (PUCT: no
root noise, as in KataGo) and are not recorded. ``full_share = 1`` turns it off.

A game's seed decides its Gumbel, noise and sampling draws; the evaluator's own draws
(random board symmetries) are shared by the games of a process, so a game is reproducible
from its seed only with ``symmetry=none``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from agents.mcts.agent import choose_move
from agents.mcts.config import MCTSConfig
from agents.mcts.evaluators import Evaluator
from agents.mcts.gumbel import GumbelParams, GumbelSearch
from agents.mcts.multi import LeafRequest, SharedEvaluation, Steps, round_robin
from agents.mcts.search import Search
from agents.nets.training.records import GameRecord, PolicyTarget, sparse_policy
from go_env.rules import Rules
from go_env.state import GoState
from go_env.validation import check_int

__all__ = ["GameSettings", "play_selfplay_games", "selfplay_game_steps"]


@dataclass(frozen=True, kw_only=True)
class GameSettings:
    """How a self-play game is played (see the module docstring).

    Args:
        rules: Board size, komi, move cap.
        search: ``"gumbel"`` or ``"puct"``.
        sims: Simulations of a full search.
        fast_sims: Simulations of a fast search.
        full_share: Probability that a move gets a full search (1: every move).
        considered: Gumbel's ``m``.
        c_visit: Gumbel's ``c_visit``.
        c_scale: Gumbel's ``c_scale``.
        c: PUCT constant (below the Gumbel root, and the whole PUCT search).
        noise_alpha: Dirichlet concentration (PUCT full searches).
        noise_weight: Dirichlet weight (PUCT full searches).
        temperature_moves: Moves sampled by visit counts (PUCT).
        fpu: Value of a PUCT child without visits (:class:`~agents.mcts.config.MCTSConfig`'s
            ``fpu``): ``"parent"``, the parent's value less ``fpu_reduction`` (Leela Zero,
            KataGo), or ``"auto"``, 0 (AlphaGo Zero's convention), the only rule before
            this field existed. Under ``"auto"`` the side that believes it is losing sees
            every untried move as better than its tried ones, searches breadth-first, and
            its visit-count targets flatten (``docs/nets.md``, "First-play urgency").
        fpu_reduction: The reduction under ``fpu="parent"``.
    """

    rules: Rules
    search: Literal["gumbel", "puct"] = "gumbel"
    sims: int = 32
    fast_sims: int = 8
    full_share: float = 0.25
    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 0.1
    c: float = 1.0
    noise_alpha: float = 0.15
    noise_weight: float = 0.25
    temperature_moves: int = 8
    fpu: Literal["parent", "auto"] = "parent"
    fpu_reduction: float = 0.2

    def __post_init__(self) -> None:
        if self.search not in ("gumbel", "puct"):
            raise ValueError(f"search must be 'gumbel' or 'puct', got {self.search!r}")
        if self.fpu not in ("parent", "auto"):
            raise ValueError(f"fpu must be 'parent' or 'auto', got {self.fpu!r}")
        if not 0.0 <= self.fpu_reduction <= 2.0:
            raise ValueError(f"fpu_reduction must be in [0, 2], got {self.fpu_reduction}")
        for name in ("sims", "fast_sims", "considered"):
            value = getattr(self, name)
            check_int(name, value, min=1)
        if not 0.0 < self.full_share <= 1.0:
            raise ValueError(f"full_share must be in (0, 1], got {self.full_share}")
        if self.fast_sims > self.sims:
            raise ValueError(f"fast_sims ({self.fast_sims}) must not exceed sims ({self.sims})")

    def puct(self, sims: int, noise: bool, seed: int) -> MCTSConfig:
        """The PUCT search of ``sims`` simulations (with or without root noise)."""
        return MCTSConfig(
            sims=sims,
            policy="puct",
            c=self.c,
            noise_alpha=self.noise_alpha,
            noise_weight=self.noise_weight if noise else 0.0,
            fpu=self.fpu,
            fpu_reduction=self.fpu_reduction,  # MCTSConfig uses it under "parent" only
            seed=seed,
        )

    def gumbel(self, sims: int) -> GumbelParams:
        """The Gumbel root search of ``sims`` simulations."""
        return GumbelParams(
            sims=sims,
            considered=min(self.considered, sims),
            c_visit=self.c_visit,
            c_scale=self.c_scale,
        )


def _ask(evaluator: Evaluator, steps: Any, counter: list[int]) -> Any:
    """Drive a search coroutine that yields leaf batches, as :class:`LeafRequest` s."""
    try:
        batch = next(steps)
        while True:
            counter[0] += len(batch)
            answer = yield LeafRequest(evaluator, batch)
            batch = steps.send(answer)
    except StopIteration as stop:
        return stop.value


def selfplay_game_steps(
    evaluator: Evaluator, settings: GameSettings, index: int, seed: int
) -> Steps[GameRecord]:
    """One self-play game as a coroutine of leaf requests; returns its record."""
    rules = settings.rules
    rng = np.random.default_rng(seed)
    seeds = iter(rng.integers(0, 2**62, size=4).tolist())
    state = GoState(rules)
    actions = rules.size * rules.size + 1
    below = settings.puct(settings.sims, False, next(seeds)).search_params()
    full_search = Search(settings.puct(settings.sims, True, next(seeds)).search_params(), evaluator)
    fast_search = Search(
        settings.puct(settings.fast_sims, False, next(seeds)).search_params(), evaluator
    )
    gumbel_seed = next(seeds)
    gumbel = {
        True: GumbelSearch(settings.gumbel(settings.sims), below, evaluator, seed=gumbel_seed),
        False: GumbelSearch(
            settings.gumbel(settings.fast_sims), below, evaluator, seed=gumbel_seed + 1
        ),
    }
    targets: list[PolicyTarget] = []
    counter = [0]
    sims = full = fast = 0
    start = time.perf_counter()
    while not state.is_over:
        is_full = settings.full_share >= 1.0 or bool(rng.random() < settings.full_share)
        if settings.search == "gumbel":
            result = yield from _ask(evaluator, gumbel[is_full].steps(state), counter)
            move = result.action
            policy = result.policy
            sims += result.simulations
        else:
            search = full_search if is_full else fast_search
            search.set_root(state)
            n = settings.sims if is_full else settings.fast_sims
            stats = yield from _ask(evaluator, search.steps(sims=n), counter)
            sample = state.move_number < settings.temperature_moves
            move = choose_move(
                stats,
                "visits",
                pass_move=state.pass_move,
                pass_ends_game=state.consecutive_passes >= 1,
                rng=rng,
                temperature=1.0 if sample else None,
            )
            policy = stats.visit_distribution(actions)
            sims += stats.simulations
        if is_full:
            targets.append(sparse_policy(state.move_number, policy))
            full += 1
        else:
            fast += 1
        state.play(int(move))
    score = state.score()
    return GameRecord(
        index=index,
        seed=seed,
        moves=tuple(int(m) for _, m in state.history),
        targets=tuple(targets),
        winner=1 if score > 0 else -1 if score < 0 else 0,
        result=state.result(),
        full_searches=full,
        fast_searches=fast,
        simulations=sims,
        evaluations=counter[0],
        seconds=round(time.perf_counter() - start, 3),
    )


def play_selfplay_games(
    evaluator: Evaluator,
    settings: GameSettings,
    tasks: Iterable[tuple[int, int]],
    games_at_once: int,
    *,
    shared: SharedEvaluation | None = None,
) -> Iterator[GameRecord]:
    """Play the games ``(index, seed)`` of ``tasks``, ``games_at_once`` at a time.

    Args:
        evaluator: The leaf evaluator shared by all the games (one network call per round).
        settings: How the games are played.
        tasks: ``(index, seed)`` pairs, read lazily (a queue may feed them).
        games_at_once: Games in flight (``K``).
        shared: The shared evaluation whose statistics (network time) the caller reads.

    Yields:
        Each game's record as it ends, with ``cpu_seconds`` the process's CPU time since the
        previous record.
    """
    shared = shared if shared is not None else SharedEvaluation()

    def start(index: int, seed: int) -> Callable[[], Steps[GameRecord]]:
        return lambda: selfplay_game_steps(evaluator, settings, index, seed)

    cpu = time.process_time()
    for _, record in round_robin(
        ((index, start(index, seed)) for index, seed in tasks), games_at_once, shared=shared
    ):
        now = time.process_time()
        yield GameRecord(**{**record.__dict__, "cpu_seconds": round(now - cpu, 3)})
        cpu = now
