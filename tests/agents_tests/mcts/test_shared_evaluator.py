"""Many games, one evaluator: concurrent sequential searches answered by shared calls.

A toy "network" whose rows do not depend on the batch they are computed in (one dot
product per row) makes the claim exact: K searches whose leaves are evaluated together play
exactly the moves each plays alone, for every backup and with tree reuse, and an arena match
gives the same results file with any number of games per worker.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.game import play_game_steps
from agents.matches.arena import MatchConfig, iter_games, run_match
from agents.matches.results import ResultsFile
from agents.mcts.config import MCTSConfig
from agents.mcts.evaluator_plugins import EVALUATORS
from agents.mcts.evaluators import LeafBatch
from agents.mcts.multi import SharedEvaluation, answer_alone, check_width, round_robin, rows
from go_env.rules import Rules
from go_env.state import GoState

ROOT = Path(__file__).resolve().parents[3]


class ToyForward:
    """Rows of ``(policy logits, value)`` from fixed random projections, row by row."""

    def __init__(self) -> None:
        self.weights: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.calls: list[int] = []

    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(inputs.shape[0])
        length = inputs.shape[1] - 1
        actions = int(inputs[0, -1])
        key = (length, actions)
        if key not in self.weights:
            rng = np.random.default_rng(5)
            self.weights[key] = (
                rng.normal(size=(length, actions)) * 0.01,
                rng.normal(size=length) * 0.01,
            )
        w_policy, w_value = self.weights[key]
        logits = np.stack([row[:-1] @ w_policy for row in inputs])
        values = np.array([np.tanh(float(row[:-1] @ w_value)) for row in inputs])
        return logits, values


class ToyPending:
    def __init__(self, inputs: np.ndarray) -> None:
        self.inputs = (inputs,)

    def finish(self, outputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        logits, values = outputs
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        return priors / priors.sum(axis=1, keepdims=True), np.asarray(values, dtype=np.float64)


FORWARD = ToyForward()


class ToyEvaluator:
    """A split evaluator (prepare / shared / finish) with per-game state: an input jitter."""

    uniform_priors = False
    shared = FORWARD

    def __init__(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def prepare(self, batch: LeafBatch) -> ToyPending:
        vectors = batch.vectors.astype(np.float64)
        size = batch.compiled.geometry.size
        jitter = self.rng.normal(size=vectors.shape) * 0.1  # per game, as symmetry draws are
        actions = np.full((len(vectors), 1), float(size * size + 1))
        return ToyPending(np.hstack([vectors + jitter, actions]))

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        pending = self.prepare(batch)
        return pending.finish(self.shared(*pending.inputs))


@dataclass(frozen=True, kw_only=True)
class ToyConfig:
    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> ToyEvaluator:
        return ToyEvaluator(seed)


@pytest.fixture
def toy() -> Iterator[None]:
    EVALUATORS.register("toy", ToyConfig)
    FORWARD.calls.clear()
    yield
    EVALUATORS.unregister("toy")


BACKUPS = ["mean", "softmax", "coulom", "monotone"]


@pytest.mark.parametrize("backup", BACKUPS)
@pytest.mark.parametrize("reuse", [False, True])
def test_games_played_together_are_the_games_played_alone(
    toy: None, backup: str, reuse: bool
) -> None:
    config = MCTSConfig(
        sims=24, policy="puct", evaluator="toy", backup=backup, reuse_tree=reuse, seed=0
    )
    rules = Rules(size=5, komi=0.5, max_moves=16)

    def game(index: int) -> Any:
        black = dataclasses.replace(config, seed=2 * index).build()
        white = dataclasses.replace(config, seed=2 * index + 1).build()
        return play_game_steps(black, white, rules, opening=(index % 25,))

    alone = [answer_alone(game(i)) for i in range(5)]
    shared = SharedEvaluation()
    together = dict(round_robin(((i, lambda i=i: game(i)) for i in range(5)), 3, shared=shared))
    for i, result in enumerate(alone):
        assert together[i].state.history == result.state.history
        assert together[i].result == result.result
    assert shared.stats.calls > 0 and shared.stats.mean_batch > 2.0
    assert max(FORWARD.calls) == 3  # the rounds with three games in flight
    assert shared.stats.rows == shared.stats.requests  # one leaf per sequential search


def test_virtual_loss_batches_ride_on_top(toy: None) -> None:
    config = MCTSConfig(sims=24, policy="puct", evaluator="toy", batch=4, seed=0)
    rules = Rules(size=5, komi=0.5, max_moves=10)

    def game(index: int) -> Any:
        agents = [dataclasses.replace(config, seed=10 * index + k).build() for k in (0, 1)]
        return play_game_steps(agents[0], agents[1], rules)

    alone = [answer_alone(game(i)) for i in range(3)]
    shared = SharedEvaluation()
    together = dict(round_robin(((i, lambda i=i: game(i)) for i in range(3)), 3, shared=shared))
    assert [together[i].state.history for i in range(3)] == [g.state.history for g in alone]
    assert shared.stats.rows > shared.stats.requests  # several leaves per request
    assert max(FORWARD.calls) > 4  # more rows than one search's batch in a call


def test_rollout_searches_answer_their_own_leaves() -> None:
    config = MCTSConfig(sims=20, seed=0)
    rules = Rules(size=5, komi=0.5, max_moves=12)

    def game(index: int) -> Any:
        agents = [dataclasses.replace(config, seed=10 * index + k).build() for k in (0, 1)]
        return play_game_steps(agents[0], agents[1], rules)

    alone = [answer_alone(game(i)) for i in range(3)]
    shared = SharedEvaluation()
    together = dict(round_robin(((i, lambda i=i: game(i)) for i in range(3)), 3, shared=shared))
    assert [together[i].state.history for i in range(3)] == [g.state.history for g in alone]
    assert shared.stats.calls == 0 and shared.stats.requests > 0


def test_the_net_evaluator_splits_into_prepare_shared_finish() -> None:
    pytest.importorskip("torch")
    from agents.nets.evaluator import NetEvaluator

    state = GoState(Rules(size=9))
    for move in (40, 41, 30):
        state.play(move)
    states = [state.clone() for _ in range(3)]
    states[1].play(20)
    states[2].play(states[2].pass_move)
    one = NetEvaluator("", symmetry="random", seed=3, cache_size=0)
    two = NetEvaluator("", symmetry="random", seed=3, cache_size=0)
    assert one.shared is two.shared  # one network per process and device
    pending = two.prepare_states(states)
    assert rows(pending) == 3
    priors, values = pending.finish(two.shared(*pending.inputs))
    expected = one.evaluate_states(states)
    np.testing.assert_array_equal(priors, expected[0])
    np.testing.assert_array_equal(values, expected[1])
    cached = NetEvaluator("", symmetry="average", seed=1)
    cached.evaluate_states(states[:1])
    again = cached.prepare_states(states[:1])
    assert rows(again) == 0  # a cache hit needs no network row
    assert np.array_equal(again.finish(())[1], cached.evaluate_states(states[:1])[1])
    fresh = cached.prepare_states(states[1:2])
    assert rows(fresh) == 8  # all eight symmetries of the new position


# ----------------------------------------------------------------------------- arena


def _deterministic(games: Any) -> list[dict[str, Any]]:
    return [g.deterministic() for g in games]


def test_arena_results_do_not_depend_on_games_per_worker(toy: None, tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="mcts:sims=16,policy=puct,evaluator=toy,backup=softmax",
        agent_b="mcts:sims=12,reuse_tree=true",
        games=6,
        seed=4,
        rules=Rules(size=5, komi=0.5),
    )
    reference = run_match(config, results=tmp_path / "k1.jsonl", workers=1)
    shared = run_match(config, results=tmp_path / "k4.jsonl", workers=1, games_per_worker=4)
    assert _deterministic(shared.games) == _deterministic(reference.games)
    header = [json.loads(p.read_text().splitlines()[0]) for p in tmp_path.glob("k*.jsonl")]
    assert header[0] == header[1]  # K is not part of the match: files resume each other
    assert all(g.time_black > 0 and g.moves_black > 0 for g in shared.games)


def test_a_shared_match_resumes_after_an_interruption(tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="mcts:sims=10", agent_b="random", games=10, seed=8, rules=Rules(size=5)
    )
    reference = run_match(config, workers=1)
    path = tmp_path / "results.jsonl"

    def interrupt(game: Any, result: Any) -> None:
        if game.index == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_match(config, results=path, workers=1, games_per_worker=3, on_game=interrupt)
    kept = ResultsFile(path, config.identity()).load()
    assert 4 <= len(kept) < 10
    resumed = run_match(config, results=path, workers=1, games_per_worker=2)
    assert _deterministic(resumed.games) == _deterministic(reference.games)
    indices = [json.loads(line)["index"] for line in path.read_text().splitlines()[1:]]
    assert sorted(indices) == list(range(10))  # none played twice


def test_worker_processes_play_many_games_each(tmp_path: Path) -> None:
    config = MatchConfig(
        agent_a="mcts:sims=8", agent_b="random", games=8, seed=1, rules=Rules(size=5)
    )
    reference = run_match(config, workers=1)
    path = tmp_path / "results.jsonl"
    games = iter_games(config, results=path, workers=2, games_per_worker=2)
    first = [next(games) for _ in range(3)]
    games.close()  # a stop: games in flight are still recorded
    kept = ResultsFile(path, config.identity()).load()
    assert len(kept) >= 3
    assert _deterministic(first) == _deterministic(reference.games[:3])
    resumed = run_match(config, results=path, workers=2, games_per_worker=3)
    assert _deterministic(resumed.games) == _deterministic(reference.games)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "4"])
def test_bad_games_per_worker_is_refused(bad: Any) -> None:
    config = MatchConfig(agent_a="random", agent_b="random", games=2)
    with pytest.raises(ValueError, match="games_per_worker must be an int >= 1"):
        run_match(config, workers=1, games_per_worker=bad)
    with pytest.raises(ValueError, match="games_per_worker"):
        check_width(bad)


def test_games_per_worker_is_for_local_processes() -> None:
    config = MatchConfig(agent_a="random", agent_b="random", games=2)
    with pytest.raises(ValueError, match="with ray it must be 1"):
        next(iter_games(config, workers=1, games_per_worker=2, ray="local"))


def test_command_line_option(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "agents.cli", "arena", "random", "random", "--size", "5"]
    base += ["--no-progress", "--no-plot", "--no-sgf"]
    bad = subprocess.run(
        [*base, "--games-per-worker", "0", "--out", str(tmp_path / "bad")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "argument --games-per-worker: must be an int >= 1" in bad.stderr
    good = subprocess.run(
        [
            *base,
            "--games",
            "4",
            "--workers",
            "1",
            "--games-per-worker",
            "2",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0, good.stderr
    assert "4 of 4 games" in good.stdout
