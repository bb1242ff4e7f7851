"""Arena matches: many games between two agents, resumable, with statistics and an SPRT.

A match (:class:`MatchConfig`, :mod:`agents.matches.match`) plays ``games`` games between
agent A and agent B in pairs: games ``2p`` and ``2p + 1`` start from the same opening, A
Black in the first and White in the second. Every game is determined by the match seed and
its index (:mod:`agents.matches.game`: the players, their clocks and the referee that names
dead stones), so results do not depend on where or how many at once the games are played.

This module runs a match: :func:`iter_games` resumes it from its results file, picks an
:class:`~agents.matches.executors.Executor` (:mod:`agents.matches.executors`) and records
the games in index order as they come back; :func:`run_match` adds the statistics
(:class:`MatchResult`), an SPRT and a progress bar. The executors:

* one worker (or one game left): in this process;
* several workers: a pool of ``spawn``-ed processes that build their agents from the specs
  once and reuse them (``reset()`` before every game);
* ``games_per_worker=K > 1``: each process (or this one) plays ``K`` games at once, their
  leaf evaluations answered by one network call per round (:mod:`agents.mcts.multi`);
* ``ray="auto"`` (or a cluster address): tasks on a Ray cluster
  (:class:`~agents.matches.ray_pool.RayPool`, see docs/cluster.md): the same games with the
  same seeds, so the same results file; a node that dies costs only the games it was
  playing, which Ray plays again on another node, and the results file is still written
  here, once per game.

Every finished game is appended to a results file (:mod:`agents.matches.results`); a rerun
with the same file skips the games already there, so an interrupted match loses at most the
games in progress. Raising ``games`` extends a match.

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

The names of :mod:`agents.matches.match` and :mod:`agents.matches.game` are importable from
here too, as they were when this module held them.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from os import PathLike
from pathlib import Path

from agents.matches.executors import (
    Executor,
    InProcessExecutor,
    PoolExecutor,
    StreamExecutor,
    init_cluster_worker,
    init_worker,
)
from agents.matches.game import match_game_steps, play_games, play_match_game
from agents.matches.match import MAX_GAMES, ArenaError, MatchConfig, MatchResult
from agents.matches.players import Players as _Players  # noqa: F401  (its old name here)
from agents.matches.records import game_record, sgf_name
from agents.matches.results import GameOutcome, ResultsFile
from agents.matches.stats import SprtConfig
from go_env.sgf import save_sgf
from go_env.validation import check_int

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

#: Games handed to a worker pool ahead of the games it is playing, per worker: the pool gets
#: new games as games end, so a long match holds a few futures, not one per game.
_AHEAD_PER_WORKER = 2


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
            ``ray``: games in flight on the cluster (default: all its CPUs, read again as
            nodes join or leave).
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
        ValueError: For ``workers`` or ``games_per_worker`` not an int ``>= 1``, or
            ``games_per_worker > 1`` with ``ray``.
        ArenaError: When a game fails (the games finished before are kept).
        agents.matches.results.ResultsError: When ``results`` belongs to another match.
    """
    if workers is None and ray is None:
        workers = os.cpu_count() or 1
    if workers is not None:  # None with ray: the cluster's CPUs, followed as nodes join
        workers = check_int("workers", workers, min=1, numpy=True)
    # K is checked here, once: the executors and the games take it as given
    width = check_int("games_per_worker", games_per_worker, min=1, numpy=True)
    if width > 1 and ray is not None:
        raise ValueError(
            "games_per_worker > 1 plays in local worker processes; with ray it must be 1"
        )
    store = ResultsFile(results, config.identity()) if results is not None else None
    try:
        yield from _play(config, store, workers, ray, width, sgf_dir)
    finally:
        if store is not None:
            store.close()


def _play(
    config: MatchConfig,
    store: ResultsFile | None,
    workers: int | None,
    ray: str | None,
    width: int,
    sgf_dir: str | PathLike[str] | None,
) -> Iterator[GameOutcome]:
    """:func:`iter_games` once its arguments are checked and its results file is opened."""
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
    executor = _pick_executor(config, todo, workers, ray, width)
    try:
        games = executor.games(todo)
        try:
            for game in games:
                record(game)
                yield from in_order()
        finally:
            games.close()
            executor.stop(record)
    finally:
        executor.close()


def _pick_executor(
    config: MatchConfig, todo: Sequence[int], workers: int | None, ray: str | None, width: int
) -> Executor:
    """Where the games ``todo`` are played (see the module docstring)."""
    if ray is not None:
        from agents.matches.ray_pool import RayPool

        cluster = RayPool(ray, slots=workers, initializer=init_cluster_worker)
        return PoolExecutor(config, cluster, ahead=lambda: _AHEAD_PER_WORKER * cluster.slots)
    assert workers is not None, "workers is None only with ray"
    processes = min(workers, len(todo))
    if width > 1:
        width = min(width, -(-len(todo) // processes))  # no worker takes more than its share
        if processes == 1:
            return InProcessExecutor(config, width)
        return StreamExecutor(config, processes, width)
    if processes == 1:
        return InProcessExecutor(config)
    pool = ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=init_worker,
        initargs=(os.getpid(),),
    )
    return PoolExecutor(config, pool, ahead=_AHEAD_PER_WORKER * workers)


def _save_sgf(config: MatchConfig, game: GameOutcome, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    save_sgf(game_record(config.rules, config.seed, game), folder / sgf_name(game))


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
    config.identity()  # reads the networks' digests: a missing network is refused before the bar
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
