"""Leaf evaluators: what the search asks about a new position.

An :class:`Evaluator` receives a batch of leaf positions (:class:`LeafBatch`) and returns
``priors`` of shape ``(B, N*N + 1)`` (one probability per action, pass last; the search keeps
those of the legal moves and renormalises them) and ``values`` of shape ``(B,)`` in ``[-1, 1]``
**from the perspective of the player to move at each leaf**. A policy/value network implements
the same protocol.

* :class:`RolloutEvaluator`: one compiled playout per leaf, or the mean of ``rollouts`` of
  them (by default the light playout of
  :mod:`go_env.kernels`, uniform random moves that never fill one's own eyes;
  ``playout="heavy"`` answers the last move's ataris first and plays no self-atari, and
  ``playout="nakade"`` lets the self-atari that kills an eye space through, and
  ``playout="patterns"`` answers MoGo's 3x3 shapes and captures anywhere, and
  ``playout="lowlib"`` also chains left with two liberties), uniform
  priors. The value is the game result from the leaf player's side, +1 win / -1 loss / 0 draw,
  which is standard MCTS (and OpenSpiel's random-rollout evaluator); with ``score_scale > 0``
  it is instead ``tanh(score / score_scale)`` of the player's Tromp-Taylor margin, which keeps
  preferring larger margins once every line wins.
* :class:`MixedEvaluator`: AlphaGo's leaf evaluation ``v = (1 - lambda) * v_net +
  lambda * z_rollout`` (David Silver et al., *Mastering the game of Go with deep neural networks
  and tree search*, Nature 2016, lambda = 0.5; Boke Go uses the same mix at 1/2, see
  ``docs/protocol.md#boke-go``), priors from the value evaluator.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from numba import njit

from go_env.kernels import H_TO_PLAY, heavy_playout, random_playout, seed_rng
from go_env.state import CompiledState, GoState
from go_env.validation import check_int

__all__ = [
    "MAX_ROLLOUTS",
    "PLAYOUTS",
    "Evaluator",
    "LeafBatch",
    "MixedEvaluator",
    "RolloutEvaluator",
    "check_playout",
    "check_rollouts",
    "policy_playout",
]

PLAYOUTS = ("light", "heavy", "nakade", "patterns", "lowlib")
"""The playout policies of :class:`RolloutEvaluator`, in the order of the kernel's codes."""

MAX_ROLLOUTS = 64
"""The most rollouts :class:`RolloutEvaluator` averages per leaf."""


def check_playout(playout: object) -> None:
    """Refuse a playout policy that is not one of :data:`PLAYOUTS`.

    Raises:
        ValueError: Naming the value and the policies allowed.
    """
    if playout not in PLAYOUTS:
        raise ValueError(f"playout must be one of {', '.join(PLAYOUTS)}; got {playout!r}")


def check_rollouts(rollouts: object) -> None:
    """Refuse a rollout count per leaf that is not an int in ``[1, MAX_ROLLOUTS]``.

    Raises:
        ValueError: Naming the value and the counts allowed.
    """
    check_int(
        "rollouts",
        rollouts,
        min=1,
        max=MAX_ROLLOUTS,
        allowed=f"an int in [1, {MAX_ROLLOUTS}] (rollouts averaged per leaf)",
    )


class LeafBatch:
    """The positions of a batch of leaves, in the forms evaluators need.

    The search reuses its buffers between calls: a batch is valid only during the
    ``evaluate`` call that receives it.

    Args:
        root: The search's root position (read-only).
        compiled: The root's compiled snapshot (geometry tables and rules).
        vectors: ``int64 (B, L)`` compiled state vectors of the leaves (read-only).
        moves: ``int64 (B, D)`` moves from the root to each leaf (first ``depths[b]`` valid).
        depths: ``int64 (B,)`` number of moves from the root to each leaf.
    """

    __slots__ = ("compiled", "depths", "moves", "root", "vectors")

    def __init__(
        self,
        root: GoState,
        compiled: CompiledState,
        vectors: np.ndarray,
        moves: np.ndarray,
        depths: np.ndarray,
    ) -> None:
        self.root = root
        self.compiled = compiled
        self.vectors = vectors
        self.moves = moves
        self.depths = depths

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def to_play(self) -> np.ndarray:
        """``int64 (B,)`` player to move at each leaf (1 Black, 2 White)."""
        return self.vectors[:, H_TO_PLAY].copy()

    def move_sequences(self) -> list[np.ndarray]:
        """The moves from the root to each leaf (copies)."""
        return [self.moves[b, : int(self.depths[b])].copy() for b in range(len(self))]

    def states(self) -> list[GoState]:
        """Each leaf as a :class:`GoState` (with its full history, e.g. for network features).

        Built by replaying the moves on a clone of the root: a few microseconds per move, which
        is not negligible next to a random playout, nor next to a batched network evaluation
        (the network evaluator computes its planes without states:
        :class:`go_env.leaf_features.LeafRoots`).
        """
        out = []
        for sequence in self.move_sequences():
            state = self.root.clone()
            for move in sequence:
                state.play_unsafe(int(move))
            out.append(state)
        return out


