"""Self-play at scale: game records, the generator, the window, the gate, a resumable run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.cli import main as gomcts
from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.evaluator import NetEvaluator
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training.gating import run_gate, sprt_of
from agents.nets.training.generation import GameSettings, play_selfplay_games
from agents.nets.training.manifest import Manifest, StartClock
from agents.nets.training.records import GameFile, GameRecord
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.window import game_examples, window_buffer
from go_env.rules import Rules
from go_env.state import Color, GoState

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TINY = NetConfig(size=5, blocks=1, filters=8, history=2)
RULES = Rules(size=5, komi=0.5, max_moves=24)


def _games(search: str, full_share: float, count: int = 2) -> list[GameRecord]:
    torch.manual_seed(0)
    evaluator = NetEvaluator(PolicyValueNet(TINY), symmetry="none")
    settings = GameSettings(
        rules=RULES, search=search, sims=4, fast_sims=2, full_share=full_share, considered=4
    )
    return list(play_selfplay_games(evaluator, settings, [(i, 10 + i) for i in range(count)], 2))


@pytest.mark.parametrize("search", ["gumbel", "puct"])
def test_generator_plays_legal_games_with_playout_cap(search: str) -> None:
    games = _games(search, 0.5)
    assert sorted(g.index for g in games) == [0, 1]
    for game in games:
        state = GoState(RULES)
        for move in game.moves:
            state.play(move)  # legal under the rules
        assert state.is_over and game.result == state.result()
        assert game.full_searches + game.fast_searches == len(game.moves)
        assert len(game.targets) == game.full_searches
        for target in game.targets:
            assert sum(target.probs) == pytest.approx(1.0, abs=1e-4)
    everything = _games(search, 1.0, count=1)[0]
    assert everything.fast_searches == 0 and len(everything.targets) == len(everything.moves)


def test_game_file_survives_a_torn_line(tmp_path) -> None:
    games = _games("gumbel", 0.5)
    store = GameFile(tmp_path / "g.jsonl")
    store.append(games)
    with store.path.open("a") as handle:  # a kill in the middle of an append
        handle.write(games[0].to_json()[:40])
    read = store.read()
    assert sorted(read) == [0, 1] and read[1] == games[1]
    store.append([games[0]])  # a duplicate index keeps the first record
    assert len(store.path.read_text().splitlines()) == 3 and sorted(store.read()) == [0, 1]


def test_window_examples_carry_the_result_for_the_player_to_move() -> None:
    game = _games("puct", 0.5)[0]
    planes, policies, values, ownership = game_examples(game, TINY, RULES)
    assert ownership is None  # no ownership head
    assert planes.shape == (len(game.targets), TINY.in_planes, 5, 5)
    assert np.allclose(policies.sum(axis=1), 1.0, atol=1e-4)
    for target, value in zip(game.targets, values, strict=True):
        black_to_move = target.move_number % 2 == 0
        assert value == (game.winner if black_to_move else -game.winner)
        assert Color.BLACK  # the colour plane (last) says who moves
    assert (planes[:, -1] == 1).all(axis=(1, 2)).tolist() == [
        t.move_number % 2 == 0 for t in game.targets
    ]
    assert len(window_buffer(_games("puct", 0.5), TINY, RULES)) > 0


def test_a_stop_landing_just_after_a_games_append_still_counts_that_game(
    tmp_path, selfplay_config, monkeypatch
) -> None:
    """A signal's KeyboardInterrupt can land between a game's append and its count (before,
    the stop check there made it so every time: 14 games stored, 13 counted)."""
    out = tmp_path / "run"
    append = GameFile.append
    calls: list[int] = []

    def append_then_stop(self, records) -> None:  # type: ignore[no-untyped-def]
        append(self, records)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt("signal 15")

    monkeypatch.setattr(GameFile, "append", append_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run_selfplay(out, selfplay_config(generations=1))
    (start,) = Manifest.load(out / "manifest.json").data["starts"]
    stored = GameFile(out / "games" / "gen-0001.jsonl").read()
    assert start["status"] == "interrupted"
    assert start["games"] == len(stored) == 2
    assert start["positions"] == sum(r.positions for r in stored.values())


def test_gate_promotes_only_on_the_sprts_acceptance(tmp_path, selfplay_config) -> None:
    config = selfplay_config(gate_games=4)
    torch.manual_seed(1)
    best = save_checkpoint(tmp_path / "best.pt", PolicyValueNet(TINY))
    result = run_gate(best, best, 1, config, tmp_path)
    assert result.games == 4 and not result.promoted and result.decision is None
    assert (tmp_path / "gate" / "gen-0001.jsonl").exists() and (tmp_path / "book.json").exists()
    sprt = sprt_of(config)
    assert sprt.model == "pentanomial" and sprt.elo1 == config.gate_elo1


def test_run_trains_gates_and_resumes_after_a_kill(tmp_path, selfplay_config) -> None:
    out = tmp_path / "run"
    config = selfplay_config(generations=2)
    seen: list[int] = []

    def kill_after_two(record: GameRecord) -> None:
        seen.append(record.index)
        if len(seen) == 2:
            raise KeyboardInterrupt  # a kill in the middle of generation 1

    with pytest.raises(KeyboardInterrupt):
        run_selfplay(out, config, on_game=kill_after_two)
    saved = Manifest.load(out / "manifest.json")
    assert saved.generation == 1 and saved.phase == "selfplay"
    assert saved.data["starts"][0]["status"] == "interrupted"
    assert sorted(GameFile(out / "games" / "gen-0001.jsonl").read()) == sorted(seen)
    logged: list[str] = []
    assert run_selfplay(out, config, log=logged.append) == "done"
    assert any("1 already" not in line and "resuming generation 1" in line for line in logged)
    manifest = Manifest.load(out / "manifest.json")
    for g in (1, 2):
        lines = (out / "games" / f"gen-{g:04d}.jsonl").read_text().splitlines()
        assert sorted(json.loads(x)["index"] for x in lines) == [0, 1, 2]  # none lost, none twice
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["generation"] for r in rows] == [1, 2] and rows[1]["total_games"] == 6
    # each row's cost is its own generation's, over both starts, and they add up to the run's
    assert all(r["cpu_seconds"] > 0 and r["wall_seconds"] > 0 for r in rows)
    assert rows[0]["run_cpu_seconds"] == rows[0]["cpu_seconds"]
    assert rows[1]["run_cpu_seconds"] == pytest.approx(
        rows[0]["cpu_seconds"] + rows[1]["cpu_seconds"], abs=0.2
    )
    assert rows[1]["run_wall_seconds"] <= manifest.data["totals"]["wall_seconds"]
    assert manifest.data["totals"]["games"] == 6
    assert sum(s["games"] for s in manifest.data["starts"]) == 6
    assert manifest.data["totals"]["positions"] == sum(
        s["positions"] for s in manifest.data["starts"]
    )
    assert [s["status"] for s in manifest.data["starts"]] == ["interrupted", "done"]
    assert load_checkpoint(out / "state.pt").train["trained_generation"] == 2
    assert (out / "losses.png").exists() and (out / "elo.png").exists()
    assert json.loads((out / "ladder.jsonl").read_text().splitlines()[0])["anchor"] == "initial"
    with pytest.raises(ValueError, match="other settings"):
        run_selfplay(out, selfplay_config(generations=3, sims=5))
    assert (
        run_selfplay(out, selfplay_config(generations=2, workers=2)) == "done"
    )  # runtime may change
    assert "changed" not in manifest.data["starts"][1]
    assert Manifest.load(out / "manifest.json").data["starts"][2]["changed"] == {"workers": [1, 2]}


def test_a_start_that_never_ended_is_marked_killed_by_the_next(tmp_path) -> None:
    manifest = Manifest.create(tmp_path / "manifest.json", {})
    first = manifest.begin_start(2, 32)
    manifest.end_start(first, StartClock(), "budget")
    manifest.begin_start(14, 32)  # SIGKILLed: it stays "running"
    manifest.begin_start(2, 32)
    assert [s["status"] for s in manifest.data["starts"]] == ["budget", "killed", "running"]


def test_a_resumed_run_may_train_more_steps_and_records_it(tmp_path, selfplay_config) -> None:
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config(generations=1, train_steps=1)) == "done"
    assert run_selfplay(out, selfplay_config(generations=2, train_steps=3)) == "done"
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [(r["train_steps"], r["step"]) for r in rows] == [(1, 1), (3, 4)]
    starts = Manifest.load(out / "manifest.json").data["starts"]
    assert starts[1]["changed"] == {"generations": [1, 2], "train_steps": [1, 3]}


def test_budget_stops_a_start_cleanly(tmp_path, selfplay_config) -> None:
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config(), budget_minutes=1e-6) == "budget"
    manifest = Manifest.load(out / "manifest.json")
    assert manifest.data["starts"][0]["status"] == "budget" and manifest.generation == 1
    with pytest.raises(ValueError, match="budget_minutes"):
        run_selfplay(out, selfplay_config(), budget_minutes=0)


def test_selfplay_command_and_paper_preset(tmp_path, capsys, selfplay_config) -> None:
    assert NetConfig.preset("paper-9x9") == NetConfig(blocks=4, filters=32, history=5)
    status = gomcts(
        [
            "train",
            "selfplay",
            "--out",
            str(tmp_path / "cli"),
            "--size",
            "5",
            "--history",
            "2",
            *[
                "--komi",
                "0.5",
                "--max-moves",
                "12",
                "--generations",
                "1",
                "--games",
                "2",
                "--sims",
                "2",
                "--fast-sims",
                "1",
            ],
            *[
                "--considered",
                "2",
                "--train-steps",
                "1",
                "--batch-size",
                "4",
                "--gate-sims",
                "1",
                "--gate-games",
                "2",
            ],
            *[
                "--book-size",
                "1",
                "--ladder-every",
                "0",
                "--quiet",
                "--evaluator",
                "net:symmetry=none",
            ],
        ]
    )
    assert status == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == "done"
    saved = load_checkpoint(tmp_path / "cli" / "nets" / "gen-0001.pt")
    assert saved.config.history == 2 and not saved.config.tactical and saved.config.size == 5
    config = Manifest.load(tmp_path / "cli" / "manifest.json").data["config"]
    assert config["evaluator"] == "net:symmetry=none"
    with pytest.raises(ValueError, match="evaluator must be a 'net'"):
        selfplay_config(evaluator="rollout")
    with pytest.raises(ValueError, match="bogus"):
        selfplay_config(evaluator="net:bogus=1")


def test_pilot_runs_its_arms_and_the_round_robin(tmp_path, capsys) -> None:
    from agents.nets.training.pilot import main as pilot

    args = [str(tmp_path / "pilot"), "--tiny", "--size", "5", "--minutes", "0.01"]
    args += [
        "--eval-games",
        "2",
        "--arms",
        "gumbel-cap,puct-full",
        "--set",
        "komi=0.5",
        "--set",
        "max_moves=12",
    ]
    args += ["--set", "games=2", "--set", "sims=2", "--set", "fast_sims=1", "--set", "considered=2"]
    args += ["--set", "train_steps=1"]
    args += [
        "--set",
        "gate_games=2",
        "--set",
        "gate_sims=1",
        "--set",
        "book_size=1",
        "--set",
        "ladder_every=0",
    ]
    assert pilot(args) == 0
    summary = json.loads((tmp_path / "pilot" / "summary.json").read_text())
    assert [r["arm"] for r in summary["arms"]] == ["gumbel-cap", "puct-full"]
    assert (
        summary["matches"][0]["wins_a"]
        + summary["matches"][0]["losses_a"]
        + summary["matches"][0]["draws"]
        == 2
    )
    assert (tmp_path / "pilot" / "summary.png").stat().st_size > 0
    from script_support import load_script

    check = load_script("selfplay_pilot_check").main
    assert (
        check([str(tmp_path / "pilot"), "gumbel-cap", "puct-full", "--sims", "1", "--games", "2"])
        == 0
    )
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["sims"] == 1 and line["wins_a"] + line["draws"] + line["losses_a"] == 2
    assert (tmp_path / "pilot" / "check" / "gumbel-cap--puct-full-n1.jsonl").exists()
    with pytest.raises(SystemExit):
        check([str(tmp_path / "pilot"), "gumbel-cap", "nope", "--sims", "1"])
    config = Manifest.load(tmp_path / "pilot" / "puct-full" / "manifest.json").data["config"]
    assert config["search"] == "puct" and config["full_share"] == 1.0
    with pytest.raises(SystemExit, match="unknown field"):
        pilot([str(tmp_path / "p2"), "--set", "sims2=3"])


def test_the_pilot_plot_draws_every_arm_and_a_saturated_one_at_the_edge(tmp_path) -> None:
    from PIL import Image

    from agents.nets.training.plots import plot_pilot

    def arm(name: str, elo: float | None, low: float | None, high: float | None) -> dict:
        return {"arm": name, "elo_vs_field": elo, "elo_low": low, "elo_high": high}

    rows = [
        {**arm("gumbel-cap", 40.0, -30.0, 110.0), "games": 9000, "cpu_hours": 1.0},
        {**arm("puct-full", None, 350.0, None), "games": 4000, "cpu_hours": 0.98},
    ]
    path = plot_pilot(rows, tmp_path / "summary.png")
    assert path is not None
    with Image.open(path) as image:  # a palette PNG of the figure's size, with a blue point
        assert image.format == "PNG" and image.size == (480, 320)
        colours = {rgb for _, rgb in image.convert("RGB").getcolors(4096)}
    assert any(b > 150 and r < 80 for r, _, b in colours)
    assert plot_pilot([], tmp_path / "none.png") is None


def test_a_run_can_start_from_a_checkpoint(tmp_path, selfplay_config) -> None:
    torch.manual_seed(5)
    start = save_checkpoint(tmp_path / "start.pt", PolicyValueNet(TINY))
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config(init=str(start)), budget_minutes=1e-6) == "budget"
    first = load_checkpoint(out / "nets" / "gen-0000.pt")
    weights = load_checkpoint(start).weights
    assert all(torch.equal(first.weights[k], weights[k]) for k in weights)
    assert Manifest.load(out / "manifest.json").data["origin"] == f"from {start}"
    other = save_checkpoint(
        tmp_path / "other.pt", PolicyValueNet(NetConfig(size=5, blocks=1, filters=4))
    )
    with pytest.raises(ValueError, match="same --preset"):
        run_selfplay(tmp_path / "run2", selfplay_config(init=str(other)), budget_minutes=1e-6)


def test_selfplay_speed_benchmark_quick(tmp_path, capsys) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "selfplay_speed.py"
    spec = importlib.util.spec_from_file_location("selfplay_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--quick", "--size", "5", "--json", str(tmp_path / "b.json")]) == 0
    result = json.loads((tmp_path / "b.json").read_text())
    assert result["games"] == 2 and result["positions"] > 0
    assert 0 < result["network_share"] <= result["evaluation_share"] <= 1
    assert result["precision"] == "fp32"


class _BlackLoses:
    """Every leaf: black is losing (value -0.8 for black, +0.8 for white), a peaked prior."""

    uniform_priors = False

    def evaluate(self, batch):
        from go_env.kernels import H_TO_PLAY

        count = len(batch.vectors)
        priors = np.full((count, 82), 0.5 / 81)
        priors[:, 40] = 0.5  # the centre: half the prior
        black = batch.vectors[:, H_TO_PLAY] == int(Color.BLACK)
        return priors, np.where(black, -0.8, 0.8)


@pytest.mark.parametrize("fpu", ["auto", "parent"])
def test_losing_side_searches_breadth_first_only_under_fpu_zero(fpu: str) -> None:
    """Under FPU 0 every untried move looks better than the tried ones to a losing side, so a
    64-simulation search tries almost every one of 81 moves once (the centre, with half the
    prior, a few times) and its visit target is flat; with the
    parent's value less 0.2 it follows the prior (the collapse of a PUCT self-play run)."""
    from agents.mcts.search import Search

    settings = GameSettings(rules=Rules(size=9, komi=7.5), search="puct", fpu=fpu)
    search = Search(settings.puct(64, False, seed=0).search_params(), _BlackLoses())
    search.set_root(GoState(settings.rules))
    visits = search.run(sims=64).visit_distribution(82)
    if fpu == "auto":
        assert visits[40] < 0.1 and (visits > 0).sum() >= 55
    else:
        assert visits[40] > 0.5


def test_game_settings_refuse_an_unknown_fpu() -> None:
    with pytest.raises(ValueError, match="fpu must be 'parent' or 'auto'"):
        GameSettings(rules=RULES, fpu="absolute")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"fpu_reduction must be in \[0, 2\]"):
        GameSettings(rules=RULES, fpu_reduction=-0.1)
