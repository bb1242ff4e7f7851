"""Gumbel AlphaZero's root search: Gumbel-top-k, sequential halving, completed-Q targets.

Ivo Danihelka, Arthur Guez, Julian Schrittwieser, David Silver, *Policy improvement by
planning with Gumbel*, ICLR 2022 ([DGSS22]). With few simulations, AlphaZero's visit counts
are a poor policy target and Dirichlet noise may not even visit the moves it promotes. Gumbel
AlphaZero replaces the search at the root only:

1. **Gumbel-top-k** ([DGSS22] §2, §3.1): draw ``g(a) ~ Gumbel(0)`` for every legal action and
   consider the ``m`` actions with the largest ``g(a) + logits(a)`` (sampling ``m`` actions
   without replacement from the prior).
2. **Sequential halving** ([DGSS22] §3.2, after Zohar Karnin, Tomer Koren, Oren Somekh,
   *Almost optimal exploration in multi-armed bandits*, ICML 2013): the ``n`` simulations are
   spent in phases; in each, every remaining action gets the same number of visits, then the
   best half by ``g(a) + logits(a) + sigma(q(a))`` is kept. The visit schedule is
   :func:`considered_visit_sequence` (mctx's ``get_sequence_of_considered_visits``, the
   authors' library). The action played is the best of the last survivors by the same score.
3. **Completed Q and the improved policy** ([DGSS22] §4, Appendix D, eq. 33): unvisited
   actions get the *mixed value* ``v_mix = (v_hat + (sum_b N(b)) / (sum_{b: N(b)>0} pi(b))
   * sum_{a: N(a)>0} pi(a) q(a)) / (1 + sum_b N(b))``, and the policy target is
   ``pi' = softmax(logits + sigma(completedQ))`` with the monotone transform
   ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` ([DGSS22] eq. 8; ``q`` rescaled to
   ``[0, 1]`` by the min and max of the completed Q-values, as mctx does, when ``rescale``).

Below the root, Gumbel AlphaZero keeps AlphaZero's PUCT ([DGSS22] §5 changes the non-root
selection only for Gumbel MuZero). Here every considered root action ``a`` gets its own
:class:`~agents.mcts.search.Search` rooted at the position after ``a`` (PUCT, the given
:class:`~agents.mcts.params.SearchParams`): one simulation of that search is one simulation
of the root search through ``a``. A round of sequential halving visits each remaining action
once, and those searches are independent, so their leaves are evaluated in **one** batch,
with no virtual loss: the same search as one simulation at a time (the paper halves at the
end of each phase, so the order inside a round does not matter).

:meth:`GumbelSearch.steps` is a coroutine like :meth:`Search.steps
<agents.mcts.search.Search.steps>`: it yields :class:`~agents.mcts.evaluators.LeafBatch` es
(all rooted at the search's root, so that an evaluator sees each leaf's full history) and is
resumed with ``(priors, values)``, so many searches can share one network call
(:mod:`agents.mcts.multi`).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

from agents.mcts.backups.mean import MeanBackup
from agents.mcts.evaluators import Evaluator, LeafBatch
from agents.mcts.params import SearchParams
from agents.mcts.search import Search
from go_env.state import Color, GoState
from go_env.validation import check_int

__all__ = [
    "GumbelParams",
    "GumbelResult",
    "GumbelSearch",
    "completed_q",
    "considered_visit_sequence",
    "gumbel_scores",
    "improved_policy",
    "mixed_value",
    "sequential_halving_visits",
    "sigma",
]

Evaluation = tuple[np.ndarray, np.ndarray]
Simulation = Generator[LeafBatch, Evaluation, None]  # Search.simulation()
_NO_MOVES = np.zeros(0, dtype=np.int64)
_LOG_FLOOR = 1e-30  # priors below this (underflow of a legal move) count as this


def considered_visit_sequence(m: int, n: int) -> tuple[int, ...]:
    """The visit count each of the ``n`` root simulations brings its action to, minus one.

    Sequential halving over ``m`` considered actions with ``n`` simulations ([DGSS22] §3.2):
    with ``L = ceil(log2 m)`` phases, a phase with ``r`` remaining actions gives each of them
    ``max(1, floor(n / (L r)))`` more visits, then ``r`` becomes ``max(2, r // 2)``; phases
    repeat until the budget is spent (mctx's ``get_sequence_of_considered_visits``). Entry
    ``k`` is the number of visits the action of simulation ``k`` had before it.

    Raises:
        ValueError: For ``m < 1`` or ``n < 0``.
    """
    if m < 1 or n < 0:
        raise ValueError(f"need m >= 1 and n >= 0, got m={m}, n={n}")
    if m == 1:
        return tuple(range(n))
    log2max = math.ceil(math.log2(m))
    sequence: list[int] = []
    visits = [0] * m
    considered = m
    while len(sequence) < n:
        extra = max(1, n // (log2max * considered))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:n])


def sequential_halving_visits(m: int, n: int) -> list[int]:
    """Final visit counts of the ``m`` considered actions, best survivors first."""
    counts = [0] * m
    for level in considered_visit_sequence(m, n):
        counts[counts.index(level)] += 1
    return counts


def mixed_value(root_value: float, priors: np.ndarray, q: np.ndarray, visits: np.ndarray) -> float:
    """``v_mix`` of [DGSS22] Appendix D, eq. 33 (see the module docstring).

    Args:
        root_value: The network's value ``v_hat`` of the root, for the player to move.
        priors: ``pi``, the prior of each action (illegal ones 0).
        q: Mean value of each action for the player to move (ignored where unvisited).
        visits: ``N(a)``.
    """
    visited = visits > 0
    total = float(visits.sum())
    if total == 0:
        return float(root_value)
    mass = float(priors[visited].sum())
    weighted = float((priors[visited] * q[visited]).sum()) / mass if mass > 0 else 0.0
    if mass <= 0:  # every visited action had prior 0: their plain mean
        weighted = float(q[visited].mean())
    return (float(root_value) + total * weighted) / (1.0 + total)


def completed_q(q: np.ndarray, visits: np.ndarray, v_mix: float) -> np.ndarray:
    """``completedQ(a)``: ``q(a)`` for visited actions, ``v_mix`` for the others."""
    return np.where(visits > 0, q, v_mix).astype(np.float64)


def sigma(
    qhat: np.ndarray,
    visits: np.ndarray,
    legal: np.ndarray,
    *,
    c_visit: float,
    c_scale: float,
    rescale: bool,
) -> np.ndarray:
    """``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` ([DGSS22] eq. 8).

    With ``rescale``, ``q`` is first mapped to ``[0, 1]`` by the min and max over the legal
    actions (mctx's ``qtransform_completed_by_mix_value``); otherwise it is used as it is.
    """
    q = np.asarray(qhat, dtype=np.float64)
    if rescale:
        low, high = float(q[legal].min()), float(q[legal].max())
        q = (q - low) / max(high - low, 1e-8)
    return (c_visit + float(visits.max(initial=0))) * c_scale * q


def improved_policy(logits: np.ndarray, sigma_q: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``pi' = softmax(logits + sigma(completedQ))`` over the legal actions ([DGSS22] eq. 11)."""
    z = np.where(legal, logits + sigma_q, -np.inf)
    z = z - z[legal].max()
    e = np.where(legal, np.exp(z), 0.0)
    return e / e.sum()


def gumbel_scores(
    gumbel: np.ndarray, logits: np.ndarray, sigma_q: np.ndarray, legal: np.ndarray
) -> np.ndarray:
    """``g(a) + logits(a) + sigma(q(a))``, ``-inf`` for illegal actions."""
    return np.where(legal, gumbel + logits + sigma_q, -np.inf)


@dataclass(frozen=True, kw_only=True)
class GumbelParams:
    """Options of the Gumbel root search.

    Args:
        sims: Simulations ``n`` per search (the root's evaluation not counted).
        considered: Actions ``m`` sampled by Gumbel-top-k (at most the legal ones and ``n``).
        c_visit: ``c_visit`` of ``sigma`` ([DGSS22] uses 50).
        c_scale: ``c_scale`` of ``sigma`` (0.1, the default of the authors' mctx library).
        rescale: Rescale the completed Q-values to ``[0, 1]`` before ``sigma``.
        noise: Draw the Gumbel variables (``False``: all zero, a deterministic search, e.g. for
            evaluation).
    """

    sims: int = 32
    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 0.1
    rescale: bool = True
    noise: bool = True

    def __post_init__(self) -> None:
        for name in ("sims", "considered"):
            check_int(name, getattr(self, name), min=1)
        for name in ("c_visit", "c_scale"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


@dataclass(frozen=True)
class GumbelResult:
    """What a Gumbel search found (arrays over the ``N*N + 1`` actions).

    Attributes:
        action: The action chosen by sequential halving.
        policy: The improved policy ``pi'`` (the policy target).
        visits: ``N(a)``.
        q: ``completedQ(a)`` for the player to move.
        priors: The network's priors ``pi`` at the root.
        root_value: The network's value of the root for the player to move.
        simulations: Simulations run.
    """

    action: int
    policy: np.ndarray
    visits: np.ndarray
    q: np.ndarray
    priors: np.ndarray
    root_value: float
    simulations: int


def _one_visit_is_its_value(params: SearchParams) -> bool:
    """Whether a search of ``params`` left after one simulation holds the leaf's value alone.

    The first simulation of a fresh tree evaluates its root; under the running mean
    (:class:`~agents.mcts.backups.mean.MeanBackup`) the root's value is then exactly the
    negated evaluation, whatever the expansion did. Other backups may read the root's new
    children, so they get the search.
    """
    return isinstance(params.backup, MeanBackup) and not params.solver


class _Child:
    """What lies below one considered root action.

    One of three: the exact value, where the action ends the game; the evaluator's value of
    the position alone, where the action gets a single simulation under the running mean (a
    search would expand its root and never use the children: the fast searches of
    self-play, every action visited once); or a PUCT search.
    """

    def __init__(
        self,
        root: GoState,
        action: int,
        params: SearchParams,
        evaluator: Evaluator,
        seed: int,
        planned: int,
    ) -> None:
        state = root.clone()
        state.play_unsafe(action)  # a legal action: the root's legal mask chose it
        self.visits = 0
        self.search: Search | None = None
        self.leaf: np.ndarray | None = None  # the position's state vector, to evaluate once
        self.value = 0.0  # for the root player, without a search: the exact or the one value
        if state.is_over:
            score = state.score()
            black = 1.0 if score > 0 else -1.0 if score < 0 else 0.0
            self.value = black if root.to_play == Color.BLACK else -black
        elif planned == 1 and _one_visit_is_its_value(params):
            self.leaf = state.compiled().vector
        else:
            self.search = Search(params, evaluator, seed=seed)
            self.search.set_root(state, planned=planned)

    @property
    def q(self) -> float:
        """Mean value for the player to move at the root."""
        if self.search is not None:
            tree = self.search.tree
            assert tree is not None
            return float(tree.value[0])
        return self.value


class GumbelSearch:
    """Gumbel AlphaZero's search from one root (see the module docstring).

    Args:
        params: The root search's options.
        below: The PUCT search below the root actions (its ``sims`` only sizes the trees;
            ``batch`` must be 1 and ``noise_weight`` is ignored).
        evaluator: The evaluator whose answers the caller sends (never called here; the
            searches below read its ``uniform_priors``).
        seed: Seed of the Gumbel draws and of the searches below.
    """

    def __init__(
        self,
        params: GumbelParams,
        below: SearchParams,
        evaluator: Evaluator,
        *,
        seed: int | None,
    ) -> None:
        if below.batch != 1:
            raise ValueError(f"the search below the root runs batch=1, got batch={below.batch}")
        self.params = params
        self.below = below
        self.evaluator = evaluator
        self._rng = np.random.default_rng(seed)

    def steps(self, root: GoState) -> Generator[LeafBatch, Evaluation, GumbelResult]:
        """The search as a coroutine: yields leaf batches, returns a :class:`GumbelResult`.

        Raises:
            ValueError: When the game at ``root`` is over.
        """
        if root.is_over:
            raise ValueError(f"the game is over (result {root.result()}); nothing to search")
        p = self.params
        compiled = root.compiled()
        actions = root.pass_move + 1
        priors, values = yield LeafBatch(
            root,
            compiled,
            compiled.vector[None, :].copy(),
            np.zeros((1, 1), dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        )
        legal = root.legal_mask()
        prior = np.where(legal, np.asarray(priors[0], dtype=np.float64), 0.0)
        total = prior.sum()
        prior = prior / total if total > 0 else legal / legal.sum()
        logits = np.where(legal, np.log(np.maximum(prior, _LOG_FLOOR)), -np.inf)
        root_value = float(values[0])
        gumbel = self._rng.gumbel(size=actions) if p.noise else np.zeros(actions)
        m = min(p.considered, int(legal.sum()), p.sims)
        order = np.argsort(-np.where(legal, gumbel + logits, -np.inf), kind="stable")
        remaining = [int(a) for a in order[:m]]
        seeds = self._rng.integers(0, 2**62, size=m)
        sequence = considered_visit_sequence(m, p.sims)
        most = max(sequence) + 1  # the most simulations any one action gets
        children = {
            a: _Child(root, a, self.below, self.evaluator, int(s), most)
            for a, s in zip(remaining, seeds, strict=True)
        }
        visits = np.zeros(actions, dtype=np.int64)
        q = np.zeros(actions, dtype=np.float64)
        done = 0

        def scores() -> np.ndarray:
            v_mix = mixed_value(root_value, prior, q, visits)
            s = sigma(
                completed_q(q, visits, v_mix),
                visits,
                legal,
                c_visit=p.c_visit,
                c_scale=p.c_scale,
                rescale=p.rescale,
            )
            return gumbel_scores(gumbel, logits, s, legal)

        while done < len(sequence):
            level = sequence[done]
            width = 1
            while done + width < len(sequence) and sequence[done + width] == level:
                width += 1
            # the actions at this visit level, best first (halving happens here)
            ranked = scores()
            candidates = [a for a in children if visits[a] == level]
            candidates.sort(key=lambda a: -ranked[a])
            chosen = candidates[:width]
            yield from self._round([children[a] for a in chosen], root, compiled, chosen)
            for a in chosen:
                child = children[a]
                visits[a] = child.visits
                q[a] = child.q
            done += width
        ranked = scores()
        top = int(visits.max()) if m else 0
        finalists = [a for a in children if visits[a] == top]
        action = max(finalists, key=lambda a: ranked[a])
        v_mix = mixed_value(root_value, prior, q, visits)
        cq = completed_q(q, visits, v_mix)
        s = sigma(cq, visits, legal, c_visit=p.c_visit, c_scale=p.c_scale, rescale=p.rescale)
        return GumbelResult(
            action=int(action),
            policy=improved_policy(logits, s, legal),
            visits=visits,
            q=np.where(legal, cq, 0.0),
            priors=prior,
            root_value=root_value,
            simulations=int(visits.sum()),
        )

    def _round(
        self, chosen: list[_Child], root: GoState, compiled: object, actions: list[int]
    ) -> Generator[LeafBatch, Evaluation, None]:
        """One simulation below each chosen action, their leaves evaluated in one batch."""
        # (child, its simulation or None for a leaf, the leaf's vector, moves below, action)
        waiting: list[tuple[_Child, Simulation | None, np.ndarray, np.ndarray, int]] = []
        for child, action in zip(chosen, actions, strict=True):
            child.visits += 1
            if child.leaf is not None:
                waiting.append((child, None, child.leaf, _NO_MOVES, action))
                continue
            if child.search is None:  # the game ends: its exact value
                continue
            steps = child.search.simulation()
            try:
                batch = next(steps)
            except StopIteration:  # a terminal leaf below: no evaluation needed
                continue
            d = int(batch.depths[0])
            waiting.append((child, steps, batch.vectors[0], batch.moves[0, :d], action))
        if not waiting:
            return
        depth = max(below.shape[0] for _, _, _, below, _ in waiting) + 1
        vectors = np.stack([vector for _, _, vector, _, _ in waiting])
        moves = np.zeros((len(waiting), depth), dtype=np.int64)
        depths = np.zeros(len(waiting), dtype=np.int64)
        for i, (_, _, _, below, action) in enumerate(waiting):
            d = below.shape[0]
            moves[i, 0] = action
            moves[i, 1 : d + 1] = below
            depths[i] = d + 1
        priors, values = yield LeafBatch(root, compiled, vectors, moves, depths)  # type: ignore[arg-type]
        for i, (child, simulation, _, _, _) in enumerate(waiting):
            if simulation is None:  # the running mean of one return, as a search would hold it
                child.value = -float(values[i])
                continue
            try:
                simulation.send((priors[i : i + 1], values[i : i + 1]))
            except StopIteration:
                continue
            raise RuntimeError("a search below the root asked for a second evaluation")
