"""The ``net`` agent: plays from the policy head alone, greedily or by sampling.

Spec: ``net`` (the shipped model), ``net:PATH``, ``net:PATH,mode=sample,temperature=0.5``.
No search: one network evaluation per move. The value head is not used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from agents.base import AgentError
from agents.nets.devices import check_device
from agents.nets.precision import check_precision
from agents.nets.threads import check_threads, use_threads
from go_env.state import GoState
from go_env.validation import check_float, check_int

__all__ = ["NetAgent", "NetAgentConfig"]


@dataclass(frozen=True, kw_only=True)
class NetAgentConfig:
    """Configuration of :class:`NetAgent` (the ``net`` agent plugin).

    Args:
        model: Checkpoint path, or a shipped network's name (``""``, ``"default"`` or
            ``"supervised"``: the supervised 9x9 model; ``"paper-9x9"``: the self-play one).
        mode: ``"greedy"`` (the most probable legal move) or ``"sample"`` (draw from the
            policy sharpened or flattened by ``temperature``).
        temperature: Sampling temperature ``T``: probabilities ``p ** (1 / T)``.
        symmetry: Board symmetries of the evaluation: ``"average"`` (all 8, default),
            ``"random"`` or ``"none"`` (see :mod:`agents.nets.evaluator`).
        avoid_eyes: Never fill one of its own single-point eyes (it passes instead when
            nothing else is left), so that games end.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        precision: ``"fp32"`` (default), ``"bf16"``, ``"int8"`` or ``"auto"``: the
            fastest one this machine runs that passed the accuracy check
            (:mod:`agents.nets.precision`, ``docs/nets.md``).
        threads: Torch CPU threads (0: leave torch's setting).
        seed: Seed of the sampling and the random symmetries (``None``: fresh entropy).
        name: Name of the agent in game records.
    """

    __spec_positional__: ClassVar[str] = "model"

    model: str = ""
    mode: Literal["greedy", "sample"] = "greedy"
    temperature: float = 1.0
    symmetry: Literal["none", "random", "average"] = "average"
    avoid_eyes: bool = True
    device: str = "cpu"
    threads: int = 1
    precision: str = "fp32"
    seed: int | None = None
    name: str = "net"

    def __post_init__(self) -> None:
        if self.mode not in ("greedy", "sample"):
            raise ValueError(f"mode must be greedy or sample, got {self.mode!r}")
        t = self.temperature
        if check_float("temperature", t, allowed="a number > 0") <= 0:
            raise ValueError(f"temperature must be a number > 0, got {t!r}")
        if self.symmetry not in ("none", "random", "average"):
            raise ValueError(
                f"symmetry must be one of none, random, average; got {self.symmetry!r}"
            )
        check_threads(self.threads)
        check_device(self.device)
        check_precision(self.precision)
        if self.seed is not None:
            check_int("seed", self.seed, allowed="an int or None")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")

    def network_digests(self) -> dict[str, str]:
        """This network's name and SHA-256 (:func:`agents.registry.network_digests`)."""
        from agents.nets.checkpoint import named_digest

        return named_digest(self.model)

    def build(self) -> NetAgent:
        """The agent this config describes (loads the network).

        Raises:
            AgentError: When the checkpoint cannot be read.
        """
        return NetAgent(self)


class NetAgent:
    """Plays the policy network's move (see :class:`NetAgentConfig`).

    Attributes:
        last_priors: ``float64 (N*N + 1,)`` masked policy of the last move (``None`` before).
    """

    def __init__(self, config: NetAgentConfig | None = None) -> None:
        from agents.nets.checkpoint import CheckpointError
        from agents.nets.evaluator import NetEvaluator

        self.config = config or NetAgentConfig()
        self.name = self.config.name
        use_threads(self.config.threads)
        seeds = np.random.SeedSequence(self.config.seed).spawn(2)
        try:
            self.evaluator = NetEvaluator(
                self.config.model,
                symmetry=self.config.symmetry,
                device=self.config.device,
                cache_size=0,
                precision=self.config.precision,
                seed=int(seeds[0].generate_state(1)[0]),
            )
        except (FileNotFoundError, CheckpointError) as exc:
            raise AgentError(f"net agent: {exc}") from exc
        self._rng = np.random.default_rng(seeds[1])
        self.last_priors: np.ndarray | None = None

    def reseed(self, seed: int) -> None:
        """Restart the sampling and symmetry generators from ``seed`` (used by the arena)."""
        seeds = np.random.SeedSequence(seed).spawn(2)
        self.evaluator.seed(int(seeds[0].generate_state(1)[0]))
        self._rng = np.random.default_rng(seeds[1])

    def reset(self) -> None:
        """Nothing to forget between games."""
        self.last_priors = None

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """The policy's move in ``state`` (left unchanged).

        Raises:
            AgentError: When the game is over.
        """
        if state.is_over:
            raise AgentError(f"the game is over (result {state.result()}); no move to choose")
        priors, _ = self.evaluator.evaluate_states([state])
        p = priors[0].copy()
        if self.config.avoid_eyes:
            eyes = np.flatnonzero(state.own_eye_mask())
            p[eyes] = 0.0
        self.last_priors = p
        total = p.sum()
        if total <= 0:
            return state.pass_move
        if self.config.mode == "greedy":
            return int(np.argmax(p))
        w = np.where(p > 0, p / p.max(), 0.0) ** (1.0 / self.config.temperature)
        return int(self._rng.choice(p.size, p=w / w.sum()))

    def close(self) -> None:
        """No resources to release."""
