"""The game a GTP engine is told about: setup stones, moves in any order, undo.

GTP allows moves of either colour in any order, and moves after the game has ended. The game
state of :mod:`go_env` alternates colours and stops after two passes, so when a move is for the
colour not to move, or comes after the end (two passes, move cap), the board continues from the
current position with that colour to move: ko and superko history restart from that position.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from go_env.rules import Rules
from go_env.sgf import GameRecord, rules_name
from go_env.state import Color, GoState

__all__ = ["GtpBoard"]


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
        self._undo: list[GoState] = []
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
        """The current state, or the current board with ``colour`` to move when needed."""
        state = self._state
        if state.to_play == colour and not state.is_over:
            return state
        return GoState.from_ascii(state.to_ascii(), self.rules, to_play=colour)

    def play(self, colour: Color, move: int) -> None:
        """Play ``move`` for ``colour``.

        Raises:
            go_env.errors.IllegalMoveError: When the move is illegal (the board is unchanged).
        """
        new = self.state_for(colour).clone()
        new.play(move)
        self._undo.append(self._state)
        self._moves.append((colour, move))
        self._state = new

    def undo(self) -> bool:
        """Take back the last move; ``False`` when there is none (setup stones stay)."""
        if not self._undo:
            return False
        self._state = self._undo.pop()
        self._moves.pop()
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
