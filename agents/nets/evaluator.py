"""The network as an MCTS leaf evaluator: batched, masked, with board symmetries and a cache.

:class:`NetEvaluator` implements :class:`agents.mcts.evaluators.Evaluator`: for a batch of
positions it computes the input planes (:mod:`agents.nets.features`), runs the network once
on the whole batch, and returns

* ``priors (B, N*N + 1)``: the softmax of the policy logits over the **legal** moves only
  (illegal moves get probability 0; pass is always legal while the game goes on);
* ``values (B,)``: the value head's output in ``[-1, 1]`` for the player to move.

**Symmetries** (:mod:`agents.nets.symmetry`): ``"none"`` evaluates the board as it is;
``"random"`` applies one of the 8 symmetries drawn per position and maps the policy back
(AlphaGo Zero's evaluation in its search); ``"average"`` evaluates all 8 and averages the
masked priors and the values (AlphaGo Zero's evaluation of the final networks).

**Cache**: results are kept per position (a 128-bit hash of the input planes and the legal
mask, which together decide the output up to the symmetry draw), least recently used first
out, so transpositions and re-searched positions cost nothing.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from os import PathLike
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch

from agents.nets.checkpoint import load_net
from agents.nets.features import stack_planes
from agents.nets.model import PolicyValueNet
from agents.nets.symmetry import SYMMETRIES, inverse_policy, transform_planes

if TYPE_CHECKING:
    from agents.mcts.evaluators import LeafBatch
    from go_env.state import GoState

__all__ = ["NetEvaluator", "SymmetryMode", "masked_softmax", "resolve_device"]

SymmetryMode = Literal["none", "random", "average"]
_MODES = ("none", "random", "average")


def resolve_device(device: str | torch.device) -> torch.device:
    """``"auto"`` is CUDA when available, else the CPU; other names pass to ``torch.device``.

    Raises:
        ValueError: When CUDA is asked for and not available.
    """
    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but CUDA is not available here")
    return dev


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of ``logits (B, A)`` over the ``True`` entries of ``mask (B, A)``; 0 elsewhere.

    A row without any ``True`` entry becomes all zeros.
    """
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    top = z.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(z - top)
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


class NetEvaluator:
    """Leaf evaluation by a :class:`~agents.nets.model.PolicyValueNet` (module docstring).

    Args:
        net: The network, or a checkpoint path (``""``: the shipped model).
        symmetry: ``"none"``, ``"random"`` or ``"average"``.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, or ``"auto"``.
        cache_size: Positions kept in the cache (0: no cache).
        seed: Seed of the symmetry draws (``None``: fresh entropy).

    Attributes:
        evaluations: Positions evaluated by the network so far (cache hits not counted).
        hits: Positions answered from the cache.
    """

    uniform_priors = False

    def __init__(
        self,
        net: PolicyValueNet | str | PathLike[str] = "",
        *,
        symmetry: SymmetryMode = "random",
        device: str | torch.device = "cpu",
        cache_size: int = 100_000,
        seed: int | None = None,
    ) -> None:
        if symmetry not in _MODES:
            raise ValueError(f"symmetry must be one of {', '.join(_MODES)}; got {symmetry!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be an int >= 0, got {cache_size!r}")
        self.device = resolve_device(device)
        if isinstance(net, PolicyValueNet):
            self.net = net.to(self.device).eval()
        else:
            self.net = load_net(net, self.device)
        self.config = self.net.config
        self.symmetry: SymmetryMode = symmetry
        self.cache_size = cache_size
        self._cache: OrderedDict[bytes, tuple[np.ndarray, float]] = OrderedDict()
        self._rng = np.random.default_rng(seed)
        self.evaluations = 0
        self.hits = 0

    def seed(self, seed: int | None) -> None:
        """Restart the symmetry draws from ``seed``."""
        self._rng = np.random.default_rng(seed)

    def clear_cache(self) -> None:
        """Forget the cached positions."""
        self._cache.clear()

    # ------------------------------------------------------------------ the protocol
    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values of the leaves of an MCTS batch (see the module docstring)."""
        return self.evaluate_states(batch.states())

    def evaluate_states(self, states: Sequence[GoState]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float64 (B, N*N+1), values float64 (B,))`` of positions.

        Raises:
            ValueError: For an empty list or a board size the network was not built for.
        """
        if not states:
            raise ValueError("no positions to evaluate")
        c = self.config
        for state in states:
            if state.size != c.size:
                raise ValueError(
                    f"the network is for {c.size}x{c.size} boards, got a "
                    f"{state.size}x{state.size} position"
                )
        planes = stack_planes(states, c.history, c.tactical)
        masks = np.stack([_mask(state) for state in states])
        return self.evaluate_planes(planes, masks)

    def evaluate_planes(
        self, planes: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values from input planes ``(B, C, N, N)`` and legal masks ``(B, A)``."""
        count = planes.shape[0]
        priors = np.empty((count, self.config.actions), dtype=np.float64)
        values = np.empty(count, dtype=np.float64)
        keys: list[bytes] = []
        todo: list[int] = []
        for i in range(count):
            key = b""
            if self.cache_size:
                key = hashlib.blake2b(
                    planes[i].tobytes() + masks[i].tobytes(), digest_size=16
                ).digest()
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    priors[i], values[i] = hit
                    self.hits += 1
                    keys.append(key)
                    continue
            keys.append(key)
            todo.append(i)
        if todo:
            p, v = self._infer(planes[todo], masks[todo])
            priors[todo], values[todo] = p, v
            self.evaluations += len(todo)
            if self.cache_size:
                for j, i in enumerate(todo):
                    self._cache[keys[i]] = (p[j], float(v[j]))
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return priors, values

    # ------------------------------------------------------------------ inference
    def _infer(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        size = self.config.size
        count = planes.shape[0]
        syms: np.ndarray
        if self.symmetry == "average":
            syms = np.arange(SYMMETRIES, dtype=np.int64).repeat(count)
            planes = np.tile(planes, (SYMMETRIES, 1, 1, 1))
            masks_all = np.tile(masks, (SYMMETRIES, 1))
        elif self.symmetry == "random":
            syms = np.asarray(self._rng.integers(0, SYMMETRIES, size=(count,)))
            masks_all = masks
        else:
            syms = np.zeros(count, dtype=np.int64)
            masks_all = masks
        x = np.empty(planes.shape, dtype=np.float32)
        for k in np.unique(syms):
            rows = syms == k
            x[rows] = transform_planes(planes[rows], int(k))
        with torch.inference_mode():
            logits_t, values_t = self.net(torch.from_numpy(x).to(self.device))
        logits = logits_t.float().cpu().numpy()
        values = values_t.double().cpu().numpy()
        for k in np.unique(syms):
            rows = syms == k
            logits[rows] = inverse_policy(logits[rows], int(k), size)
        priors = masked_softmax(logits, masks_all)
        if self.symmetry == "average":
            priors = priors.reshape(SYMMETRIES, count, -1).mean(axis=0)
            values = values.reshape(SYMMETRIES, count).mean(axis=0)
        return priors, values


def _mask(state: GoState) -> np.ndarray:
    """Legal actions of ``state``; a finished game gets pass only (its value is still asked)."""
    mask = state.legal_mask()
    if not mask.any():
        mask = np.zeros_like(mask)
        mask[-1] = True
    return mask
