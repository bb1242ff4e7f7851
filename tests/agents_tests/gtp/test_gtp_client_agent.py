"""The ``gtp`` agent: external GTP engines as agents (our own engine and fake ones here)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agents.base import AgentError
from agents.game import play_game
from agents.gtp.client_agent import GtpAgent, GtpConfig, GtpResignation
from agents.random_agent import RandomAgent, RandomConfig
from agents.registry import agent_config, make_agent
from agents.spec import SpecError
from go_env.rules import Rules
from go_env.sgf import parse_sgf
from go_env.state import Color, GoState

# Our own engine as an external program: what a GUI or GNU Go's controller would start.
OUR_ENGINE = f"{sys.executable} -m agents.cli gtp --agent random:seed=5"

FAKE_ENGINE = textwrap.dedent(
    """
    import sys
    mode = sys.argv[1]
    known = ["protocol_version", "name", "version", "list_commands", "boardsize",
             "clear_board", "komi", "play", "genmove", "undo", "quit"]
    if mode == "gnugo":  # GNU Go's restricted_genmove, and a look at the engine's board
        known += ["restricted_genmove", "moves"]
    board = []  # the moves the engine has on its board, "colour vertex"
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        cmd = parts[0]
        out = ""
        if cmd == "list_commands":
            out = "\\n".join(known)
        elif cmd == "name":
            out = "Fake"
        elif cmd == "clear_board":
            board = []
        elif cmd == "play":
            if parts[2].upper() in [move.split()[1] for move in board]:
                sys.stdout.write("? illegal move\\n\\n")
                sys.stdout.flush()
                continue
            board.append(parts[1] + " " + parts[2].upper())
        elif cmd == "undo":
            board.pop()
        elif cmd == "moves":
            out = ", ".join(board)
        elif cmd == "restricted_genmove":  # as GNU Go: names a move, does not play it
            out = parts[2].upper()
        elif cmd == "genmove":
            if mode == "die":
                sys.stderr.write("fake engine: out of memory\\n")
                sys.stderr.flush()
                sys.exit(3)
            out = {"resign": "resign", "a1": "A1", "gnugo": "A1"}[mode]
            board.append(parts[1] + " " + out)
        elif cmd == "quit":
            sys.stdout.write("= \\n\\n")
            sys.stdout.flush()
            break
        sys.stdout.write("= " + out + "\\n\\n")
        sys.stdout.flush()
    """
)


@pytest.fixture
def fake(tmp_path: Path) -> Any:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)

    def build(mode: str) -> GtpAgent:
        return GtpConfig(cmd=f"{sys.executable} {script} {mode}", timeout=20).build()

    return build


def test_spec_forms_and_validation() -> None:
    assert agent_config('gtp:cmd="gnugo --mode gtp --level 10"').cmd == (
        "gnugo --mode gtp --level 10"
    )
    config = agent_config("gtp:'gnugo --mode gtp',timeout=5")
    assert (config.cmd, config.timeout) == ("gnugo --mode gtp", 5.0)
    with pytest.raises(SpecError, match="needs the engine command"):
        agent_config("gtp")
    with pytest.raises(SpecError, match="timeout must be positive"):
        agent_config("gtp:cmd=x,timeout=0")


def test_a_missing_program_is_a_clear_error() -> None:
    with pytest.raises(AgentError, match=r"'no-such-gtp-engine' was not found on PATH"):
        make_agent('gtp:cmd="no-such-gtp-engine --mode gtp"')
    with pytest.raises(AgentError, match="does not exist"):
        make_agent("gtp:cmd=/nonexistent/engine")


def test_an_engine_that_dies_is_a_clear_error(fake: Any) -> None:
    agent = fake("die")
    try:
        assert agent.name == "Fake"
        with pytest.raises(AgentError, match=r"exit status 3.*out of memory"):
            agent.act(GoState())
    finally:
        agent.close()


def test_an_engine_move_illegal_under_our_rules_is_replaced(fake: Any) -> None:
    agent = fake("a1")
    try:
        state = GoState(Rules(size=5))
        state.play(20)  # Black A1
        assert agent.act(state) == state.pass_move  # A1 is taken; no restricted_genmove
        fresh = GoState(Rules(size=5))
        assert agent.act(fresh) == 20  # legal: accepted as is
    finally:
        agent.close()


def test_after_restricted_genmove_the_engine_board_is_the_game(fake: Any) -> None:
    # GNU Go's restricted_genmove answers a move without playing it: the engine's board must
    # still end up with exactly the moves of the game (it once missed the replacement move,
    # and GNU Go then refused a legal move of the game as illegal on its own board).
    agent = fake("gnugo")
    try:
        state = GoState(Rules(size=5))
        state.play(20)  # Black A1; the engine's genmove answers A1 again, which we refuse
        choice = agent.act(state)
        assert choice == int(state.legal_moves()[0])  # its restricted_genmove answer
        state.play(choice)
        state.play(12)  # Black C3
        agent.act(state)  # brings the engine's board up to date, then the same refusal
        assert agent.send("moves") == "black A1, white A5, black C3"
    finally:
        agent.close()


def test_resign_ends_the_game_as_a_resignation(fake: Any) -> None:
    agent = fake("resign")
    try:
        with pytest.raises(GtpResignation) as info:
            agent.act(GoState())
        assert info.value.color == Color.BLACK
        result = play_game(RandomAgent(RandomConfig(seed=1)), agent, Rules(size=5))
        assert result.resigned == Color.WHITE
        assert result.result == "B+R" and result.winner == Color.BLACK
    finally:
        agent.close()


def test_our_engine_as_an_external_agent_plays_whole_games() -> None:
    agent = make_agent(f'gtp:cmd="{OUR_ENGINE}"')
    try:
        assert agent.name.startswith("gomcts")
        opponent = RandomAgent(RandomConfig(seed=2))
        for handicap, colours in ((0, (agent, opponent)), (2, (opponent, agent))):
            rules = Rules(size=9, komi=0.5 if handicap else 7.5, handicap=handicap)
            result = play_game(*colours, rules)
            assert result.state.is_over
            dead = agent.final_status_dead(result.state)
            assert all(result.state.board.ravel()[p] != 0 for p in dead)
            # The engine's board followed the game: its record replays to the same moves.
            record = parse_sgf(agent.send("printsgf"))
            assert record.moves == list(result.state.history)
            assert record.handicap == handicap and record.komi == rules.komi
    finally:
        agent.close()
    agent.close()  # a second close is harmless
