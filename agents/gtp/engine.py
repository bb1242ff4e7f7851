"""A GTP v2 engine that serves any agent (``gomcts gtp --agent SPEC``).

The engine follows the Go Text Protocol version 2 (draft 2, Gunnar Farnebäck, 2002):
commands ``[id] name [arguments]`` are read one per line; control characters other than tab
and newline are dropped, tabs become spaces, ``#`` starts a comment, and empty lines are
ignored. A success is answered ``=[id] result`` and a failure ``?[id] message``, each followed
by an empty line. Failures use the specification's messages: ``unknown command``,
``syntax error``, ``illegal move``, ``cannot undo``, ``unacceptable size``,
``board not empty``, ``invalid number of stones``, ``bad vertex list``, ``cannot load file``,
``cannot score``. A malformed or unknown command gets a failure and the engine keeps running;
only ``quit`` or the end of input stops it.

Board state. The engine keeps the moves it was told or generated, under the rules given at
start (ko rule, suicide, move cap) with the size and komi of ``boardsize``/``komi``. GTP allows
moves of either colour in any order; when a ``play`` or ``genmove`` is for the colour not to
move, or comes after the game ended (two passes, move cap), the engine continues from the
current board with that colour to move: ko and superko history restart from that position.

Scoring. ``final_score`` and ``final_status_list`` use :mod:`go_env.dead_stones`: stones are
judged dead by random-playout ownership, removed, and the board is scored by Tromp-Taylor
area with the current komi. ``seki`` lists are always empty (the estimate cannot recognise
seki). ``kgs-genmove_cleanup`` asks the agent for a move and, when the agent passes while
stones of the opponent judged dead remain, plays on a liberty of such a stone instead.

Resigning. An agent that resigns (raises :class:`~agents.base.Resignation`, as the MCTS
agent's ``resign=`` and an external engine's ``resign`` do) answers ``= resign`` to
``genmove``, ``kgs-genmove_cleanup`` and ``reg_genmove``; the board is left unchanged.

Board size. An agent built for one board size (a ``net`` agent, or an MCTS agent whose
evaluator is a network: see :func:`agent_board_size`) refuses any other at ``boardsize``
(``? unacceptable size``, with the size it plays) and ``loadsgf`` (``? cannot load file``),
not later at ``genmove``; the engine is not built for another starting size (``ValueError``).

Komi. ``komi`` accepts a finite number of magnitude at most :data:`MAX_KOMI`.

Analysis. ``lz-analyze [colour] [interval]`` (interval in centiseconds, default 100; also
``interval N``) answers ``=`` and streams ``info`` lines (see :mod:`agents.gtp.analysis`)
until the next command arrives, then ends the response with an empty line.
``kata-analyze`` takes the same arguments and streams KataGo's format (winrate and prior as
fractions). Both accept, and ignore, the options ``minmoves``, ``maxmoves``, ``ownership``,
``ownershipStdev``, ``movesOwnership``, ``pvVisits``, ``pvEdgeVisits`` and ``rootInfo``, each
with one value. Agents without an analysis hook (see :mod:`agents.gtp.analysis`) stream
nothing. ``gogui-analyze_commands`` lists the commands GoGui can show in its Analyze menu.

Standard output carries only GTP responses; logs go to the ``logging`` module (stderr in the
command line).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TextIO

import numpy as np

from agents.base import Agent, Resignation
from agents.gtp.analysis import MoveInfo, analysis_hook, format_kata_info, format_lz_info
from agents.gtp.board import GtpBoard
from agents.gtp.lines import MAX_LINE_CHARS, LineQueue, OverlongLine
from agents.regular_file import read_regular_file
from go_env.coords import from_gtp, to_gtp
from go_env.dead_stones import chains, estimate_dead, result_string, score_without
from go_env.errors import IllegalMoveError
from go_env.features import history_planes_hwc
from go_env.handicap import fixed_handicap_points, max_handicap
from go_env.rules import MAX_SIZE, MIN_SIZE, Rules
from go_env.sgf import GameRecord, SgfError, dump_sgf, parse_sgf_bytes
from go_env.state import Color, GoState

__all__ = ["MAX_DEAD_PLAYOUTS", "MAX_KOMI", "GtpEngine", "GtpFailure", "agent_board_size"]

log = logging.getLogger(__name__)

_VERTEX = re.compile(r"^[A-HJ-Za-hj-z][0-9]{1,2}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_OBSERVATION_HISTORY = 8  # positions in the observation handed to agents, as in the env


class GtpFailure(Exception):
    """A command failed; the message is the GTP error message."""


def _package_version() -> str:
    try:
        return version("gomcts")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def parse_color(token: str) -> Color:
    """A GTP colour (``b``, ``black``, ``w``, ``white``; any case)."""
    low = token.lower()
    if low in ("b", "black"):
        return Color.BLACK
    if low in ("w", "white"):
        return Color.WHITE
    raise GtpFailure("syntax error")


#: The largest integer argument accepted: GTP 2 (section 2.6) defines ``int`` as an unsigned
#: integer of at most 2**31 - 1; anything longer is a syntax error, not an internal error.
MAX_INT = 2**31 - 1
#: The largest file ``loadsgf`` reads (bytes); larger files and anything but a regular file
#: (a FIFO, a device, a directory) get ``cannot load file``.
MAX_SGF_BYTES = 1 << 20
_ID = re.compile(r"[0-9]{1,10}")  # ASCII digits only: str.isdigit() also accepts '²'
#: The largest komi magnitude ``komi`` accepts: the area of the largest board, past which a
#: komi decides every game alone (and SGF readers choke on its digits).
MAX_KOMI = float(MAX_SIZE * MAX_SIZE)
#: The most random playouts of the dead-stone estimate (``--dead-playouts``).
MAX_DEAD_PLAYOUTS = 100_000
#: Options of ``lz-analyze``/``kata-analyze`` that are accepted with one value and ignored.
_ANALYZE_OPTIONS = frozenset(
    (
        "minmoves",
        "maxmoves",
        "ownership",
        "ownershipstdev",
        "movesownership",
        "pvvisits",
        "pvedgevisits",
        "rootinfo",
    )
)
#: The ``gogui-analyze_commands`` entries (GoGui's ``type/label/command``).
_GOGUI_ANALYZE = (
    "plist/Dead Stones/final_status_list dead",
    "plist/Alive Stones/final_status_list alive",
    "string/Final Score/final_score",
    "string/Show Board/showboard",
)


def _parse_int(token: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,10}", token):
        raise GtpFailure("syntax error")
    value = int(token)
    if abs(value) > MAX_INT:
        raise GtpFailure("syntax error")
    return value


def _load_limited(path: str) -> GameRecord:
    """Read an SGF file for ``loadsgf``: a regular file of at most :data:`MAX_SGF_BYTES`."""
    return parse_sgf_bytes(read_regular_file(path, MAX_SGF_BYTES))


def agent_board_size(agent: object) -> int | None:
    """The one board size ``agent`` plays, or ``None`` when it plays any.

    Looks for a ``board_size`` attribute on the agent, on its ``evaluator``, and on its
    search's ``evaluator`` (a network evaluator has one: its network is built for one size).
    """
    candidates = [agent, getattr(agent, "evaluator", None)]
    search = getattr(agent, "search", None)
    candidates.append(getattr(search, "evaluator", None))
    for candidate in candidates:
        size = getattr(candidate, "board_size", None) if candidate is not None else None
        if isinstance(size, int) and not isinstance(size, bool):
            return size
    return None


@dataclass
class _Analysis:
    colour: Color | None
    interval: float
    kata: bool = False


class GtpEngine:
    r"""A GTP v2 engine playing with ``agent``.

    Args:
        agent: The agent asked for moves (``genmove``) and analysis (``lz-analyze``).
        rules: Rules of the games (ko rule, suicide, move cap, starting size and komi);
            ``boardsize`` and ``komi`` change the size and komi.
        name: Answer to ``name``.
        engine_version: Answer to ``version`` (default: the gomcts version and the agent's
            name).
        dead_playouts: Random playouts of the dead-stone estimate of ``final_score``,
            ``final_status_list`` and ``kgs-genmove_cleanup``.
        seed: Seed of the dead-stone estimate.

    Example:
        >>> from agents.random_agent import RandomAgent
        >>> engine = GtpEngine(RandomAgent())
        >>> engine.handle("1 boardsize 9")
        '=1 \n\n'
        >>> engine.handle("play black I5")
        '? syntax error\n\n'
    """

    def __init__(
        self,
        agent: Agent,
        *,
        rules: Rules | None = None,
        name: str = "gomcts",
        engine_version: str | None = None,
        dead_playouts: int = 64,
        seed: int = 0,
    ) -> None:
        if (
            isinstance(dead_playouts, bool)
            or not isinstance(dead_playouts, int)
            or not 1 <= dead_playouts <= MAX_DEAD_PLAYOUTS
        ):
            raise ValueError(
                f"dead_playouts must be an integer 1..{MAX_DEAD_PLAYOUTS}, got {dead_playouts!r}"
            )
        self.agent = agent
        self.name = name
        self.engine_version = engine_version or f"{_package_version()} ({agent.name})"
        self.dead_playouts = dead_playouts
        self.seed = seed
        self._board = GtpBoard(rules or Rules())
        only = agent_board_size(agent)
        if only is not None and self._board.rules.size != only:
            raise ValueError(
                f"agent {agent.name} plays {only}x{only} only; the board is "
                f"{self._board.rules.size}x{self._board.rules.size} (use --size {only})"
            )
        self.time_settings: tuple[int, int, int] | None = None
        self.time_left: dict[Color, tuple[int, int]] = {}
        self.quitting = False
        self._analysis: _Analysis | None = None
        self._commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: self.name,
            "version": lambda args: self.engine_version,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self._commands),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play_command,
            "genmove": self._genmove,
            "reg_genmove": self._reg_genmove,
            "kgs-genmove_cleanup": self._genmove_cleanup,
            "undo": self._undo_command,
            "fixed_handicap": self._fixed_handicap,
            "place_free_handicap": self._place_free_handicap,
            "set_free_handicap": self._set_free_handicap,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
            "showboard": self._showboard,
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "loadsgf": self._loadsgf,
            "printsgf": self._printsgf,
            "lz-analyze": self._lz_analyze,
            "kata-analyze": self._kata_analyze,
            "gogui-analyze_commands": lambda args: "\n".join(_GOGUI_ANALYZE),
        }

    # ----------------------------------------------------------------- public view
    @property
    def state(self) -> GoState:
        """The current position (a live object: do not modify it)."""
        return self._board.state

    @property
    def moves(self) -> list[tuple[Color, int]]:
        """The moves of the game so far (colour, action index), as received or generated."""
        return self._board.moves

    @property
    def commands(self) -> list[str]:
        """Names of the commands the engine knows."""
        return list(self._commands)

    # -------------------------------------------------------------------- protocol
    def handle(self, line: str) -> str | None:
        """Answer one command line.

        Returns:
            The full response (ending with an empty line), or ``None`` for a line that is
            empty after removing comments. For ``lz-analyze`` only the first line (``=id``)
            is returned and :meth:`serve` streams the rest.
        """
        if isinstance(line, OverlongLine):  # its text (and any id) was dropped unread
            return f"? command line longer than {MAX_LINE_CHARS} characters\n\n"
        text = _CONTROL.sub("", line.replace("\r", "")).replace("\t", " ")
        text = text.split("#", 1)[0].strip()
        if not text:
            return None
        tokens = text.split()
        ident = ""
        if _ID.fullmatch(tokens[0]) and int(tokens[0]) <= MAX_INT:
            ident = tokens.pop(0)
        if not tokens:
            return f"?{ident} unknown command\n\n"
        command, args = tokens[0], tokens[1:]
        handler = self._commands.get(command)
        if handler is None:
            return f"?{ident} unknown command\n\n"
        try:
            result = handler(args)
        except GtpFailure as failure:
            return f"?{ident} {failure}\n\n"
        except Exception as exc:  # an agent or engine bug must not end the session
            log.exception("command %r failed", text)
            return f"?{ident} internal error: {type(exc).__name__}: {exc}".replace("\n", " ") + (
                "\n\n"
            )
        if command in ("lz-analyze", "kata-analyze"):
            return f"={ident}\n"
        return f"={ident} {result}\n\n"

    def serve(self, stdin: Iterable[str], stdout: TextIO) -> None:
        """Answer commands from ``stdin`` on ``stdout`` until ``quit`` or the end of input."""
        lines = LineQueue(stdin)
        while not self.quitting:
            line = lines.get()
            if line is None:
                break
            response = self.handle(line)
            if response is None:
                continue
            stdout.write(response)
            stdout.flush()
            request, self._analysis = self._analysis, None
            if request is not None:
                self._stream_analysis(request, lines, stdout)

    # ------------------------------------------------------------------- analysis
    def _stream_analysis(self, request: _Analysis, lines: LineQueue, stdout: TextIO) -> None:
        state = self._board.state_for(request.colour or self._board.state.to_play).clone()
        size = state.size
        analyze = analysis_hook(self.agent)
        formatter = format_kata_info if request.kata else format_lz_info

        def report(infos: Sequence[MoveInfo]) -> None:
            text = formatter(infos, size)
            if text:
                stdout.write(text + "\n")
                stdout.flush()

        if analyze is not None and not state.is_over:
            try:
                analyze(state, report=report, should_stop=lines.pending, interval=request.interval)
            except Exception:  # the stream ends; the session goes on
                log.exception("analysis by %s failed", self.agent.name)
        lines.wait()
        stdout.write("\n")
        stdout.flush()

    def _lz_analyze(self, args: list[str]) -> str:
        self._analysis = self._parse_analyze(args, kata=False)
        return ""

    def _kata_analyze(self, args: list[str]) -> str:
        self._analysis = self._parse_analyze(args, kata=True)
        return ""

    @staticmethod
    def _parse_analyze(args: list[str], *, kata: bool) -> _Analysis:
        """``[colour] [interval] [option value]...`` of ``lz-analyze`` and ``kata-analyze``."""
        colour: Color | None = None
        interval = 1.0
        rest = list(args)
        if rest and rest[0].lower() in ("b", "w", "black", "white"):
            colour = parse_color(rest.pop(0))
        while rest:
            token = rest.pop(0)
            if token == "interval" and rest:
                interval = _parse_int(rest.pop(0)) / 100.0
            elif re.fullmatch(r"[0-9]+", token):
                interval = _parse_int(token) / 100.0
            elif token.lower() in _ANALYZE_OPTIONS and rest:
                rest.pop(0)
            else:
                raise GtpFailure("syntax error")
        if interval <= 0:
            interval = 1.0
        return _Analysis(colour, interval, kata)

    # ------------------------------------------------------------------ commands
    def _known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpFailure("syntax error")
        return "true" if args[0] in self._commands else "false"

    def _quit(self, args: list[str]) -> str:
        self.quitting = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpFailure("syntax error")
        size = _parse_int(args[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpFailure("unacceptable size")
        only = agent_board_size(self.agent)
        if only is not None and size != only:
            raise GtpFailure(f"unacceptable size ({self.agent.name} plays {only}x{only} only)")
        self._board = GtpBoard(dataclasses.replace(self._board.rules, size=size))
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._board = GtpBoard(self._board.rules)
        return ""

    def _komi(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpFailure("syntax error")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpFailure("syntax error") from None
        if not math.isfinite(komi):
            raise GtpFailure("syntax error")
        if abs(komi) > MAX_KOMI:
            raise GtpFailure(f"komi must be between {-MAX_KOMI:g} and {MAX_KOMI:g}")
        self._board = self._board.with_rules(dataclasses.replace(self._board.rules, komi=komi))
        return ""

    def _play_command(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpFailure("syntax error")
        colour = parse_color(args[0])
        self._play(colour, self._parse_vertex(args[1]))
        return ""

    def _genmove(self, args: list[str]) -> str:
        colour = self._one_colour(args)
        move = self._choose(colour)
        if move is None:
            return "resign"
        self._play(colour, move)
        return to_gtp(move, self._board.rules.size)

    def _reg_genmove(self, args: list[str]) -> str:
        move = self._choose(self._one_colour(args))
        return "resign" if move is None else to_gtp(move, self._board.rules.size)

    def _genmove_cleanup(self, args: list[str]) -> str:
        colour = self._one_colour(args)
        move = self._choose(colour)
        if move is None:
            return "resign"
        if move == self._board.state.pass_move:
            move = self._cleanup_move(self._board.state_for(colour))
        self._play(colour, move)
        return to_gtp(move, self._board.rules.size)

    def _undo_command(self, args: list[str]) -> str:
        if not self._board.undo():
            raise GtpFailure("cannot undo")
        return ""

    def _fixed_handicap(self, args: list[str]) -> str:
        stones = self._handicap_count(args)
        try:
            points = fixed_handicap_points(self._board.rules.size, stones)
        except ValueError:
            raise GtpFailure("invalid number of stones") from None
        return self._place_handicap(points)

    def _place_free_handicap(self, args: list[str]) -> str:
        stones = self._handicap_count(args)
        top = max_handicap(self._board.rules.size)
        if stones < 2 or top < 2:
            raise GtpFailure("invalid number of stones")
        return self._place_handicap(fixed_handicap_points(self._board.rules.size, min(stones, top)))

    def _set_free_handicap(self, args: list[str]) -> str:
        if not self._board_empty():
            raise GtpFailure("board not empty")
        points = []
        for token in args:
            move = self._parse_vertex(token)
            if move == self._board.rules.size**2 or move in points:
                raise GtpFailure("bad vertex list")
            points.append(move)
        if not 2 <= len(points) < self._board.rules.size**2:
            raise GtpFailure("bad vertex list")
        self._place_handicap(points)
        return ""

    def _final_score(self, args: list[str]) -> str:
        state = self._board.state
        return result_string(score_without(state, self._dead(state)))

    def _final_status_list(self, args: list[str]) -> str:
        if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
            raise GtpFailure("syntax error")
        status = args[0].lower()
        if status == "seki":
            return ""
        dead = set(self._dead(self._board.state))
        size = self._board.rules.size
        rows = [
            " ".join(to_gtp(p, size) for p in chain)
            for chain in chains(self._board.state)
            if (chain[0] in dead) == (status == "dead")
        ]
        return "\n".join(rows)

    def _showboard(self, args: list[str]) -> str:
        state = self._board.state
        return (
            f"\n{state.to_ascii()}\n"
            f"Black (X) has captured {state.captures(Color.BLACK)} stones\n"
            f"White (O) has captured {state.captures(Color.WHITE)} stones\n"
            f"{state.to_play.name.capitalize()} to play"
        )

    def _time_settings(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpFailure("syntax error")
        main, byo, stones = (_parse_int(a) for a in args)
        if min(main, byo, stones) < 0:
            raise GtpFailure("syntax error")
        self.time_settings = (main, byo, stones)
        return ""

    def _time_left(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpFailure("syntax error")
        colour = parse_color(args[0])
        seconds, stones = _parse_int(args[1]), _parse_int(args[2])
        if min(seconds, stones) < 0:
            raise GtpFailure("syntax error")
        self.time_left[colour] = (seconds, stones)
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        if not 1 <= len(args) <= 2:
            raise GtpFailure("syntax error")
        upto = _parse_int(args[1]) if len(args) == 2 else None
        try:
            record = _load_limited(args[0])
        except (OSError, SgfError, ValueError) as exc:
            log.warning("loadsgf %s: %s", args[0], exc)
            raise GtpFailure("cannot load file") from None
        moves = record.moves if upto is None else record.moves[: max(upto - 1, 0)]
        if moves:
            first = moves[0][0]
        elif record.to_play is not None:
            first = record.to_play
        else:
            first = Color.WHITE if record.handicap >= 2 else Color.BLACK
        only = agent_board_size(self.agent)
        if only is not None and record.size != only:
            log.warning("loadsgf %s: a %dx%d game; %s plays %dx%d only", args[0], record.size,
                        record.size, self.agent.name, only, only)  # fmt: skip
            raise GtpFailure("cannot load file")
        if abs(record.komi) > MAX_KOMI:
            log.warning("loadsgf %s: komi %g is not in -%g..%g", args[0], record.komi, MAX_KOMI,
                        MAX_KOMI)  # fmt: skip
            raise GtpFailure("cannot load file")
        rules = dataclasses.replace(self._board.rules, size=record.size, komi=record.komi)
        setup = (record.setup_black, record.setup_white)
        try:
            board = GtpBoard(rules, setup, first, moves)
        except (IllegalMoveError, ValueError) as exc:
            log.warning("loadsgf %s: cannot replay: %s", args[0], exc)
            raise GtpFailure("cannot load file") from None
        self._board = board
        return ""

    def _printsgf(self, args: list[str]) -> str:
        if len(args) > 1:
            raise GtpFailure("syntax error")
        result = self._final_score([]) if self._board.state.is_over else None
        record = self._board.record(result)
        record.properties["AP"] = [f"gomcts:{_package_version()}"]
        text = dump_sgf(record).rstrip("\n")
        if args:
            try:
                Path(args[0]).write_text(text + "\n", encoding="utf-8")
            except OSError as exc:
                log.warning("printsgf %s: %s", args[0], exc)
                raise GtpFailure("cannot save file") from None
            return ""
        return text

    # ------------------------------------------------------------------- helpers
    def _parse_vertex(self, token: str) -> int:
        if token.lower() == "pass":
            return self._board.rules.size**2
        if not _VERTEX.match(token):
            raise GtpFailure("syntax error")
        try:
            return from_gtp(token, self._board.rules.size)
        except ValueError:
            raise GtpFailure("illegal move") from None  # well formed, but off this board

    def _one_colour(self, args: list[str]) -> Color:
        if len(args) != 1:
            raise GtpFailure("syntax error")
        return parse_color(args[0])

    def _handicap_count(self, args: list[str]) -> int:
        if len(args) != 1:
            raise GtpFailure("syntax error")
        stones = _parse_int(args[0])
        if not self._board_empty():
            raise GtpFailure("board not empty")
        return stones

    def _board_empty(self) -> bool:
        return self._board.is_empty()

    def _place_handicap(self, points: list[int]) -> str:
        self._board = GtpBoard(self._board.rules, (points, []), Color.WHITE)
        return " ".join(to_gtp(p, self._board.rules.size) for p in points)

    def _play(self, colour: Color, move: int) -> None:
        try:
            self._board.play(colour, move)
        except IllegalMoveError as exc:
            size = self._board.rules.size
            log.info("illegal move %s %s: %s", colour.name, to_gtp(move, size), exc.reason.value)
            raise GtpFailure("illegal move") from None

    def _choose(self, colour: Color) -> int | None:
        """The agent's move for ``colour``, or ``None`` when it resigns."""
        state = self._board.state_for(colour)
        if state.is_over:  # e.g. the move cap reached even from this position
            return state.pass_move
        observation = {
            "observation": history_planes_hwc(state, _OBSERVATION_HISTORY, colour),
            "action_mask": state.legal_mask().astype(np.int8),
        }
        try:
            move = int(self.agent.act(state.clone(), observation))
        except Resignation as resignation:
            log.info("%s resigns: %s", self.agent.name, resignation)
            return None
        reason = state.illegal_reason(move)
        if reason is not None:
            where = to_gtp(move, state.size) if 0 <= move <= state.pass_move else str(move)
            raise GtpFailure(
                f"agent {self.agent.name} chose an illegal move {where} ({reason.value})"
            )
        return move

    def _dead(self, state: GoState) -> list[int]:
        return estimate_dead(state, self.dead_playouts, self.seed)

    def _cleanup_move(self, state: GoState) -> int:
        """A move on a liberty of an opponent stone judged dead, or pass when there is none."""
        opponent = state.to_play.opponent
        board = state.board.ravel()
        dead = [p for p in self._dead(state) if board[p] == opponent]
        if not dead:
            return state.pass_move
        n = state.size
        candidates = []
        for p in dead:
            r, c = divmod(p, n)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                q = rr * n + cc
                if 0 <= rr < n and 0 <= cc < n and board[q] == 0 and state.is_legal(q):
                    candidates.append(q)
        for q in sorted(set(candidates)):
            trial = state.clone()
            trial.play(q)
            if trial.color_at(q) != Color.EMPTY and trial.liberties(q) >= 2:
                return q
        return min(candidates) if candidates else state.pass_move
