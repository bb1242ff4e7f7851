"""The built-in leaf evaluators pass the plugin contract (agents.mcts.testing.EvaluatorContract)."""

from __future__ import annotations

import pytest

from agents.mcts.evaluator_plugins import EVALUATORS, MixEvaluatorConfig, RolloutEvaluatorConfig
from agents.mcts.testing import EvaluatorContract


class TestRollout(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return RolloutEvaluatorConfig()


class TestHeavyRollout(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return EVALUATORS.build("rollout:playout=heavy")


class TestNakadeRollout(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return EVALUATORS.build("rollout:playout=nakade")


class TestPatternRollout(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return EVALUATORS.build("rollout:playout=patterns")


class TestLowLibertyRollout(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return EVALUATORS.build("rollout:playout=lowlib")


class TestAveragedRollouts(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return EVALUATORS.build("rollout:playout=heavy,rollouts=3")


class TestMixOfRollouts(EvaluatorContract):
    @pytest.fixture
    def plugin(self):
        return MixEvaluatorConfig(value=RolloutEvaluatorConfig(), lam=0.25)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    torch = pytest.importorskip("torch")
    from agents.nets.checkpoint import save_checkpoint
    from agents.nets.model import NetConfig, PolicyValueNet

    torch.manual_seed(5)
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    save_checkpoint(path, PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2)))
    return str(path)


@pytest.mark.usefixtures("one_torch_thread")
class TestNet(EvaluatorContract):
    policy = "puct"

    @pytest.fixture
    def plugin(self, tiny_model):
        return EVALUATORS.build(f"net:{tiny_model},symmetry=average")


@pytest.mark.usefixtures("one_torch_thread")
class TestMixOfNet(EvaluatorContract):
    policy = "puct"

    @pytest.fixture
    def plugin(self, tiny_model):
        return EVALUATORS.build(f'mix:value="net:{tiny_model}",lam=0.5')


@pytest.mark.usefixtures("one_torch_thread")
class TestNetWithHeavyRollouts(EvaluatorContract):
    policy = "puct"

    @pytest.fixture
    def plugin(self, tiny_model):
        return EVALUATORS.build(f"net:{tiny_model},lam=0.5,playout=heavy")


@pytest.mark.usefixtures("one_torch_thread")
class TestNetWithAveragedRollouts(EvaluatorContract):
    policy = "puct"

    @pytest.fixture
    def plugin(self, tiny_model):
        return EVALUATORS.build(f"net:{tiny_model},lam=0.5,playout=heavy,rollouts=2")


@pytest.mark.usefixtures("one_torch_thread")
def test_net_spec_passes_its_rollouts_to_the_mixed_evaluator(tiny_model):
    built = EVALUATORS.build(f"net:{tiny_model},lam=0.5,rollouts=2").build(seed=1)
    assert (built.lam, built.rollout.rollouts, built.rollout.playout) == (0.5, 2, "light")
