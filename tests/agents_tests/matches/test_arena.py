"""Arena matches: pairing, seeding, resumption, refereeing, SPRT and the command line."""

from __future__ import annotations

import dataclasses
import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from scripts_support import kill_after_lines

from agents.base import Resignation
from agents.matches.arena import MAX_GAMES, ArenaError, MatchConfig, iter_games, run_match
from agents.matches.openings import load_book, random_opening
from agents.matches.plots import plot_running_score, running_score, running_score_figure, wrap_title
from agents.matches.results import ResultsError, ResultsFile
from agents.matches.stats import SprtConfig, wilson_interval
from agents.matches.stats import sprt as run_sprt
from agents.registry import AGENTS
from go_env.dead_stones import score_without
from go_env.rules import Rules
from go_env.sgf import load_sgf, state_from_record
from go_env.state import Color, GoState

ROOT = Path(__file__).resolve().parents[3]


def deterministic(games: list[Any]) -> list[dict[str, Any]]:
    return [g.deterministic() for g in games]


# ------------------------------------------------------------------- test agents


@dataclass(frozen=True, kw_only=True)
class ProbeConfig:
    """A first-legal-move agent that records how the arena drives it (in this process)."""

    seed: int | None = None
    fail_as_white: bool = False
    resign_at_move: int = -1
    judge: bool = False

    builds: ClassVar[list[int | None]] = []

    def build(self) -> Probe:
        ProbeConfig.builds.append(self.seed)
        return (Judge if self.judge else Probe)(self)


class Probe:
    name = "probe"

    def __init__(self, config: ProbeConfig) -> None:
        self.config = config
        self.games = 0

    def reset(self) -> None:
        self.games += 1

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        if self.config.fail_as_white and state.to_play == Color.WHITE:
            raise RuntimeError("probe failure")
        if 0 <= self.config.resign_at_move <= state.move_number:
            raise Resignation(state.to_play, "probe resigns")
        moves = state.legal_moves()
        eyes = state.own_eye_mask()
        safe = [int(m) for m in moves if m != state.pass_move and not eyes[m]]
        return safe[0] if safe else state.pass_move

    def close(self) -> None:
        pass


class Judge(Probe):
    name = "judge"

    def final_status_dead(self, state: GoState) -> list[int]:
        """Declares dead every stone of the colour with fewer stones on the board."""
        return minority(state)


def minority(state: GoState) -> list[int]:
    board = state.board.ravel()
    colour = min((Color.BLACK, Color.WHITE), key=lambda c: (int((board == c).sum()), c))
    return [int(p) for p in (board == colour).nonzero()[0]]


@pytest.fixture
def probe() -> Iterator[type[ProbeConfig]]:
    AGENTS.register("probe", ProbeConfig)
    ProbeConfig.builds.clear()
    yield ProbeConfig
    AGENTS.unregister("probe")


# --------------------------------------------------------------------- openings


def test_random_openings_are_seeded_legal_and_avoid_self_atari() -> None:
    rules = Rules(size=9)
    first = random_opening(rules, 6, seed=1, pair=0)
    assert len(first) == 6
    assert random_opening(rules, 6, seed=1, pair=0) == first
    assert random_opening(rules, 6, seed=1, pair=1) != first
    assert random_opening(rules, 6, seed=2, pair=0) != first
    for pair in range(20):
        state = GoState(rules)
        for move in random_opening(rules, 6, seed=5, pair=pair):
            assert move != state.pass_move and not state.own_eye_mask()[move]
            state.play(move)
            assert state.liberties(move) >= 2


def test_opening_books_from_text_and_sgf(tmp_path: Path) -> None:
    rules = Rules(size=9)
    text = tmp_path / "book.txt"
    text.write_text("# two openings\nE5 C3\n\nd4, f6, c7  # comment\n")
    assert load_book(text, rules) == ((40, 56), (48, 32, 20))
    folder = tmp_path / "sgf"
    folder.mkdir()
    (folder / "a.sgf").write_text("(;SZ[9];B[ee];W[cc])")
    assert load_book(folder, rules) == ((40, 20),)
    text.write_text("E5 E5\n")
    with pytest.raises(ValueError, match=r"line 1: opening move 2 .* is illegal"):
        load_book(text, rules)
    text.write_text("E5 Z5\n")
    with pytest.raises(ValueError, match="line 1"):
        load_book(text, rules)
    text.write_text("# nothing\n")
    with pytest.raises(ValueError, match="holds no opening"):
        load_book(text, rules)