@runtime_checkable
class Evaluator(Protocol):
    """Priors and values of leaf positions (see the module docstring).

    Attributes:
        uniform_priors: ``True`` when the priors are uniform over the legal moves; the search
            then keeps the priors it gave the children at expansion (with its pass weight)
            and does not read the returned priors.
    """

    uniform_priors: bool

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (B, N*N+1), values (B,))``, values for the player to move at each leaf."""
        ...


@njit(cache=True)
def policy_playout(work, nbr, diag, zob, move_limit, rng, policy):  # pragma: no cover - compiled
    """Play the policy ``PLAYOUTS[policy]`` on ``work`` (modified) to the end of the game.

    Returns ``(black_area, white_area)`` of the final position, as the kernels of
    :mod:`go_env.kernels` do: code 0 is the light playout, the others the heavy kernel with
    the flags of their policy.
    """
    if policy == 0:
        return random_playout(work, nbr, diag, zob, move_limit, rng)
    return heavy_playout(
        work, nbr, diag, zob, move_limit, rng, policy == 2, policy >= 3, policy == 4
    )


@njit(cache=True)
def _rollout_values(
    vectors, work, nbr, diag, zob, move_limit, komi, score_scale, policy, rollouts, rng, out
):  # pragma: no cover - compiled
    for b in range(vectors.shape[0]):
        player = vectors[b, H_TO_PLAY]
        total = 0.0
        for _ in range(rollouts):
            work[:] = vectors[b]
            black, white = policy_playout(work, nbr, diag, zob, move_limit, rng, policy)
            score = float(black - white) - komi
            if player == 2:
                score = -score
            if score_scale > 0.0:
                total += np.tanh(score / score_scale)
            elif score > 0.0:
                total += 1.0
            elif score < 0.0:
                total -= 1.0
        out[b] = total / rollouts


class RolloutEvaluator:
    """Compiled playouts from each leaf (one by default); uniform priors.

    Args:
        seed: Seed of the playout generator (``None``: fresh entropy).
        score_scale: 0 for the win/loss/draw value (default); a positive number ``s`` for
            ``tanh(margin / s)`` with ``margin`` the final area score from the leaf player's
            side (komi included).
        playout: ``"light"`` (default): uniform random moves that fill no own eye
            (:mod:`go_env._core.playout`); ``"heavy"``: first the captures and escapes that
            answer the last move, and no self-atari (:mod:`go_env._core.heavy_playout`);
            ``"nakade"``: the heavy playout that also lets a player fill the opponent's eye
            space into a killing shape (the module's rule 3); ``"patterns"``: the heavy
            playout that answers the last move with MoGo's 3x3 shapes and captures anywhere
            before a random move (the module's rule 4, :mod:`go_env._core.patterns`);
            ``"lowlib"``: the patterns playout that also answers chains left with two
            liberties next to the last move (the module's rule 5).
        rollouts: Playouts from each leaf, their values averaged (1 to :data:`MAX_ROLLOUTS`).
            More lower the variance of the leaf value at the cost of more playouts (leaf
            parallelisation, Cazenave and Jouandeau 2007); with one, the values are those of
            a single playout, exactly as before the option existed.
    """

    uniform_priors = True

    def __init__(
        self,
        *,
        seed: int | None = None,
        score_scale: float = 0.0,
        playout: str = "light",
        rollouts: int = 1,
    ) -> None:
        if not score_scale >= 0.0:
            raise ValueError(f"score_scale must be >= 0 (0 = win/loss value), got {score_scale}")
        check_playout(playout)
        check_rollouts(rollouts)
        self.score_scale = float(score_scale)
        self.playout = playout
        self.rollouts = int(rollouts)
        self.seed(seed)
        self._work: np.ndarray | None = None
        self._values: dict[int, np.ndarray] = {}
        self._priors: dict[tuple[int, int], np.ndarray] = {}

    def seed(self, seed: int | None) -> None:
        """Restart the playout generator from ``seed`` (``None``: fresh entropy)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._rng = seed_rng(int(seed))

    def values(self, batch: LeafBatch) -> np.ndarray:
        """``float64 (B,)`` means of :attr:`rollouts` playout values (a reused buffer)."""
        vectors = batch.vectors
        count, length = vectors.shape
        if self._work is None or self._work.shape[0] != length:
            self._work = np.empty(length, dtype=np.int64)
        out = self._values.get(count)
        if out is None:
            out = self._values[count] = np.empty(count, dtype=np.float64)
        compiled = batch.compiled
        geo = compiled.geometry
        _rollout_values(
            vectors,
            self._work,
            geo.nbr,
            geo.diag,
            geo.zobrist,
            compiled.move_limit,
            compiled.komi,
            self.score_scale,
            PLAYOUTS.index(self.playout),  # the kernel's code of the policy
            self.rollouts,
            self._rng,
            out,
        )
        return out

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """Uniform priors (read-only, shared) and the playout values."""
        values = self.values(batch)
        key = (len(batch), batch.compiled.geometry.size)
        priors = self._priors.get(key)
        if priors is None:
            actions = key[1] * key[1] + 1
            priors = np.full((key[0], actions), 1.0 / actions)
            priors.setflags(write=False)
            self._priors[key] = priors
        return priors, values


class MixedEvaluator:
    """Lambda mixing of a value evaluator and random rollouts (AlphaGo, Boke Go).

    ``v = (1 - lam) * v_value + lam * z_rollout``; the priors are the value evaluator's.

    Args:
        value: The evaluator of the priors and of ``v_value`` (e.g. a policy/value network).
        rollout: The rollout evaluator of ``z_rollout``.
        lam: Mixing weight ``lambda`` in ``[0, 1]`` (0.5 in AlphaGo and Boke Go); at 0 no
            rollout is played, at 1 the value evaluator's values are ignored.
    """

    def __init__(self, value: Evaluator, rollout: RolloutEvaluator, *, lam: float = 0.5) -> None:
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {lam}")
        self.value = value
        self.rollout = rollout
        self.lam = float(lam)
        self.uniform_priors = bool(value.uniform_priors)

    @property
    def board_size(self) -> int | None:
        """The value evaluator's one board size (a network's), or ``None``."""
        size = getattr(self.value, "board_size", None)
        return size if isinstance(size, int) else None

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """Priors of the value evaluator; the mixed values."""
        return self._mix(batch, self.value.evaluate(batch))

    def _mix(
        self, batch: LeafBatch, evaluation: tuple[np.ndarray, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        priors, values = evaluation
        if self.lam == 0.0:
            return priors, np.asarray(values, dtype=np.float64)
        z = self.rollout.values(batch)
        mixed = (1.0 - self.lam) * np.asarray(values, dtype=np.float64) + self.lam * z
        return priors, mixed

    @property
    def shared(self) -> Any:
        """The value evaluator's shared forward function (:mod:`agents.mcts.multi`), if any."""
        return getattr(self.value, "shared", None)

    def prepare(self, batch: LeafBatch) -> _MixedPending:
        """The value evaluator's pending evaluation; the rollouts are played at ``finish``.

        Only for a value evaluator that can be split (:attr:`shared` is not ``None``).
        """
        return _MixedPending(self, batch, self.value.prepare(batch))  # type: ignore[attr-defined]


class _MixedPending:
    """A :class:`MixedEvaluator` batch waiting for its value evaluator's network rows."""

    def __init__(self, mixed: MixedEvaluator, batch: LeafBatch, pending: Any) -> None:
        self.mixed = mixed
        self.batch = batch
        self.pending = pending
        self.inputs = pending.inputs

    def finish(self, outputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The value evaluator's result mixed with one rollout per leaf."""
        return self.mixed._mix(self.batch, self.pending.finish(outputs))
