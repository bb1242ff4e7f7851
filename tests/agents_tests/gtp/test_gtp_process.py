from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from agents.gtp import (
    GtpCommandError,
    GtpConnectionError,
    GtpError,
    GtpProcess,
    GtpTimeoutError,
)

# A tiny GTP engine: answers with ids, multi-line responses, CRLF line endings and chatter;
# "die" exits mid-session, "sleep" hangs, "flood" writes 1 MB to stderr before answering.
FAKE_ENGINE = textwrap.dedent(
    r"""
    import sys, time
    out = sys.stdout
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        ident = ""
        if parts[0].isdigit():
            ident, parts = parts[0], parts[1:]
        cmd, args = parts[0], parts[1:]
        if cmd == "quit":
            out.write(f"={ident}\n\n"); out.flush()
            if "--ignore-quit" not in sys.argv:
                break
        elif cmd == "name":
            out.write(f"={ident} Fake\n\n")
        elif cmd == "board":
            out.write(f"={ident}\n A B\n 1 .\n\n")
        elif cmd == "crlf":
            out.write(f"={ident} one\r\n\ttwo\r\n\r\n")
        elif cmd == "chatter":
            out.write("some banner line\n\n" + f"={ident} after chatter\n\n")
        elif cmd == "padded":
            out.write(f"={ident}   7.5  \n\n")
        elif cmd == "echo":
            out.write(f"={ident} " + " ".join(args) + "\n\n")
        elif cmd == "die":
            sys.stderr.write("fatal: dying on purpose\n"); sys.stderr.flush()
            sys.exit(3)
        elif cmd == "sleep":
            time.sleep(float(args[0]))
            out.write(f"={ident}\n\n")
        elif cmd == "drip":  # a multi-line answer, one line every 0.2 s
            out.write(f"={ident} start\n"); out.flush()
            for i in range(20):
                time.sleep(0.2)
                out.write(f"line {i}\n"); out.flush()
            out.write("\n")
        elif cmd == "flood":
            sys.stderr.write("x" * 1_000_000 + "\n"); sys.stderr.flush()
            out.write(f"={ident} flooded\n\n")
        else:
            out.write(f"?{ident} unknown command\n\n")
        out.flush()
    if "--ignore-quit" in sys.argv:  # stubborn: ignores quit and end of input
        time.sleep(60)
    """
)


@pytest.fixture
def fake_engine(tmp_path: Path) -> list[str]:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    return [sys.executable, str(script)]


def test_responses_ids_and_multiline(fake_engine: list[str]) -> None:
    with GtpProcess(fake_engine, timeout=10) as engine:
        assert engine.send("name") == "Fake"
        assert engine.send("12 name") == "Fake"
        assert engine.send("echo a  b") == "a b"
        assert engine.send("board") == " A B\n 1 ."
        assert engine.send("crlf") == "one\n two"
        assert engine.send("chatter") == "after chatter"
        assert engine.send("padded") == "7.5"
        assert engine.alive
    assert not engine.alive
    assert engine.returncode == 0


def test_failure_response_raises_with_the_engine_message(fake_engine: list[str]) -> None:
    with GtpProcess(fake_engine, timeout=10) as engine:
        with pytest.raises(GtpCommandError) as info:
            engine.send("7 bogus_command x")
        assert info.value.message == "unknown command"
        assert info.value.command == "7 bogus_command x"
        assert "bogus_command" in str(info.value)
        assert engine.send("name") == "Fake"  # the session goes on


def test_command_string_is_split_with_shlex(fake_engine: list[str], tmp_path: Path) -> None:
    import shlex

    with GtpProcess(shlex.join(fake_engine), timeout=10) as engine:
        assert engine.argv == fake_engine
        assert engine.send("name") == "Fake"


def test_missing_program() -> None:
    with pytest.raises(GtpConnectionError, match="'no-such-gtp-engine-xyz' was not found"):
        GtpProcess(["no-such-gtp-engine-xyz", "--mode", "gtp"])
    with pytest.raises(ValueError, match="empty"):
        GtpProcess("")


def test_engine_dying_mid_session(fake_engine: list[str]) -> None:
    engine = GtpProcess(fake_engine, timeout=10)
    assert engine.send("name") == "Fake"
    with pytest.raises(GtpConnectionError) as info:
        engine.send("die")
    message = str(info.value)
    assert "stopped while handling 'die'" in message
    assert "exit status 3" in message
    assert "fatal: dying on purpose" in message
    assert not engine.alive
    with pytest.raises(GtpConnectionError):
        engine.send("name")
    engine.close()  # harmless after death


