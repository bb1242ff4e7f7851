"""The game state: a Python API over the compiled rules core.

:class:`GoState` holds one game: the position (in the compiled core's flat vector), the
move history, the superko history and the rules. Every rule check happens in compiled code;
this module validates input, keeps histories and translates results into Python values.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from go_env._core import board as core
from go_env._core.fastcall import is_plain_int8, specialize
from go_env._core.history import (
    KEY_ZERO,
    commit,
    fill_legal_mask,
    new_table,
    record,
    superko_code,
    table_insert,
)
from go_env._core.layout import (
    H_CAPT_B,
    H_CAPT_W,
    H_HASH,
    H_KO,
    H_MOVES,
    H_PASSES,
    H_PEAK,
    H_TO_PLAY,
    HEADER,
    Geometry,
    geometry,
)
from go_env._core.playout import own_eyes, random_playout, seed_rng
from go_env._core.scoring import area, area_owners
from go_env._core.step import ILLEGAL, advance, rule_flags
from go_env.coords import GTP_COLUMNS
from go_env.errors import IllegalMoveError, IllegalReason
from go_env.handicap import fixed_handicap_points
from go_env.rules import KoRule, Rules

__all__ = ["Color", "CompiledState", "GoState"]

_REASONS = {
    core.R_OCCUPIED: IllegalReason.OCCUPIED,
    core.R_SUICIDE: IllegalReason.SUICIDE,
    core.R_KO: IllegalReason.KO,
    core.R_SUPERKO: IllegalReason.SUPERKO,
}
_BLACK_CHARS = "Xx#@"
_WHITE_CHARS = "Oo"
_EMPTY_CHARS = ".+"


class Color(IntEnum):
    """Contents of a point, and the players."""

    EMPTY = 0
    BLACK = 1
    WHITE = 2

    @property
    def opponent(self) -> Color:
        """The other player (``EMPTY`` stays ``EMPTY``)."""
        return Color((3 - self) % 3)


class CompiledState(NamedTuple):
    """A position in the compiled core's form, for numba-compiled agents.

    Attributes:
        vector: ``int64`` state vector (a private copy; layout in :mod:`go_env._core.layout`).
        geometry: Neighbour, diagonal and Zobrist tables of the board size.
        superko_keys: Sorted ``int64`` keys of the positions seen so far (read-only); empty
            under simple ko. Under situational superko a key is the stones' hash xor
            ``geometry.side[player to move]``.
        situational: Whether the keys include the player to move.
        suicide: Whether suicide is legal.
        move_limit: The move cap.
        komi: Komi.
    """

    vector: np.ndarray
    geometry: Geometry
    superko_keys: np.ndarray
    situational: bool
    suicide: bool
    move_limit: int
    komi: float


class GoState:
    """One game of Go under the given :class:`~go_env.rules.Rules`.

    Moves are action indices: ``row * N + col`` with row 0 the top row, and ``N * N`` for pass
    (see :mod:`go_env.coords`). With a handicap, the stones are placed at construction and White
    is to play.

    Args:
        rules: The rules (board size included); 9x9, komi 7.5, positional superko by default.
    """

    __slots__ = (
        "_boards",
        "_fixed",
        "_geo",
        "_history",
        "_mask",
        "_n_pos",
        "_rules",
        "_s",
        "_shared",
        "_table",
        "_trusted_mask",
    )

    def __init__(self, rules: Rules | None = None) -> None:
        self._rules = rules if rules is not None else Rules()
        if not isinstance(self._rules, Rules):
            raise TypeError(f"rules must be a go_env.rules.Rules, got {type(rules).__name__}")
        self._geo: Geometry = geometry(self._rules.size)
        self._fixed = _fixed_arguments(self._rules, self._geo)
        self._s: np.ndarray = core.new_state(self._rules.size)
        self._history: list[tuple[Color, int]] = []
        self._mask: np.ndarray | None = None
        self._trusted_mask: np.ndarray | None = None  # see advance()
        # The start position and one per move; a long cap grows the history only when used.
        rows = min(self._rules.move_limit, 2 * self.pass_move) + 1
        self._boards = np.zeros((rows, self.pass_move), dtype=np.int8)
        self._table = new_table(rows)
        self._n_pos = 0
        self._shared = False
        if self._rules.handicap:
            self.place_stones(fixed_handicap_points(self.size, self._rules.handicap), [])
            self._s[H_TO_PLAY] = Color.WHITE
        self._restart_history()

    # ----------------------------------------------------------------- properties
    @property
    def rules(self) -> Rules:
        """The rules of this game."""
        return self._rules

    @property
    def size(self) -> int:
        """Board size N."""
        return self._rules.size

    @property
    def pass_move(self) -> int:
        """The action index of pass, ``N * N``."""
        return self.size * self.size

    @property
    def to_play(self) -> Color:
        """The player to move."""
        return Color(int(self._s[H_TO_PLAY]))

    @property
    def move_number(self) -> int:
        """Moves played so far, passes included (handicap placement excluded)."""
        return int(self._s[H_MOVES])

    @property
    def history(self) -> tuple[tuple[Color, int], ...]:
        """``(colour, move)`` of every move played, in order."""
        return tuple(self._history)

    @property
    def zobrist(self) -> int:
        """Zobrist hash (signed 64-bit) of the stones on the board: equal positions, equal hash."""
        return int(self._s[H_HASH])

    @property
    def ko_point(self) -> int | None:
        """The point the player to move may not take back at once (simple ko), if any."""
        ko = int(self._s[H_KO])
        return None if ko < 0 else ko

    @property
    def consecutive_passes(self) -> int:
        """Number of passes in a row that ended the move sequence so far."""
        return int(self._s[H_PASSES])

    @property
    def is_terminal(self) -> bool:
        """Whether the game ended by two consecutive passes."""
        return int(self._s[H_PASSES]) >= 2

    @property
    def is_truncated(self) -> bool:
        """Whether the game was cut by the move cap (and did not end by passes)."""
        return not self.is_terminal and self.move_number >= self._rules.move_limit

    @property
    def is_over(self) -> bool:
        """Whether no more moves may be played (terminal or truncated)."""
        return self.is_terminal or self.is_truncated

    @property
    def winner(self) -> Color | None:
        """The winner by area score once the game is over; ``Color.EMPTY`` for a draw.

        ``None`` while the game goes on.
        """
        if not self.is_over:
            return None
        score = self.score()
        return Color.BLACK if score > 0 else Color.WHITE if score < 0 else Color.EMPTY

    @property
    def board(self) -> np.ndarray:
        """A copy of the board, ``int8 (N, N)``: 0 empty, 1 black, 2 white."""
        return self._colors().astype(np.int8).reshape(self.size, self.size)

    # ------------------------------------------------------------------- queries
    def color_at(self, move: int) -> Color:
        """Contents of a point."""
        return Color(int(self._s[HEADER + self._point(move)]))

    def captures(self, color: Color) -> int:
        """Prisoners taken so far by ``color`` (``Color.BLACK`` or ``Color.WHITE``).

        Raises:
            ValueError: For ``Color.EMPTY`` or anything that is not a player.
        """
        player = Color(color)
        if player is Color.EMPTY:
            raise ValueError("captures() needs a player, Color.BLACK or Color.WHITE; got EMPTY")
        return int(self._s[H_CAPT_B if player is Color.BLACK else H_CAPT_W])

    def score(self) -> float:
        """Tromp-Taylor area score of the current position: Black's area - White's - komi."""
        black, white = area(self._s, self._geo.nbr)
        return float(black - white) - float(self._rules.komi)

    def area_owners(self) -> np.ndarray:
        """The Tromp-Taylor owner of every point, ``int8 (N*N,)``: 1 Black, -1 White, 0 neither.

        A stone's point belongs to its colour; an empty region belongs to a colour when it
        reaches stones of that colour only (the area :meth:`score` counts: the sum of the
        owners is ``score() + komi``). The ownership target of a self-play position
        (:mod:`agents.nets.training.window`) is the final position's.
        """
        owners = np.zeros(self.pass_move, dtype=np.int8)
        area_owners(self._s, self._geo.nbr, owners)
        return owners

    def result(self) -> str:
        """The score as an SGF/GTP result string: ``"B+3.5"``, ``"W+0.5"`` or ``"0"`` (draw)."""
        score = self.score()
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def liberties(self, move: int) -> int:
        """Number of liberties of the chain through the stone at ``move``."""
        p = self._stone(move)
        return int(core.liberty_count(self._s, self._geo.nbr, p))

    def chain(self, move: int) -> list[int]:
        """Sorted points of the chain through the stone at ``move``."""
        p = self._stone(move)
        nxt = HEADER + 2 * self.pass_move
        out = [p]
        q = int(self._s[nxt + p])
        while q != p:
            out.append(q)
            q = int(self._s[nxt + q])
        return sorted(out)

    def recent_boards(self, k: int) -> np.ndarray:
        """The last ``k`` positions, newest first, as ``int8 (k, N, N)``.

        Entry 0 is the current board, entry 1 the board before the last move, and so on;
        positions before the start of the game are empty boards.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        n = self.size
        out = np.zeros((k, n * n), dtype=np.int8)
        have = min(k, self._n_pos)
        out[:have] = self._boards[self._n_pos - 1 :: -1][:have]
        return out.reshape(k, n, n)

    def board_rows(self) -> tuple[np.ndarray, int]:
        """The board history for compiled readers: ``(boards, n)``.

        ``boards[:n]`` are the positions of the game, oldest first (``boards[n - 1]`` is the
        current one), each a flat ``int8`` row of ``N * N`` points (0 empty, 1 black, 2
        white); positions set up before the first move count as the first. ``boards`` is the
        state's own storage: read rows below ``n`` only, never write (those rows never
        change; later rows may).
        """
        return self._boards, self._n_pos

    # ----------------------------------------------------------------- legality
    def illegal_reason(self, move: int) -> IllegalReason | None:
        """Why ``move`` is illegal for the player to move, or ``None`` if it is legal."""
        move = self._as_move(move)
        if not 0 <= move <= self.pass_move:
            return IllegalReason.OFF_BOARD
        if self.is_over:
            return IllegalReason.GAME_OVER
        if move == self.pass_move:
            return None
        code = int(
            core.check_local(self._s, self._geo.nbr, move, self._s[H_TO_PLAY], self._rules.suicide)
        )
        if code == core.LEGAL and self._uses_table():
            code = int(
                superko_code(
                    self._s,
                    self._geo.nbr,
                    self._geo.zobrist,
                    self._geo.side,
                    move,
                    self._situational(),
                    self._table,
                )
            )
        return _REASONS.get(code)

    def is_legal(self, move: int) -> bool:
        """Whether the player to move may play ``move``."""
        return self.illegal_reason(move) is None

    def legal_mask(self) -> np.ndarray:
        """``bool (N*N + 1,)``: which actions are legal now (all False once the game is over)."""
        if self._mask is None:
            mask = np.empty(self.pass_move + 1, dtype=np.bool_)
            fill_legal_mask(
                self._s,
                self._geo.nbr,
                self._geo.zobrist,
                self._geo.side,
                self._rules.suicide,
                self._uses_table(),
                self._situational(),
                self._rules.move_limit,
                self._table,
                mask,
            )
            mask.flags.writeable = False
            self._mask = mask
        return self._mask

    def own_eye_mask(self) -> np.ndarray:
        """``bool (N*N,)``: the empty points that are eyes of the player to move.

        An eye here is the random-playout notion (see :func:`go_env._core.playout.is_own_eye`):
        every neighbour is an own stone and the opponent holds at most one diagonal point
        (none on the edge). Agents use it to avoid filling their own eyes.
        """
        out = np.zeros(self.pass_move, dtype=np.bool_)
        own_eyes(self._s, self._geo.nbr, self._geo.diag, self._s[H_TO_PLAY], out)
        return out

    def legal_moves(self) -> np.ndarray:
        """Sorted action indices of the legal moves (pass included while the game goes on)."""
        return np.flatnonzero(self.legal_mask())

    # --------------------------------------------------------------------- moves
    def play(self, move: int) -> None:
        """Play ``move`` for the player to move.

        Raises:
            IllegalMoveError: Naming the reason (off-board, occupied, suicide, ko, superko, game
                over).
        """
        move = self._as_move(move)
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMoveError(move, reason, self._describe(move))
        self.play_unsafe(move)

    def play_unsafe(self, move: int) -> None:
        """Play ``move`` without any check; the caller guarantees that it is legal."""
        color = Color(int(self._s[H_TO_PLAY]))
        if self._shared or self._n_pos == self._boards.shape[0]:
            self._own_history(grow=self._n_pos == self._boards.shape[0])
        commit(
            self._s,
            self._geo.nbr,
            self._geo.zobrist,
            self._geo.side,
            move,
            self._uses_table(),
            self._situational(),
            self._boards,
            self._n_pos,
            self._table,
        )
        self._n_pos += 1
        self._history.append((color, int(move)))
        self._mask = None

    def advance(self, move: int, mask: np.ndarray | None = None) -> tuple[float, int, int] | None:
        """Play ``move`` if it is legal, and compute what an environment needs after it.

        The fast path of the PettingZoo environment: one compiled call checks and plays the
        move, records the position, computes the legal moves of the next player and the area
        score. Unlike :meth:`play`, an illegal move is reported by the return value.

        Args:
            move: The action index (an ``int``).
            mask: ``None``: the legal moves after the move are kept for :meth:`legal_mask`.
                Otherwise a writeable array of ``N * N + 1`` entries (``bool`` or an integer
                type, e.g. the ``int8`` action mask of an environment) that gets them (1 legal,
                0 not); the state keeps no reference to it.

        Returns:
            ``None`` when ``move`` is illegal (nothing changed; :meth:`illegal_reason` says
            why); otherwise ``(score, move_number, status)`` after the move: :meth:`score`,
            :attr:`move_number`, and 0 while the game goes on, 1 when it ended by two passes
            (:attr:`is_terminal`), 2 when the move cap cut it (:attr:`is_truncated`).

        Raises:
            ValueError: When ``mask`` does not have ``N * N + 1`` entries.
        """
        if type(move) is not int:
            move = self._as_move(move)
        row = self._n_pos
        if self._shared or row == self._boards.shape[0]:
            self._own_history(grow=row == self._boards.shape[0])
        nbr, zob, side, rules, komi, actions = self._fixed
        if mask is None:
            out = np.empty(actions, dtype=np.bool_)
            kernel = _ADVANCE.get(np.bool_) or _specialize_advance(np.bool_)
        elif mask is self._trusted_mask:  # a plain int8 array, checked before
            out = mask
            kernel = _ADVANCE_INT8 or _specialize_advance(np.int8)
        else:
            out = mask
            kernel = advance  # numba checks the argument types
            if is_plain_int8(mask, 1):
                self._trusted_mask = mask
        color, diff, number, status = kernel(
            self._s, nbr, zob, side, rules, move, self._boards, row, self._table, out
        )
        if status < 0:
            if status == ILLEGAL:
                return None
            raise ValueError(f"mask must have {actions} entries (N * N + 1), got shape {out.shape}")
        self._n_pos = row + 1
        self._history.append((_COLORS[color], move))
        if mask is None:
            out.setflags(write=False)
            self._mask = out
        else:
            self._mask = None
        return float(diff) - komi, number, status

    def place_stones(self, black: Iterable[int], white: Iterable[int]) -> None:
        """Set up stones (handicap, SGF ``AB``/``AW``) without playing moves.

        Raises:
            ValueError: When a point is off the board or taken, or a set-up chain would have
                no liberty.
        """
        trial = self._s.copy()
        for color, points in ((Color.BLACK, black), (Color.WHITE, white)):
            for move in points:
                p = self._as_move(move)
                if not 0 <= p < self.pass_move:
                    raise ValueError(
                        f"set-up point {move!r} is off the {self.size}x{self.size} board"
                    )
                if trial[HEADER + p] != 0:
                    raise ValueError(f"set-up point {self._describe(p)} is already taken")
                if core.place(trial, self._geo.nbr, self._geo.zobrist, p, int(color)) != -1 or (
                    trial[H_CAPT_B] != self._s[H_CAPT_B] or trial[H_CAPT_W] != self._s[H_CAPT_W]
                ):
                    raise ValueError(
                        f"set-up stone at {self._describe(p)} leaves a chain without liberties"
                    )
        self._s = trial
        self._s[H_KO] = -1
        self._mask = None
        if self._n_pos:
            self._restart_history()

    def compiled(self) -> CompiledState:
        """A snapshot for compiled search code (see :mod:`go_env.kernels`).

        The vector is a copy: kernels may modify it freely without touching this state.
        """
        return CompiledState(
            vector=self._s.copy(),
            geometry=self._geo,
            superko_keys=np.sort(  # the table stores a key of 0 as KEY_ZERO
                np.where(self._table == KEY_ZERO, 0, self._table)[self._table != 0]
            )
            if self._uses_table()
            else np.empty(0, dtype=np.int64),
            situational=self._rules.ko is KoRule.SITUATIONAL,
            suicide=self._rules.suicide,
            move_limit=self._rules.move_limit,
            komi=float(self._rules.komi),
        )

    def clone(self) -> GoState:
        """An independent copy (histories are shared immutably, the board is copied)."""
        other = GoState.__new__(GoState)
        other._rules = self._rules
        other._geo = self._geo
        other._fixed = self._fixed
        other._s = self._s.copy()
        other._history = list(self._history)
        other._boards = self._boards  # shared until either side writes: see _own_history
        other._table = self._table
        other._n_pos = self._n_pos
        other._shared = self._shared = True
        other._mask = self._mask
        other._trusted_mask = None
        return other

    def random_playout(self, seed: int | None = None) -> float:
        """Score (Black - White - komi) at the end of a compiled uniform random playout.

        See :mod:`go_env._core.playout` for the policy. The state itself is not changed.
        """
        rng = seed_rng(
            int(np.random.SeedSequence(seed).generate_state(1)[0]) if seed is None else seed
        )
        black, white = random_playout(
            self._s.copy(),
            self._geo.nbr,
            self._geo.diag,
            self._geo.zobrist,
            self._rules.move_limit,
            rng,
        )
        return float(black - white) - float(self._rules.komi)

    # ------------------------------------------------------------------- ASCII
    def to_ascii(self) -> str:
        """The board as text: ``X`` black, ``O`` white, ``.`` empty, with GTP coordinates."""
        n = self.size
        letters = " ".join(GTP_COLUMNS[:n])
        width = len(str(n))
        rows = [f"{' ' * width} {letters}"]
        chars = ".XO"
        board = self._colors()
        for r in range(n):
            cells = " ".join(chars[int(c)] for c in board[r * n : (r + 1) * n])
            rows.append(f"{n - r:>{width}} {cells}")
        return "\n".join(rows)

    @classmethod
    def from_ascii(
        cls, text: str, rules: Rules | None = None, to_play: Color = Color.BLACK
    ) -> GoState:
        """A position from text rows of ``.``/``+`` (empty), ``X`` (black) and ``O`` (white).

        Coordinate labels (a first line of column letters, row numbers at either end) are
        ignored. The board size comes from the text; ``rules`` (size included) must agree.

        Raises:
            ValueError: When the text is not a square board, disagrees with ``rules.size``, or
                holds a chain without liberties, or ``to_play`` is not Black or White.
        """
        if to_play not in (Color.BLACK, Color.WHITE):
            raise ValueError(f"to_play must be Color.BLACK or Color.WHITE, got {to_play!r}")
        rows = _parse_rows(text)
        n = len(rows)
        if rules is None:
            rules = Rules(size=n)
        elif rules.size != n:
            raise ValueError(f"the text holds a {n}x{n} board but rules.size is {rules.size}")
        state = cls(dataclasses.replace(rules, handicap=0))
        black = [r * n + c for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X"]
        white = [r * n + c for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O"]
        state.place_stones(black, white)
        state._s[H_TO_PLAY] = Color(to_play)
        state._restart_history()
        return state

    def __repr__(self) -> str:
        return (
            f"GoState(size={self.size}, to_play={self.to_play.name}, "
            f"move_number={self.move_number})\n{self.to_ascii()}"
        )

    # ----------------------------------------------------------------- private
    def _colors(self) -> np.ndarray:
        return self._s[HEADER : HEADER + self.pass_move]

    def _uses_table(self) -> bool:
        return self._rules.ko is not KoRule.SIMPLE

    def _situational(self) -> bool:
        return self._rules.ko is KoRule.SITUATIONAL

    def _restart_history(self) -> None:
        """Make the current position the first one of the game's history (after set-up)."""
        self._own_history(grow=False)
        self._table[:] = 0
        self._s[H_PEAK] = 0  # no position recorded: see _core.history.record
        self._n_pos = 1
        record(
            self._s,
            self._geo.side,
            self._uses_table(),
            self._situational(),
            self._boards,
            0,
            self._table,
        )

    def _own_history(self, *, grow: bool) -> None:
        """Copy the shared history arrays before writing (clones share them until then)."""
        rows = self._boards.shape[0] * (2 if grow else 1)
        boards = np.zeros((rows, self.pass_move), dtype=np.int8)
        boards[: self._n_pos] = self._boards[: self._n_pos]
        self._boards = boards
        table = new_table(rows)
        if grow:
            for key in self._table[self._table != 0]:
                table_insert(table, key)
        else:
            table[:] = self._table
        self._table = table
        self._shared = False

    @staticmethod
    def _as_move(move: int) -> int:
        if isinstance(move, (bool, np.bool_)):
            raise TypeError(f"a move must be an int action index, got {move!r}")
        try:
            return operator.index(move)
        except TypeError:
            raise TypeError(f"a move must be an int action index, got {move!r}") from None

    def _point(self, move: int) -> int:
        p = self._as_move(move)
        if not 0 <= p < self.pass_move:
            raise ValueError(
                f"{move!r} is not a point of the {self.size}x{self.size} board "
                f"(0..{self.pass_move - 1})"
            )
        return p

    def _stone(self, move: int) -> int:
        p = self._point(move)
        if self._s[HEADER + p] == 0:
            raise ValueError(f"there is no stone at {self._describe(p)}")
        return p

    def _describe(self, move: int) -> str:
        if 0 <= move < self.pass_move:
            r, c = divmod(move, self.size)
            return f"{move} ({GTP_COLUMNS[c]}{self.size - r})"
        return "pass" if move == self.pass_move else str(move)


_COLORS = (Color.EMPTY, Color.BLACK, Color.WHITE)

_ADVANCE: dict[type, Callable[..., tuple[int, int, int, int]]] = {}
"""``advance`` compiled for masks of each numpy scalar type (see :func:`_specialize_advance`)."""
_ADVANCE_INT8: Callable[..., tuple[int, int, int, int]] | None = None
"""``_ADVANCE[np.int8]`` once made (the environment's case, one look-up less per move)."""


def _specialize_advance(mask_type: type) -> Callable[..., tuple[int, int, int, int]]:
    """``advance`` compiled for the argument types of :meth:`GoState.advance`.

    Called without numba's type dispatch (:mod:`go_env._core.fastcall`), so every argument must
    have the types of these examples: the state's own arrays always do; a mask must be a
    one-dimensional, C-contiguous, writeable array of ``mask_type``.
    """
    geo = geometry(2)
    entry = specialize(
        advance,
        core.new_state(2),
        geo.nbr,
        geo.zobrist,
        geo.side,
        rule_flags(False, True, False, 8),
        0,
        np.zeros((1, 4), dtype=np.int8),
        0,
        new_table(1),
        np.zeros(5, dtype=mask_type),
    )
    _ADVANCE[mask_type] = entry
    if mask_type is np.int8:
        global _ADVANCE_INT8
        _ADVANCE_INT8 = entry
    return entry


def _fixed_arguments(
    rules: Rules, geo: Geometry
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, int]:
    """The arguments of :func:`go_env._core.step.advance` that stay fixed during a game.

    Returns:
        ``(nbr, zobrist, side, rule flags, komi, number of actions)``.
    """
    flags = rule_flags(
        rules.suicide,
        rules.ko is not KoRule.SIMPLE,
        rules.ko is KoRule.SITUATIONAL,
        rules.move_limit,
    )
    return geo.nbr, geo.zobrist, geo.side, flags, float(rules.komi), rules.size * rules.size + 1


def _parse_rows(text: str) -> list[str]:
    rows: list[str] = []
    for raw in text.splitlines():
        body = raw.strip().strip("0123456789").strip()
        cells = body.replace(" ", "")
        if not cells:
            continue
        if cells[0] == "A" and all(ch in GTP_COLUMNS for ch in cells):
            continue  # a line of column labels
        row = []
        for ch in cells:
            if ch in _BLACK_CHARS:
                row.append("X")
            elif ch in _WHITE_CHARS:
                row.append("O")
            elif ch in _EMPTY_CHARS:
                row.append(".")
            else:
                raise ValueError(
                    f"unexpected character {ch!r} in board row {raw!r}; "
                    "allowed: . + (empty), X (black), O (white)"
                )
        rows.append("".join(row))
    n = len(rows)
    if not rows or any(len(row) != n for row in rows):
        raise ValueError(f"the text is not a square board: row lengths {[len(r) for r in rows]}")
    Rules(size=n)  # validates the size range
    return rows