def test_an_opening_book_from_a_recorded_matchs_results_file(tmp_path: Path) -> None:
    """A results file's header holds the book its match played; --book replays it."""
    rules = Rules(size=9)
    text = tmp_path / "book.txt"
    text.write_text("E5 C3\nd4 f6 c7\n")
    book = load_book(text, rules)
    config = MatchConfig(agent_a="random", agent_b="random", games=2, rules=rules, book=book)
    plain = tmp_path / "match" / "results.jsonl"
    run_match(config, results=plain, workers=1)
    assert load_book(plain, rules) == book
    packed = tmp_path / "recorded" / "results.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert load_book(packed, rules) == book
    assert load_book(tmp_path / "recorded" / "results.jsonl", rules) == book  # either name

    with pytest.raises(ValueError, match="openings of a 9x9 match, this match is 7x7"):
        load_book(plain, Rules(size=7))
    randoms = tmp_path / "random" / "results.jsonl"
    run_match(dataclasses.replace(config, book=(), seed=5), results=randoms, workers=1)
    with pytest.raises(
        ValueError, match=r"played random openings \(seed 5, 2 moves\); give --seed"
    ):
        load_book(randoms, rules)
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text('{"step": 1}\n')
    with pytest.raises(ValueError, match="is not a match's results file"):
        load_book(metrics, rules)
    with pytest.raises(FileNotFoundError, match="no results file"):
        load_book(tmp_path / "missing.jsonl", rules)
    summary = tmp_path / "match" / "summary.json"
    summary.write_text("{}")
    with pytest.raises(ValueError, match=r"is a JSON file: give .* results\.jsonl or"):
        load_book(summary, rules)


def test_match_config_validation() -> None:
    for games in (0, MAX_GAMES + 1, 10**23, True):
        with pytest.raises(ValueError, match=rf"games must be an int in \[1, {MAX_GAMES}\]"):
            MatchConfig(agent_a="random", agent_b="random", games=games)
    assert MatchConfig(agent_a="random", agent_b="random", games=MAX_GAMES).games == MAX_GAMES
    with pytest.raises(ValueError, match="book opening 0"):
        MatchConfig(agent_a="random", agent_b="random", book=((40, 40),))
    with pytest.raises(ValueError, match="has no parameter 'sims'"):
        MatchConfig(agent_a="random:sims=3", agent_b="random")
    for seed in (-1, True, 1.5):
        with pytest.raises(ValueError, match="seed must be an int >= 0"):
            MatchConfig(agent_a="random", agent_b="random", seed=seed)  # type: ignore[arg-type]
    assert MatchConfig(agent_a="random", agent_b="random", seed=10**30).seed == 10**30


def test_a_worker_pool_is_handed_a_few_games_ahead_not_the_whole_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every game was submitted at the start: a match of a million games held over 1.5 GB of
    # futures after 30 s and had not played one.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from agents.matches import arena

    lock = threading.Lock()
    counts = {"out": 0, "most": 0}

    class CountingPool(ThreadPoolExecutor):
        def __init__(self, workers: int, **_: Any) -> None:
            super().__init__(workers)

        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            config, index = args

            def game() -> Any:
                return arena.play_match_game(config, index, arena._Players())

            with lock:
                counts["out"] += 1
                counts["most"] = max(counts["most"], counts["out"])
            future = super().submit(game)
            future.add_done_callback(lambda _: _done())
            return future

    def _done() -> None:
        with lock:
            counts["out"] -= 1

    monkeypatch.setattr(arena, "ProcessPoolExecutor", CountingPool)
    config = MatchConfig(agent_a="random", agent_b="random", games=30, rules=Rules(size=5))
    games = list(iter_games(config, workers=2))
    assert [g.index for g in games] == list(range(30))
    assert 2 <= counts["most"] <= 4  # two games ahead per worker


