"""Transcript tests of the GTP engine: commands in, exact bytes out."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import gtp_support
import pytest
from gtp_support import FakeAnalyzer, transcript

from agents.gtp.engine import GtpEngine
from go_env.sgf import load_sgf
from go_env.state import GoState

ROOT = Path(__file__).resolve().parents[3]


class FirstLegal(gtp_support.FirstLegal):
    """Plays the first legal point, checking that the engine passes the observation."""

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        assert observation is not None and observation["action_mask"].shape == (
            state.pass_move + 1,
        )
        return super().act(state, observation)


class Passer(FirstLegal):
    name = "passer"

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        return state.pass_move


def run(text: str, agent: Any = None, **kwargs: Any) -> str:
    return transcript(text, agent or FirstLegal(), **kwargs)


def test_administrative_commands_and_ids() -> None:
    assert run("protocol_version\n1 name\n2 version\nknown_command play\nknown_command foo\n") == (
        "= 2\n\n=1 gomcts\n\n=2 test\n\n= true\n\n= false\n\n"
    )
    listed = run("list_commands\n").removeprefix("= ").removesuffix("\n\n").split("\n")
    required = {
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "final_score",
        "final_status_list",
        "showboard",
        "time_settings",
        "time_left",
        "fixed_handicap",
        "loadsgf",
        "printsgf",
        "kgs-genmove_cleanup",
        "lz-analyze",
    }
    assert required <= set(listed)


def test_preprocessing_comments_blank_lines_tabs_and_control_characters() -> None:
    text = "# a comment line\n\n   \n\t4\tname\t# trailing comment\nna\x01me\r\nversion\x7f\n"
    assert run(text) == "=4 gomcts\n\n= gomcts\n\n= test\n\n"


def test_quit_ends_the_session_after_its_response() -> None:
    assert run("9 quit\nname\n") == "=9 \n\n"


def test_unknown_and_malformed_commands_get_failures_and_the_engine_keeps_running() -> None:
    text = (
        "foo\n3 foo bar\n12\nboardsize x\nboardsize\nboardsize 1\nboardsize 26\nkomi abc\n"
        "komi nan\nplay black\nplay purple D4\nplay black I5\nplay black D4 D5\n"
        "genmove\ngenmove green\nknown_command\nfinal_status_list maybe\ntime_settings 1 2\n"
        "time_settings 1 2 -3\ntime_left black x 0\nfixed_handicap x\nloadsgf\nPLAY b D4\n"
        "name\n"
    )
    expected = (
        "? unknown command\n\n?3 unknown command\n\n?12 unknown command\n\n"
        + "? syntax error\n\n" * 2
        + "? unacceptable size\n\n" * 2
        + "? syntax error\n\n" * 15
        + "? unknown command\n\n= gomcts\n\n"
    )
    assert run(text) == expected


def test_garbage_bytes_do_not_stop_the_engine() -> None:
    raw = b"\xff\xfe\x00garbage\x80\n\x1b[2J\nname\n"
    stream = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace", newline="\n")
    engine = GtpEngine(FirstLegal())
    out = io.StringIO()
    engine.serve(stream, out)
    assert out.getvalue() == "? unknown command\n\n? unknown command\n\n= gomcts\n\n"


def test_play_genmove_undo_and_showboard() -> None:
    text = (
        "boardsize 5\nclear_board\nplay black C3\ngenmove white\nplay b B2\n"
        "play white c3\nplay w Z9\nplay white Z1\nshowboard\nundo\nundo\nundo\nundo\n"
    )
    assert run(text) == (
        "= \n\n= \n\n= \n\n= A5\n\n= \n\n"
        "? illegal move\n\n"  # occupied
        "? illegal move\n\n"  # a well-formed vertex off this board (Z9)
        "? illegal move\n\n"  # Z1 too
        "= \n"
        "  A B C D E\n"
        "5 O . . . .\n"
        "4 . . . . .\n"
        "3 . . X . .\n"
        "2 . X . . .\n"
        "1 . . . . .\n"
        "Black (X) has captured 0 stones\n"
        "White (O) has captured 0 stones\n"
        "White to play\n\n"
        "= \n\n= \n\n= \n\n? cannot undo\n\n"
    )


def test_moves_of_the_same_colour_in_a_row_and_after_two_passes_are_accepted() -> None:
    text = (
        "boardsize 5\nclear_board\nplay black A1\nplay black B1\nplay white pass\n"
        "play black pass\nplay white C1\ngenmove white\n"
    )
    assert run(text) == "= \n\n" * 7 + "= A5\n\n"


def test_capture_is_counted() -> None:
    text = "boardsize 5\nclear_board\nplay b A2\nplay w A1\nplay b B1\nshowboard\n"
    out = run(text)
    assert "1 . X . . .\n" in out
    assert "Black (X) has captured 1 stones\n" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("boardsize 9\nclear_board\nfixed_handicap 2\n", "= C3 G7\n\n"),
        ("boardsize 9\nclear_board\nfixed_handicap 9\n", "= C3 G7 C7 G3 C5 G5 E3 E7 E5\n\n"),
        ("boardsize 9\nclear_board\nfixed_handicap 1\n", "? invalid number of stones\n\n"),
        ("boardsize 9\nclear_board\nfixed_handicap 10\n", "? invalid number of stones\n\n"),
        ("boardsize 5\nclear_board\nfixed_handicap 2\n", "? invalid number of stones\n\n"),
        ("boardsize 9\nclear_board\nplay b E5\nfixed_handicap 2\n", "? board not empty\n\n"),
        ("boardsize 9\nclear_board\nset_free_handicap A1\n", "? bad vertex list\n\n"),
        ("boardsize 9\nclear_board\nset_free_handicap A1 A1\n", "? bad vertex list\n\n"),
        ("boardsize 9\nclear_board\nset_free_handicap A1 pass\n", "? bad vertex list\n\n"),
        ("boardsize 9\nclear_board\nset_free_handicap A1 B2\n", "= \n\n"),
    ],
)
def test_handicap(text: str, expected: str) -> None:
    out = run(text)
    assert out.endswith(expected) and out.count("\n\n") == text.count("\n")


def test_after_fixed_handicap_white_moves_and_handicap_cannot_be_undone() -> None:
    out = run("boardsize 9\nclear_board\nfixed_handicap 2\ngenmove white\nundo\nundo\n")
    assert out == "= \n\n= \n\n= C3 G7\n\n= A9\n\n= \n\n? cannot undo\n\n"


# A finished 5x5 position: Black owns the board; the white stone at C3 is dead.
_BLACK_WALL = "B5 D5 A4 B4 C4 D4 E4 A3 E3 A2 E2 A1 B1 C1 D1 E1"
DEAD_STONE_SETUP = (
    "boardsize 5\nclear_board\nkomi 0.5\n"
    + "".join(f"play black {v}\n" for v in _BLACK_WALL.split(" "))
    + "play white C3\n"
)


def test_final_status_list_and_final_score_remove_dead_stones() -> None:
    out = run(
        DEAD_STONE_SETUP + "final_status_list dead\nfinal_status_list alive\n"
        "final_status_list seki\nfinal_score\n"
    )
    assert out.endswith(
        "= C3\n\n= B5 D5 A4 B4 C4 D4 E4 A3 E3 A2 E2 A1 B1 C1 D1 E1\n\n= \n\n= B+24.5\n\n"
    )


def test_genmove_cleanup_captures_dead_stones_before_passing() -> None:
    out = run(DEAD_STONE_SETUP + "kgs-genmove_cleanup black\ngenmove black\n", agent=Passer())
    cleanup, plain = out.split("\n\n")[-3:-1]
    assert cleanup in ("= B3", "= D3", "= C2")  # a liberty of the dead stone
    assert plain == "= pass"


def test_time_commands_are_accepted_and_stored() -> None:
    engine = GtpEngine(FirstLegal())
    assert engine.handle("time_settings 300 30 5") == "= \n\n"
    assert engine.handle("time_left white 120 3") == "= \n\n"
    assert engine.time_settings == (300, 30, 5)
    assert list(engine.time_left.values()) == [(120, 3)]


def test_printsgf_and_loadsgf_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "game.sgf"
    out = run(
        f"boardsize 7\nclear_board\nkomi 6.5\nplay b D4\nplay w C3\nplay b E3\n"
        f"printsgf {path}\nprintsgf\n"
    )
    assert out.startswith("= \n\n" * 7)
    printed = out.split("\n\n")[7]
    assert printed.startswith("= (;GM[1]FF[4]") and ";B[dd];W[ce];B[ee])" in printed
    record = load_sgf(path)
    assert record.size == 7 and record.komi == 6.5 and len(record.moves) == 3
    loaded = run(
        f"loadsgf {path}\nshowboard\nloadsgf {path} 3\nshowboard\n"
        f"loadsgf {tmp_path / 'missing.sgf'}\nloadsgf {path} x\n"
    )
    boards = loaded.split("\n\n")
    assert boards[0] == "= "
    assert "4 . . . X . . .\n3 . . O . X . .\n" in boards[1] and "White to play" in boards[1]
    assert "3 . . O . . . .\n" in boards[3] and "Black to play" in boards[3]  # before move 3
    assert boards[4:6] == ["? cannot load file", "? syntax error"]


def test_lz_analyze_without_an_analyser_is_an_empty_stream() -> None:
    assert run("boardsize 5\n7 lz-analyze 10\nname\n") == "= \n\n=7\n\n= gomcts\n\n"


def test_lz_analyze_streams_info_lines_until_the_next_command() -> None:
    agent = FakeAnalyzer()
    out = run(
        "boardsize 5\nclear_board\nplay b C3\n7 lz-analyze b interval 50\nname\n", agent=agent
    )
    assert out == (
        "= \n\n= \n\n= \n\n=7\n"
        "info move B4 visits 50 winrate 5000 prior 1000 order 0 pv B4 "
        "info move C3 visits 30 winrate 6123 prior 2500 order 1 pv C3 B4\n"
        "\n= gomcts\n\n"
    )
    assert agent.seen[0].to_play.name == "BLACK"  # analysed for the colour asked
    assert run("lz-analyze 10 x\n", agent=agent) == "? syntax error\n\n"


def test_lz_analyze_streams_over_a_pipe_until_interrupted() -> None:
    read_in, write_in = os.pipe()
    read_out, write_out = os.pipe()
    engine = GtpEngine(FakeAnalyzer())
    with os.fdopen(read_in, "r") as stdin, os.fdopen(write_out, "w") as stdout:
        server = threading.Thread(target=engine.serve, args=(stdin, stdout))
        server.start()
        with os.fdopen(write_in, "w") as commands, os.fdopen(read_out, "r") as replies:
            commands.write("lz-analyze 10\n")
            commands.flush()
            assert replies.readline() == "=\n"
            assert replies.readline().startswith("info move ")
            time.sleep(0.1)  # still streaming: nothing more until a command arrives
            commands.write("1 name\n")
            commands.flush()
            assert replies.readline() == "\n"
            assert replies.readline() == "=1 gomcts\n"
            commands.write("quit\n")
            commands.flush()
            server.join(timeout=10)
    assert not server.is_alive()


def test_an_agent_error_is_a_failure_not_a_crash() -> None:
    class Broken(FirstLegal):
        def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
            raise RuntimeError("out of cheese")

    assert run("genmove b\nname\n", agent=Broken()) == (
        "? internal error: RuntimeError: out of cheese\n\n= gomcts\n\n"
    )

    class Cheater(FirstLegal):
        def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
            return 40  # E5 on 9x9, played by black first

    assert run("play b E5\ngenmove w\n", agent=Cheater()) == (
        "= \n\n? agent first chose an illegal move E5 (occupied)\n\n"
    )


def _gomcts(
    args: list[str], data: bytes, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        input=data,
        capture_output=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_gomcts_gtp_command_keeps_stdout_to_gtp_replies() -> None:
    data = (
        b"1 name\n\xff\xfegarbage\nboardsize 9\nclear_board\nplay b E5\n"
        b"2 play b E5\nfinal_score\n3 quit\n"
    )
    proc = _gomcts(
        ["gtp", "--agent", "random:seed=1", "--name", "tester", "--log-level", "INFO"], data
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == (
        b"=1 tester\n\n? unknown command\n\n= \n\n= \n\n= \n\n"
        b"?2 illegal move\n\n= B+73.5\n\n=3 \n\n"
    )
    assert b"illegal move" in proc.stderr  # the log, on stderr


def test_gomcts_gtp_command_reports_a_bad_agent_on_stderr() -> None:
    proc = _gomcts(["gtp", "--agent", "nosuchagent"], b"name\n")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert b"unknown agent 'nosuchagent'" in proc.stderr
