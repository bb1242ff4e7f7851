"""The arena's results file read back: corrupt files, and the compressed form of a record."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from game_support import game_outcome

from agents.matches.results import (
    GameOutcome,
    ResultsError,
    ResultsFile,
    read_results,
    stored_results,
)

MATCH = {"agent_a": "random", "agent_b": "random", "seed": 0}


def _game(index: int) -> GameOutcome:
    return game_outcome(index)


def _file(tmp_path: Path, games: int = 2) -> Path:
    path = tmp_path / "results.jsonl"
    store = ResultsFile(path, MATCH)
    store.load()
    for index in range(games):
        store.append(_game(index))
    return path


def _with_line(tmp_path: Path, line: bytes) -> Path:
    path = _file(tmp_path)
    with path.open("ab") as handle:
        handle.write(line + b"\n")
    return path


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"[1, 2, 3]", r"results\.jsonl, line 4: a list, not a JSON object"),
        (b'"text"', r"results\.jsonl, line 4: a str, not a JSON object"),
        (b"7", r"results\.jsonl, line 4: a int, not a JSON object"),
        (b'{"kind": "other"}', r"line 4: not a game record \(kind 'other'"),
        (b"{not json", r"results\.jsonl, line 4: not JSON"),
        (b"\xff\xfe{}", r"results\.jsonl, line 4: not UTF-8 text \(byte 0xff at column 1\)"),
        (b'{"kind": "game", "index": 1' + b"1" * 5000 + b"}", r"line 4: not JSON"),
        (b"[" * 100_000, r"line 4: (not JSON|JSON nested too deeply)"),
    ],
)
def test_a_corrupt_line_names_the_file_and_line(tmp_path: Path, line: bytes, message: str) -> None:
    path = _with_line(tmp_path, line)
    for read in (lambda: read_results(path), lambda: ResultsFile(path, MATCH).load()):
        with pytest.raises(ResultsError, match=message):
            read()


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("index", "3", "an integer >= 0"),
        ("index", 2.5, "an integer >= 0"),
        ("index", True, "an integer >= 0"),
        ("index", -1, "an integer >= 0"),
        ("moves", "ab", "a list of action indices"),
        ("moves", [1, "x"], "a list of action indices"),
        ("moves", None, "a list of action indices"),
        ("moves", [1, -2], "a list of action indices"),
        ("opening", {"a": 1}, "a list of action indices"),
        ("score_a", 2, "0, 0.5 or 1"),
        ("score", "nan", "a finite number"),
        ("referee", 3, "a string or null"),
        ("a_black", 1, "true or false"),
    ],
)
def test_a_field_of_the_wrong_type_names_file_line_and_field(
    tmp_path: Path, field: str, value: object, allowed: str
) -> None:
    record = {"kind": "game", **_game(2).to_dict(), field: value}
    path = _with_line(tmp_path, json.dumps(record).encode())
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    text = str(caught.value)
    assert f"{path}, line 4: field {field!r}" in text and allowed in text


def test_a_game_record_without_fields_is_refused_with_file_and_line(tmp_path: Path) -> None:
    path = _with_line(tmp_path, b'{"kind": "game", "index": 3}')
    with pytest.raises(ResultsError, match=r"results\.jsonl, line 4: a game record lacks"):
        read_results(path)


@pytest.mark.parametrize("content", [b"\0" * 4096, b"\0" * 10 + b"\n" + b"\0" * 10, b"hello"])
def test_a_file_that_is_not_a_results_file_is_refused_and_left_untouched(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(content)
    with pytest.raises(ResultsError, match="not an arena results file"):
        ResultsFile(path, MATCH).load()
    assert path.read_bytes() == content
    with pytest.raises(ResultsError, match="not an arena results file"):
        read_results(path)


def test_a_corrupt_line_before_a_partial_one_leaves_the_file_untouched(tmp_path: Path) -> None:
    path = _with_line(tmp_path, b"[1]")
    with path.open("ab") as handle:
        handle.write(b'{"kind": "ga')
    before = path.read_bytes()
    with pytest.raises(ResultsError, match="line 4"):
        ResultsFile(path, MATCH).load()
    assert path.read_bytes() == before


def test_a_partial_last_line_is_cut_off_once_the_rest_reads(tmp_path: Path) -> None:
    path = _file(tmp_path)
    complete = path.read_bytes()
    path.write_bytes(complete + b'{"kind": "game", "ind')
    assert set(read_results(path)[1]) == {0, 1}
    assert path.read_bytes().endswith(b'"ind')  # reading writes nothing
    assert set(ResultsFile(path, MATCH).load()) == {0, 1}
    assert path.read_bytes() == complete


def test_a_header_cut_short_starts_the_file_afresh(tmp_path: Path) -> None:
    path = _file(tmp_path, games=0)
    header = path.read_bytes()
    path.write_bytes(header[:20])
    assert ResultsFile(path, MATCH).load() == {}
    assert path.read_bytes() == header


def _compressed(tmp_path: Path, games: int = 2) -> tuple[Path, bytes]:
    path = _file(tmp_path, games)
    data = path.read_bytes()
    packed = tmp_path / "results.jsonl.gz"
    packed.write_bytes(gzip.compress(data, mtime=0))
    path.unlink()
    return packed, data


def test_the_compressed_form_reads_by_either_name_and_by_folder(tmp_path: Path) -> None:
    packed, _ = _compressed(tmp_path)
    plain = tmp_path / "results.jsonl"
    for given in (packed, plain, tmp_path):
        match, games = read_results(given)
        assert match == MATCH and [g.index for g in games.values()] == [0, 1]
        assert games[1] == _game(1)
    assert stored_results(plain) == packed


def test_both_forms_at_once_are_refused(tmp_path: Path) -> None:
    _, data = _compressed(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(data)
    with pytest.raises(ResultsError, match=r"both .* exist; keep one"):
        read_results(tmp_path)


def test_a_finished_record_resumed_writes_nothing_and_one_more_game_expands_it(
    tmp_path: Path,
) -> None:
    packed, data = _compressed(tmp_path)
    plain = tmp_path / "results.jsonl"
    store = ResultsFile(plain, MATCH)
    assert set(store.load()) == {0, 1}
    assert packed.exists() and not plain.exists()
    store.append(_game(2))
    assert not packed.exists()
    assert plain.read_bytes().startswith(data)
    assert set(read_results(plain)[1]) == {0, 1, 2}


def test_a_compressed_file_of_another_match_is_refused(tmp_path: Path) -> None:
    packed, _ = _compressed(tmp_path)
    with pytest.raises(ResultsError, match=r"results\.jsonl\.gz holds the results of a different"):
        ResultsFile(packed, {**MATCH, "seed": 1}).load()


@pytest.mark.parametrize("cut", [b"\0" * 64, b"not gzip at all"])
def test_a_corrupt_compressed_file_names_the_file(tmp_path: Path, cut: bytes) -> None:
    packed, _ = _compressed(tmp_path)
    packed.write_bytes(cut)
    with pytest.raises(ResultsError, match=r"results\.jsonl\.gz is not a readable gzip file"):
        read_results(packed)
    assert packed.read_bytes() == cut


def test_a_compressed_file_cut_short_names_the_file(tmp_path: Path) -> None:
    packed, _ = _compressed(tmp_path, games=20)
    packed.write_bytes(packed.read_bytes()[:-30])
    with pytest.raises(ResultsError, match="not a readable gzip file"):
        ResultsFile(packed, MATCH).load()


def test_a_corrupt_line_inside_a_compressed_file_names_it(tmp_path: Path) -> None:
    path = _with_line(tmp_path, b"[1]")
    packed = tmp_path / "results.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    with pytest.raises(ResultsError, match=r"results\.jsonl\.gz, line 4: a list"):
        read_results(packed)


def test_a_second_writer_of_the_same_file_is_refused_until_the_first_closes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.jsonl"
    first = ResultsFile(path, MATCH)
    first.load()
    first.append(_game(0))
    second = ResultsFile(path, MATCH)
    with pytest.raises(ResultsError, match="being written by another process"):
        second.load()
    first.close()
    assert set(second.load()) == {0}
    second.close()


def test_a_second_arena_on_the_same_results_file_is_refused(tmp_path: Path) -> None:
    from agents.matches.arena import MatchConfig, iter_games

    path = tmp_path / "results.jsonl"
    config = MatchConfig(agent_a="random", agent_b="random", games=2, seed=3)
    holder = ResultsFile(path, config.identity())
    holder.load()
    with pytest.raises(ResultsError, match="another process"):
        next(iter_games(config, results=path, workers=1))
    holder.close()
    games = list(iter_games(config, results=path, workers=1))
    assert [g.index for g in games] == [0, 1]
    assert set(read_results(path)[1]) == {0, 1}
