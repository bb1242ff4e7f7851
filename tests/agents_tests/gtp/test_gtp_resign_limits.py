"""GTP: resigning agents, bounded memory, refusals at the right command, GUI commands."""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from gtp_support import FakeAnalyzer, FirstLegal, transcript
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import cli
from agents.base import AgentError, Resignation
from agents.gtp import process
from agents.gtp.client_agent import GtpConfig
from agents.gtp.engine import GtpEngine
from agents.gtp.process import GtpConnectionError, GtpProcess
from agents.registry import make_agent
from go_env.coords import to_gtp
from go_env.rules import Rules
from go_env.sgf import GameRecord, dump_sgf, parse_sgf
from go_env.state import GoState


class Resigner(FirstLegal):
    name = "resigner"

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        raise Resignation(state.to_play, "hopeless")


class NineOnly(FirstLegal):
    name = "nine"
    board_size = 9


run = transcript


# ------------------------------------------------------------------------------ resign
def test_a_resigning_agent_answers_resign_and_the_board_is_unchanged() -> None:
    out = run(
        "boardsize 5\nplay b C3\n1 genmove w\n2 kgs-genmove_cleanup w\n3 reg_genmove w\n"
        "4 showboard\n",
        agent=Resigner(),
    )
    replies = out.split("\n\n")
    assert replies[2:5] == ["=1 resign", "=2 resign", "=3 resign"]
    assert "White to play" in replies[5]


def test_mcts_resign_setting_answers_resign() -> None:
    agent = make_agent("mcts:sims=50,resign=-0.5,seed=1")
    try:
        out = run("boardsize 5\nkomi 100\ngenmove b\nreg_genmove b\n", agent=agent)
    finally:
        agent.close()
    assert out == "= \n\n= \n\n= resign\n\n= resign\n\n"


RESIGNING_ENGINE = textwrap.dedent(
    """
    import sys
    known = ["protocol_version", "name", "version", "list_commands", "boardsize",
             "clear_board", "komi", "play", "genmove", "quit"]
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        out = {"list_commands": "\\n".join(known), "name": "Quitter", "genmove": "resign"}
        sys.stdout.write("= " + out.get(parts[0], "") + "\\n\\n")
        sys.stdout.flush()
        if parts[0] == "quit":
            break
    """
)


def test_an_external_engine_that_resigns_is_relayed_as_resign(tmp_path: Path) -> None:
    script = tmp_path / "quitter.py"
    script.write_text(RESIGNING_ENGINE)
    agent = GtpConfig(cmd=f"{sys.executable} {script}", timeout=20).build()
    try:
        out = run("boardsize 9\ngenmove b\nkgs-genmove_cleanup b\n", agent=agent)
    finally:
        agent.close()
    assert out == "= \n\n= resign\n\n= resign\n\n"


@pytest.mark.gnugo
def test_gnugo_behind_gtp_cmd_resigns_through_our_engine() -> None:
    from gnugo_support import require_gnugo

    agent = GtpConfig(cmd=f"{require_gnugo()} --mode gtp", timeout=60).build()
    walls = [
        f"play w {c}{r}"
        for r in range(1, 7)
        for c in "ABCDEFGHJ"
        if (c, r) not in {("A", 1), ("C", 1)}  # two eyes: White lives, Black has nothing
    ]
    try:
        out = run("\n".join(["boardsize 9", "komi 50", *walls, "play b E8", "genmove b"]) + "\n",
                  agent=agent)  # fmt: skip
    finally:
        agent.close()
    assert out.split("\n\n")[-2] == "= resign"