def test_a_negative_match_seed_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It passed and failed in game 0 with numpy's "expected non-negative integer".
    from agents.cli import main

    code = main(["arena", "random", "random", "--seed", "-1", "--out", str(tmp_path / "a")])
    assert code == 2
    assert "seed must be an int >= 0, got -1" in capsys.readouterr().err
    assert not (tmp_path / "a" / "results.jsonl").exists()


# ------------------------------------------------------------------- the match


def test_pairs_share_their_opening_and_swap_colours(tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="random", agent_b="random:pass_prob=0.01", games=6, seed=4, opening_moves=3
    )
    result = run_match(config, workers=1, sgf_dir=tmp_path)
    games = result.games
    assert [g.index for g in games] == list(range(6))
    assert [g.a_black for g in games] == [True, False] * 3
    for even, odd in zip(games[::2], games[1::2], strict=True):
        assert even.opening == odd.opening and len(even.opening) == 3
        assert even.moves[:3] == even.opening and odd.moves[:3] == odd.opening
        assert (
            (even.black, even.white)
            == (odd.white, odd.black)
            == ("random", "random:pass_prob=0.01")
        )
    assert len({g.opening for g in games}) == 3
    for game in games:  # every game is saved and replays to its result
        record = load_sgf(tmp_path / f"game-{game.index:05d}.sgf")
        assert record.black == game.black and record.result == game.result
        assert state_from_record(record).score() == game.raw_score


def test_match_results_do_not_depend_on_workers_and_resume_after_interruption(
    tmp_path: Path,
) -> None:
    config = MatchConfig(
        agent_a="random", agent_b="random:pass_prob=0.02", games=16, seed=9, rules=Rules(size=19)
    )
    reference = run_match(config, results=tmp_path / "ref.jsonl", workers=1)
    assert len(reference.games) == 16

    path = tmp_path / "interrupted.jsonl"
    seen = []

    def interrupt(game: Any, result: Any) -> None:
        seen.append(game.index)
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_match(config, results=path, workers=2, on_game=interrupt)
    kept = ResultsFile(path, config.identity()).load()
    # What finished is saved, games still running at the interruption included. How many that
    # is depends on timing: while the second worker starts, the first may play on far ahead of
    # the game the generator waits for (the command-line test below resumes a partial match).
    assert 4 <= len(kept) <= 16
    resumed = run_match(config, results=path, workers=1)
    # Games played by the pool and in this process are the same games.
    assert deterministic(resumed.games) == deterministic(reference.games)
    lines = path.read_text().splitlines()
    assert len(lines) == 17  # header + 16 games, none played twice
    assert sorted(json.loads(line)["index"] for line in lines[1:]) == list(range(16))


def test_stopping_early_and_extending_a_match(tmp_path: Path) -> None:
    config = MatchConfig(agent_a="random", agent_b="random:pass_prob=0.02", games=4, seed=2)
    path = tmp_path / "r.jsonl"
    stopped = run_match(config, results=path, workers=1, on_game=lambda g, r: g.index == 1)
    assert stopped.stopped == "callback" and len(stopped.games) == 2
    longer = MatchConfig(agent_a="random", agent_b="random:pass_prob=0.02", games=8, seed=2)
    full = run_match(longer, results=path, workers=1)
    assert len(full.games) == 8 and deterministic(full.games[:2]) == deterministic(stopped.games)
    assert deterministic(full.games) == deterministic(run_match(longer, workers=1).games)
    # iter_games yields in index order, the games of the file first.
    assert [g.index for g in iter_games(longer, results=path, workers=1)] == list(range(8))


def test_a_results_file_of_another_match_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_match(MatchConfig(agent_a="random", agent_b="random", games=2), results=path, workers=1)
    other = MatchConfig(agent_a="random", agent_b="random", games=2, seed=1, rules=Rules(komi=6.5))
    with pytest.raises(ResultsError, match=r"different match \(rules: .*seed: file has 0, this"):
        run_match(other, results=path, workers=1)
    (tmp_path / "x.jsonl").write_text('{"kind": "game"}\n')
    with pytest.raises(ResultsError, match="not an arena results file"):
        run_match(other, results=tmp_path / "x.jsonl", workers=1)


