"""Training examples: positions from SGF game records, and symmetry-augmented minibatches.

An example is a position before a move: its input planes (:mod:`agents.nets.features`), the
move played there (the policy target, pass included) and the game's result from the side of
the player to move (the value target: +1 win, -1 loss, 0 draw). Results that are not known
(no or an unreadable ``RE``) give no value target (weight 0). Moves commented as random opening
moves (:data:`agents.nets.training.gnugo_games.RANDOM_OPENING_TAG`) give no policy target.

Augmentation draws one of the 8 board symmetries per example and applies it to the planes
and to the target move (AlphaGo Zero trains on randomly rotated and reflected positions).
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from agents.nets.features import input_planes, num_input_planes
from agents.nets.symmetry import SYMMETRIES, transform_actions, transform_planes
from agents.nets.training.gnugo_games import RANDOM_OPENING_TAG
from go_env.features import PLANE_DTYPE
from go_env.sgf import GameRecord, SgfError, load_sgf, state_from_record
from go_env.state import Color

__all__ = ["Examples", "examples_from_record", "load_sgf_dir", "result_value", "sample_batch"]


@dataclass
class Examples:
    """Training examples as parallel arrays (``M`` examples).

    Attributes:
        planes: ``int8 (M, C, N, N)`` input planes.
        moves: ``int64 (M,)`` move played (``N*N`` = pass).
        values: ``float32 (M,)`` result for the player to move.
        value_weight: ``float32 (M,)`` 1 where the result is known, else 0.
        policy_weight: ``float32 (M,)`` 1 where the move is a policy target, else 0.
        game: ``int64 (M,)`` index of the game each example comes from.
    """

    planes: np.ndarray
    moves: np.ndarray
    values: np.ndarray
    value_weight: np.ndarray
    policy_weight: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return int(self.moves.shape[0])

    def subset(self, rows: np.ndarray) -> Examples:
        """The examples at ``rows``."""
        return Examples(
            self.planes[rows],
            self.moves[rows],
            self.values[rows],
            self.value_weight[rows],
            self.policy_weight[rows],
            self.game[rows],
        )

    @staticmethod
    def concatenate(parts: list[Examples], in_planes: int, size: int) -> Examples:
        """All examples of ``parts`` in one set."""
        if not parts:
            return Examples(
                np.zeros((0, in_planes, size, size), PLANE_DTYPE),
                np.zeros(0, np.int64),
                np.zeros(0, np.float32),
                np.zeros(0, np.float32),
                np.zeros(0, np.float32),
                np.zeros(0, np.int64),
            )
        return Examples(*(np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS))


_FIELDS = ("planes", "moves", "values", "value_weight", "policy_weight", "game")


def result_value(result: str | None) -> float | None:
    """Black's result as +1 / -1 / 0 from an SGF ``RE`` value; ``None`` when unknown."""
    if not result:
        return None
    text = result.strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return 0.0
    if text.startswith("B+"):
        return 1.0
    if text.startswith("W+"):
        return -1.0
    return None


def examples_from_record(
    record: GameRecord, history: int, tactical: bool, game: int = 0
) -> Examples:
    """The examples of one game (every position before a move of the main line).

    Raises:
        SgfError: When the record cannot be replayed under its rules.
    """
    rules = state_from_record(record).rules  # checks every move; a move cap that fits
    start = GameRecord(
        **{**record.__dict__, "moves": [], "move_comments": {}, "move_properties": {}}
    )
    state = state_from_record(start, rules)
    black = result_value(record.result)
    count = len(record.moves)
    size = record.size
    planes = np.empty((count, num_input_planes(history, tactical), size, size), PLANE_DTYPE)
    moves = np.empty(count, np.int64)
    values = np.zeros(count, np.float32)
    policy_weight = np.ones(count, np.float32)
    for i, (colour, move) in enumerate(record.moves):
        if colour != state.to_play:
            raise SgfError(f"move {i + 1}: {state.to_play.name} is to play; moves must alternate")
        planes[i] = input_planes(state, history, tactical)
        moves[i] = move
        if black is not None:
            values[i] = black if colour == Color.BLACK else -black
        if RANDOM_OPENING_TAG in record.move_comments.get(i, ""):
            policy_weight[i] = 0.0
        state.play(move)
    value_weight = np.full(count, 0.0 if black is None else 1.0, np.float32)
    return Examples(planes, moves, values, value_weight, policy_weight, np.full(count, game))


def load_sgf_dir(
    folder: str | PathLike[str], *, size: int, history: int, tactical: bool = False
) -> tuple[Examples, dict[str, int]]:
    """The examples of every ``*.sgf`` file under ``folder`` (sorted by path) of board ``size``.

    Files of another size, with setup errors or illegal moves are skipped and counted.

    Returns:
        The examples and counts ``{"games": n, "skipped": n, "positions": n}``.

    Raises:
        FileNotFoundError: When ``folder`` is not a directory or holds no SGF file.
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"no SGF folder at {root}")
    files = sorted(root.rglob("*.sgf"))
    if not files:
        raise FileNotFoundError(f"no *.sgf files under {root}")
    parts: list[Examples] = []
    skipped = 0
    for path in files:
        try:
            record = load_sgf(path)
            if record.size != size or not record.moves:
                skipped += 1
                continue
            parts.append(examples_from_record(record, history, tactical, game=len(parts)))
        except (SgfError, ValueError, OSError):
            skipped += 1
    examples = Examples.concatenate(parts, num_input_planes(history, tactical), size)
    return examples, {"games": len(parts), "skipped": skipped, "positions": len(examples)}


def sample_batch(
    examples: Examples, rows: np.ndarray, rng: np.random.Generator | None, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Planes ``float32 (B, C, N, N)`` and target moves ``(B,)`` of ``rows``, augmented.

    With a generator, each example gets a random symmetry (planes and move alike); with
    ``None`` the examples are returned as they are.
    """
    planes = examples.planes[rows]
    moves = examples.moves[rows].copy()
    out = planes.astype(np.float32)
    if rng is not None:
        syms = rng.integers(0, SYMMETRIES, size=rows.shape[0])
        for k in range(1, SYMMETRIES):
            at = syms == k
            if at.any():
                out[at] = transform_planes(planes[at], k)
                moves[at] = transform_actions(moves[at], k, size)
    return out, moves
