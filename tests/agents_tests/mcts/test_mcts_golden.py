"""Golden outputs of seeded searches: the search must reproduce them (moves and visits exactly).

Recorded before the search was split into kernels, tree reuse, parameters and driver
(``docs/decisions/013-search-modules.md``); any change of a number here is a change of the
search's behaviour, not a refactoring. Each case plays a few moves with one agent (so tree
reuse, root noise and move choice are covered) and stores, per move, the chosen move, the
tree size and the root children's moves, visits and values.

Regenerate (only for an intended change of behaviour, and say why in the commit)::

    python tests/agents_tests/mcts/test_mcts_golden.py --write
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.mcts import MCTSAgent, MCTSConfig
from agents.mcts.evaluators import LeafBatch
from go_env.kernels import H_TO_PLAY, HEADER
from go_env.rules import KoRule, Rules
from go_env.state import GoState

DATA = Path(__file__).resolve().parents[2] / "data" / "mcts_golden.json.gz"

FLOAT_TOLERANCE = 1e-12
"""Relative (and absolute) tolerance of the values: the fake network's ``tanh``, ``exp`` and
dot products come from numpy and BLAS, whose kernels differ between CPUs (AVX-512 or AVX2)
in the last bit; a changed search changes moves and visits, or values far beyond this."""


class FakeNet:
    """A deterministic value/policy evaluator: fixed functions of the board (no randomness).

    Values are ``tanh`` of a fixed linear form of the stones from the mover's side; priors a
    softmax of fixed weights plus a term of the stones, so they differ between positions.
    """

    uniform_priors = False

    def __init__(self, size: int) -> None:
        rng = np.random.default_rng(1234)
        points = size * size
        self.points = points
        self.w_value = rng.normal(0.0, 0.3, points)
        self.w_prior = rng.normal(0.0, 1.0, points + 1)
        self.calls: list[int] = []

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(batch))
        board = batch.vectors[:, HEADER : HEADER + self.points].astype(np.float64)
        me = batch.vectors[:, H_TO_PLAY][:, None].astype(np.float64)
        own = np.where(board == me, 1.0, np.where(board == 0, 0.0, -1.0))
        values = np.tanh(own @ self.w_value)
        logits = np.tile(self.w_prior, (len(batch), 1))
        logits[:, : self.points] += 0.5 * own
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), values


CASES: dict[str, dict[str, Any]] = {
    "uct_mean_rollout": {"size": 7, "moves": 3, "config": {"sims": 300}},
    "uct_softmax_reuse": {
        "size": 7,
        "moves": 4,
        "config": {"sims": 300, "backup": "softmax", "reuse_tree": True},
    },
    "uct_monotone": {"size": 7, "moves": 3, "config": {"sims": 300, "backup": "monotone"}},
    "uct_coulom_reuse": {
        "size": 7,
        "moves": 3,
        "config": {"sims": 300, "backup": "coulom:a=2,b=16", "reuse_tree": True},
    },
    "uct_maxmcts_expand2": {
        "size": 7,
        "moves": 3,
        "config": {"sims": 300, "backup": "maxmcts", "expand_visits": 2},
    },
    "uct_solver_5x5": {
        "size": 5,
        "moves": 4,
        "config": {"sims": 400, "backup": "solver", "reuse_tree": True},
    },
    "uct_mean_score_scale_remove_dead": {
        "size": 5,
        "moves": 3,
        "config": {"sims": 200, "score_scale": 5.0, "end_scoring": "remove_dead"},
    },
    "uct_mean_situational_fpu_parent": {
        "size": 5,
        "ko": "situational",
        "moves": 3,
        "config": {"sims": 200, "fpu": "parent", "fpu_reduction": 0.2},
    },
    "puct_fake_mean_reuse_noise": {
        "size": 7,
        "fake": True,
        "moves": 4,
        "config": {
            "sims": 200,
            "policy": "puct",
            "c": 1.5,
            "reuse_tree": True,
            "noise_weight": 0.25,
            "temperature_moves": 2,
        },
    },
    "puct_fake_softmax": {
        "size": 7,
        "fake": True,
        "moves": 3,
        "config": {"sims": 200, "policy": "puct", "backup": "softmax"},
    },
    "puct_fake_batch4_virtual_loss_reuse": {
        "size": 7,
        "fake": True,
        "moves": 3,
        "config": {"sims": 200, "policy": "puct", "batch": 4, "reuse_tree": True},
    },
    "puct_fake_batch3_no_loss_monotone": {
        "size": 7,
        "fake": True,
        "moves": 3,
        "config": {
            "sims": 150,
            "policy": "puct",
            "batch": 3,
            "virtual_loss": 0,
            "backup": "monotone",
        },
    },
    "uct_rollout_batch4_solver": {
        "size": 5,
        "moves": 3,
        "config": {"sims": 200, "batch": 4, "backup": "solver"},
    },
}


def run_case(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Play ``case["moves"]`` moves with one seeded agent; the per-move record."""
    ko = KoRule(case.get("ko", "positional"))
    state = GoState(Rules(size=case["size"], komi=case.get("komi", 7.5), ko=ko))
    config = MCTSConfig(seed=11, **case["config"])
    evaluator = FakeNet(case["size"]) if case.get("fake") else None
    agent = MCTSAgent(config, evaluator=evaluator)
    out = []
    for _ in range(case["moves"]):
        if state.is_over:
            break
        move = agent.act(state)
        stats = agent.last_stats
        assert stats is not None
        tree = agent.search.tree
        assert tree is not None
        out.append(
            {
                "move": int(move),
                "tree_size": int(tree.size),
                "root_visits": int(tree.visits[0]),
                "root_value": float(tree.value[0]),
                "moves": [int(m) for m in stats.moves],
                "visits": [int(v) for v in stats.visits],
                "values": [float(v) for v in stats.values],
            }
        )
        state.play(move)
    return out


def record() -> dict[str, Any]:
    return {name: run_case(case) for name, case in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_search_reproduces_the_golden_record(name: str) -> None:
    golden = json.loads(gzip.decompress(DATA.read_bytes()))
    assert name in golden, f"no golden record for {name}; regenerate with --write"
    got = run_case(CASES[name])
    want = golden[name]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        for key in w:
            # integers (moves, visits, sizes) are equal only when exact at this tolerance
            expected = pytest.approx(w[key], rel=FLOAT_TOLERANCE, abs=FLOAT_TOLERANCE)
            assert g[key] == expected, f"{name}, move {i + 1}: {key} differs"


def test_the_cases_exercise_what_they_claim() -> None:
    """Batches really are batched, and the solver case sees a non-trivial tree."""
    fake = FakeNet(7)
    config = MCTSConfig(seed=11, **CASES["puct_fake_batch4_virtual_loss_reuse"]["config"])
    agent = MCTSAgent(config, evaluator=fake)
    agent.act(GoState(Rules(size=7)))
    assert max(fake.calls) == 4


if __name__ == "__main__":
    if "--write" in sys.argv:
        text = json.dumps(record(), indent=1) + "\n"
        DATA.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
        print(f"wrote {DATA}")
