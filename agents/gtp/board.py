"""The game a GTP engine is told about: setup stones, moves in any order, undo.

GTP allows moves of either colour in any order, and moves after the game has ended. The game
state of :mod:`go_env` alternates colours and stops after two passes, so when a move is for the
colour not to move, or comes after the end (two passes, move cap), the board continues from the
current position with that colour to move: ko and superko history restart from that position.

Memory. The board keeps one live :class:`~go_env.state.GoState` and, for undo, only what is
needed to rebuild any earlier position: the moves (colour, point) and, for each restart of the
history, the board it restarted from (``N*N`` bytes) and the colour to move. ``undo`` rebuilds
the position from the last restart and replays the moves played since (at most the move cap of
the rules, as the game ends there). Memory is thus ``O(moves)`` at a few hundred bytes a move
at most, whatever the stream of ``play``, ``undo`` and ``loadsgf`` commands; a full state per
move (about 320 KB on 19x19) is never kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from go_env.rules import Rules
from go_env.sgf import GameRecord, rules_name
from go_env.state import Color, GoState

__all__ = ["GtpBoard"]

_CELLS = np.array([ord("."), ord("X"), ord("O")], dtype=np.uint8)


class _Restart(NamedTuple):
    """A position the history restarted from: before move number ``start`` of the game."""

    start: int
    board: bytes  # colours (0 empty, 1 black, 2 white), row-major, N*N bytes
    to_play: Color


class GtpBoard:
    """Setup stones, moves and an undo history under fixed rules.

    Args:
        rules: The rules (the handicap field is ignored: handicap stones are setup stones).
        setup: Black and White setup stones (action indices).
        first: The colour to move first.
        moves: Moves to play from the setup.

    Raises:
        go_env.errors.IllegalMoveError: When a move cannot be played.
        ValueError: When the setup is not a legal position.
    """

    def __init__(
        self,
        rules: Rules,
        setup: tuple[Sequence[int], Sequence[int]] = ((), ()),
        first: Color = Color.BLACK,
        moves: Sequence[tuple[Color, int]] = (),
    ) -> None:
        self.rules = dataclasses.replace(rules, handicap=0)
        self.setup = (list(setup[0]), list(setup[1]))
        self.first = first
        self._state = self._initial_state()
        self._moves: list[tuple[Color, int]] = []
        self._restarts: list[_Restart] = []  # after the setup, in game order
        self._template: tuple[bytes, Color, GoState] | None = None  # the last restart position
        for colour, move in moves:
            self.play(colour, move)

    @property
    def state(self) -> GoState:
        """The current position (a live object: do not modify it)."""
        return self._state

    @property
    def moves(self) -> list[tuple[Color, int]]:
        """The moves played since the setup (colour, action index)."""
        return list(self._moves)

    def is_empty(self) -> bool:
        """Whether no stone was set up or played."""
        return not self._moves and not np.any(self._state.board)

    def with_rules(self, rules: Rules) -> GtpBoard:
        """The same setup and moves replayed under other rules (e.g. a new komi)."""
        return GtpBoard(rules, self.setup, self.first, self._moves)

    def state_for(self, colour: Color) -> GoState:
        """The current state, or the current board with ``colour`` to move when needed.

        The state returned may be the live one: copy it before changing it.
        """
        state = self._state
        if state.to_play == colour and not state.is_over:
            return state
        return self._restarted(_colours(state), colour)

    def play(self, colour: Color, move: int) -> None:
        """Play ``move`` for ``colour``.

        Raises:
            go_env.errors.IllegalMoveError: When the move is illegal (the board is unchanged).
        """
        state = self._state
        if state.to_play == colour and not state.is_over:
            state.play(move)  # checks first: an illegal move leaves the state unchanged
        else:
            board = _colours(state)
            if self._restarts and self._restarts[-1].board == board:
                board = self._restarts[-1].board  # one copy of a board that repeats (passes)
            fresh = self._restarted(board, colour)
            fresh.play(move)
            self._restarts.append(_Restart(len(self._moves), board, colour))
            self._state = fresh
        self._moves.append((colour, int(move)))

    def undo(self) -> bool:
        """Take back the last move; ``False`` when there is none (setup stones stay)."""
        if not self._moves:
            return False
        self._moves.pop()
        if self._restarts and self._restarts[-1].start == len(self._moves):
            self._restarts.pop()
        if self._restarts:
            last = self._restarts[-1]
            state = self._restarted(last.board, last.to_play)
            start = last.start
        else:
            state = self._initial_state()
            start = 0
        for _, move in self._moves[start:]:
            state.play_unsafe(move)  # legal: each was checked when it was first played
        self._state = state
        return True

    def record(self, result: str | None = None) -> GameRecord:
        """The game as an SGF record (setup stones of Black only are written as a handicap)."""
        black, white = self.setup
        return GameRecord(
            size=self.rules.size,
            komi=float(self.rules.komi),
            rules=rules_name(self.rules),
            handicap=len(black) if black and not white else 0,
            setup_black=list(black),
            setup_white=list(white),
            moves=list(self._moves),
            result=result,
        )

    def _restarted(self, board: bytes, colour: Color) -> GoState:
        """A fresh state of ``board`` with ``colour`` to move (history restarting there).

        The last one built is kept and cloned when asked again (a stream of passes after the
        end of a game restarts from the same board every other move).
        """
        cached = self._template
        if cached is not None and cached[0] == board and cached[1] == colour:
            return cached[2].clone()
        n = self.rules.size
        cells = _CELLS[np.frombuffer(board, dtype=np.uint8)].reshape(n, n)
        text = "\n".join(row.tobytes().decode("ascii") for row in cells)
        state = GoState.from_ascii(text, self.rules, to_play=colour)
        self._template = (board, colour, state)
        return state.clone()

    def _initial_state(self) -> GoState:
        black, white = self.setup
        if not black and not white and self.first == Color.BLACK:
            return GoState(self.rules)
        n = self.rules.size
        cells = ["."] * (n * n)
        for p in black:
            cells[p] = "X"
        for p in white:
            cells[p] = "O"
        text = "\n".join("".join(cells[r * n : (r + 1) * n]) for r in range(n))
        return GoState.from_ascii(text, self.rules, to_play=self.first)


def _colours(state: GoState) -> bytes:
    """The board's colours as ``N*N`` bytes (0 empty, 1 black, 2 white)."""
    return np.asarray(state.board, dtype=np.uint8).ravel().tobytes()
