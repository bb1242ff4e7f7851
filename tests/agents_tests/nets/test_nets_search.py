"""Batched leaf evaluation with virtual loss; ``mcts:evaluator=net``; the ``net`` agent."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from agents.base import AgentError
from agents.mcts import MCTSConfig, MixedEvaluator, Search
from agents.nets.agent import NetAgentConfig
from agents.nets.checkpoint import save_checkpoint
from agents.nets.evaluator import NetEvaluator
from agents.nets.model import NetConfig, PolicyValueNet
from agents.plugins import PluginNotFoundError
from agents.registry import make_agent
from agents.spec import SpecError
from go_env.rules import Rules
from go_env.state import GoState

CONFIG = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    torch.manual_seed(5)
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    save_checkpoint(path, PolicyValueNet(CONFIG))
    return str(path)


class Recorder:
    """Evaluator stub: priors favour low action indices; value from the leaf's move count."""

    uniform_priors = False

    def __init__(self):
        self.sizes = []
        self.leaves = []

    def evaluate(self, batch):
        self.sizes.append(len(batch))
        self.leaves.append([tuple(m.tolist()) for m in batch.move_sequences()])
        actions = batch.root.pass_move + 1
        priors = np.tile(np.linspace(2.0, 1.0, actions), (len(batch), 1))
        values = np.array([0.1 * (len(m) % 3) - 0.1 for m in batch.move_sequences()])
        return priors / priors.sum(axis=1, keepdims=True), values


def check_tree(tree):
    """Visits are consistent: each expanded node has its children's visits plus its own."""
    for node in range(tree.size):
        children = tree.children(node)
        if children.size:
            assert tree.visits[node] == tree.visits[children].sum() + 1


@pytest.mark.parametrize("batch", [1, 8])
def test_batched_search_keeps_the_tree_consistent(batch):
    config = MCTSConfig(sims=101, policy="puct", batch=batch, seed=1)
    recorder = Recorder()
    search = Search(config.search_params(), recorder, seed=1)
    search.set_root(GoState(Rules(size=5)))
    stats = search.run(sims=101)
    assert stats.simulations == 101 and search.tree.visits[0] == 101
    check_tree(search.tree)
    if batch > 1:  # the root alone, then full batches, then the rest
        assert recorder.sizes[0] == 1 and set(recorder.sizes[1:-1]) == {8}
        assert sum(recorder.sizes) <= 101


def test_virtual_loss_spreads_a_batch_over_distinct_leaves():
    recorder = Recorder()
    search = Search(MCTSConfig(policy="puct", batch=8, seed=2).search_params(), recorder, seed=2)
    search.set_root(GoState(Rules(size=5)))
    search.run(sims=9)
    first = recorder.leaves[1]  # after the root's own evaluation: 8 different root children
    assert len(first) == 8 and len({m[0] for m in first}) == 8 and {len(m) for m in first} == {1}
    recorder = Recorder()
    search = Search(
        MCTSConfig(policy="puct", batch=8, virtual_loss=0, seed=2).search_params(), recorder, seed=2
    )
    search.set_root(GoState(Rules(size=5)))
    search.run(sims=9)
    leaves = recorder.leaves[1]  # without virtual loss every descent follows one line
    assert len({m[0] for m in leaves}) == 1


def test_batched_values_match_sequential_on_a_terminal_heavy_position():
    # Every batch size gives a legal, consistent search near the end of a game.
    state = GoState.from_ascii(
        "X X X X X\nX . X . X\nX X X X X\nO O O O O\nO . O . O", Rules(size=5, komi=0.5)
    )
    for batch in (1, 4):
        search = Search(
            MCTSConfig(policy="puct", batch=batch, seed=3).search_params(), Recorder(), seed=3
        )
        search.set_root(state)
        search.run(sims=40)
        check_tree(search.tree)


def test_mcts_spec_builds_network_evaluators(model_path):
    agent = make_agent(f"mcts:policy=puct,sims=24,batch=4,evaluator=net:{model_path},seed=1")
    assert isinstance(agent.search.evaluator, NetEvaluator)
    state = GoState(Rules(size=5))
    move = agent.act(state)
    assert state.is_legal(move) and agent.last_stats.visits.sum() == 23
    assert agent.search.evaluator.evaluations > 0
    mixed = make_agent(f'mcts:policy=puct,sims=16,evaluator="net:{model_path},lam=0.5",seed=1')
    assert isinstance(mixed.search.evaluator, MixedEvaluator)
    assert mixed.search.evaluator.lam == 0.5
    assert state.is_legal(mixed.act(state))
    again = make_agent(f"mcts:policy=puct,sims=24,batch=4,evaluator=net:{model_path},seed=1")
    assert again.act(state) == move  # seeded


def test_mcts_evaluator_spec_errors(model_path):
    with pytest.raises(PluginNotFoundError, match=r"unknown leaf evaluator 'value'.*net, rollout"):
        make_agent("mcts:evaluator=value")
    with pytest.raises(SpecError, match="lam must be a number in"):
        make_agent(f'mcts:evaluator="net:{model_path},lam=2"')
    with pytest.raises(SpecError, match="has no parameter 'depth'"):
        make_agent('mcts:evaluator="net:x.pt,depth=2"')
    with pytest.raises(SpecError, match=r"batch must be an int in \[1, 4096\]"):
        make_agent("mcts:batch=0")
    with pytest.raises(FileNotFoundError, match="no network checkpoint"):
        make_agent("mcts:evaluator=net:/nonexistent/net.pt")


