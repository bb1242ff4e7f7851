"""Monte-Carlo tree search: tree, selection, search loop, agent, evaluators, backups.

Build an agent from a spec (``make_agent("mcts:sims=800,backup=softmax")``) or from
:class:`MCTSConfig`; run a bare search with :class:`Search`.
"""

from agents.mcts.agent import MCTSAgent, Resignation, choose_move
from agents.mcts.config import DEFAULT_C, MCTSConfig
from agents.mcts.evaluators import Evaluator, LeafBatch, MixedEvaluator, RolloutEvaluator
from agents.mcts.search import Search, SearchError
from agents.mcts.selection import dirichlet_noise, puct_scores, select_child, uct_scores
from agents.mcts.stats import SearchStats, principal_variation
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN, UNPROVEN, Tree

__all__ = [
    "DEFAULT_C",
    "PROVEN_LOSS",
    "PROVEN_WIN",
    "UNPROVEN",
    "Evaluator",
    "LeafBatch",
    "MCTSAgent",
    "MCTSConfig",
    "MixedEvaluator",
    "Resignation",
    "RolloutEvaluator",
    "Search",
    "SearchError",
    "SearchStats",
    "Tree",
    "choose_move",
    "dirichlet_noise",
    "principal_variation",
    "puct_scores",
    "select_child",
    "uct_scores",
]
