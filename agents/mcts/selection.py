"""Tree policies: UCT and PUCT scores, first-play urgency, Dirichlet root noise.

Values are negamax ([LL20] notation, ``docs/backups.md#notation``): ``q_i`` is the mean value
of child ``i`` from the perspective of the player choosing at the parent, in ``[-1, 1]``, which is
exactly ``Tree.value[child]``. With ``N_p = sum_j n_j`` the visits of the children:

* UCT ([LL20] eq. 4, the UCB1 rule of Levente Kocsis and Csaba Szepesvári, *Bandit based
  Monte-Carlo planning*, ECML 2006): ``q_i + c * sqrt(ln N_p / n_i)``.
* PUCT ([LL20] eq. 5, the AlphaGo Zero form): ``q_i + c * P_i * sqrt(N_p) / (1 + n_i)``.
  While no child has a visit, ``sqrt(N_p)`` is taken as 1 so that the priors order the first
  choice (instead of every score being equal).

**First-play urgency** (FPU) is the ``q`` of a child without visits: ``FPU_INFINITE`` (UCT's
classic rule, every child is tried once first), ``FPU_PARENT`` (the parent's value from the
chooser's side minus a reduction, as in Leela Zero) or ``FPU_ABSOLUTE`` (a fixed value, e.g.
0, AlphaGo Zero's convention). Under UCT the exploration term of an unvisited child is
infinite, so a finite FPU replaces the child's whole score.

The array functions (:func:`uct_scores`, :func:`puct_scores`) state the formulas; the search
uses the compiled :func:`select_child`, which applies the same formulas child by child and, for
MCTS-Solver (Mark H. M. Winands et al., *Monte-Carlo Tree Search Solver*, CG 2008), takes a
child proven to win at once and avoids children proven to lose while others remain.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN

__all__ = [
    "FPU_ABSOLUTE",
    "FPU_INFINITE",
    "FPU_PARENT",
    "POLICY_PUCT",
    "POLICY_UCT",
    "dirichlet_noise",
    "first_play_value",
    "puct_scores",
    "select_child",
    "uct_scores",
]

POLICY_UCT = 0
POLICY_PUCT = 1

FPU_INFINITE = 0
FPU_PARENT = 1
FPU_ABSOLUTE = 2


@njit(cache=True)
def first_play_value(mode, fpu_value, parent_q):  # pragma: no cover - compiled
    """The ``q`` given to a child without visits.

    Args:
        mode: ``FPU_INFINITE``, ``FPU_PARENT`` or ``FPU_ABSOLUTE``.
        fpu_value: The reduction (``FPU_PARENT``) or the value itself (``FPU_ABSOLUTE``).
        parent_q: The parent's value from the perspective of the player choosing there.
    """
    if mode == FPU_INFINITE:
        return np.inf
    if mode == FPU_PARENT:
        return parent_q - fpu_value
    return fpu_value


def uct_scores(q: np.ndarray, n: np.ndarray, c: float, fpu: float = math.inf) -> np.ndarray:
    """UCT scores ``q + c * sqrt(ln N_p / n)`` of the children of one node ([LL20] eq. 4).

    Args:
        q: ``float (K,)`` mean values from the chooser's perspective (ignored where ``n == 0``).
        n: ``int (K,)`` visit counts.
        c: Exploration constant.
        fpu: Score of a child without visits (``inf`` tries every child first).

    Returns:
        ``float64 (K,)`` scores; the tree policy takes the first maximum.
    """
    q = np.asarray(q, dtype=np.float64)
    n = np.asarray(n, dtype=np.int64)
    total = int(n.sum())
    log_total = math.log(total) if total > 0 else 0.0
    visited = n > 0
    out = np.full(q.shape, float(fpu))
    out[visited] = q[visited] + c * np.sqrt(log_total / n[visited])
    return out


def puct_scores(
    q: np.ndarray, n: np.ndarray, prior: np.ndarray, c: float, fpu: float = 0.0
) -> np.ndarray:
    """PUCT scores ``q + c * P * sqrt(N_p) / (1 + n)`` of the children of one node ([LL20] eq. 5).

    Args:
        q: ``float (K,)`` mean values from the chooser's perspective (ignored where ``n == 0``).
        n: ``int (K,)`` visit counts.
        prior: ``float (K,)`` prior probabilities ``P``.
        c: Exploration constant (0.5 in [LL20]).
        fpu: ``q`` of a child without visits.

    Returns:
        ``float64 (K,)`` scores; the tree policy takes the first maximum.
    """
    q = np.asarray(q, dtype=np.float64)
    n = np.asarray(n, dtype=np.int64)
    sqrt_total = math.sqrt(max(int(n.sum()), 1))
    value = np.where(n > 0, q, float(fpu))
    return value + c * np.asarray(prior, dtype=np.float64) * sqrt_total / (1.0 + n)


@njit(cache=True)
def select_child(
    t, node, policy, c, fpu_mode, fpu_value, use_solver
):  # pragma: no cover - compiled
    """The child of an expanded ``node`` that the tree policy visits next.

    Args:
        t: The tree (:class:`~agents.mcts.tree.TreeArrays`).
        node: The node (expanded: ``t.n_children[node] > 0``).
        policy: ``POLICY_UCT`` or ``POLICY_PUCT``.
        c: Exploration constant.
        fpu_mode: ``FPU_INFINITE``, ``FPU_PARENT`` or ``FPU_ABSOLUTE``.
        fpu_value: See :func:`first_play_value`.
        use_solver: Honour ``t.proven`` (MCTS-Solver): a proven win is taken at once, proven
            losses only when nothing else is left.

    Returns:
        The node index of the chosen child (the first maximum of the scores).
    """
    visits, value, prior, proven = t.visits, t.value, t.prior, t.proven
    first = t.first_child[node]
    count = t.n_children[node]
    total = 0
    for i in range(first, first + count):
        total += visits[i]
        if use_solver and proven[i] == PROVEN_WIN:
            return i
    parent_q = -value[node] if visits[node] > 0 else 0.0
    fpu = first_play_value(fpu_mode, fpu_value, parent_q)
    if policy == POLICY_UCT:
        explore = math.log(total) if total > 0 else 0.0
    else:
        explore = math.sqrt(total) if total > 0 else 1.0
    best = -1
    best_score = -np.inf
    fallback = first
    fallback_score = -np.inf
    for i in range(first, first + count):
        n = visits[i]
        if policy == POLICY_UCT:
            score = fpu if n == 0 else value[i] + c * math.sqrt(explore / n)
        else:
            q = value[i] if n > 0 else fpu
            score = q + c * prior[i] * explore / (1.0 + n)
        if use_solver and proven[i] == PROVEN_LOSS:
            if score > fallback_score:
                fallback = i
                fallback_score = score
            continue
        if score > best_score or best < 0:
            best = i
            best_score = score
    return best if best >= 0 else fallback


def dirichlet_noise(
    priors: np.ndarray, alpha: float, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Root priors mixed with Dirichlet noise: ``(1 - eps) * P + eps * Dir(alpha)``.

    David Silver et al., *Mastering the game of Go without human knowledge*, Nature 2017
    (alpha 0.03, epsilon 0.25 on 19x19).

    Args:
        priors: ``float (K,)`` priors of the root's children (summing to 1).
        alpha: Concentration of the symmetric Dirichlet distribution (> 0).
        epsilon: Weight of the noise in ``[0, 1]``.
        rng: Generator that draws the noise.

    Returns:
        ``float64 (K,)`` new priors; they sum to 1 when ``priors`` does.
    """
    if alpha <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    priors = np.asarray(priors, dtype=np.float64)
    if priors.size == 0 or epsilon == 0.0:
        return priors.copy()
    noise = rng.dirichlet(np.full(priors.size, float(alpha)))
    return (1.0 - epsilon) * priors + epsilon * noise
