"""Training games generated locally: GNU Go playing itself at chosen levels, saved as SGF.

Nothing can be downloaded on the machines this project trains on, so supervised data comes
from GNU Go (``gnugo --mode gtp``, driven through :class:`~agents.gtp.process.GtpProcess`).
Game ``i`` is decided by ``(seed, i)``: the levels of Black and White are drawn from
``levels`` and GNU Go's random seed (``set_random_seed``) is set, so games differ from the
second move on; optional random opening moves add more variety (they are marked in the SGF
comments, and :mod:`agents.nets.training.data` does not learn them as policy targets).

Every move is checked by our rules (positional superko by default); a game in which GNU Go,
which knows simple ko only, repeats a position is dropped. A game ends by two passes, a
resignation (``B+R``/``W+R``) or the move cap; the result of a finished game is GNU Go's
``final_score`` (area scoring, dead stones removed by GNU Go), so that value targets do not
count dead stones as alive. Each game is written as ``game-NNNNN.sgf`` as soon as it ends; a
rerun skips the games already in the folder.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np

from agents.gtp.client_agent import resolve_program
from agents.gtp.process import GtpProcess
from agents.lifetime import die_with_parent
from go_env.coords import from_gtp, to_gtp
from go_env.errors import IllegalMoveError
from go_env.rules import Rules
from go_env.sgf import record_from_state, save_sgf
from go_env.state import Color, GoState

__all__ = ["RANDOM_OPENING_TAG", "GnuGoGames", "generate_games", "play_gnugo_game"]

RANDOM_OPENING_TAG = "random opening move"
"""Comment on the SGF nodes of random opening moves."""


@dataclass(frozen=True, kw_only=True)
class GnuGoGames:
    """What decides the generated games.

    Args:
        games: Number of games.
        levels: GNU Go levels to draw from (independently for Black and White).
        rules: Rules of the games (size, komi).
        random_moves: Uniformly random legal opening moves per game (0 by default).
        seed: Seed of the whole set.
        program: The GNU Go program (looked up on ``PATH`` and in ``/usr/games``).
    """

    games: int = 200
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    rules: Rules = field(default_factory=lambda: Rules(size=9, komi=7.5))
    random_moves: int = 0
    seed: int = 0
    program: str = "gnugo"

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"games must be >= 1, got {self.games}")
        if not self.levels or any(not 0 <= level <= 10 for level in self.levels):
            raise ValueError(f"levels must be GNU Go levels in 0..10, got {self.levels}")
        if self.random_moves < 0:
            raise ValueError(f"random_moves must be >= 0, got {self.random_moves}")

    def game_setup(self, index: int) -> tuple[int, int, int]:
        """``(black level, white level, GNU Go seed)`` of game ``index``."""
        rng = np.random.default_rng([self.seed, index])
        black, white = rng.choice(np.asarray(self.levels), size=2)
        return int(black), int(white), int(rng.integers(1, 2**31 - 1))


def _final_result(engine: GtpProcess) -> str:
    answer = engine.send("final_score").strip()
    return "0" if answer in ("0", "Draw") else answer


def play_gnugo_game(
    config: GnuGoGames, index: int, engine: GtpProcess
) -> tuple[GoState, str] | None:
    """Play game ``index`` on ``engine``: the final state and the result string (SGF ``RE``).

    ``None`` means that the game was dropped (GNU Go repeated a position, which our superko
    rule forbids).
    """
    rules = config.rules
    black_level, white_level, seed = config.game_setup(index)
    engine.send(f"boardsize {rules.size}")
    engine.send("clear_board")
    engine.send(f"komi {rules.komi:g}")
    engine.send(f"set_random_seed {seed}")
    state = GoState(rules)
    rng = np.random.default_rng([config.seed, index, 1])
    for _ in range(config.random_moves):
        legal = state.legal_moves()
        points = legal[legal != state.pass_move]
        points = points[~state.own_eye_mask()[points]]
        if points.size == 0:
            break
        move = int(rng.choice(points))
        engine.send(
            f"play {'b' if state.to_play == Color.BLACK else 'w'} {to_gtp(move, rules.size)}"
        )
        state.play(move)
    result = None
    while not state.is_over:
        colour = "b" if state.to_play == Color.BLACK else "w"
        engine.send(f"level {black_level if colour == 'b' else white_level}")
        answer = engine.send(f"genmove {colour}").strip()
        if answer.lower() == "resign":
            result = f"{'W' if colour == 'b' else 'B'}+R"
            break
        try:
            state.play(from_gtp(answer, rules.size))
        except IllegalMoveError:
            return None
    if result is None:
        result = _final_result(engine) if state.is_terminal else state.result()
    return state, result


def _save(config: GnuGoGames, index: int, state: GoState, result: str, folder: Path) -> None:
    black_level, white_level, seed = config.game_setup(index)
    comments = {i: RANDOM_OPENING_TAG for i in range(min(config.random_moves, state.move_number))}
    record = record_from_state(
        state,
        black=f"GNU Go level {black_level}",
        white=f"GNU Go level {white_level}",
        result=result,
        comments=comments,
        game_comment=(
            f"GNU Go self-play game {index} of set seed {config.seed}; GNU Go seed {seed}; "
            f"{config.random_moves} random opening moves; result by GNU Go final_score"
        ),
    )
    save_sgf(record, folder / f"game-{index:05d}.sgf")


_ENGINE: GtpProcess | None = None


def _worker_game(config: GnuGoGames, index: int, folder: str) -> bool:
    global _ENGINE
    if _ENGINE is None or not _ENGINE.alive:
        argv = resolve_program([config.program, "--mode", "gtp", "--chinese-rules"])
        _ENGINE = GtpProcess(argv, timeout=600.0)
    played = play_gnugo_game(config, index, _ENGINE)
    if played is None:
        return False
    _save(config, index, played[0], played[1], Path(folder))
    return True


def generate_games(
    config: GnuGoGames,
    out_dir: str | PathLike[str],
    *,
    workers: int = 1,
    max_seconds: float | None = None,
    progress: bool = False,
) -> dict[str, float]:
    """Generate the games of ``config`` into ``out_dir`` (resumable: existing games are kept).

    Args:
        config: The games.
        out_dir: Folder of the SGF files.
        workers: Processes, each with its own GNU Go.
        max_seconds: Stop starting new games after this long (the games running finish).
        progress: Show a progress bar on stderr.

    Returns:
        ``{"written": n, "dropped": n, "skipped": n, "seconds": s}``.
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    todo = [i for i in range(config.games) if not (folder / f"game-{i:05d}.sgf").exists()]
    skipped = config.games - len(todo)
    start = time.perf_counter()
    deadline = start + max_seconds if max_seconds is not None else float("inf")
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=len(todo), file=sys.stderr, unit="game", dynamic_ncols=True)
    written = dropped = 0
    workers = max(1, workers)
    with ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        pending: dict[Future[bool], int] = {}
        queue = list(todo)
        while queue or pending:
            while queue and len(pending) < workers and time.perf_counter() < deadline:
                index = queue.pop(0)
                pending[pool.submit(_worker_game, config, index, str(folder))] = index
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.pop(future)
                if future.result():
                    written += 1
                else:
                    dropped += 1
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    return {
        "written": written,
        "dropped": dropped,
        "skipped": skipped,
        "seconds": time.perf_counter() - start,
    }
