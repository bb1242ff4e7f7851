"""A deliberately simple, slow, pure-Python Go rules implementation used as a test oracle.

Nothing here imports :mod:`go_env`: boards are plain lists of ints, chains and liberties come
from flood fills recomputed from scratch after every move, and the superko history is a set of
whole-board tuples. The rules mirror the ones the engine documents:

* a move is a point index ``row * N + col`` or ``N * N`` for pass;
* captures first (opponent chains left without liberties), then the mover's own chain is removed
  if it has no liberties (suicide; illegal unless allowed);
* simple ko: after a move that captured exactly one stone with a lone stone that is left with
  exactly one liberty, the opponent may not play at once on the captured point;
* positional superko: no move may recreate an earlier board; situational superko: no move may
  recreate an earlier board with the same player to move;
* the game ends after two consecutive passes, or is truncated after ``max_moves`` moves;
* Tromp-Taylor area scoring.
"""

from __future__ import annotations

EMPTY, BLACK, WHITE = 0, 1, 2

OFF_BOARD = "off-board"
OCCUPIED = "occupied"
SUICIDE = "suicide"
KO = "ko"
SUPERKO = "superko"
GAME_OVER = "game over"

__all__ = [
    "BLACK",
    "EMPTY",
    "GAME_OVER",
    "KO",
    "OCCUPIED",
    "OFF_BOARD",
    "SUICIDE",
    "SUPERKO",
    "WHITE",
    "RefGo",
    "area",
    "chain_of",
    "liberties_of",
    "neighbours",
]


def neighbours(p: int, size: int) -> list[int]:
    """Orthogonal neighbours of point ``p`` on a ``size`` x ``size`` board."""
    r, c = divmod(p, size)
    out = []
    if r > 0:
        out.append(p - size)
    if r < size - 1:
        out.append(p + size)
    if c > 0:
        out.append(p - 1)
    if c < size - 1:
        out.append(p + 1)
    return out


def chain_of(board: list[int], size: int, p: int) -> set[int]:
    """All stones connected to the stone at ``p`` (same colour, orthogonally)."""
    color = board[p]
    seen = {p}
    todo = [p]
    while todo:
        q = todo.pop()
        for t in neighbours(q, size):
            if t not in seen and board[t] == color:
                seen.add(t)
                todo.append(t)
    return seen


def liberties_of(board: list[int], size: int, chain: set[int]) -> set[int]:
    """Empty points next to a chain."""
    return {t for q in chain for t in neighbours(q, size) if board[t] == EMPTY}


def area(board: list[int], size: int) -> tuple[int, int]:
    """Tromp-Taylor area ``(black, white)``: stones plus empty regions reaching one colour only."""
    black = board.count(BLACK)
    white = board.count(WHITE)
    seen: set[int] = set()
    for p, color in enumerate(board):
        if color != EMPTY or p in seen:
            continue
        region = chain_of(board, size, p)  # an empty region is a "chain" of empty points
        seen |= region
        reached = {board[t] for q in region for t in neighbours(q, size)} - {EMPTY}
        if reached == {BLACK}:
            black += len(region)
        elif reached == {WHITE}:
            white += len(region)
    return black, white


class RefGo:
    """One game under the given rules; see the module docstring.

    Args:
        size: Board size N.
        komi: Points given to White.
        ko: ``"simple"``, ``"positional"`` or ``"situational"``.
        suicide: Whether suicide is legal.
        max_moves: Move cap (passes included); ``None`` means ``2 * N * N``.
        board: Starting stones (a flat list of 0/1/2), empty by default.
        to_play: The player to move first.
    """

    def __init__(
        self,
        size: int,
        *,
        komi: float = 7.5,
        ko: str = "positional",
        suicide: bool = False,
        max_moves: int | None = None,
        board: list[int] | None = None,
        to_play: int = BLACK,
    ) -> None:
        self.size = size
        self.komi = komi
        self.ko = ko
        self.suicide = suicide
        self.max_moves = max_moves if max_moves is not None else 2 * size * size
        self.board = list(board) if board is not None else [EMPTY] * (size * size)
        self.to_play = to_play
        self.ko_point: int | None = None
        self.passes = 0
        self.moves = 0
        self.captures = {BLACK: 0, WHITE: 0}
        self.seen = {self._key(self.board, self.to_play)}

    @property
    def pass_move(self) -> int:
        """The pass action ``N * N``."""
        return self.size * self.size

    @property
    def is_over(self) -> bool:
        """Two passes in a row, or the move cap reached."""
        return self.passes >= 2 or self.moves >= self.max_moves

    def _key(self, board: list[int], to_play: int) -> tuple[int, ...]:
        if self.ko == "situational":
            return (*board, to_play)
        return tuple(board)

    def after_move(self, p: int, color: int) -> tuple[list[int], int, int]:
        """Board after ``color`` plays ``p``, stones captured, own stones lost to suicide."""
        board = list(self.board)
        board[p] = color
        captured = 0
        for t in neighbours(p, self.size):
            if board[t] == 3 - color:
                chain = chain_of(board, self.size, t)
                if not liberties_of(board, self.size, chain):
                    for q in chain:
                        board[q] = EMPTY
                    captured += len(chain)
        own = chain_of(board, self.size, p)
        lost = 0
        if not liberties_of(board, self.size, own):
            for q in own:
                board[q] = EMPTY
            lost = len(own)
        return board, captured, lost

    def illegal_reason(self, move: int) -> str | None:
        """Why ``move`` is illegal for the player to move, or ``None``."""
        if not 0 <= move <= self.pass_move:
            return OFF_BOARD
        if self.is_over:
            return GAME_OVER
        if move == self.pass_move:
            return None
        if self.board[move] != EMPTY:
            return OCCUPIED
        if move == self.ko_point:
            return KO
        board, _, lost = self.after_move(move, self.to_play)
        if lost and not self.suicide:
            return SUICIDE
        if self.ko != "simple" and self._key(board, 3 - self.to_play) in self.seen:
            return SUPERKO
        return None

    def legal_moves(self) -> list[int]:
        """Sorted legal actions (pass included while the game goes on)."""
        return [m for m in range(self.pass_move + 1) if self.illegal_reason(m) is None]

    def play(self, move: int) -> None:
        """Play a legal move (raises ``ValueError`` naming the reason otherwise)."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise ValueError(f"reference: move {move} is illegal ({reason})")
        color = self.to_play
        self.ko_point = None
        if move == self.pass_move:
            self.passes += 1
        else:
            self.passes = 0
            before = self.board
            board, captured, lost = self.after_move(move, color)
            self.board = board
            self.captures[color] += captured
            self.captures[3 - color] += lost
            if captured == 1 and not lost:
                own = chain_of(board, self.size, move)
                libs = liberties_of(board, self.size, own)
                if len(own) == 1 and len(libs) == 1:
                    (q,) = libs
                    if before[q] == 3 - color:  # the captured stone's point
                        self.ko_point = q
        self.moves += 1
        self.to_play = 3 - color
        self.seen.add(self._key(self.board, self.to_play))

    def score(self) -> float:
        """Tromp-Taylor area score: Black's area - White's area - komi."""
        black, white = area(self.board, self.size)
        return black - white - self.komi