# ------------------------------------------------------------------------------ memory
_PLAY = st.tuples(
    st.sampled_from(["b", "w"]),
    st.one_of(st.just("pass"), st.integers(0, 360).map(lambda p: to_gtp(p, 19))),
)
# A 19x19 record of 60 moves and passes (loaded again and again: each load replaces the game).
_SGF_DIR = tempfile.mkdtemp(prefix="gtp-memory-")
_SGF = Path(_SGF_DIR) / "game.sgf"
_LETTERS = "abcdefghijklmnopqrs"
_SGF.write_text(
    "(;GM[1]FF[4]SZ[19]KM[7.5]"
    + "".join(
        f";{'BW'[i % 2]}[{_LETTERS[(7 * i) % 361 % 19]}{_LETTERS[(7 * i) % 361 // 19]}]"
        if i % 5 else f";{'BW'[i % 2]}[]"
        for i in range(60)
    )
    + ")"
)  # fmt: skip
_COMMAND = st.one_of(
    _PLAY.map(lambda cv: f"play {cv[0]} {cv[1]}"),
    st.just("undo"),
    st.just("komi 6.5"),
    st.just(f"loadsgf {_SGF}"),
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_COMMAND, min_size=150, max_size=250))
def test_memory_is_bounded_by_the_moves_and_undo_restores_each_position(
    commands: list[str],
) -> None:
    """tracemalloc's peak over a stream of play/undo/komi/loadsgf on 19x19 grows by bytes a move.

    A full state per move (the undo stack of old) is about 320 KB on 19x19: 150 moves would
    pass 40 MB; the bound here is 4 MB plus 4 KB a move.
    """
    engine = GtpEngine(FirstLegal(), engine_version="test")
    engine.handle("boardsize 19")
    # the position before each move still played (None: a move of a loaded record)
    snapshots: list[tuple[bytes, int] | None] = []
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        most = 0
        for command in commands:
            before = (engine.state.board.tobytes(), int(engine.state.to_play))
            answer = engine.handle(command)
            assert answer is not None
            if command.startswith("play") and answer.startswith("="):
                snapshots.append(before)
            elif command == "undo" and answer.startswith("="):
                expected = snapshots.pop()
                if expected is not None:
                    assert (engine.state.board.tobytes(), int(engine.state.to_play)) == expected
            elif command.startswith("loadsgf"):
                assert answer == "= \n\n", answer
                snapshots = [None] * len(engine.moves)
            most = max(most, len(engine.moves))
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(engine.moves) == len(snapshots)
    assert peak <= 4_000_000 + 4_000 * most, (peak, most)


def test_loadsgf_of_many_passes_is_quick_and_small(tmp_path: Path) -> None:
    path = tmp_path / "passes.sgf"
    path.write_text("(;GM[1]FF[4]SZ[19]KM[7.5]" + ";B[];W[]" * 300 + ")")
    engine = GtpEngine(FirstLegal(), engine_version="test")
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        start = time.perf_counter()
        assert engine.handle(f"loadsgf {path}") == "= \n\n"
        elapsed = time.perf_counter() - start
        assert engine.handle("undo") == "= \n\n"
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(engine.moves) == 599
    assert peak < 8_000_000, peak  # a state per move would be 600 x 320 KB = 190 MB
    assert elapsed < 5.0


LONG_LINE_ENGINE = textwrap.dedent(
    """
    import sys
    for line in sys.stdin:
        if line.startswith("name"):
            sys.stdout.write("= " + "x" * 5000 + "\\n\\n")
        elif line.startswith("version"):
            sys.stdout.write("= 1\\n" + "y\\n" * 3000 + "\\n")
        else:
            sys.stdout.write("= \\n\\n")
        sys.stdout.flush()
    """
)


def test_the_client_refuses_an_engine_line_over_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "MAX_LINE_CHARS", 1000)
    script = tmp_path / "long.py"
    script.write_text(LONG_LINE_ENGINE)
    with GtpProcess([sys.executable, str(script)], timeout=20) as engine:
        assert engine.send("protocol_version") == ""
        with pytest.raises(GtpConnectionError, match="longer than 1000 characters"):
            engine.send("name")
        assert not engine.alive


def test_the_client_refuses_a_response_over_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "MAX_RESPONSE_CHARS", 4000)
    script = tmp_path / "long.py"
    script.write_text(LONG_LINE_ENGINE)
    with (
        GtpProcess([sys.executable, str(script)], timeout=20) as engine,
        pytest.raises(GtpConnectionError, match="more than 4000 characters"),
    ):
        engine.send("version")


# ------------------------------------------------------------------- refusals in time
def test_an_agent_of_one_board_size_refuses_others_at_boardsize() -> None:
    out = run("boardsize 19\nboardsize 9\ngenmove b\n", agent=NineOnly())
    assert out == "? unacceptable size (nine plays 9x9 only)\n\n= \n\n= A9\n\n"


def test_an_agent_of_one_size_refuses_other_sizes_at_loadsgf_and_at_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.sgf"
    path.write_text("(;GM[1]FF[4]SZ[19]KM[6.5];B[dd])")
    assert run(f"loadsgf {path}\n", agent=NineOnly()) == "? cannot load file\n\n"
    with pytest.raises(ValueError, match=r"plays 9x9 only.*--size 9"):
        GtpEngine(NineOnly(), rules=Rules(size=19))