def test_a_line_cut_by_an_interruption_is_dropped(tmp_path: Path) -> None:
    config = MatchConfig(agent_a="random", agent_b="random", games=3, seed=6)
    path = tmp_path / "r.jsonl"
    run_match(
        MatchConfig(agent_a="random", agent_b="random", games=2, seed=6), results=path, workers=1
    )
    with path.open("a") as handle:
        handle.write('{"kind":"game","index":2,"pa')  # killed while writing game 2
    result = run_match(config, results=path, workers=1)
    assert [g.index for g in result.games] == [0, 1, 2]
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_sprt_stops_a_lopsided_match_as_soon_as_it_decides(tmp_path: Path) -> None:
    # B passes at every turn: A (random, sparing its eyes) takes the whole board every game.
    config = MatchConfig(
        agent_a="random",
        agent_b="random:pass_prob=1.0",
        games=200,
        seed=1,
        rules=Rules(size=5, komi=0.5),
    )
    sprt = SprtConfig(elo0=0, elo1=50)
    result = run_match(config, results=tmp_path / "r.jsonl", workers=1, sprt=sprt)
    assert result.stopped == "sprt"
    assert result.sprt is not None and result.sprt.decision == "H1"
    assert result.scores == [1.0] * len(result.games)
    assert len(result.games) % 2 == 0 and len(result.games) < 60
    # It stopped at the first pair where the LLR crossed the bound.
    assert run_sprt(sprt, result.scores[:-2]).decision is None
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert len(lines) == 1 + len(result.games)
    summary = result.summary()
    assert summary["sprt"]["decision"] == "H1" and summary["stopped"] == "sprt"
    reverse = MatchConfig(
        agent_a="random:pass_prob=1.0",
        agent_b="random",
        games=200,
        seed=1,
        rules=Rules(size=5, komi=0.5),
    )
    assert run_match(reverse, workers=1, sprt=sprt).sprt.decision == "H0"  # type: ignore[union-attr]


def test_agents_are_reused_and_reseeded_per_game(probe: type[ProbeConfig]) -> None:
    config = MatchConfig(
        agent_a="probe", agent_b="probe:seed=99", games=4, seed=3, rules=Rules(size=5)
    )
    result = run_match(config, workers=1)
    # A config with a seed field is rebuilt with each game's own seed (the spec's is replaced).
    seeds = {config.agent_seeds(i)[side] for i in range(4) for side in (0, 1)}
    assert set(ProbeConfig.builds) == seeds and len(ProbeConfig.builds) == 8
    for game in result.games:
        a, b = config.agent_seeds(game.index)
        assert (game.seed_black, game.seed_white) == ((a, b) if game.a_black else (b, a))


def test_a_referee_removes_dead_stones_of_games_ended_by_passes(
    probe: type[ProbeConfig],
) -> None:
    config = MatchConfig(
        agent_a="random", agent_b="probe:judge=true", games=4, seed=1, rules=Rules(size=9, komi=0.5)
    )
    result = run_match(config, workers=1)
    for game in result.games:
        assert game.ended_by == "passes" and game.referee == "judge"
        state = GoState(config.rules)
        for move in game.moves:
            state.play(move)
        assert list(game.dead) == minority(state)
        assert game.score == score_without(state, game.dead)
        assert game.raw_score == state.score()
    assert any(g.dead and g.score != g.raw_score for g in result.games)
    unrefereed = run_match(dataclasses.replace(config, referee="none"), workers=1)
    assert all(g.referee is None and g.score == g.raw_score for g in unrefereed.games)


def test_resignations_and_failures(probe: type[ProbeConfig], tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="probe:resign_at_move=4",
        agent_b="probe",
        games=2,
        opening_moves=0,
        rules=Rules(size=5),
    )
    result = run_match(config, workers=1)
    assert [g.ended_by for g in result.games] == ["resignation"] * 2
    assert [g.result for g in result.games] == ["W+R", "B+R"]  # A resigns as Black, then White
    assert result.scores == [0.0, 0.0]
    failing = MatchConfig(
        agent_a="probe:fail_as_white=true", agent_b="random", games=4, rules=Rules(size=5)
    )
    path = tmp_path / "r.jsonl"
    with pytest.raises(
        ArenaError,
        match=r"game 1 \(probe:fail_as_white=true vs random\) "
        r"failed: RuntimeError: probe failure",
    ):
        run_match(failing, results=path, workers=1)
    assert list(ResultsFile(path, failing.identity()).load()) == [0]  # game 0 is kept


