"""Regression tests of the GTP engine against a hostile or unusual controller (issue 20)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.gtp.engine import MAX_SGF_BYTES, GtpEngine
from agents.gtp.lines import fd_lines
from agents.random_agent import RandomAgent, RandomConfig

ROOT = Path(__file__).resolve().parents[3]


def _root_files() -> set[str]:
    return {p.name for p in ROOT.iterdir() if not p.name.startswith(".")} - {"__pycache__"}


@pytest.fixture(scope="module", autouse=True)
def engine_cwd(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Run this module's engines in a scratch directory, and check the repository stays clean.

    Fuzzed commands such as ``printsgf 0`` write files relative to the working directory; run
    from the repository they left ``0``, ``fixed_handicap`` and ``printsgf`` in its root.
    """
    before = _root_files()
    scratch = tmp_path_factory.mktemp("gtp-cwd")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(scratch)
        yield scratch
    assert _root_files() - before == set(), "GTP tests wrote files into the repository root"


def run(text: str) -> str:
    engine = GtpEngine(RandomAgent(RandomConfig(seed=0)), engine_version="test")
    out = io.StringIO()
    engine.serve(io.StringIO(text), out)
    return out.getvalue()


class Controller:
    """A GTP controller that, like Sabaki's, keeps the engine's stdin open after ``quit``."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agents.cli", "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self._stderr: list[bytes] = []
        # Drain stderr so that logging cannot block the engine.
        assert self.proc.stderr is not None
        stderr = self.proc.stderr
        self._pump = threading.Thread(target=lambda: self._stderr.append(stderr.read()))
        self._pump.start()

    def send(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command.encode() + b"\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"engine closed stdout after {command!r}"
            if line == b"\n":
                break
            lines.append(line.decode())
        return "".join(lines).rstrip()

    def stderr(self) -> str:
        self._pump.join(timeout=30)
        return b"".join(self._stderr).decode(errors="replace")


def test_a_whole_game_ends_with_exit_0_when_the_controller_keeps_stdin_open(
    tmp_path: Path,
) -> None:
    controller = Controller(["--agent", "random:seed=3"], cwd=tmp_path)
    try:
        assert controller.send("boardsize 5") == "="
        assert controller.send("clear_board") == "="
        passes, colour = 0, "b"
        for _ in range(60):
            move = controller.send(f"genmove {colour}")
            assert move.startswith("= ")
            passes = passes + 1 if move == "= pass" else 0
            if passes == 2:
                break
            colour = "w" if colour == "b" else "b"
        assert controller.send("final_score").startswith("= ")
        assert controller.send("quit") == "="
        # stdin stays open (the GUI has not closed its end yet): the engine must exit cleanly.
        rc = controller.proc.wait(timeout=30)
    finally:
        if controller.proc.poll() is None:
            controller.proc.kill()
            controller.proc.wait()
        assert controller.proc.stdin is not None
        controller.proc.stdin.close()
    stderr = controller.stderr()
    assert rc == 0, stderr
    assert "Fatal Python error" not in stderr


def test_command_ids_are_ascii_digits_only() -> None:
    # '\xb2' (superscript two) satisfies str.isdigit() but is no GTP id.
    assert run("\u00b2 name\n\u0663 name\n12 name\n") == (
        "? unknown command\n\n? unknown command\n\n=12 gomcts\n\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        "boardsize " + "9" * 5000,
        "boardsize " + "9" * 20,
        "time_settings 1 " + "9" * 5000 + " 1",
        "time_left b " + "9" * 5000 + " 0",
        "fixed_handicap " + "9" * 5000,
        "loadsgf x.sgf " + "9" * 5000,
        "lz-analyze " + "9" * 5000,
        "lz-analyze interval " + "9" * 5000,
    ],
)
def test_huge_integer_arguments_are_syntax_errors(command: str) -> None:
    assert run(command + "\n") == "? syntax error\n\n"


def test_a_huge_id_is_not_an_id() -> None:
    assert run("9" * 5000 + " name\n") == "? unknown command\n\n"


def test_loadsgf_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    started = time.monotonic()
    assert run(f"loadsgf {fifo}\nname\n") == "? cannot load file\n\n= gomcts\n\n"
    assert time.monotonic() - started < 10


def test_loadsgf_refuses_directories_and_files_over_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;SZ[9]C[" + b"x" * MAX_SGF_BYTES + b"])")
    small = tmp_path / "small.sgf"
    small.write_bytes(b"(;SZ[9]C[" + b"x" * 1000 + b"];B[ee])")
    assert run(f"loadsgf {big}\nloadsgf {tmp_path}\n1 loadsgf {small}\nshowboard\n").startswith(
        "? cannot load file\n\n? cannot load file\n\n=1 \n\n= \n"
    )


def test_loadsgf_of_a_directory_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="agents.gtp.engine"):
        assert run(f"loadsgf {tmp_path}\n") == "? cannot load file\n\n"
    assert f"{tmp_path} is not a regular file" in caplog.text


def test_fd_lines_splits_lines_across_reads_and_replaces_bad_bytes() -> None:
    read, write = os.pipe()
    os.write(write, b"name\nver")
    os.write(write, b"sion\n\xff\xfe x\nlast")
    os.close(write)
    try:
        assert list(fd_lines(read, chunk=3)) == ["name\n", "version\n", "\ufffd\ufffd x\n", "last"]
    finally:
        os.close(read)


_RESPONSE_START = ("=", "?")


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.builds(
                " ".join,
                st.lists(
                    st.one_of(
                        st.sampled_from(
                            [
                                "play",
                                "genmove",
                                "boardsize",
                                "komi",
                                "undo",
                                "b",
                                "w",
                                "fixed_handicap",
                                "set_free_handicap",
                                "place_free_handicap",
                                "loadsgf",
                                "time_left",
                                "time_settings",
                                "known_command",
                                "final_status_list",
                                "dead",
                                "A1",
                                "T19",
                                "pass",
                                "9",
                                "-1",
                                "1e400",
                                "nan",
                                "\u00b2",
                                "clear_board",
                                "showboard",
                                "reg_genmove",
                                "final_score",
                                "printsgf",
                            ]
                        ),
                        st.integers(-(10**30), 10**30).map(str),
                        st.text(max_size=6),
                    ),
                    max_size=5,
                ),
            ),
        ),
        max_size=12,
    )
)
def test_fuzzed_command_lines_get_one_well_formed_response_each(lines: list[str]) -> None:
    """Any line gets a '=' or '?' response (never 'internal error'), or none when empty.

    It runs in the module's scratch directory (``engine_cwd``): ``printsgf FILE`` writes there.
    """
    assert Path.cwd() != ROOT
    engine = GtpEngine(RandomAgent(RandomConfig(seed=0)), engine_version="test", dead_playouts=4)
    for line in lines:
        for part in line.replace("\r", "\n").split("\n"):
            if "quit" in part or "lz-analyze" in part:
                continue
            response = engine.handle(part)
            if response is None:
                continue
            assert response.startswith(_RESPONSE_START) and response.endswith("\n\n"), response
            assert "internal error" not in response, (part, response)
