"""Arena matches: many games between two agents, resumable, with statistics and an SPRT.

A match plays ``games`` games between agent A and agent B, both given as spec strings. Games
``2p`` and ``2p + 1`` form pair ``p``: they start from the same opening (random or from a
book, see :mod:`agents.matches.openings`), A plays Black in the first and White in the
second, so the advantages of colour and opening cancel. Every game is determined by the match
seed and its index: the opening comes from ``(seed, pair)`` and each agent's seed from
``(seed, index, side)``, and before each game an agent is reseeded: through its
``reseed(seed)`` method when it has one (e.g. the ``gtp`` agent), else, when its config has a
``seed`` field, by building it again with that seed (a seed in the spec is replaced), else it
is reused as it is. Results do not depend on the number of worker processes.

Games run in a pool of processes (``spawn`` start method: safe with numba and threads) that
build their agents from the specs once and reuse them (``reset()`` before every game); with
one worker they run in the calling process. With ``ray="auto"`` (or a cluster address) they
run instead as tasks on a Ray cluster (:class:`~agents.matches.ray_pool.RayPool`, see
docs/cluster.md): the same games with the same seeds, so the same results file; a node that
dies costs only the games it was playing, which Ray plays again on another node, and the
results file is still written here, once per game. Every finished game is appended to a results file
(:mod:`agents.matches.results`); a rerun with the same file skips the games already there, so an
interrupted match loses at most the games in progress. Raising ``games`` extends a match.

Scoring. Games are scored by Tromp-Taylor area. A game that ends by two passes may still
have dead stones on the board, which an engine such as GNU Go does not bother to capture; a
*referee* then names the dead stones, which are removed before counting (``referee``):
``"auto"`` (the default) uses a player that can judge them, i.e. offers
``final_status_dead(state)`` (the ``gtp`` agent, through ``final_status_list dead``; agent B
is asked first); ``"none"`` scores the board as it stands; any other value is the command line
of a GTP engine that referees every game, as ``gogui-twogtp -referee`` does. Games cut by the
move cap are scored as they stand.

Python API (the ``gomcts arena`` command runs exactly this)::

    from agents.matches.arena import MatchConfig, run_match
    from agents.matches.stats import SprtConfig

    config = MatchConfig(agent_a="mcts:sims=400", agent_b='gtp:cmd="gnugo --mode gtp"',
                         games=200, seed=1)
    result = run_match(config, results="match.jsonl", workers=2,
                       sprt=SprtConfig(elo0=0, elo1=50))
    print(result.format())

For a tuner, :func:`iter_games` yields finished games one at a time **in index order**
(resumed games first), so a caller can score pairs as they complete and stop early; closing
the generator (``break``) cancels the games not started, waits for those running and records
them::

    scores = []
    for game in iter_games(config, results=f"trial-{trial.number}.jsonl", workers=2):
        scores.append(game.score_a)                  # 1, 0.5 or 0 for agent A
        if game.index % 2 == 1:                      # a pair is complete
            trial.report(sum(scores) / len(scores), step=game.pair)
            if trial.should_prune():
                break

:func:`run_match` takes the same arguments plus ``sprt`` and ``on_game(game, result)``, a
callback after each game (in index order) that may return ``True`` to stop the match;
``result`` is the running :class:`MatchResult`. Scripts that use more than one worker must
guard their entry point with ``if __name__ == "__main__":`` (the ``spawn`` start method
imports the main module in every worker).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing.util import Finalize
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.game import move_steps, play_game_steps
from agents.lifetime import die_with_parent
from agents.matches.openings import check_opening, random_opening
from agents.matches.records import game_record, sgf_name
from agents.matches.results import GameOutcome, ResultsFile
from agents.matches.stats import Estimate, SprtConfig, SprtResult, Tally, estimate
from agents.matches.stats import sprt as run_sprt
from agents.mcts.multi import SharedEvaluation, Steps, answer_alone, check_width, round_robin
from agents.registry import agent_config, make_agent
from go_env.dead_stones import result_string, score_without
from go_env.rules import Rules
from go_env.sgf import save_sgf
from go_env.state import Color, GoState

__all__ = [
    "MAX_GAMES",
    "ArenaError",
    "MatchConfig",
    "MatchResult",
    "iter_games",
    "match_game_steps",
    "play_games",
    "play_match_game",
    "run_match",
]

log = logging.getLogger(__name__)

MAX_GAMES = 1_000_000
"""The most games a match may have (a bound like the agents' ``sims``: a larger number would
only hold the memory of its game list and never finish)."""

#: Games handed to a worker pool ahead of the games it is playing, per worker: the pool gets
#: new games as games end, so a long match holds a few futures, not one per game.
_AHEAD_PER_WORKER = 2


class ArenaError(RuntimeError):
    """A match could not be played (a game failed, or the setup is unusable)."""


@dataclass(frozen=True, kw_only=True)
class MatchConfig:
    """What decides the games of a match.

    Args:
        agent_a: Spec of agent A (the candidate), e.g. ``"mcts:sims=400"``.
        agent_b: Spec of agent B (the baseline).
        games: Number of games, 1 to :data:`MAX_GAMES` (an odd number leaves the last pair
            incomplete).
        rules: Rules of every game.
        seed: The match seed.
        opening_moves: Length of the random openings (0: games start from the empty board).
        book: Openings to use instead of random ones (action indices); pair ``p`` plays
            ``book[p % len(book)]``.
        referee: ``"auto"``, ``"none"`` or a GTP engine command line (see the module doc).

    Raises:
        ValueError: For a number of games out of range, a negative seed or opening length, an
            opening that is illegal under ``rules``, or a malformed agent spec.
    """

    agent_a: str
    agent_b: str
    games: int = 100
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    opening_moves: int = 2
    book: tuple[tuple[int, ...], ...] = ()
    referee: str = "auto"

    def __post_init__(self) -> None:
        if (
            isinstance(self.games, bool)
            or not isinstance(self.games, int)
            or not 1 <= self.games <= MAX_GAMES
        ):
            raise ValueError(f"games must be an int in [1, {MAX_GAMES}], got {self.games!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            # numpy's SeedSequence takes non-negative ints only: refused here, not in game 0
            raise ValueError(f"seed must be an int >= 0, got {self.seed!r}")
        if self.opening_moves < 0:
            raise ValueError(f"opening_moves must be >= 0, got {self.opening_moves}")
        if not self.referee.strip():
            raise ValueError("referee must be 'auto', 'none' or a GTP command line")
        object.__setattr__(self, "book", tuple(tuple(int(m) for m in o) for o in self.book))
        for i, opening in enumerate(self.book):
            try:
                check_opening(self.rules, opening)
            except ValueError as exc:
                raise ValueError(f"book opening {i}: {exc}") from None
        for spec in (self.agent_a, self.agent_b):
            agent_config(spec)  # parses the spec and finds the plugin; builds nothing

    def identity(self) -> dict[str, Any]:
        """Everything that decides the games (all but their number), JSON-ready."""
        return {
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "rules": {**dataclasses.asdict(self.rules), "ko": self.rules.ko.value},
            "seed": self.seed,
            "opening_moves": 0 if self.book else self.opening_moves,
            "book": [list(o) for o in self.book],
            "referee": self.referee,
        }

    def opening(self, pair: int) -> tuple[int, ...]:
        """The opening of pair ``pair``."""
        if self.book:
            return self.book[pair % len(self.book)]
        return random_opening(self.rules, self.opening_moves, self.seed, pair)

    def agent_seeds(self, index: int) -> tuple[int, int]:
        """Seeds of agents A and B in game ``index``."""
        a, b = np.random.SeedSequence([self.seed, index]).generate_state(2)
        return int(a), int(b)


# ---------------------------------------------------------------------------- players


class _Timed:
    """An agent wrapper that counts the moves and the time the agent spends on them."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.moves = 0

    def reset(self) -> None:
        self.agent.reset()

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        start = time.perf_counter()
        move = self.agent.act(state, observation)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return move

    def act_steps(self, state: GoState, observation: dict[str, Any] | None = None) -> Steps[int]:
        """The agent's move as a coroutine, timed.

        Its time is its own work plus its share of the shared evaluations that answered it
        (:attr:`~agents.mcts.multi.LeafRequest.seconds`).
        """
        steps = move_steps(self.agent, state, observation)
        seconds = 0.0
        start = time.perf_counter()
        try:
            request = next(steps)
            while True:
                seconds += time.perf_counter() - start
                answer = yield request
                seconds += request.seconds
                start = time.perf_counter()
                request = steps.send(answer)
        except StopIteration as stop:
            move: int = stop.value
        self.seconds += seconds + time.perf_counter() - start
        self.moves += 1
        return move

    def close(self) -> None:
        """The wrapped agent is closed by its owner."""


