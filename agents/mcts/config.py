"""Configuration of the ``mcts`` agent: a frozen, validated dataclass (the agent plugin).

Spec strings set its fields: ``mcts:sims=800,c=1.0,backup=softmax``,
``mcts:backup="coulom:a=2,b=16"``, ``mcts:time=0.5``, ``mcts:seed=3``, and a network leaf
evaluator: ``mcts:policy=puct,batch=8,evaluator=net:model.pt`` (``evaluator=net``: the shipped
model; options in quotes, ``evaluator="net:model.pt,lam=0.5"``, see
:mod:`agents.nets.evaluator_spec`).

The backup and the evaluator are plugins (entry-point groups ``gomcts.backups`` and
``gomcts.evaluators``): a spec names them by string, and the config holds them built, once, by
their registries (:func:`agents.plugins.plugin_field`); :func:`agents.registry.agent_spec`
writes them back. What the search does with a backup depends on its declared capabilities
(``proves_values``), not on its name.

Defaults follow [LL20] (Li and Lim, 2020; ``docs/protocol.md#setting``) where it is specific:
standard (mean) backup, move chosen by most visits, no tree reuse, PUCT constant 0.5 with
network priors. Our default leaf evaluation is random rollouts with uniform priors, for which
the tree policy is UCT (a PUCT prior of ``1/82`` on 9x9 would make the paper's 0.5 almost
greedy); its constant was chosen by matches between constants (see :data:`DEFAULT_C`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from agents.mcts.agent import MCTSAgent
from agents.mcts.backups.base import BackupStrategy
from agents.mcts.backups.registry import BACKUPS
from agents.mcts.evaluator_plugins import EVALUATORS, EvaluatorPlugin, RolloutEvaluatorConfig
from agents.mcts.params import SearchParams
from agents.plugins import capability, plugin_field, resolve_plugin_fields
from go_env.validation import check_choice, check_float, check_int

if TYPE_CHECKING:
    from agents.mcts.evaluators import Evaluator

__all__ = ["DEFAULT_C", "MAX_COUNT", "MAX_EXTEND", "MAX_SEED", "MCTSConfig"]

MAX_COUNT = 2**31 - 1
"""Upper bound of the counts of the config (``sims``, ``dead_playouts``, ``expand_visits``,
``virtual_loss``, ``max_nodes``, ...): they reach compiled code as 64-bit integers, where a
larger Python int overflows (``OverflowError`` or a numba typing error) instead of failing at
validation; 2**31 - 1 simulations per move would already take days."""
MAX_BATCH = 4096
"""Upper bound of ``batch``: the leaves of a batch (and their network inputs) are allocated up
front, so an absurd batch fails to allocate instead of running."""
MAX_EXTEND = 64.0
"""Upper bound of ``extend``: a move may take at most 65 times its budget."""
MAX_SEED = 2**63 - 1
"""Seeds are 0..2**63 - 1 (numpy's ``SeedSequence`` refuses negative seeds)."""

DEFAULT_C = {"uct": 0.5, "puct": 0.5}
"""Exploration constant of each tree policy when ``c`` is not given.

PUCT: 0.5, [LL20] section 11 (with network priors). With the shipped network ``c=1.5`` is
stronger: 172 of 200 against GNU Go level 10 on new openings, where 0.5 scored 160 of 200
(``docs/strength.md``, run ``net3-c15-seed2028``), so pass ``c=1.5`` for strength; the default stays
the paper's, so that a spec without ``c`` reproduces it.

UCT: 0.5, with values in ``[-1, 1]`` and random rollouts, from paired games on 9x9 (komi 7.5) at
1,000 simulations per move, mean backup, colours alternated: c = 0.5 beat c = 1.0 in 13 of 20
and 17 of 24 games; against c = 0.5, c = 0.25 scored 11/24, c = 0.7 12/24, and c = 1.4 and 2.0
scored 8/20 and 10/20 against c = 1.0. The range 0.25 to 0.7 is flat within the noise of these
counts; 1.0 and above are worse.
"""


@dataclass(frozen=True, kw_only=True)
class MCTSConfig:
    """Monte-Carlo tree search agent.

    Args:
        sims: Simulations per move (the budget ``N`` given to the backup's ``bind``).
        time: Seconds per move; when set, the search runs for this long (at least one
            simulation) instead of ``sims`` simulations, and ``sims`` stays the nominal ``N``.
        extend: Extra budget for a move whose search ends unstable, as a multiple of its
            ``sims`` (or ``time``); 0 (off) by default. While the most-visited move is not
            the best-valued one (:func:`~agents.mcts.agent.is_unstable`) the search goes on
            in rounds of half the budget, up to ``extend`` times it in all (Huang, Coulom and
            Lin, 2010, "UNST"). With root noise, each round draws its own.
        policy: Tree policy, ``"uct"`` or ``"puct"`` (see :mod:`agents.mcts.selection`).
        c: Exploration constant; ``None`` takes :data:`DEFAULT_C` of the policy.
        fpu: Value of children without visits: ``"auto"`` (``"infinite"`` under UCT,
            ``"absolute"`` with ``fpu_value`` 0 under PUCT, AlphaGo Zero's convention),
            ``"infinite"``, ``"parent"`` (parent value minus ``fpu_reduction``) or
            ``"absolute"`` (``fpu_value``).
        fpu_reduction: Reduction from the parent's value under ``fpu="parent"``.
        fpu_value: The value under ``fpu="absolute"``, in ``[-1, 1]``.
        noise_alpha: Dirichlet concentration of the root noise (0.03, AlphaGo Zero).
        noise_weight: Weight of the root noise in ``[0, 1]``; 0 (off) by default.
        backup: Backup strategy, a plugin of the ``gomcts.backups`` registry given by its spec
            (``"mean"``, ``"softmax"``, ``"coulom:a=2,b=16"``...) or as an instance; the
            config holds the instance. With a strategy that ``proves_values`` (``"solver"``)
            the search honours proven wins and losses.
        score_scale: Rollout value: 0 for win/loss/draw (+1/-1/0), ``s > 0`` for
            ``tanh(margin / s)``.
        end_scoring: How the search scores a game that ends by two passes inside the tree:
            ``"tromp_taylor"`` counts every stone on the board (the rules of
            :mod:`go_env`, where a player must capture dead stones); ``"remove_dead"``
            first removes the stones that random-playout ownership judges dead, as a
            referee or an opponent such as GNU Go does (``docs/decisions/011``). Games cut
            by the move cap are counted as they stand either way.
        dead_playouts: Random playouts of the dead-stone estimate under ``"remove_dead"``
            (once per finished position of the tree: its value is cached in the node).
        expand_visits: A leaf is expanded when a simulation reaches it with at least this many
            visits (0: at once; the root always is).
        avoid_eyes: Leave the moves that fill one's own eye out of the tree (the random
            playouts' eye, :meth:`~go_env.state.GoState.own_eye_mask`: every neighbour an
            own stone, at most one diagonal point the opponent's, none on the edge); pass
            stays. Such a move cannot capture and only takes a liberty from one's own group,
            yet a network whose value is saturated in a won game plays it like any other
            (``docs/strength.md``, "Filling one's own eyes").
        max_nodes: Node cap of the tree; once reached, leaves are evaluated without expansion.
        pass_prior: Prior weight of pass relative to one board point under uniform priors
            (matters under PUCT only).
        choice: Move played: ``"auto"`` (``"secure"`` with the solver backup, else
            ``"visits"``), ``"visits"`` (most visits), ``"value"`` (best mean value among the
            children with at least a tenth of the top visit count) or ``"secure"``
            (``q + secure_a / sqrt(n)``, MCTS-Solver's secure child).
        secure_a: Constant ``A`` of the secure child. The sources (Winands et al., 2008;
            Chaslot et al., 2008) print ``q + A/sqrt(n)`` with ``A = 1`` and call it a lower
            confidence bound; only a negative ``A`` is one (a positive one prefers the least
            visited child), so the default is -1.
        pass_guard: Play a pass only when its value beats the best non-pass move's clearly,
            or when it ends the game without losing value (see
            :func:`~agents.mcts.agent.choose_move`).
        temperature: Temperature of the move sampling of the first ``temperature_moves``.
        temperature_moves: While the game has fewer moves than this, the move is sampled
            with probabilities proportional to ``visits ** (1 / temperature)``.
        reuse_tree: Keep the subtree of the position reached between two moves.
        resign: Resign (raise :class:`~agents.mcts.agent.Resignation`) when the value of the
            chosen move, in ``[-1, 1]``, is below this; ``None`` never resigns.
        resign_after: No resignation before this many moves of the game.
        evaluator: Leaf evaluator, a plugin of the ``gomcts.evaluators`` registry given by its
            spec or as an instance (:mod:`agents.mcts.evaluator_plugins`): ``"rollout"``
            (random rollouts, uniform priors), a network, ``"net"`` / ``"net:PATH"`` with
            options such as ``lam`` (rollout mixing) and ``symmetry`` (see
            :mod:`agents.nets.evaluator_spec`; needs the ``nets`` extra), ``"mix:value=...,
            lam=..."``, or an installed plugin's. Networks give priors: use
            ``policy="puct"`` with them.
        batch: Leaves collected (with virtual loss) and evaluated together per step; 1 is
            plain sequential MCTS. Larger batches let a network evaluate many positions at
            once (see :mod:`agents.mcts.search`).
        virtual_loss: Lost visits added to each node of a pending path while a batch is
            collected (0: none; only used with ``batch > 1``).
        seed: Seed of the search (``None``: fresh entropy).
        name: Name of the agent in game records.
    """

    sims: int = 1000
    time: float | None = None
    extend: float = 0.0
    policy: Literal["uct", "puct"] = "uct"
    c: float | None = None
    fpu: Literal["auto", "infinite", "parent", "absolute"] = "auto"
    fpu_reduction: float = 0.0
    fpu_value: float = 0.0
    noise_alpha: float = 0.03
    noise_weight: float = 0.0
    backup: BackupStrategy = plugin_field(BACKUPS, "mean")
    score_scale: float = 0.0
    end_scoring: Literal["tromp_taylor", "remove_dead"] = "tromp_taylor"
    dead_playouts: int = 32
    expand_visits: int = 0
    avoid_eyes: bool = False
    max_nodes: int = 4_000_000
    pass_prior: float = 1.0
    choice: Literal["auto", "visits", "value", "secure"] = "auto"
    secure_a: float = -1.0
    pass_guard: bool = True
    temperature: float = 1.0
    temperature_moves: int = 0
    reuse_tree: bool = False
    resign: float | None = None
    resign_after: int = 0
    evaluator: EvaluatorPlugin = plugin_field(EVALUATORS, "rollout")
    batch: int = 1
    virtual_loss: int = 1
    seed: int | None = None
    name: str = "mcts"

    def __post_init__(self) -> None:
        _check_int("sims", self.sims, 1, MAX_COUNT)
        if self.time is not None and not (_is_number(self.time) and self.time > 0):
            raise ValueError(
                f"time must be a positive number of seconds or None, got {self.time!r}"
            )
        _check_float("extend", self.extend, 0.0, MAX_EXTEND)
        check_choice("policy", self.policy, ("uct", "puct"))
        if self.c is not None and not (_is_number(self.c) and self.c >= 0):
            raise ValueError(f"c must be a number >= 0 or None, got {self.c!r}")
        check_choice("fpu", self.fpu, ("auto", "infinite", "parent", "absolute"))
        _check_float("fpu_reduction", self.fpu_reduction, 0.0, 2.0)
        _check_float("fpu_value", self.fpu_value, -1.0, 1.0)
        if not (_is_number(self.noise_alpha) and self.noise_alpha > 0):
            raise ValueError(f"noise_alpha must be > 0, got {self.noise_alpha!r}")
        _check_float("noise_weight", self.noise_weight, 0.0, 1.0)
        if not (_is_number(self.score_scale) and self.score_scale >= 0):
            raise ValueError(
                f"score_scale must be >= 0 (0 = win/loss value), got {self.score_scale!r}"
            )
        check_choice("end_scoring", self.end_scoring, ("tromp_taylor", "remove_dead"))
        _check_int("dead_playouts", self.dead_playouts, 1, MAX_COUNT)
        _check_int("expand_visits", self.expand_visits, 0, MAX_COUNT)
        _check_int("max_nodes", self.max_nodes, 1024, MAX_COUNT)
        if not (_is_number(self.pass_prior) and self.pass_prior >= 0):
            raise ValueError(f"pass_prior must be >= 0, got {self.pass_prior!r}")
        check_choice("choice", self.choice, ("auto", "visits", "value", "secure"))
        _check_float("secure_a", self.secure_a, -10.0, 10.0)
        if not (_is_number(self.temperature) and self.temperature > 0):
            raise ValueError(f"temperature must be > 0, got {self.temperature!r}")
        _check_int("temperature_moves", self.temperature_moves, 0, MAX_COUNT)
        for flag in ("pass_guard", "reuse_tree", "avoid_eyes"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.resign is not None:
            _check_float("resign", self.resign, -1.0, 1.0)
        _check_int("resign_after", self.resign_after, 0, MAX_COUNT)
        _check_int("batch", self.batch, 1, MAX_BATCH)
        _check_int("virtual_loss", self.virtual_loss, 0, MAX_COUNT)
        if self.seed is not None:
            _check_int("seed", self.seed, 0, MAX_SEED, "or None")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        resolve_plugin_fields(self)  # builds backup and evaluator from their specs, once

    # ----------------------------------------------------------------- derived values
    @property
    def exploration(self) -> float:
        """The exploration constant in use (``c`` or the policy's default)."""
        return float(DEFAULT_C[self.policy] if self.c is None else self.c)

    @property
    def fpu_mode(self) -> str:
        """The FPU rule in use, ``"auto"`` resolved."""
        if self.fpu != "auto":
            return self.fpu
        return "infinite" if self.policy == "uct" else "absolute"

    @property
    def uses_solver(self) -> bool:
        """Whether the backup proves values (MCTS-Solver: it writes ``Tree.proven``)."""
        return capability(self.backup, "proves_values")

    @property
    def move_choice(self) -> str:
        """The move-choice rule in use, ``"auto"`` resolved."""
        if self.choice != "auto":
            return self.choice
        return "secure" if self.uses_solver else "visits"

    def search_params(self) -> SearchParams:
        """The resolved parameters of this agent's tree search (backup built once)."""
        return SearchParams(
            sims=self.sims,
            policy=self.policy,
            exploration=self.exploration,
            fpu_mode=self.fpu_mode,  # type: ignore[arg-type]
            fpu_value=self.fpu_reduction if self.fpu_mode == "parent" else self.fpu_value,
            backup=self.backup_strategy(),
            solver=self.uses_solver,
            score_scale=self.score_scale,
            dead_playouts=self.dead_playouts if self.end_scoring == "remove_dead" else 0,
            expand_visits=self.expand_visits,
            avoid_eyes=self.avoid_eyes,
            max_nodes=self.max_nodes,
            pass_prior=self.pass_prior,
            noise_alpha=self.noise_alpha,
            noise_weight=self.noise_weight,
            batch=self.batch,
            virtual_loss=self.virtual_loss,
            seed=self.seed,
        )

    def backup_strategy(self) -> BackupStrategy:
        """The backup strategy (not yet bound; the instance the config holds)."""
        return self.backup

    def make_evaluator(self) -> Evaluator | None:
        """A new leaf evaluator of :attr:`evaluator`; ``None`` for one light rollout (the search's).

        Any other evaluator is seeded from :attr:`seed` (symmetry draws, rollouts...).
        """
        evaluator = self.evaluator
        if (
            isinstance(evaluator, RolloutEvaluatorConfig)
            and evaluator.playout == "light"
            and evaluator.rollouts == 1
        ):
            return None  # the search seeds its own rollouts (seeded games stay the same)
        seed = None
        if self.seed is not None:
            seed = int(np.random.SeedSequence([self.seed, 0x6E6574]).generate_state(1)[0])
        return self.evaluator.build(seed=seed, score_scale=self.score_scale)

    def build(self) -> MCTSAgent:
        """The agent this config describes."""
        return MCTSAgent(self, evaluator=self.make_evaluator())


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_int(name: str, value: object, low: int, high: int, extra: str = "") -> None:
    also = f" {extra}" if extra else ""
    check_int(name, value, min=low, max=high, allowed=f"an int in [{low}, {high}]{also}")


def _check_float(name: str, value: object, low: float, high: float) -> None:
    check_float(name, value, min=low, max=high)
