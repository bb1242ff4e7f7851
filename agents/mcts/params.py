"""The resolved parameters of one search: what :class:`~agents.mcts.search.Search` needs.

:class:`~agents.mcts.config.MCTSConfig` describes a whole agent (move choice, temperature,
resignation, the evaluator's spec...) with ``"auto"`` values; :class:`SearchParams` holds only
what the tree search reads, with every default resolved and the backup strategy built once
(``MCTSConfig.search_params()``). The search therefore imports no agent configuration, and
a caller can run a bare search without one.

The compiled kernels read the parameters as two small arrays (:meth:`SearchParams.kernel_arrays`,
slots ``I_*`` and ``F_*``): an int and a float vector cost one argument each in numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from agents.mcts.selection import (
    FPU_ABSOLUTE,
    FPU_INFINITE,
    FPU_PARENT,
    POLICY_PUCT,
    POLICY_UCT,
)
from go_env.rules import KoRule, Rules
from go_env.validation import check_int

__all__ = [
    "F_C",
    "F_FPU",
    "F_KOMI",
    "F_PASS",
    "I_DEAD",
    "I_EXPAND",
    "I_EYES",
    "I_FPU",
    "I_KO",
    "I_LIMIT",
    "I_POLICY",
    "I_SOLVER",
    "I_SUICIDE",
    "SearchParams",
]

# Slots of the packed kernel parameters (int64 and float64 vectors).
I_POLICY, I_FPU, I_SOLVER, I_EXPAND, I_KO, I_SUICIDE, I_LIMIT, I_DEAD, I_EYES = range(9)
F_C, F_FPU, F_PASS, F_KOMI = range(4)

_FPU = {"infinite": FPU_INFINITE, "parent": FPU_PARENT, "absolute": FPU_ABSOLUTE}
_KO = {KoRule.SIMPLE: 0, KoRule.POSITIONAL: 1, KoRule.SITUATIONAL: 2}


@dataclass(frozen=True, kw_only=True)
class SearchParams:
    """Resolved parameters of a tree search (see the module docstring).

    Args:
        sims: Nominal simulations per move ``N`` (the backup's budget, and ``run()``'s default).
        policy: Tree policy, ``"uct"`` or ``"puct"``.
        exploration: The exploration constant ``c``.
        fpu_mode: ``"infinite"``, ``"parent"`` or ``"absolute"``.
        fpu_value: The reduction under ``"parent"``, the value under ``"absolute"``.
        backup: The backup strategy instance (not yet bound to ``N``).
        solver: Whether the backup proves values (MCTS-Solver): selection and the stop rule
            honour ``Tree.proven``.
        score_scale: Value scale of the default rollout evaluator (0: win/loss).
        dead_playouts: Ownership playouts for dead stones at a finished leaf; 0: Tromp-Taylor.
        expand_visits: Visits a leaf needs before it is expanded.
        avoid_eyes: Whether an expansion leaves out the moves that fill one's own eye.
        max_nodes: Node cap of the tree.
        pass_prior: Prior weight of pass relative to one point under uniform priors.
        noise_alpha: Dirichlet concentration of the root noise.
        noise_weight: Weight of the root noise (0: off).
        batch: Leaves collected per evaluation (1: sequential MCTS).
        virtual_loss: Virtual lost visits per pending path when ``batch > 1``.
        seed: Seed of the search's generators (``None``: fresh entropy).
    """

    sims: int = 1000
    policy: Literal["uct", "puct"] = "uct"
    exploration: float = 0.5
    fpu_mode: Literal["infinite", "parent", "absolute"] = "infinite"
    fpu_value: float = 0.0
    backup: Any = None
    solver: bool = False
    score_scale: float = 0.0
    dead_playouts: int = 0
    expand_visits: int = 0
    avoid_eyes: bool = False
    max_nodes: int = 4_000_000
    pass_prior: float = 1.0
    noise_alpha: float = 0.03
    noise_weight: float = 0.0
    batch: int = 1
    virtual_loss: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.policy not in ("uct", "puct"):
            raise ValueError(f"policy must be one of uct, puct; got {self.policy!r}")
        if self.fpu_mode not in _FPU:
            raise ValueError(f"fpu_mode must be one of {', '.join(_FPU)}; got {self.fpu_mode!r}")
        for name, low in (("sims", 1), ("batch", 1), ("max_nodes", 2), ("virtual_loss", 0)):
            check_int(name, getattr(self, name), min=low)
        if self.backup is None:
            from agents.mcts.backups import make_backup

            object.__setattr__(self, "backup", make_backup("mean"))

    @property
    def uses_solver(self) -> bool:
        """Alias of :attr:`solver` (the name :class:`MCTSConfig` uses)."""
        return self.solver

    def kernel_arrays(self, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
        """``(iparams int64 (9,), fparams float64 (4,))`` for the compiled kernels."""
        iparams = np.zeros(9, dtype=np.int64)
        iparams[I_POLICY] = POLICY_UCT if self.policy == "uct" else POLICY_PUCT
        iparams[I_FPU] = _FPU[self.fpu_mode]
        iparams[I_SOLVER] = int(self.solver)
        iparams[I_EXPAND] = self.expand_visits
        iparams[I_DEAD] = self.dead_playouts
        iparams[I_EYES] = int(self.avoid_eyes)
        iparams[I_KO] = _KO[rules.ko]
        iparams[I_SUICIDE] = int(rules.suicide)
        iparams[I_LIMIT] = rules.move_limit
        fparams = np.zeros(4, dtype=np.float64)
        fparams[F_C] = self.exploration
        fparams[F_FPU] = self.fpu_value
        fparams[F_PASS] = self.pass_prior
        fparams[F_KOMI] = float(rules.komi)
        return iparams, fparams