class _Players:
    """The agents (and referee) of one process, built once and reused across games."""

    def __init__(self) -> None:
        self._agents: dict[str, tuple[str, Agent]] = {}
        self._referee: tuple[str, Any] | None = None

    def agent(self, side: str, spec: str, seed: int) -> Agent:
        """The agent of ``side`` ("a" or "b") for ``spec``, seeded with ``seed``."""
        config = agent_config(spec)
        cached = self._agents.pop(side, None)
        agent = cached[1] if cached is not None and cached[0] == spec else None
        if cached is not None and agent is None:  # another spec on this side: retire it
            cached[1].close()
        reseed = getattr(agent, "reseed", None)
        seeded = "seed" in {f.name for f in dataclasses.fields(config)}
        if agent is not None and (callable(reseed) or not seeded):
            if callable(reseed):
                reseed(seed)
            self._agents[side] = (spec, agent)
            return agent
        if agent is not None:
            agent.close()
        agent = make_agent(dataclasses.replace(config, seed=seed) if seeded else config)
        reseed = getattr(agent, "reseed", None)
        if callable(reseed):
            reseed(seed)
        self._agents[side] = (spec, agent)
        return agent

    def referee(self, command: str) -> Any:
        """The referee engine for a GTP command line (a ``gtp`` agent)."""
        if self._referee is None or self._referee[0] != command:
            from agents.gtp.client_agent import GtpConfig

            if self._referee is not None:
                self._referee[1].close()
            self._referee = (command, GtpConfig(cmd=command).build())
        return self._referee[1]

    def close(self) -> None:
        """Close every agent and the referee."""
        for _, agent in self._agents.values():
            agent.close()
        self._agents.clear()
        if self._referee is not None:
            self._referee[1].close()
            self._referee = None


