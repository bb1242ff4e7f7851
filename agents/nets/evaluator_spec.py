"""The ``net`` leaf evaluator of the ``mcts`` agent, as a spec (no torch import here).

``mcts:evaluator=net:PATH`` searches with the network of the checkpoint ``PATH`` (``net``
alone: the model shipped with the package). Options follow the path inside quotes:
``mcts:policy=puct,evaluator="net:model.pt,lam=0.5,symmetry=average"``.

``lam`` mixes random rollouts into the leaf value as AlphaGo and Boke Go do:
``v = (1 - lam) * v_net + lam * z_rollout`` (:class:`~agents.mcts.evaluators.MixedEvaluator`;
Boke Go's lambda is 1/2, ``docs/protocol.md#boke-go``); ``lam=0`` (default) is the value
network alone, as in [LL20]. ``playout=heavy`` plays those rollouts with the heavy policy
(:mod:`go_env._core.heavy_playout`: the last move's captures and escapes, no self-atari), and
``rollouts=4`` averages four of them per leaf.

``policy_temp=T`` searches with the priors at temperature ``T``, the softmax of
``logits / T`` (:mod:`agents.nets.policy_temp`; 1, the default, is the network's policy).

``sha256=PREFIX`` pins the network: building the evaluator refuses a checkpoint whose
SHA-256 (:func:`~agents.nets.checkpoint.model_digest`, of the uncompressed bytes) does not
start with ``PREFIX`` (12 to 64 hex digits). A recorded match or a pre-registered plan that
names a shipped network by name (``net:paper-9x9``) then cannot silently measure a later
file shipped under that name.

:class:`NetEvaluatorConfig` is the ``net`` plugin of the entry-point group
``gomcts.evaluators`` (:mod:`agents.mcts.evaluator_plugins`): the registry imports this module
to read a spec, so it must not import torch; :meth:`NetEvaluatorConfig.build` does, when an
evaluator is built. ``mix:value=net,lam=...`` mixes rollouts in the same way as ``lam``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from agents.mcts.evaluators import check_playout, check_rollouts
from agents.nets.devices import check_device
from agents.nets.policy_temp import check_policy_temp
from agents.nets.precision import check_precision
from agents.nets.threads import check_threads, use_threads
from agents.spec import config_from_params, parse_spec
from go_env.validation import check_float, check_int

if TYPE_CHECKING:
    from agents.mcts.evaluators import Evaluator

__all__ = ["NetEvaluatorConfig", "net_evaluator_config"]

_DIGEST_PREFIX = re.compile(r"^[0-9a-f]{12,64}$")


@dataclass(frozen=True, kw_only=True)
class NetEvaluatorConfig:
    """Options of the ``net`` evaluator.

    Args:
        model: Checkpoint path, or a shipped network's name (``""``, ``"default"`` or
            ``"supervised"``: the supervised 9x9 model; ``"paper-9x9"``: the self-play one).
        symmetry: ``"random"`` (one random board symmetry per position), ``"average"`` (all
            8, averaged) or ``"none"``.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        cache: Positions kept in the evaluation cache.
        lam: Weight of a random rollout in the leaf value, in ``[0, 1]``.
        precision: ``"fp32"`` (default), ``"bf16"``, ``"int8"`` or ``"auto"``: the
            fastest one this machine runs that passed the accuracy check
            (:mod:`agents.nets.precision`, ``docs/nets.md``).
        threads: Torch CPU threads of the process (0: leave torch's setting). One thread is
            the default: a small network gains little from more, and on a busy machine
            threads that wait for each other are many times slower.
        sha256: The network's SHA-256, or its first 12 or more hex digits (``""``: not
            checked); a checkpoint with another digest is refused when the evaluator is
            built.
        playout: The rollouts' policy when ``lam > 0``: ``"light"`` (default, uniform random
            moves), ``"heavy"`` (the last move's captures and escapes first, no
            self-atari), ``"nakade"`` (heavy, and the self-atari that kills an eye space
            allowed), ``"patterns"`` (heavy, and MoGo's 3x3 shapes and captures anywhere) or
            ``"lowlib"`` (patterns, and replies to two-liberty chains;
            :class:`~agents.mcts.evaluators.RolloutEvaluator`).
        rollouts: Rollouts per leaf when ``lam > 0``, their values averaged (default 1).
        policy_temp: Temperature of the priors, in ``[0.1, 10]``: the softmax of
            ``logits / policy_temp`` over the legal moves (1, the default: the network's own;
            above 1 the search looks wider; :mod:`agents.nets.policy_temp`).
    """

    __spec_positional__: ClassVar[str] = "model"

    model: str = ""
    symmetry: Literal["none", "random", "average"] = "random"
    device: str = "cpu"
    cache: int = 100_000
    lam: float = 0.0
    threads: int = 1
    precision: str = "fp32"
    sha256: str = ""
    playout: Literal["light", "heavy", "nakade", "patterns", "lowlib"] = "light"
    rollouts: int = 1
    policy_temp: float = 1.0

    def __post_init__(self) -> None:
        if self.symmetry not in ("none", "random", "average"):
            raise ValueError(
                f"symmetry must be one of none, random, average; got {self.symmetry!r}"
            )
        check_int("cache", self.cache, min=0)
        check_float("lam", self.lam, min=0, max=1)
        check_threads(self.threads)
        check_device(self.device)
        check_precision(self.precision)
        check_playout(self.playout)
        check_rollouts(self.rollouts)
        check_policy_temp(self.policy_temp)
        for name, value, default, what in (
            ("playout", self.playout, "light", "the policy of the rollouts"),
            ("rollouts", self.rollouts, 1, "the rollouts per leaf"),
        ):
            if value != default and self.lam == 0:
                raise ValueError(
                    f"{name}={value} sets {what} mixed in with lam > 0, and lam is 0 (the "
                    f"network alone); set lam, e.g. lam=0.5, or drop {name}="
                )
        if self.sha256 and not _DIGEST_PREFIX.match(self.sha256):
            raise ValueError(
                f"sha256 must be 12 to 64 lower-case hex digits (a SHA-256 or its start), "
                f"got {self.sha256!r}"
            )

    def network_digests(self) -> dict[str, str]:
        """This network's name and SHA-256 (:func:`agents.registry.network_digests`)."""
        from agents.nets.checkpoint import named_digest

        return named_digest(self.model)

    def check_digest(self) -> None:
        """Refuse a network whose SHA-256 does not start with ``sha256`` (when it is set).

        Raises:
            ValueError: Naming the file, its digest and the pinned one.
        """
        if not self.sha256:
            return
        from agents.nets.checkpoint import model_digest

        path, digest = model_digest(self.model)
        if not digest.startswith(self.sha256):
            raise ValueError(
                f"evaluator 'net': the network {path} has SHA-256 {digest[:16]}..., not the "
                f"pinned {self.sha256}...; restore the pinned file (for a shipped network: "
                f"git log -- {path} lists the commits that changed it) or drop sha256="
            )

    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> Evaluator:
        """The evaluator: a network, mixed with rollouts when ``lam > 0``.

        A :class:`~agents.nets.evaluator.NetEvaluator`, wrapped in a
        :class:`~agents.mcts.evaluators.MixedEvaluator` when ``lam > 0``.

        Args:
            seed: Seed of the symmetry draws and the rollouts (``None``: fresh entropy).
            score_scale: Rollout value scale (see :class:`~agents.mcts.config.MCTSConfig`).
        """
        import numpy as np

        from agents.mcts.evaluators import MixedEvaluator, RolloutEvaluator
        from agents.nets.evaluator import NetEvaluator

        self.check_digest()
        use_threads(self.threads)
        seeds = np.random.SeedSequence(seed).generate_state(2)
        net = NetEvaluator(
            self.model,
            symmetry=self.symmetry,
            device=self.device,
            cache_size=self.cache,
            precision=self.precision,
            seed=int(seeds[0]),
            policy_temp=self.policy_temp,
        )
        if self.lam == 0.0:
            return net
        rollout = RolloutEvaluator(
            seed=int(seeds[1]),
            score_scale=score_scale,
            playout=self.playout,
            rollouts=self.rollouts,
        )
        return MixedEvaluator(net, rollout, lam=self.lam)


def net_evaluator_config(spec: str) -> NetEvaluatorConfig:
    """The options of an evaluator spec ``net:PATH,key=value...``.

    Raises:
        agents.spec.SpecError: For another name than ``net`` or a bad option.
    """
    name, params = parse_spec(spec)
    if name != "net":
        from agents.spec import SpecError

        raise SpecError(f"evaluator spec {spec!r} does not name the net evaluator")
    return config_from_params(NetEvaluatorConfig, params, what="evaluator 'net'")
