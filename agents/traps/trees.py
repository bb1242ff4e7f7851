"""Synthetic two-player game trees with level-k search traps and known minimax values.

Raghuram Ramanujan, Ashish Sabharwal and Bart Selman, *On adversarial search spaces and
sampling-based planning*, ICAPS 2010, define a **level-k search trap** for a player P after a
move m: a state in which P's opponent has a guaranteed winning strategy of at most k plies.
Their follow-ups (*On the behavior of UCT in synthetic search spaces*, 2011; Ramanujan and
Selman, *Trade-offs in sampling-based adversarial planning*, ICAPS 2011) study synthetic trees
whose true minimax values are known, searched with a heuristic equal to the true value plus
Gaussian noise. Their generative process could not be recovered; this one is the
RECONSTRUCTED generator of ``docs/traps.md#the-trees``.

A tree is never stored: every node is generated on demand from its 64-bit **key**, which is a
hash of the tree's seed and the move path to the node (:func:`child_key`). A node carries

* ``vstar``: its true value ``V*`` in ``{+1, -1}`` for the player to move there;
* ``kind``: ``NORMAL``, ``TRAP`` (the player to move has a forced win of ``rem`` plies,
  ``rem`` odd) or ``REPLY`` (the player to move is caught: every move leads to a ``TRAP`` with
  ``rem - 1`` plies; at ``rem = 0`` the game is over and lost);
* ``rem`` and ``depth`` (plies from the root).

Children (:func:`gen_children`):

* ``NORMAL`` with ``V* = +1``: ``1 + Binomial(b - 1, q_win)`` winning children (``V* = -1``,
  ``NORMAL``) at random places; the others have ``V* = +1`` (mistakes).
* ``NORMAL`` with ``V* = -1``: every child has ``V* = +1``.
* Every child with ``V* = +1`` made by a ``NORMAL`` node is, with probability ``rho``, a
  level-``k`` ``TRAP`` (only where the trap ends by depth ``D``), else ``NORMAL``.
* ``TRAP`` (``rem = r``): one refutation at a random place, a ``REPLY`` with ``r - 1`` plies
  left (``V* = -1``); its other children are mistakes (``V* = +1``, possibly traps), so the
  refutation is the only way to win: the forced win is exactly ``r`` plies deep.
* ``REPLY`` (``rem = r > 0``): all ``b`` children are ``TRAP`` nodes with ``r - 1`` plies.
* Terminal: a ``NORMAL`` node at depth ``D`` (outcome ``V*``) and a ``REPLY`` with ``rem = 0``
  (outcome -1).
* The root is ``NORMAL`` with ``V* = +1``; at least ``root_traps`` of its mistakes are traps
  (its winning moves are capped at ``b - root_traps``), so that every tree tests the search's
  ability to avoid a trap (a choice of this project, recorded in
  ``docs/decisions/015-trap-trees.md``).

The leaf evaluator (:func:`evaluate`) stands in for a value network:
``v = clip(V* + sigma z, -1, 1)`` with ``z`` a standard normal drawn from the node's key (the
same node always gets the same value, as a deterministic network would). With ``deceptive``,
nodes inside a trap (``TRAP`` and ``REPLY``) are evaluated the wrong way:
``v = clip(-V* + sigma z, -1, 1)``. The prior for PUCT (:func:`prior_logit`) is uniform, or
``softmax(-h_i)`` over the children, with ``h_i`` the child's evaluation under its own noise of
sd ``prior_sigma`` (deceived inside traps like the evaluator).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from go_env.validation import check_int

__all__ = [
    "I_DEPTH",
    "I_KIND",
    "I_REM",
    "I_VSTAR",
    "KIND_NAMES",
    "NORMAL",
    "REPLY",
    "ROOT_INFO",
    "TRAP",
    "Node",
    "TrapTree",
    "TrapTreeConfig",
    "child_key",
    "evaluate",
    "gen_children",
    "is_terminal",
    "root_key",
]

NORMAL = 0
TRAP = 1
REPLY = 2
KIND_NAMES = ("normal", "trap", "reply")

# Columns of a node's integer description.
I_VSTAR, I_KIND, I_REM, I_DEPTH = range(4)
N_INFO = 4

# Slots of the packed generator parameters (see TrapTreeConfig.packed).
P_B, P_D, P_K, P_ROOT_TRAPS, P_DECEPTIVE = range(5)
Q_RHO, Q_WIN, Q_SIGMA, Q_PRIOR_SIGMA = range(4)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SALT_DRAW = np.uint64(0xD1B54A32D192ED03)
_SALT_NOISE = np.uint64(0x8CB92BA72F3D8DD7)
_SALT_PRIOR = np.uint64(0xA24BAED4963EE407)


@njit(cache=True)
def _mix(x):  # pragma: no cover - compiled
    """SplitMix64's finaliser (Sebastiano Vigna, 2015): a bijective 64-bit hash."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _uniform(key, salt, j):  # pragma: no cover - compiled
    """The ``j``-th uniform draw in ``[0, 1)`` of a node, for the purpose ``salt``."""
    h = _mix(key ^ salt ^ (np.uint64(j + 1) * _GOLDEN))
    return float(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _normal(key, salt):  # pragma: no cover - compiled
    """A standard normal draw of a node (Box-Muller on two of its uniforms)."""
    u1 = _uniform(key, salt, 0)
    u2 = _uniform(key, salt, 1)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


@njit(cache=True)
def root_key(seed):  # pragma: no cover - compiled
    """The key of the root of the tree with this seed (a non-negative int)."""
    return _mix(np.uint64(seed) ^ _SALT_DRAW)


@njit(cache=True)
def child_key(key, index):  # pragma: no cover - compiled
    """The key of child ``index`` of the node ``key``: a hash of the path so far."""
    return _mix(key + np.uint64(index + 1) * _GOLDEN)


@njit(cache=True)
def is_terminal(info, params):  # pragma: no cover - compiled
    """Whether the node ``info`` (``int64 (4,)``) ends the game."""
    if info[I_KIND] == REPLY:
        return info[I_REM] == 0
    if info[I_KIND] == NORMAL:
        return info[I_DEPTH] >= params[P_D]
    return False


@njit(cache=True)
def _mistake(key, j, depth, params, fparams, out, c):  # pragma: no cover - compiled
    """Make child ``c`` of ``out`` a ``V* = +1`` child: a level-k trap (prob. rho) or normal."""
    k = params[P_K]
    out[c, I_VSTAR] = 1
    out[c, I_DEPTH] = depth + 1
    if depth + 1 + k <= params[P_D] and _uniform(key, _SALT_DRAW, j) < fparams[Q_RHO]:
        out[c, I_KIND] = TRAP
        out[c, I_REM] = k
    else:
        out[c, I_KIND] = NORMAL
        out[c, I_REM] = 0


@njit(cache=True)
def gen_children(key, info, params, fparams, out, order):  # pragma: no cover - compiled
    """Describe the children of the node ``(key, info)`` in ``out``; return their number.

    Args:
        key: The node's key (``uint64``).
        info: ``int64 (4,)`` the node's ``vstar, kind, rem, depth``.
        params: ``int64`` packed integer parameters (:meth:`TrapTreeConfig.packed`).
        fparams: ``float64`` packed real parameters.
        out: ``int64 (b, 4)`` receives the children's descriptions, in move order.
        order: ``int64 (b,)`` scratch for the random placement of the winning moves.

    Returns:
        ``b``, or 0 for a terminal node. The children's keys are ``child_key(key, i)``.
    """
    if is_terminal(info, params):
        return 0
    b = params[P_B]
    depth = info[I_DEPTH]
    kind = info[I_KIND]
    for i in range(b):  # a random permutation of the moves (Fisher-Yates)
        order[i] = i
    for i in range(b - 1, 0, -1):
        j = int(_uniform(key, _SALT_DRAW, 100 + i) * (i + 1))
        order[i], order[j] = order[j], order[i]
    if kind == REPLY:
        for c in range(b):
            out[c, I_VSTAR] = 1
            out[c, I_KIND] = TRAP
            out[c, I_REM] = info[I_REM] - 1
            out[c, I_DEPTH] = depth + 1
        return b
    if kind == TRAP:
        refute = order[0]
        for c in range(b):
            if c == refute:
                out[c, I_VSTAR] = -1
                out[c, I_KIND] = REPLY
                out[c, I_REM] = info[I_REM] - 1
                out[c, I_DEPTH] = depth + 1
            else:
                _mistake(key, 300 + c, depth, params, fparams, out, c)
        return b
    # NORMAL
    if info[I_VSTAR] < 0:
        for c in range(b):
            _mistake(key, 300 + c, depth, params, fparams, out, c)
        return b
    wins = 1
    for j in range(b - 1):
        if _uniform(key, _SALT_DRAW, 200 + j) < fparams[Q_WIN]:
            wins += 1
    forced = 0
    if depth == 0:
        forced = min(params[P_ROOT_TRAPS], b - 1)
        if params[P_D] < 1 + params[P_K]:
            forced = 0
        wins = min(wins, b - forced)
    for r in range(b):
        c = order[r]
        if r < wins:
            out[c, I_VSTAR] = -1
            out[c, I_KIND] = NORMAL
            out[c, I_REM] = 0
            out[c, I_DEPTH] = depth + 1
        elif r < wins + forced:
            out[c, I_VSTAR] = 1
            out[c, I_KIND] = TRAP
            out[c, I_REM] = params[P_K]
            out[c, I_DEPTH] = depth + 1
        else:
            _mistake(key, 300 + c, depth, params, fparams, out, c)
    return b


@njit(cache=True)
def evaluate(key, info, params, fparams):  # pragma: no cover - compiled
    """The leaf evaluation ``v`` of a non-terminal node, for the player to move there."""
    truth = float(info[I_VSTAR])
    if params[P_DECEPTIVE] != 0 and info[I_KIND] != NORMAL:
        truth = -truth
    v = truth + fparams[Q_SIGMA] * _normal(key, _SALT_NOISE)
    return min(1.0, max(-1.0, v))


@njit(cache=True)
def prior_logit(key, info, params, fparams):  # pragma: no cover - compiled
    """The noisy prior's logit of the move into the node: ``-h``, ``h`` its own noisy view."""
    truth = float(info[I_VSTAR])
    if params[P_DECEPTIVE] != 0 and info[I_KIND] != NORMAL:
        truth = -truth
    return -(truth + fparams[Q_PRIOR_SIGMA] * _normal(key, _SALT_PRIOR))


def _check_range(name: str, value: object, low: float, high: float, integer: bool) -> None:
    kind = "an integer" if integer else "a number"
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not low <= value <= high:  # type: ignore[operator]
        raise ValueError(f"trap trees: {name} must be {kind} in [{low:g}, {high:g}], got {value!r}")


@dataclass(frozen=True, kw_only=True)
class TrapTreeConfig:
    """Parameters of a family of trap trees (``docs/traps.md#the-trees``; defaults from there).

    Attributes:
        b: Branching factor, 2..20.
        depth: Depth ``D`` in plies, 2..30.
        rho: Trap density: the chance that a mistake is a trap, in ``[0, 1]``.
        k: Trap level (plies of the forced win), 1, 3 or 5.
        q_win: Chance of each further winning move at a won node, in ``[0, 1]``.
        sigma: Sd of the evaluator's Gaussian noise, ``>= 0``.
        deceptive: Evaluate nodes inside a trap the wrong way (``v = -V* + noise``).
        root_traps: Traps forced among the root's mistakes, ``0..b-1``.
        prior_sigma: Sd of the noise of the noisy PUCT prior, ``>= 0``.
    """

    b: int = 6
    depth: int = 12
    rho: float = 0.1
    k: int = 3
    q_win: float = 0.3
    sigma: float = 0.3
    deceptive: bool = False
    root_traps: int = 1
    prior_sigma: float = 1.0

    def __post_init__(self) -> None:
        _check_range("b", self.b, 2, 20, True)
        _check_range("depth", self.depth, 2, 30, True)
        _check_range("rho", self.rho, 0.0, 1.0, False)
        if self.k not in (1, 3, 5) or isinstance(self.k, bool):
            raise ValueError(f"trap trees: k must be 1, 3 or 5, got {self.k!r}")
        _check_range("q_win", self.q_win, 0.0, 1.0, False)
        _check_range("sigma", self.sigma, 0.0, 10.0, False)
        _check_range("prior_sigma", self.prior_sigma, 0.0, 10.0, False)
        _check_range("root_traps", self.root_traps, 0, self.b - 1, True)
        if not isinstance(self.deceptive, bool):
            raise ValueError(f"trap trees: deceptive must be true or false, got {self.deceptive!r}")
        if self.root_traps and self.depth < 1 + self.k:
            raise ValueError(
                f"trap trees: a level-{self.k} trap at the root needs depth >= {1 + self.k}, "
                f"got depth={self.depth} (or set root_traps=0)"
            )

    def packed(self) -> tuple[np.ndarray, np.ndarray]:
        """The integer and real parameter vectors the compiled functions take."""
        ints = np.array(
            [self.b, self.depth, self.k, self.root_traps, int(self.deceptive)], dtype=np.int64
        )
        reals = np.array([self.rho, self.q_win, self.sigma, self.prior_sigma], dtype=np.float64)
        return ints, reals

    def to_dict(self) -> dict[str, object]:
        """The parameters as a plain dict (for results files)."""
        return asdict(self)


ROOT_INFO = np.array([1, NORMAL, 0, 0], dtype=np.int64)
"""The root's description: ``V* = +1``, ``NORMAL``, depth 0."""


@dataclass(frozen=True)
class Node:
    """A node of a trap tree, for Python code (tests, inspection).

    Attributes:
        key: The node's key (a hash of the tree's seed and the path).
        vstar: True value ``V*`` for the player to move, +1 or -1.
        kind: ``NORMAL``, ``TRAP`` or ``REPLY``.
        rem: Plies left of the forced win in a trap (0 for ``NORMAL``).
        depth: Plies from the root.
    """

    key: int
    vstar: int
    kind: int
    rem: int
    depth: int

    @property
    def info(self) -> np.ndarray:
        """The ``int64 (4,)`` description the compiled functions take."""
        return np.array([self.vstar, self.kind, self.rem, self.depth], dtype=np.int64)


class TrapTree:
    """One tree of a family, generated lazily: ``TrapTree(config, seed).root``, ``children``."""

    def __init__(self, config: TrapTreeConfig, seed: int) -> None:
        check_int("seed", seed, min=0)
        self.config = config
        self.seed = seed
        self._params, self._fparams = config.packed()
        self._out = np.zeros((config.b, N_INFO), dtype=np.int64)
        self._order = np.zeros(config.b, dtype=np.int64)

    @property
    def root(self) -> Node:
        """The root: ``V* = +1``, ``NORMAL``."""
        return Node(int(root_key(self.seed)), 1, NORMAL, 0, 0)

    def terminal(self, node: Node) -> bool:
        """Whether the game is over at ``node`` (its outcome is then ``node.vstar``)."""
        return bool(is_terminal(node.info, self._params))

    def children(self, node: Node) -> list[Node]:
        """The children of ``node`` in move order (empty at a terminal node)."""
        count = gen_children(
            np.uint64(node.key), node.info, self._params, self._fparams, self._out, self._order
        )
        return [
            Node(int(child_key(np.uint64(node.key), i)), *(int(x) for x in self._out[i]))
            for i in range(count)
        ]

    def evaluation(self, node: Node) -> float:
        """The heuristic's value of ``node`` for the player to move there."""
        return float(evaluate(np.uint64(node.key), node.info, self._params, self._fparams))