def _judge(
    config: MatchConfig,
    players: _Players,
    state: GoState,
    black: Agent,
    white: Agent,
    a_black: bool,
) -> tuple[list[int], str | None]:
    """Dead stones of a game that ended by passes, and who judged them."""
    if config.referee == "none" or not state.is_terminal:
        return [], None
    if config.referee == "auto":
        b_agent, a_agent = (white, black) if a_black else (black, white)
        for agent in (b_agent, a_agent):
            judge = getattr(agent, "final_status_dead", None)
            if callable(judge):
                return list(judge(state)), agent.name
        return [], None
    referee = players.referee(config.referee)
    return list(referee.final_status_dead(state)), config.referee


def play_match_game(
    config: MatchConfig, index: int, players: _Players | None = None
) -> GameOutcome:
    """Play game ``index`` of a match and return its outcome (what a worker does).

    Args:
        config: The match.
        index: The game index (``0 <= index``; games beyond ``config.games`` are allowed).
        players: Agents to reuse; by default they are built for this game and closed.

    Raises:
        ArenaError: When an agent fails; the message names the game.
    """
    own = players is None
    players = players or _Players()
    try:
        return answer_alone(match_game_steps(config, index, players))
    finally:
        if own:
            players.close()


def match_game_steps(config: MatchConfig, index: int, players: _Players) -> Steps[GameOutcome]:
    """:func:`play_match_game` as a coroutine yielding its leaf evaluations.

    Driven alone (:func:`~agents.mcts.multi.answer_alone`) it is :func:`play_match_game`;
    :func:`play_games` drives many at once, one evaluator call per round.

    Raises:
        ArenaError: When an agent fails; the message names the game.
    """
    try:
        return (yield from _play(config, index, players))
    except ArenaError:
        raise
    except Exception as exc:
        raise ArenaError(
            f"game {index} ({config.agent_a} vs {config.agent_b}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def play_games(
    config: MatchConfig,
    indices: Iterable[int],
    width: int,
    slots: list[_Players] | None = None,
    *,
    shared: SharedEvaluation | None = None,
) -> Generator[GameOutcome, None, None]:
    """Play games ``width`` at a time in this process, yielding each as it finishes.

    Each game is the same game as :func:`play_match_game` plays alone; the leaves of the
    searches of all running games are evaluated together (:func:`agents.mcts.multi.round_robin`).

    Args:
        config: The match.
        indices: The games to play, started in this order (read lazily).
        width: Games at once (``>= 1``).
        slots: Agents to reuse, one set per running game (at least ``width``); by default
            they are built here and closed at the end.
        shared: The shared evaluation (and its statistics); a new one by default.
    """
    width = check_width(width)
    if slots is None:
        own = [_Players() for _ in range(width)]
        try:
            yield from play_games(config, indices, width, own, shared=shared)
        finally:
            for players in own:
                players.close()
        return
    if len(slots) < width:
        raise ValueError(f"play_games needs {width} player slots, got {len(slots)}")
    free = list(reversed(slots[:width]))

    def start(index: int) -> Callable[[], Steps[GameOutcome]]:
        def steps() -> Steps[GameOutcome]:
            players = free.pop()
            try:
                return (yield from match_game_steps(config, index, players))
            finally:
                free.append(players)

        return steps

    for _, game in round_robin(((i, start(i)) for i in indices), width, shared=shared):
        yield game