def test_timeout_stops_the_engine(fake_engine: list[str]) -> None:
    engine = GtpProcess(fake_engine, timeout=10)
    start = time.monotonic()
    with pytest.raises(GtpTimeoutError, match=r"within 0\.3 s"):
        engine.send("sleep 30", timeout=0.3)
    assert time.monotonic() - start < 5
    assert not engine.alive
    assert isinstance(GtpTimeoutError("x"), TimeoutError)
    with pytest.raises(GtpConnectionError, match="closed"):
        engine.send("name")


def test_timeout_covers_the_whole_response(fake_engine: list[str]) -> None:
    engine = GtpProcess(fake_engine, timeout=0.7)
    start = time.monotonic()
    with pytest.raises(GtpTimeoutError):
        engine.send("drip")  # every line comes in time, the whole answer does not
    assert time.monotonic() - start < 3
    assert not engine.alive


def test_stderr_flood_does_not_block(fake_engine: list[str]) -> None:
    with GtpProcess(fake_engine, timeout=20) as engine:
        assert engine.send("flood") == "flooded"
        assert engine.send("flood") == "flooded"
        assert engine.stderr_tail  # the tail was collected


def test_close_kills_an_engine_that_ignores_quit(fake_engine: list[str]) -> None:
    engine = GtpProcess([*fake_engine, "--ignore-quit"], timeout=10)
    assert engine.send("name") == "Fake"
    start = time.monotonic()
    engine.close(timeout=0.5)
    assert time.monotonic() - start < 5
    assert not engine.alive
    assert engine.returncode is not None and engine.returncode != 0
    engine.close()


def test_bad_commands_are_refused_before_sending(fake_engine: list[str]) -> None:
    with GtpProcess(fake_engine, timeout=10) as engine:
        for bad in ("", "   ", "name\nname", "a\rb"):
            with pytest.raises(ValueError, match="one non-empty line"):
                engine.send(bad)
        assert engine.send("name") == "Fake"


def test_error_classes() -> None:
    assert issubclass(GtpCommandError, GtpError)
    assert issubclass(GtpConnectionError, GtpError)
    assert issubclass(GtpTimeoutError, GtpConnectionError)


@pytest.mark.gnugo
def test_gnugo_session(gnugo_path: str) -> None:
    with GtpProcess([gnugo_path, "--mode", "gtp", "--level", "0"], timeout=30) as engine:
        assert engine.send("protocol_version") == "2"
        assert engine.send("name") == "GNU Go"
        assert engine.send("5 version") == "3.8"
        engine.send("boardsize 9")
        engine.send("clear_board")
        engine.send("komi 6.5")
        assert engine.send("get_komi") == "6.5"  # GNU Go answers "=  6.5"
        engine.send("play black E5")
        assert engine.send("list_stones black") == "E5"
        board = engine.send("showboard")
        assert board.splitlines()[0].split() == list("ABCDEFGHJ")
        assert len(board.splitlines()) == 11
        with pytest.raises(GtpCommandError, match="illegal move"):
            engine.send("play white E5")
        with pytest.raises(GtpCommandError, match="unknown command"):
            engine.send("no_such_command")
        move = engine.send("genmove white")
        assert move.upper() != "E5" and len(move) >= 2
    assert not engine.alive
    assert engine.returncode == 0


def test_missing_gnugo_skips_locally_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    import gnugo_support

    monkeypatch.setattr(gnugo_support.shutil, "which", lambda name: None)
    monkeypatch.setattr(gnugo_support, "_KNOWN_LOCATIONS", ("/nonexistent/gnugo",))
    assert gnugo_support.find_gnugo() is None
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install gnugo"):
        gnugo_support.require_gnugo()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required under CI=true"):
        gnugo_support.require_gnugo()


def test_gnugo_found_on_path_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import gnugo_support

    monkeypatch.setattr(gnugo_support.shutil, "which", lambda name: f"/opt/bin/{name}")
    assert gnugo_support.find_gnugo() == "/opt/bin/gnugo"
    monkeypatch.setattr(gnugo_support.shutil, "which", lambda name: None)
    fake = tmp_path / "gnugo"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(gnugo_support, "_KNOWN_LOCATIONS", (str(tmp_path / "missing"), str(fake)))
    assert gnugo_support.find_gnugo() == str(fake)
