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

**Cache**: results are kept per position (a 128-bit key of the input planes and the legal
mask, which together decide the output up to the symmetry draw;
:mod:`agents.nets.position_keys`), least recently used first out, so transpositions and
re-searched positions cost nothing.
"""

from __future__ import annotations

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
from agents.nets.policy_temp import check_policy_temp, temper
from agents.nets.position_keys import row_keys
from agents.nets.precision import PrecisionError, resolve_precision
from agents.nets.symmetry import SYMMETRIES, inverse_policy, transform_planes
from go_env.leaf_features import LeafRoots
from go_env.state import GoState
from go_env.validation import check_int

if TYPE_CHECKING:
    from agents.mcts.evaluators import LeafBatch

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
        policy_temp: Temperature ``T`` of the priors, the softmax of ``logits / T`` over the
            legal moves (:func:`~agents.nets.policy_temp.temper`): 1 (default) is the
            network's own policy; above 1 the search looks wider, at moves the network thinks
            unlikely (Leela Chess Zero's policy softmax temperature).

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
        policy_temp: float = 1.0,
    ) -> None:
        policy_temp = check_policy_temp(policy_temp)
        if symmetry not in _MODES:
            raise ValueError(f"symmetry must be one of {', '.join(_MODES)}; got {symmetry!r}")
        check_int("cache_size", cache_size, min=0)
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, str(self.device))
        if isinstance(net, PolicyValueNet):
            self.net = net.to(self.device).eval()
        else:
            self.net = load_net(net, self.device)
        self.config = self.net.config
        self.symmetry: SymmetryMode = symmetry
        self.policy_temp = float(policy_temp)
        self.cache_size = cache_size
        self._cache: OrderedDict[bytes, tuple[np.ndarray, float]] = OrderedDict()
        self._rng = np.random.default_rng(seed)
        self.evaluations = 0
        self.hits = 0
        self._leaf_roots: LeafRoots | None = None
        self._leaf_root: GoState | None = None
        self._leaf_key: tuple[int, int] = (-1, 0)
        self._zeros: dict[int, np.ndarray] = {}

    @property
    def board_size(self) -> int:
        """The board size the network was built for (positions of other sizes are refused)."""
        return int(self.config.size)

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
        """The first half of :meth:`evaluate` (:class:`agents.mcts.multi.SplitEvaluator`).

        The planes and masks come from the root's compiled state and the moves to each leaf
        (:class:`go_env.leaf_features.LeafRoots`), equal to those of :meth:`prepare_states`
        of the leaves as states.

        Raises:
            ValueError: For a board size the network was not built for.
        """
        planes, masks = self.leaf_inputs(batch)
        return self.prepare_planes(planes, masks)

    def leaf_inputs(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """``(planes int8 (B, C, N, N), masks bool (B, A))`` of the leaves of ``batch``.

        A finished leaf's mask is pass only (as :meth:`prepare_states`).

        Raises:
            ValueError: For a board size the network was not built for.
        """
        root = batch.root
        key = (root.move_number, root.zobrist)
        if self._leaf_root is not root or self._leaf_key != key:
            c = self.config
            if root.size != c.size:
                raise ValueError(
                    f"the network is for {c.size}x{c.size} boards, got a "
                    f"{root.size}x{root.size} position"
                )
            if self._leaf_roots is None:
                self._leaf_roots = LeafRoots(c.size, c.history, c.tactical)
            self._leaf_roots.set_root(0, root)
            self._leaf_root, self._leaf_key = root, key
        assert self._leaf_roots is not None
        depths = batch.depths
        count = int(depths.shape[0])
        zeros = self._zeros.get(count)
        if zeros is None:
            zeros = self._zeros[count] = np.zeros(count, dtype=np.int64)
        planes, masks = self._leaf_roots.fill(zeros, batch.moves, depths)
        return planes, pass_when_over(masks)

    # ------------------------------------------------------------------ rows (SearchSet)
    @property
    def plane_spec(self) -> tuple[int, int, bool] | None:
        """``(size, history, tactical)`` of the planes, for the search set.

        :class:`agents.mcts.search_set.SearchSet` evaluates this evaluator's leaves in rows;
        ``None`` with ``symmetry="average"``, whose 8 rows per position go through
        :meth:`prepare`.
        """
        if self.symmetry == "average":
            return None
        c = self.config
        return (c.size, c.history, c.tactical)

    def cache_keys(self, planes: np.ndarray, masks: np.ndarray) -> bytes:
        """The cache keys of rows, 16 bytes each (:mod:`agents.nets.position_keys`)."""
        return row_keys(planes, masks).tobytes()

    def cached(self, key: bytes) -> tuple[np.ndarray, float] | None:
        """The cached ``(priors, value)`` under ``key`` (counted in :attr:`hits`), or ``None``."""
        if not self.cache_size:
            return None
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            self.hits += 1
        return hit

    def draw_symmetry(self) -> int:
        """The symmetry of one position not in the cache, as :meth:`prepare_planes` draws it."""
        if self.symmetry == "random":
            return int(self._rng.integers(0, SYMMETRIES))  # the stream of size=(1,), faster
        return 0

    def remember(self, key: bytes, priors: np.ndarray, value: float) -> None:
        """Count one network evaluation and cache its result under ``key``."""
        self.evaluations += 1
        if self.cache_size:
            cache = self._cache
            cache[key] = (priors, value)
            while len(cache) > self.cache_size:
                cache.popitem(last=False)

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
        masks = pass_when_over(np.stack([state.legal_mask() for state in states]))
        return self.prepare_planes(planes, masks)

    def prepare_planes(self, planes: np.ndarray, masks: np.ndarray) -> NetPending:
        """Cache look-ups and symmetry draws of positions (planes ``(B, C, N, N)``).

        The positions not in the cache (8 rows each with ``symmetry="average"``) become the
        pending evaluation's ``inputs``: ``(planes, symmetries, legal masks)``, the
        arguments of :attr:`shared`.
        """
        count = planes.shape[0]
        pending = NetPending(self, count)
        keys, todo = pending.keys, pending.todo
        if self.cache_size:
            raw = row_keys(planes, masks).tobytes()
            cache = self._cache
            for i in range(count):
                key = raw[16 * i : 16 * i + 16]
                keys.append(key)
                hit = cache.get(key)
                if hit is not None:
                    cache.move_to_end(key)
                    pending.priors[i], pending.values[i] = hit
                    self.hits += 1
                else:
                    todo.append(i)
        else:
            keys.extend([b""] * count)
            todo.extend(range(count))
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
            p = temper(p, evaluator.policy_temp)
            self.priors[todo], self.values[todo] = p, v
            evaluator.evaluations += len(todo)
            if evaluator.cache_size:
                cache = evaluator._cache
                for j, i in enumerate(todo):
                    cache[self.keys[i]] = (p[j], float(v[j]))
                while len(cache) > evaluator.cache_size:
                    cache.popitem(last=False)
        return self.priors, self.values


def pass_when_over(masks: np.ndarray) -> np.ndarray:
    """Legal masks ``(B, A)`` where a finished game's row allows pass only.

    A finished game has no legal action, but its value is still asked. Returns ``masks``
    changed in place, or a changed copy when it is read-only.
    """
    over = ~masks.any(axis=1)
    if over.any():
        masks = masks.copy() if not masks.flags.writeable else masks
        masks[over, -1] = True
    return masks


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