def _play(config: MatchConfig, index: int, players: _Players) -> Steps[GameOutcome]:
    pair, a_black = index // 2, index % 2 == 0
    opening = config.opening(pair)
    seed_a, seed_b = config.agent_seeds(index)
    agent_a = players.agent("a", config.agent_a, seed_a)
    agent_b = players.agent("b", config.agent_b, seed_b)
    black, white = (agent_a, agent_b) if a_black else (agent_b, agent_a)
    timed_black, timed_white = _Timed(black), _Timed(white)
    start = time.perf_counter()
    game = yield from play_game_steps(timed_black, timed_white, config.rules, opening=opening)
    state = game.state
    dead: list[int]
    if game.resigned is not None:
        dead, referee, score, winner = [], None, game.score, game.winner
        result, ended_by = game.result, "resignation"
    else:
        dead, referee = _judge(config, players, state, black, white, a_black)
        score = score_without(state, dead) if dead else game.score
        winner = Color.BLACK if score > 0 else Color.WHITE if score < 0 else Color.EMPTY
        result = result_string(score)
        ended_by = "passes" if state.is_terminal else "move cap"
    a_colour = Color.BLACK if a_black else Color.WHITE
    score_a = 0.5 if winner == Color.EMPTY else float(winner == a_colour)
    return GameOutcome(
        index=index,
        pair=pair,
        a_black=a_black,
        black=config.agent_a if a_black else config.agent_b,
        white=config.agent_b if a_black else config.agent_a,
        opening=tuple(opening),
        moves=tuple(move for _, move in state.history),
        result=result,
        score=score,
        raw_score=game.score,
        dead=tuple(dead),
        referee=referee,
        ended_by=ended_by,
        score_a=score_a,
        seed_black=seed_a if a_black else seed_b,
        seed_white=seed_b if a_black else seed_a,
        moves_black=timed_black.moves,
        moves_white=timed_white.moves,
        time_black=timed_black.seconds,
        time_white=timed_white.seconds,
        duration=time.perf_counter() - start,
    )


# ------------------------------------------------------------------ worker processes

_WORKER_PLAYERS: _Players | None = None


def _init_worker(parent: int | None = None) -> None:
    global _WORKER_PLAYERS
    if parent is not None:
        die_with_parent(parent)  # a killed arena takes its workers along
    _WORKER_PLAYERS = _Players()
    Finalize(None, _WORKER_PLAYERS.close, exitpriority=10)


def _init_cluster_worker() -> None:
    """Initialiser of a Ray worker process (whose life Ray manages, not this process)."""
    global _WORKER_PLAYERS
    if _WORKER_PLAYERS is None:
        _WORKER_PLAYERS = _Players()
        Finalize(None, _WORKER_PLAYERS.close, exitpriority=10)


def _worker_game(config: MatchConfig, index: int) -> GameOutcome:
    assert _WORKER_PLAYERS is not None, "the worker was not initialised"
    return play_match_game(config, index, _WORKER_PLAYERS)


def _stream_games(indices: Iterable[int], config: MatchConfig, width: int) -> Iterator[GameOutcome]:
    """A :class:`~agents.matches.stream_pool.StreamPool` worker: ``width`` games at once."""
    yield from play_games(config, indices, width)


# ------------------------------------------------------------------------- the match


