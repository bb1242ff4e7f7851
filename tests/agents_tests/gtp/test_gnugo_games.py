"""Complete games between our engine and GNU Go, both speaking GTP.

GNU Go 3.8 is only a GTP *engine*: it cannot drive another engine (the ``twogtp`` scripts are
in its source tree, not in the installed program). So a referee drives both programs, as
twogtp does: here the env with two ``gtp`` agents, one running ``gomcts gtp`` as a
subprocess and one running ``gnugo --mode gtp``. Every move of each side goes through the
other program's GTP ``play`` and is checked by it; the final score is checked against GNU Go's
own ``final_score``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.game import play_game
from agents.gtp.client_agent import GtpAgent, GtpConfig
from agents.matches.arena import MatchConfig, run_match
from go_env.dead_stones import result_string, score_without
from go_env.rules import Rules
from go_env.sgf import load_sgf, parse_sgf
from go_env.state import Color

pytestmark = pytest.mark.gnugo

OUR_ENGINE = f"{sys.executable} -m agents.cli gtp --agent random:seed=11"


@pytest.fixture(scope="module")
def gnugo(gnugo_path: str) -> Iterator[GtpAgent]:
    agent = GtpConfig(cmd=f"{gnugo_path} --mode gtp --level 0 --chinese-rules").build()
    yield agent
    agent.close()


@pytest.fixture(scope="module")
def ours() -> Iterator[GtpAgent]:
    agent = GtpConfig(cmd=OUR_ENGINE).build()
    yield agent
    agent.close()


@pytest.mark.parametrize("our_colour", [Color.BLACK, Color.WHITE])
def test_our_engine_plays_gnugo_through_both_gtp_interfaces(
    gnugo: GtpAgent, ours: GtpAgent, our_colour: Color
) -> None:
    assert gnugo.name == "GNU Go 3.8"
    gnugo.reseed(7)
    black, white = (ours, gnugo) if our_colour == Color.BLACK else (gnugo, ours)
    result = play_game(black, white, Rules(size=9, komi=7.5))
    state = result.state
    assert state.is_terminal  # both sides passed
    assert state.move_number > 20
    # Dead stones named by GNU Go, removed, then Tromp-Taylor area: the same result as GNU
    # Go's own area count of the same game.
    dead = gnugo.final_status_dead(state)
    refereed = result_string(score_without(state, dead))
    assert refereed == gnugo.send("final_score")
    # Our random agent is hopeless against GNU Go.
    assert refereed.startswith("W" if our_colour == Color.BLACK else "B")
    # Our engine saw every move: its record is the game.
    ours.final_status_dead(state)
    assert parse_sgf(ours.send("printsgf")).moves == list(state.history)


def test_arena_against_gnugo_referees_dead_stones(gnugo_path: str, tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="random",
        agent_b=f'gtp:cmd="{gnugo_path} --mode gtp --level 0 --chinese-rules"',
        games=2,
        seed=3,
    )
    result = run_match(config, results=tmp_path / "r.jsonl", workers=1, sgf_dir=tmp_path / "sgf")
    assert [g.score_a for g in result.games] == [0.0, 0.0]
    for game in result.games:
        assert game.ended_by == "passes"
        assert game.referee == "GNU Go 3.8"  # agent B judged the dead stones
        assert game.dead  # the random agent leaves dead stones that Tromp-Taylor would count
        assert abs(game.score) > abs(game.raw_score) or game.score * game.raw_score < 0
        record = load_sgf(tmp_path / "sgf" / f"game-{game.index:05d}.sgf")
        assert record.result == game.result and "referee GNU Go 3.8" in (record.game_comment or "")


def test_gnugo_restricted_genmove_names_a_move_without_playing_it(gnugo: GtpAgent) -> None:
    # What agents.gtp.client_agent relies on when it replaces a move our superko forbids:
    # GNU Go's restricted_genmove (unlike genmove) leaves its board as it was.
    gnugo.send("boardsize 5")
    gnugo.send("clear_board")
    gnugo.send("play black A1")
    assert gnugo.send("restricted_genmove white C3") == "C3"
    assert gnugo.send("move_history") == "black A1"
    assert gnugo.send("genmove white") == "C3"
    assert gnugo.send("move_history").splitlines() == ["white C3", "black A1"]
