"""The ``gtp`` agent: any external GTP engine (GNU Go, ...) as an agent of the env and arena.

Spec: ``gtp:cmd="gnugo --mode gtp --level 10"`` (the command may also be given first without
a key: ``gtp:"gnugo --mode gtp"``). The engine is started when the agent is built; a program
that is missing, or that exits, raises :class:`~agents.base.AgentError` with the engine's
last words on stderr. ``close()`` sends ``quit`` and stops the program.

Before each move the agent brings the engine's board up to date with the game: on a new game
(or any history that does not continue what the engine has) it sends ``boardsize``,
``clear_board``, ``komi``, the starting stones (``set_free_handicap`` for Black stones only,
else ``play`` commands), then a ``play`` for every move the engine has not seen; then it asks
``genmove``. The engine's own ko rule may be weaker than ours (GNU Go knows simple ko only):
when it answers a move that our rules forbid (a superko repetition), the agent takes it back
(``undo``) and asks ``restricted_genmove`` among our legal moves, or passes when the engine
lacks that command. GNU Go's ``restricted_genmove`` only names its move and does not play it,
so after one the agent sets the engine's board up afresh before its next command. An answer
``resign`` raises :class:`GtpResignation` (an :class:`~agents.base.Resignation` with the
resigning ``color``), which
:func:`agents.game.play_game` records as a resignation (``"B+R"``/``"W+R"``); GNU Go resigns
only hopeless games, and ``--never-resign`` in its command line stops that.

Dead stones: :meth:`GtpAgent.final_status_dead` asks the engine's ``final_status_list dead``
for a finished game; the arena uses it as the referee of games that end by two passes (see
``docs/arena.md``).

Seeding: :meth:`GtpAgent.reseed` sends ``set_random_seed`` when the engine knows it (GNU Go
does; without it GNU Go seeds itself from the clock), so that an arena game is reproducible.

Debian installs GNU Go as ``/usr/games/gnugo``, a directory that is not on every ``PATH``; a
program name without a slash that is not on ``PATH`` is also looked up there.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import AgentError, Resignation
from agents.gtp.process import GtpCommandError, GtpError, GtpProcess
from go_env.coords import from_gtp, to_gtp
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["GtpAgent", "GtpConfig", "GtpResignation", "resolve_program"]

log = logging.getLogger(__name__)

_GAME_DIRS = ("/usr/games", "/usr/local/games")


def resolve_program(argv: list[str]) -> list[str]:
    """``argv`` with its program resolved on ``PATH`` or in the games directories.

    Raises:
        AgentError: When the program cannot be found (the message says where it was looked
            for and how to install GNU Go).
    """
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not Path(program).is_file():
            raise AgentError(f"GTP engine program {program!r} does not exist")
        return argv
    found = shutil.which(program)
    if found is None:
        for folder in _GAME_DIRS:
            candidate = Path(folder) / program
            if candidate.is_file() and os.access(candidate, os.X_OK):
                found = str(candidate)
                break
    if found is None:
        hint = " (install GNU Go with `apt-get install gnugo`)" if program == "gnugo" else ""
        raise AgentError(
            f"GTP engine program {program!r} was not found on PATH nor in "
            f"{', '.join(_GAME_DIRS)}{hint}; give its full path in cmd=..."
        )
    return [found, *argv[1:]]


class GtpResignation(Resignation):
    """The engine resigned (answered ``resign`` to ``genmove``).

    Attributes:
        color: The colour that resigns.
    """

    def __init__(self, color: Color, engine: str) -> None:
        super().__init__(color, f"{engine} resigns as {color.name.lower()}")


@dataclass(frozen=True, kw_only=True)
class GtpConfig:
    """Configuration of :class:`GtpAgent`.

    Args:
        cmd: The engine's command line, e.g. ``"gnugo --mode gtp --level 10"``.
        timeout: Seconds to wait for any one response (a ``genmove`` included).
        name: The agent's name; by default the engine's ``name`` and ``version``.
    """

    __spec_positional__ = "cmd"

    cmd: str = ""
    timeout: float = 60.0
    name: str = ""

    def __post_init__(self) -> None:
        if not self.cmd.strip():
            raise ValueError(
                'the gtp agent needs the engine command, e.g. gtp:cmd="gnugo --mode gtp --level 10"'
            )
        if not self.timeout > 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")

    def build(self) -> GtpAgent:
        """Start the engine and return the agent."""
        return GtpAgent(self)


class GtpAgent:
    """An external GTP engine playing through the :class:`~agents.base.Agent` protocol.

    Args:
        config: The configuration (command line, timeout, name).

    Raises:
        AgentError: When the program is missing, does not start, or does not speak GTP.
    """

    def __init__(self, config: GtpConfig) -> None:
        self.config = config
        try:
            argv = shlex.split(config.cmd)
        except ValueError as exc:
            raise AgentError(f"cannot parse the GTP command {config.cmd!r}: {exc}") from None
        self.argv = resolve_program(argv)
        try:
            self._engine = GtpProcess(self.argv, timeout=config.timeout)
            self.known = set(self._engine.send("list_commands").split())
            engine_name = self._engine.send("name") if "name" in self.known else self.argv[0]
            engine_version = self._engine.send("version") if "version" in self.known else ""
        except GtpError as exc:
            self._close_quietly()
            raise AgentError(f"GTP engine {config.cmd!r} failed to start: {exc}") from exc
        missing = {"boardsize", "clear_board", "komi", "play", "genmove"} - self.known
        if missing:
            self._close_quietly()
            raise AgentError(f"GTP engine {config.cmd!r} lacks the commands {sorted(missing)}")
        self.name = config.name or f"{engine_name} {engine_version}".strip()
        self._rules: Rules | None = None
        self._setup: tuple[list[int], list[int], Color] | None = None
        self._sent: list[tuple[Color, int]] | None = None

    # ------------------------------------------------------------------- protocol
    def reset(self) -> None:
        """Start afresh: the next move sets up the engine's board from scratch."""
        self._sent = None

    def reseed(self, seed: int) -> None:
        """Seed the engine's random generator (``set_random_seed``), when it has one."""
        if "set_random_seed" in self.known:
            self._send(f"set_random_seed {int(seed) % 2**31}")

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """The engine's move for ``state.to_play`` (see the module docstring)."""
        self._sync(state)
        colour = state.to_play
        name = "black" if colour == Color.BLACK else "white"
        answer = self._send(f"genmove {name}")
        if answer.strip().lower() == "resign":
            raise GtpResignation(colour, self.name)
        move = self._parse_move(answer, state.size)
        assert self._sent is not None
        self._sent.append((colour, move))
        if state.is_legal(move):
            return move
        return self._replace_illegal(state, move, name)

    def final_status_dead(self, state: GoState) -> list[int]:
        """The stones the engine judges dead at the end of ``state`` (sorted action indices).

        Raises:
            AgentError: When the engine fails or lacks ``final_status_list``.
        """
        if "final_status_list" not in self.known:
            raise AgentError(f"GTP engine {self.name!r} has no final_status_list command")
        self._sync(state)
        answer = self._send("final_status_list dead")
        return sorted({self._parse_move(token, state.size) for token in answer.split()})

    def send(self, command: str) -> str:
        """Send any GTP command to the engine and return its response.

        Commands that change the board (``play``, ``undo``...) make the agent set the board up
        again before its next move.

        Raises:
            AgentError: When the engine answers with a failure or has stopped.
        """
        self._sent = None
        return self._send(command)

    def close(self) -> None:
        """Send ``quit`` and stop the engine (safe to call twice)."""
        self._engine.close()

    # -------------------------------------------------------------------- helpers
    def _close_quietly(self) -> None:
        engine = getattr(self, "_engine", None)
        if engine is not None:
            engine.close()

    def _send(self, command: str) -> str:
        try:
            return self._engine.send(command)
        except GtpCommandError as exc:
            raise AgentError(
                f"GTP engine {self.config.cmd!r} refused {command!r}: {exc.message}"
            ) from exc
        except GtpError as exc:
            raise AgentError(f"GTP engine {self.config.cmd!r}: {exc}") from exc

    @staticmethod
    def _parse_move(token: str, size: int) -> int:
        try:
            return from_gtp(token.strip(), size)
        except ValueError:
            raise AgentError(f"the GTP engine answered {token!r}, not a move") from None

    def _sync(self, state: GoState) -> None:
        """Bring the engine's board to ``state`` (see the module docstring)."""
        start = state.recent_boards(state.move_number + 1)[-1].ravel()
        history = list(state.history)
        first = history[0][0] if history else state.to_play
        setup = (
            [int(p) for p in np.flatnonzero(start == Color.BLACK)],
            [int(p) for p in np.flatnonzero(start == Color.WHITE)],
            first,
        )
        sent = self._sent
        if (
            sent is None
            or self._rules != state.rules
            or self._setup != setup
            or history[: len(sent)] != sent
        ):
            self._new_board(state.rules, setup)
            sent = self._sent = []
        for colour, move in history[len(sent) :]:
            name = "black" if colour == Color.BLACK else "white"
            self._send(f"play {name} {to_gtp(move, state.size)}")
            sent.append((colour, move))

    def _new_board(self, rules: Rules, setup: tuple[list[int], list[int], Color]) -> None:
        size = rules.size
        self._send(f"boardsize {size}")
        self._send("clear_board")
        self._send(f"komi {rules.komi:g}")
        black, white, _ = setup
        if black and not white and len(black) >= 2 and "set_free_handicap" in self.known:
            self._send("set_free_handicap " + " ".join(to_gtp(p, size) for p in black))
        else:
            for colour, points in (("black", black), ("white", white)):
                for p in points:
                    self._send(f"play {colour} {to_gtp(p, size)}")
        self._rules = rules
        self._setup = setup

    def _replace_illegal(self, state: GoState, move: int, name: str) -> int:
        """Take back an engine move our rules forbid and ask for a legal one."""
        log.info(
            "%s played %s, illegal under our rules (%s); asking again",
            self.name,
            to_gtp(move, state.size),
            state.illegal_reason(move),
        )
        assert self._sent is not None
        if "undo" in self.known:
            self._send("undo")
            self._sent.pop()
        else:  # cannot take it back: start the engine's board afresh on the next move
            self._sent = None
            return state.pass_move
        legal = [int(p) for p in state.legal_moves() if p != state.pass_move and p != move]
        if "restricted_genmove" in self.known and legal:
            vertices = " ".join(to_gtp(p, state.size) for p in legal)
            answer = self._send(f"restricted_genmove {name} {vertices}")
            # GNU Go's restricted_genmove names a move without playing it (unlike genmove);
            # another engine's may play it. Either way the next command sets the engine's
            # board up afresh from the game, so it holds exactly the move the game records.
            self._sent = None
            if answer.strip().lower() != "resign":
                choice = self._parse_move(answer, state.size)
                if state.is_legal(choice):
                    return choice
        return state.pass_move