def _save_sgf(config: MatchConfig, game: GameOutcome, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    save_sgf(game_record(config.rules, config.seed, game), folder / sgf_name(game))


def iter_games(
    config: MatchConfig,
    *,
    results: str | PathLike[str] | None = None,
    workers: int | None = None,
    sgf_dir: str | PathLike[str] | None = None,
    ray: str | None = None,
    games_per_worker: int = 1,
) -> Generator[GameOutcome, None, None]:
    """Play the match and yield every game in index order, as soon as its turn comes.

    Args:
        config: The match.
        results: The results file; games already in it are yielded without being played
            again. ``None`` keeps nothing (the match cannot be resumed).
        workers: Worker processes (default: all cores); 1 plays in this process. With
            ``ray``: games in flight on the cluster (default: all its CPUs).
        sgf_dir: Folder for one SGF file per game (``game-00012.sgf``).
        ray: Play on this Ray cluster instead of local processes: ``"auto"``, ``"local"``,
            ``"HOST:PORT"`` or ``"ray://HOST:PORT"`` (see :func:`~agents.matches.ray_pool.connect`).
        games_per_worker: Games each worker process plays at once (``K``), their searches'
            leaf evaluations answered by one network call per round (:mod:`agents.mcts.multi`,
            ``docs/arena.md``); every game is the game a lone worker plays (up to the
            floating-point ties of ``docs/decisions/019``). Local processes only.

    Yields:
        :class:`~agents.matches.results.GameOutcome` of games ``0, 1, 2, ...``.

    Raises:
        ArenaError: When a game fails (the games finished before are kept).
        agents.matches.results.ResultsError: When ``results`` belongs to another match.
    """
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    width = check_width(games_per_worker)
    if width > 1 and ray is not None:
        raise ValueError(
            "games_per_worker > 1 plays in local worker processes; with ray it must be 1"
        )
    store = ResultsFile(results, config.identity()) if results is not None else None
    ready = {i: g for i, g in (store.load() if store else {}).items() if i < config.games}
    todo = [i for i in range(config.games) if i not in ready]
    folder = Path(sgf_dir) if sgf_dir is not None else None

    def record(game: GameOutcome) -> None:
        if folder is not None:  # first the SGF: a game in the results file has its SGF
            _save_sgf(config, game, folder)
        if store is not None:
            store.append(game)
        ready[game.index] = game

    if folder is not None:  # games of the file whose SGF was lost to an interruption
        for game in ready.values():
            if not (folder / f"game-{game.index:05d}.sgf").exists():
                _save_sgf(config, game, folder)

    following = 0

    def in_order() -> Iterator[GameOutcome]:
        nonlocal following
        while following in ready:
            yield ready.pop(following)
            following += 1

    yield from in_order()
    if not todo:
        return
    if width > 1:
        yield from _iter_shared(config, todo, workers, width, record, in_order)
        return
    pool: Executor
    if ray is not None:
        from agents.matches.ray_pool import RayPool

        pool = RayPool(ray, slots=workers, initializer=_init_cluster_worker)
    elif workers == 1 or len(todo) <= 1:
        players = _Players()
        try:
            for index in todo:
                record(play_match_game(config, index, players))
                yield from in_order()
        finally:
            players.close()
        return
    else:
        assert workers is not None
        pool = ProcessPoolExecutor(
            min(workers, len(todo)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(os.getpid(),),
        )
    with pool:
        running: dict[Future[GameOutcome], int] = {}
        waiting = iter(todo)
        ahead = _AHEAD_PER_WORKER * workers

        def hand_out() -> None:  # keep the pool busy, a few games ahead, not all of them
            while len(running) < ahead:
                index = next(waiting, None)
                if index is None:
                    return
                running[pool.submit(_worker_game, config, index)] = index

        try:
            hand_out()
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=running.__getitem__):
                    record(_outcome(future, running.pop(future)))
                hand_out()
                yield from in_order()
        finally:
            for future in running:
                future.cancel()
            for future, index in running.items():  # games already running: keep them
                if not future.cancelled():
                    try:
                        record(_outcome(future, index))
                    except BaseException as exc:  # the match is stopping anyway
                        log.warning("game %d, still running at the stop, failed: %s", index, exc)


def _iter_shared(
    config: MatchConfig,
    todo: list[int],
    workers: int,
    width: int,
    record: Callable[[GameOutcome], None],
    in_order: Callable[[], Iterator[GameOutcome]],
) -> Iterator[GameOutcome]:
    """The games of :func:`iter_games` with ``width`` games per worker process."""
    processes = min(workers, len(todo))
    width = min(width, -(-len(todo) // processes))  # no worker takes more than its share
    if processes == 1:
        games = play_games(config, todo, width)
        try:
            for game in games:
                record(game)
                yield from in_order()
        finally:
            games.close()  # the games in flight are lost, as a lone game in this process is
        return
    from agents.matches.stream_pool import StreamPool, WorkerError

    pool = StreamPool(_stream_games, (config, width), processes)
    try:
        try:
            for game in pool.games(todo):
                record(game)
                yield from in_order()
        except WorkerError as exc:
            raise ArenaError(str(exc)) from exc
        finally:
            pool.stop(record)  # games still running at a stop are kept
    finally:
        pool.close()


def _outcome(future: Future[GameOutcome], index: int) -> GameOutcome:
    """The result of a worker's game; a dead worker becomes an :class:`ArenaError`."""
    try:
        return future.result()
    except ArenaError:
        raise
    except Exception as exc:  # e.g. BrokenProcessPool when a worker was killed
        raise ArenaError(
            f"game {index}: the worker process failed: {type(exc).__name__}: {exc}"
        ) from exc


@dataclass
class MatchResult:
    """The games of a match (in index order) and their statistics, from agent A's side.

    Attributes:
        config: The match.
        games: The games counted, ``0 .. len(games) - 1``.
        sprt_config: The SPRT run during the match, if any.
        stopped: Why the match stopped before ``config.games``: ``"sprt"``, ``"callback"``,
            or ``None``.
    """

    config: MatchConfig
    games: list[GameOutcome]
    sprt_config: SprtConfig | None = None
    stopped: str | None = None

    @property
    def scores(self) -> list[float]:
        """Agent A's score in each game."""
        return [g.score_a for g in self.games]

    @property
    def tally(self) -> Tally:
        """Agent A's wins, draws and losses."""
        return Tally.from_scores(self.scores)

    def tally_as(self, colour: Color) -> Tally:
        """Agent A's wins, draws and losses with ``colour``."""
        black = colour == Color.BLACK
        return Tally.from_scores(g.score_a for g in self.games if g.a_black == black)

    @property
    def estimate(self) -> Estimate:
        """Agent A's score rate and Elo difference with their 95% intervals."""
        return estimate(self.tally)

    @property
    def sprt(self) -> SprtResult | None:
        """The SPRT on the games counted, if one was configured."""
        return run_sprt(self.sprt_config, self.scores) if self.sprt_config else None

    def seconds_per_move(self) -> tuple[float, float]:
        """Mean thinking time per move of agent A and of agent B (NaN without moves)."""
        time_a = moves_a = time_b = moves_b = 0.0
        for g in self.games:
            ta, ma, tb, mb = (g.time_black, g.moves_black, g.time_white, g.moves_white)
            if not g.a_black:
                ta, ma, tb, mb = tb, mb, ta, ma
            time_a, moves_a, time_b, moves_b = time_a + ta, moves_a + ma, time_b + tb, moves_b + mb
        return (
            time_a / moves_a if moves_a else math.nan,
            time_b / moves_b if moves_b else math.nan,
        )

    def summary(self) -> dict[str, Any]:
        """The statistics as a JSON-ready dict (non-finite numbers as strings)."""

        def num(x: float) -> float | str | None:
            return None if math.isnan(x) else x if math.isfinite(x) else str(x)

        est, tally = self.estimate, self.tally
        wins = {c: sum(1 for g in self.games if g.result.startswith(c)) for c in "BW"}
        per_a, per_b = self.seconds_per_move()
        out: dict[str, Any] = {
            "match": self.config.identity(),
            "games": len(self.games),
            "planned_games": self.config.games,
            "stopped": self.stopped,
            "a": {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses},
            "a_as_black": dataclasses.asdict(self.tally_as(Color.BLACK)),
            "a_as_white": dataclasses.asdict(self.tally_as(Color.WHITE)),
            "black_wins": wins["B"],
            "white_wins": wins["W"],
            "draws": len(self.games) - wins["B"] - wins["W"],
            "score_rate": num(est.rate),
            "score_rate_95": [num(est.rate_low), num(est.rate_high)],
            "elo": num(est.elo),
            "elo_95": [num(est.elo_low), num(est.elo_high)],
            "seconds_per_move_a": num(per_a),
            "seconds_per_move_b": num(per_b),
            "refereed_games": sum(1 for g in self.games if g.referee is not None),
            "move_cap_games": sum(1 for g in self.games if g.ended_by == "move cap"),
        }
        test = self.sprt
        if test is not None and self.sprt_config is not None:
            out["sprt"] = {
                **dataclasses.asdict(self.sprt_config),
                "llr": test.llr,
                "lower": test.lower,
                "upper": test.upper,
                "decision": test.decision,
                "games": test.games,
            }
        return out

    def format(self) -> str:
        """A human-readable summary."""
        c, est, tally = self.config, self.estimate, self.tally
        black, white = self.tally_as(Color.BLACK), self.tally_as(Color.WHITE)
        per_a, per_b = self.seconds_per_move()
        lines = [
            f"A: {c.agent_a}",
            f"B: {c.agent_b}",
            f"{len(self.games)} of {c.games} games, {c.rules.size}x{c.rules.size}, komi "
            f"{c.rules.komi:g}, ko {c.rules.ko.value}, seed {c.seed}"
            + (f" (stopped by {self.stopped})" if self.stopped else ""),
            f"A: {tally} overall, {black} as Black, {white} as White",
            f"A score rate {est.rate:.3f}, 95% interval [{est.rate_low:.3f}, "
            f"{est.rate_high:.3f}] (Wilson)",
            f"Elo difference A - B {est.elo:+.0f}, 95% interval [{est.elo_low:+.0f}, "
            f"{est.elo_high:+.0f}]",
            f"seconds per move: A {per_a:.3f}, B {per_b:.3f}",
        ]
        refereed = sum(1 for g in self.games if g.referee is not None)
        if refereed:
            lines.append(f"{refereed} games ended by passes were refereed for dead stones")
        test = self.sprt
        if test is not None and self.sprt_config is not None:
            s = self.sprt_config
            verdict = {
                "H1": f"elo >= {s.elo1:g} accepted",
                "H0": f"elo <= {s.elo0:g} accepted",
                None: "undecided",
            }[test.decision]
            lines.append(
                f"SPRT ({s.model}, elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, "
                f"beta {s.beta:g}): LLR {test.llr:.2f} in [{test.lower:.2f}, "
                f"{test.upper:.2f}]: {verdict}"
            )
        return "\n".join(lines)


def run_match(
    config: MatchConfig,
    *,
    results: str | PathLike[str] | None = None,
    workers: int | None = None,
    sgf_dir: str | PathLike[str] | None = None,
    sprt: SprtConfig | None = None,
    on_game: Callable[[GameOutcome, MatchResult], bool | None] | None = None,
    progress: bool = False,
    ray: str | None = None,
    games_per_worker: int = 1,
) -> MatchResult:
    """Play a match (see the module docstring) and return its games and statistics.

    Args:
        config: The match.
        results: The results file (resumes a match already in it); ``None``: keep nothing.
        workers: Worker processes (default: all cores); 1 plays in this process.
        sgf_dir: Folder for one SGF file per game.
        sprt: Stop as soon as this SPRT decides (checked after each game in index order, so
            the stopping point does not depend on the number of workers).
        on_game: Called after each game in index order with the game and the running result;
            returning ``True`` stops the match.
        progress: Show a progress bar with the running score rate on stderr.
        ray: Play on a Ray cluster (see :func:`iter_games`).
        games_per_worker: Games each worker process plays at once, sharing its network
            calls (see :func:`iter_games`).

    Raises:
        ArenaError: When a game fails (finished games stay in the results file).
        agents.matches.ray_pool.ClusterError: With ``ray``, when the cluster is unusable.
    """
    result = MatchResult(config=config, games=[], sprt_config=sprt)
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=config.games, file=sys.stderr, unit="game", dynamic_ncols=True)
    games = iter_games(
        config,
        results=results,
        workers=workers,
        sgf_dir=sgf_dir,
        ray=ray,
        games_per_worker=games_per_worker,
    )
    try:
        for game in games:
            result.games.append(game)
            if bar is not None:
                est = result.estimate
                bar.set_postfix_str(
                    f"A {est.rate:.3f} [{est.rate_low:.3f}, {est.rate_high:.3f}]", refresh=False
                )
                bar.update(1)
            if sprt is not None and result.sprt is not None and result.sprt.decision:
                result.stopped = "sprt"
                break
            if on_game is not None and on_game(game, result):
                result.stopped = "callback"
                break
    finally:
        games.close()
        if bar is not None:
            bar.close()
    return result
