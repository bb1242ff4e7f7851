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

**Precision** (:mod:`agents.nets.precision`): ``"fp32"`` (the reference), ``"bf16"`` (torch
autocast), ``"int8"`` (ONNX Runtime), or ``"auto"``, the fastest one this machine runs that
passed the accuracy check.

**Cache**: results are kept per position (a 128-bit hash of the input planes and the legal
mask, which together decide the output up to the symmetry draw), least recently used first
out, so transpositions and re-searched positions cost nothing.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch

from agents.mcts.multi import finish_alone
from agents.nets.checkpoint import load_net
from agents.nets.devices import DEVICES, check_device
from agents.nets.features import stack_planes
from agents.nets.model import PolicyValueNet
from agents.nets.precision import PrecisionError, resolve_precision
from agents.nets.symmetry import SYMMETRIES, inverse_policy, transform_planes

if TYPE_CHECKING:
    from agents.mcts.evaluators import LeafBatch
    from go_env.state import GoState

__all__ = [
    "NetEvaluator",
    "NetForward",
    "NetPending",
    "SymmetryMode",
    "masked_softmax",
    "net_value_fn",
    "resolve_device",
]

SymmetryMode = Literal["none", "random", "average"]
_MODES = ("none", "random", "average")


def resolve_device(device: str | torch.device) -> torch.device:
    """``"auto"`` is CUDA when available, else the CPU; other names pass to ``torch.device``.

    Raises:
        ValueError: For a name that is not a device (the allowed ones are named), or when
            CUDA is asked for and not available.
    """
    if isinstance(device, torch.device):
        dev = device
    else:
        check_device(device)
        if device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        dev = torch.device(device)
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be one of {', '.join(DEVICES)}; got {str(device)!r}")
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
        precision: ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"``
            (:mod:`agents.nets.precision`).

    Raises:
        ValueError: For a bad option; :class:`~agents.nets.precision.PrecisionError` (a
            ``ValueError``) for a precision this machine cannot run.

    Attributes:
        precision: The precision the network runs in (``auto`` resolved).
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
        precision: str = "fp32",
    ) -> None:
        if symmetry not in _MODES:
            raise ValueError(f"symmetry must be one of {', '.join(_MODES)}; got {symmetry!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be an int >= 0, got {cache_size!r}")
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, str(self.device))
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
        pending = self.prepare(batch)
        return finish_alone(self, pending)

    def evaluate_states(self, states: Sequence[GoState]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float64 (B, N*N+1), values float64 (B,))`` of positions.

        Raises:
            ValueError: For an empty list or a board size the network was not built for.
        """
        pending = self.prepare_states(states)
        return finish_alone(self, pending)

    def evaluate_planes(
        self, planes: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values from input planes ``(B, C, N, N)`` and legal masks ``(B, A)``."""
        pending = self.prepare_planes(planes, masks)
        return finish_alone(self, pending)

    # ------------------------------------------------------------------ split evaluation
    @property
    def shared(self) -> NetForward:
        """The network's forward function, one object per network, device and precision.

        Evaluators of one process that load the same checkpoint share the network
        (:func:`~agents.nets.checkpoint.load_net`) and so this object:
        :class:`agents.mcts.multi.SharedEvaluation` batches their positions in one call.
        """
        forwards = _FORWARDS.setdefault(self.net, {})
        key = (self.device, self.precision)
        forward = forwards.get(key)
        if forward is None:
            forward = forwards[key] = NetForward(self.net, self.device, self.precision)
        return forward

    def prepare(self, batch: LeafBatch) -> NetPending:
        """The first half of :meth:`evaluate` (:class:`agents.mcts.multi.SplitEvaluator`)."""
        return self.prepare_states(batch.states())

    def prepare_states(self, states: Sequence[GoState]) -> NetPending:
        """The first half of :meth:`evaluate_states` (features, masks, :meth:`prepare_planes`).

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
        return self.prepare_planes(planes, masks)

    def prepare_planes(self, planes: np.ndarray, masks: np.ndarray) -> NetPending:
        """Cache look-ups and symmetry draws of positions (planes ``(B, C, N, N)``).

        The positions not in the cache (8 rows each with ``symmetry="average"``) become the
        pending evaluation's ``inputs``: ``(planes, symmetries, legal masks)``, the
        arguments of :attr:`shared`.
        """
        count = planes.shape[0]
        pending = NetPending(self, count)
        for i in range(count):
            key = b""
            if self.cache_size:
                key = hashlib.blake2b(
                    planes[i].tobytes() + masks[i].tobytes(), digest_size=16
                ).digest()
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    pending.priors[i], pending.values[i] = hit
                    self.hits += 1
                    pending.keys.append(key)
                    continue
            pending.keys.append(key)
            pending.todo.append(i)
        todo = pending.todo
        if not todo:
            return pending
        if len(todo) < count:
            planes, masks = planes[todo], masks[todo]
        n = len(todo)
        if self.symmetry == "average":
            syms = np.arange(SYMMETRIES, dtype=np.int64).repeat(n)
            planes = np.tile(planes, (SYMMETRIES, 1, 1, 1))
            masks = np.tile(masks, (SYMMETRIES, 1))
        elif self.symmetry == "random":
            syms = np.asarray(self._rng.integers(0, SYMMETRIES, size=(n,)), dtype=np.int64)
        else:
            syms = np.zeros(n, dtype=np.int64)
        pending.inputs = (planes, syms, masks)
        return pending


class NetForward:
    """One network on rows: ``(planes, symmetries, masks) -> (priors, values)``.

    The part of an evaluation that :class:`agents.mcts.multi.SharedEvaluation` runs once for
    the positions of many searches, on ``device`` (a GPU when the evaluator asks for one):
    each row's planes are turned by its symmetry, the network runs on all rows at once, the
    policy is turned back and soft-maxed over the row's legal moves. Every step but the
    network is exact and row by row; the network's rounding can depend on the batch size
    (``docs/decisions/019``).

    The network runs in ``precision`` (:mod:`agents.nets.precision`, already resolved):
    ``fp32`` as it is, ``bf16`` under ``torch.autocast`` (bfloat16; float16 on a GPU
    without bfloat16), ``int8`` as an ONNX Runtime model quantised when this object is made
    (:class:`~agents.nets.onnx_int8.OnnxInt8Net`, about a second).

    Raises:
        PrecisionError: For a precision outside ``fp32``, ``bf16``, ``int8``.
    """

    def __init__(self, net: PolicyValueNet, device: torch.device, precision: str = "fp32") -> None:
        self.net = net
        self.device = device
        self.size = net.config.size
        self.precision = precision
        self._run: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
        if precision == "fp32":
            self._run = self._torch
        elif precision == "bf16":
            cuda = device.type == "cuda"
            self._autocast_dtype = (
                torch.float16 if cuda and not torch.cuda.is_bf16_supported() else torch.bfloat16
            )
            self._run = self._autocast
        elif precision == "int8":
            from agents.nets.onnx_int8 import OnnxInt8Net

            self._run = OnnxInt8Net(net)
        else:
            raise PrecisionError(f"precision must be fp32, bf16 or int8; got {precision!r}")

    def _torch(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits_t, values_t = self.net(torch.from_numpy(x).to(self.device))
        return logits_t.float().cpu().numpy(), values_t.double().cpu().numpy()

    def _autocast(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with (
            torch.inference_mode(),
            torch.autocast(self.device.type, dtype=self._autocast_dtype),
        ):
            logits_t, values_t = self.net(torch.from_numpy(x).to(self.device))
        return logits_t.float().cpu().numpy(), values_t.double().cpu().numpy()

    def raw(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits float32 (R, A), values float64 (R,))`` of input planes ``float32 x``.

        The network alone, in this object's precision (no symmetry, no mask).
        """
        return self._run(x)

    def __call__(
        self, planes: np.ndarray, syms: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float64 (R, A), values float64 (R,))`` of the rows.

        Args:
            planes: ``(R, C, N, N)`` input planes, as the position is.
            syms: ``int64 (R,)`` the symmetry (:mod:`agents.nets.symmetry`) of each row.
            masks: ``bool (R, A)`` legal moves of each row.
        """
        groups = [(int(k), syms == k) for k in np.unique(syms)]
        x = np.empty(planes.shape, dtype=np.float32)
        for k, rows in groups:
            x[rows] = transform_planes(planes[rows], k)
        logits, values = self._run(x)
        for k, rows in groups:
            logits[rows] = inverse_policy(logits[rows], k, self.size)
        return masked_softmax(logits, masks), values


_FORWARDS: weakref.WeakKeyDictionary[PolicyValueNet, dict[tuple[torch.device, str], NetForward]] = (
    weakref.WeakKeyDictionary()
)


class NetPending:
    """A batch of positions prepared by :meth:`NetEvaluator.prepare_planes`.

    Attributes:
        inputs: ``(planes, symmetries, masks)`` of the positions not in the cache (empty
            when every position was), the arguments of :class:`NetForward`.
        priors: ``float64 (B, A)``, filled for cache hits now and for the rest by
            :meth:`finish`.
        values: ``float64 (B,)``, likewise.
    """

    def __init__(self, evaluator: NetEvaluator, count: int) -> None:
        self.evaluator = evaluator
        self.priors = np.empty((count, evaluator.config.actions), dtype=np.float64)
        self.values = np.empty(count, dtype=np.float64)
        self.keys: list[bytes] = []
        self.todo: list[int] = []
        self.inputs: tuple[np.ndarray, ...] = ()

    def finish(self, outputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors, values)`` of every position, from the rows :class:`NetForward` gave."""
        evaluator, todo = self.evaluator, self.todo
        if todo:
            p, v = outputs
            if evaluator.symmetry == "average":
                p = p.reshape(SYMMETRIES, len(todo), -1).mean(axis=0)
                v = v.reshape(SYMMETRIES, len(todo)).mean(axis=0)
            self.priors[todo], self.values[todo] = p, v
            evaluator.evaluations += len(todo)
            if evaluator.cache_size:
                cache = evaluator._cache
                for j, i in enumerate(todo):
                    cache[self.keys[i]] = (p[j], float(v[j]))
                while len(cache) > evaluator.cache_size:
                    cache.popitem(last=False)
        return self.priors, self.values


def _mask(state: GoState) -> np.ndarray:
    """Legal actions of ``state``; a finished game gets pass only (its value is still asked)."""
    mask = state.legal_mask()
    if not mask.any():
        mask = np.zeros_like(mask)
        mask[-1] = True
    return mask


def net_value_fn(
    model: str | PathLike[str] = "", *, device: str = "cpu", precision: str = "fp32"
) -> Callable[[Sequence[GoState]], np.ndarray]:
    """Values of a checkpoint's network (``""``: the shipped model) for the player to move.

    Each position is evaluated in its 8 board symmetries and the values averaged (AlphaGo
    Zero's evaluation of final networks, Silver et al., Nature 2017): deterministic, as the
    balanced opening books of :mod:`agents.matches.balanced` need.

    ``precision`` (:mod:`agents.nets.precision`) is ``fp32`` by default: a balanced book is
    a record, and its positions should not depend on the machine that drew it.

    Returns:
        A function of ``B`` states giving their values, float ``(B,)`` in ``[-1, 1]``.
    """
    evaluator = NetEvaluator(
        model, symmetry="average", device=device, cache_size=0, precision=precision
    )

    def values(states: Sequence[GoState]) -> np.ndarray:
        return evaluator.evaluate_states(states)[1]

    return values