def test_the_net_agent_refuses_boardsize_19() -> None:
    pytest.importorskip("torch")
    agent = make_agent("net")
    try:
        out = run("boardsize 19\nboardsize 9\n", agent=agent)
    finally:
        agent.close()
    assert out == "? unacceptable size (net plays 9x9 only)\n\n= \n\n"


@pytest.mark.parametrize("value", ["-1", "0", "1000000", "99999999999999999999", "x"])
def test_dead_playouts_are_checked_on_the_command_line(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["gtp", "--dead-playouts", value])
    assert exit_info.value.code == 2
    assert "--dead-playouts" in capsys.readouterr().err
    with pytest.raises(ValueError, match="dead_playouts"):
        GtpEngine(FirstLegal(), dead_playouts=-5)


def test_absurd_komi_is_refused_and_printsgf_reads_back() -> None:
    engine = GtpEngine(FirstLegal(), engine_version="test")
    assert engine.handle("komi 1e300") == "? komi must be between -625 and 625\n\n"
    assert engine.handle("komi -626") == "? komi must be between -625 and 625\n\n"
    assert engine.handle("komi 625") == "= \n\n"
    text = engine.handle("printsgf")
    assert text is not None
    assert parse_sgf(text.removeprefix("= ")).komi == 625


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_finite_komi_written_to_sgf_reads_back_exactly(komi: float) -> None:
    assert parse_sgf(dump_sgf(GameRecord(size=9, komi=komi))).komi == komi


# ------------------------------------------------------------------------ GUI support
def test_kata_analyze_streams_katago_info_lines() -> None:
    out = run(
        "boardsize 5\nplay b C3\n7 kata-analyze w interval 50 ownership true maxmoves 5\nname\n",
        agent=FakeAnalyzer(),
    )
    assert out == (
        "= \n\n= \n\n=7\n"
        "info move B4 visits 50 winrate 0.500000 prior 0.100000 order 0 pv B4 "
        "info move C3 visits 30 winrate 0.612340 prior 0.250000 order 1 pv C3 B4\n"
        "\n= gomcts\n\n"
    )
    assert run("kata-analyze 10 bogus\n") == "? syntax error\n\n"
    assert run("known_command kata-analyze\n") == "= true\n\n"


def test_gogui_analyze_commands_lists_known_commands() -> None:
    out = run("gogui-analyze_commands\n")
    assert out.startswith("= ") and out.endswith("\n\n")
    entries = out[2:-2].split("\n")
    assert "plist/Dead Stones/final_status_list dead" in entries
    engine = GtpEngine(FirstLegal())
    for entry in entries:
        kind, label, command = entry.split("/", 2)
        assert kind in {"plist", "string"} and label
        assert command.split()[0] in engine.commands
        answer = engine.handle(command)
        assert answer is not None and answer.startswith("=")


def test_gtp_help_says_how_to_attach_each_gui(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["gtp", "--help"])
    text = capsys.readouterr().out
    for gui in ("Sabaki", "GoGui", "Lizzie", "KaTrain", "gogui-twogtp"):
        assert gui in text


def test_a_missing_gtp_program_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--white", "gtp:cmd=surely-no-such-gtp-program", "--size", "5"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("gomcts play: error: GTP engine program 'surely-no-such-gtp-program'")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(AgentError, match="was not found"):
        GtpConfig(cmd="surely-no-such-gtp-program").build()


def test_an_overlong_command_line_is_dropped_and_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents.gtp import lines

    monkeypatch.setattr(lines, "MAX_LINE_CHARS", 100)
    read, write = os.pipe()
    with os.fdopen(write, "w") as out:
        out.write("1 name\n" + "play b " + "A1 " * 500 + "\nname\n" + "x" * 300)
    got = list(lines.fd_lines(read, chunk=64))
    os.close(read)
    assert got[0] == "1 name\n" and got[2] == "name\n"
    assert isinstance(got[1], lines.OverlongLine) and isinstance(got[3], lines.OverlongLine)
    assert max(len(line) for line in got) <= 100
    engine = GtpEngine(FirstLegal())
    assert engine.handle(got[1]) == "? command line longer than 1048576 characters\n\n"