def test_summary_and_plot(tmp_path: Path) -> None:
    config = MatchConfig(agent_a="random", agent_b="random:pass_prob=0.05", games=10, seed=8)
    result = run_match(config, workers=1)
    summary = result.summary()
    tally = result.tally
    assert summary["a"] == {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses}
    black, white = summary["a_as_black"], summary["a_as_white"]
    assert black["wins"] + white["wins"] == tally.wins
    assert sum(black.values()) == sum(white.values()) == 5
    assert summary["black_wins"] + summary["white_wins"] + summary["draws"] == 10
    assert summary["score_rate_95"] == list(wilson_interval(tally.points, 10))
    text = result.format()
    assert f"A: {tally} overall" in text and "Wilson" in text
    series = running_score([1, 0, 0.5])
    assert series[:, 0].tolist() == [1.0, 0.5, 0.5]
    assert series[2, 1:].tolist() == list(wilson_interval(1.5, 3))
    path = plot_running_score(result.scores, tmp_path / "plot.png", title="test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(path) as image:  # a band plot: 20 colours, its line's kept
        colours = {rgb for _, rgb in image.convert("RGB").getcolors()}

    def near(target: tuple[int, int, int]) -> bool:
        return any(sum(abs(a - b) for a, b in zip(c, target, strict=True)) < 12 for c in colours)

    assert len(colours) <= 20 and near((31, 119, 180))  # tab:blue, the series


NET_SPEC = 'mcts:policy=puct,sims=3200,batch=16,evaluator="net:lam=0.25",end_scoring=remove_dead'
LONG_TITLE = f"A: {NET_SPEC},reuse_tree=true  vs  B: {NET_SPEC},name=other"


def test_wrap_title_breaks_agent_specs_between_their_options() -> None:
    lines = wrap_title(LONG_TITLE, 60).split("\n")
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines)
    assert all(line.endswith(",") for line in lines[:-1])  # between options
    assert "".join(lines) == LONG_TITLE  # nothing lost
    assert wrap_title("short title") == "short title"
    assert wrap_title("x" * 25, 10) == "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx"  # no break point: cut
    with pytest.raises(ValueError, match="width must be at least 1"):
        wrap_title("title", 0)


def test_long_match_title_stays_inside_the_figure() -> None:
    figure = running_score_figure([1, 0, 1], title=LONG_TITLE, label="A")
    figure.canvas.draw()
    title = figure.axes[0].title.get_window_extent()
    assert title.x0 >= 0 and title.x1 <= figure.bbox.width
    assert title.y1 <= figure.bbox.height


def test_command_line_killed_mid_match_resumes_to_the_same_results(tmp_path: Path) -> None:
    args = [
        "arena",
        "random",
        "random:pass_prob=0.01",
        "--games",
        "40",
        "--size",
        "19",
        "--seed",
        "5",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
    ]
    results = tmp_path / "out" / "results.jsonl"
    cmd = [sys.executable, "-m", "agents.cli", *args]
    killed_at = kill_after_lines(cmd, results, 6, timeout=60) - 1
    assert 5 <= killed_at < 40
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "40 of 40 games" in done.stdout
    config = MatchConfig(
        agent_a="random", agent_b="random:pass_prob=0.01", games=40, seed=5, rules=Rules(size=19)
    )
    reference = run_match(config, workers=1)
    resumed = ResultsFile(results, config.identity()).load()
    assert deterministic([resumed[i] for i in range(40)]) == deterministic(reference.games)
    out = tmp_path / "out"
    assert len(list((out / "sgf").glob("*.sgf"))) == 40
    assert json.loads((out / "summary.json").read_text())["games"] == 40
    assert (out / "winrate.png").exists()


def test_a_missing_network_is_refused_before_the_progress_bar_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = MatchConfig(
        agent_a='mcts:policy=puct,sims=2,evaluator="net:strong9"',
        agent_b="random",
        games=2,
        rules=Rules(size=5),
    )
    with pytest.raises(FileNotFoundError, match="strong9: no network checkpoint there"):
        run_match(config, results=tmp_path / "results.jsonl", workers=1, progress=True)
    assert capsys.readouterr().err == ""  # no bar drawn for a match that cannot start
    assert not (tmp_path / "results.jsonl").exists()