def test_net_agent_plays_the_policy(model_path):
    state = GoState(Rules(size=5))
    state.play(12)
    greedy = NetAgentConfig(model=model_path, symmetry="none").build()
    move = greedy.act(state)
    priors = greedy.last_priors
    assert move == int(np.argmax(priors)) and state.is_legal(move)
    assert priors[12] == 0  # occupied
    sampled = [
        NetAgentConfig(model=model_path, mode="sample", seed=s).build().act(state)
        for s in range(12)
    ]
    assert all(state.is_legal(m) for m in sampled) and len(set(sampled)) > 1
    again = [
        NetAgentConfig(model=model_path, mode="sample", seed=s).build().act(state)
        for s in range(12)
    ]
    assert sampled == again


def test_net_agent_spares_its_eyes_and_finishes_games(model_path):
    eye = GoState.from_ascii("X X X X X\nX . X . X\nX X X X X\n. . . . .\n. . . . .", Rules(size=5))
    agent = NetAgentConfig(model=model_path).build()
    assert agent.act(eye) not in (6, 8)
    from agents.game import play_game

    result = play_game(agent, NetAgentConfig(model=model_path).build(), Rules(size=5))
    assert result.state.is_over


def test_net_agent_errors(model_path):
    with pytest.raises(AgentError, match="no network checkpoint"):
        NetAgentConfig(model="/nonexistent.pt").build()
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        NetAgentConfig(temperature=0)
    agent = NetAgentConfig(model=model_path).build()
    over = GoState(Rules(size=5))
    over.play(25)
    over.play(25)
    with pytest.raises(AgentError, match="the game is over"):
        agent.act(over)


def test_every_threads_setting_refuses_a_bad_count(model_path):
    message = r"threads must be an int >= 0 \(0: torch's setting\), got -1"
    with pytest.raises(ValueError, match=message):
        NetAgentConfig(model=model_path, threads=-1)
    with pytest.raises(SpecError, match=message):
        make_agent(f'mcts:evaluator="net:{model_path},threads=-1"')
    with pytest.raises(ValueError, match=r"got True"):
        NetAgentConfig(model=model_path, threads=True)


def test_a_pinned_network_is_refused_when_its_digest_differs(model_path):
    """``sha256=`` pins the checkpoint: its prefix builds; another digest is refused."""
    from agents.nets.checkpoint import model_digest

    _, digest = model_digest(model_path)
    agent = make_agent(f'mcts:policy=puct,sims=8,evaluator="net:{model_path},sha256={digest[:12]}"')
    assert isinstance(agent.search.evaluator, NetEvaluator)
    other = "0" * 12 if not digest.startswith("0" * 12) else "1" * 12
    with pytest.raises(ValueError, match=f"has SHA-256 {digest[:16]}.*not the pinned {other}"):
        make_agent(f'mcts:policy=puct,sims=8,evaluator="net:{model_path},sha256={other}"')
    with pytest.raises(SpecError, match="sha256 must be 12 to 64 lower-case hex digits"):
        make_agent(f'mcts:evaluator="net:{model_path},sha256=abc"')


def test_a_results_header_names_each_network_with_its_digest(model_path, tmp_path):
    """Every network of either agent, nested evaluators too, is in the match identity with
    its file's SHA-256; a match is not resumed once a network's file has changed."""
    from agents.matches.match import MatchConfig
    from agents.matches.results import ResultsError, ResultsFile
    from agents.nets.checkpoint import model_digest
    from agents.registry import network_digests

    assert network_digests("random") == {}
    assert "networks" not in MatchConfig(agent_a="random", agent_b="mcts:sims=8").identity()
    assert network_digests(f'mcts:evaluator="mix:value=net:{model_path}"') == {
        model_path: model_digest(model_path)[1]
    }
    copy = tmp_path / "copy.pt"
    shutil.copyfile(model_path, copy)
    rules = Rules(size=5)
    match = MatchConfig(agent_a=f"net:{copy}", agent_b="net", rules=rules)
    assert match.identity()["networks"] == {
        "default": model_digest("")[1],
        str(copy): model_digest(model_path)[1],
    }
    first = ResultsFile(tmp_path / "results.jsonl", match.identity())
    first.load()
    first.close()
    torch.manual_seed(6)
    save_checkpoint(copy, PolicyValueNet(CONFIG))  # another network under the same name
    changed = MatchConfig(agent_a=f"net:{copy}", agent_b="net", rules=rules)
    with pytest.raises(ResultsError, match=r"networks: file has .* the networks it began with"):
        ResultsFile(tmp_path / "results.jsonl", changed.identity()).load()
    # a header written before the digests were kept still resumes
    old = tmp_path / "old.jsonl"
    identity = {k: v for k, v in changed.identity().items() if k != "networks"}
    before = ResultsFile(old, identity)
    before.load()
    before.close()
    assert ResultsFile(old, changed.identity()).load() == {}
