"""The settings of a self-play run (``gomcts train selfplay``), stored in its manifest.

Everything that decides the games and the networks is a field of :class:`SelfPlayConfig`;
a resumed run must have the same fields (:meth:`SelfPlayConfig.check_resume`), except those
in :data:`RUNTIME_FIELDS`, which may change from one start to the next (more generations,
more workers on a bigger machine, a stricter gate).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from agents.nets.net_config import NetConfig
from agents.nets.threads import check_threads
from agents.nets.training.generation import GameSettings
from agents.nets.training.ladder_anchors import LadderAnchor, parse_ladder_anchors
from go_env.rules import Rules
from go_env.validation import check_int

__all__ = [
    "LEGACY_VALUES",
    "RUNTIME_FIELDS",
    "SelfPlayConfig",
    "field_value",
    "parse_settings",
]

LEGACY_VALUES: dict[str, Any] = {"fpu": "auto", "fpu_reduction": 0.0, "ownership_weight": 0.0}
"""The value of a recipe field in a manifest written before the field existed: the one rule
there was then. A new run gets the field's default; an old run resumes, is forked and is
reported with its legacy value (first-play urgency 0 under PUCT, before ``fpu`` existed)."""

RUNTIME_FIELDS = frozenset(
    {
        "generations",
        "games",
        "workers",
        "games_per_worker",
        "device",
        "threads",
        "gate_games",
        "gate_elo0",
        "gate_elo1",
        "gate_alpha",
        "gate_beta",
        "ladder_games",
        "ladder_every",
        "ladder_gnugo",
        "ladder_anchors",
        "train_steps",
    }
)
"""Fields a resumed run may change: how much to do, with what machine, and how strictly to
judge (``games``: the next generations' length, e.g. to fit a generation into a session; the
generation in progress plays up to the new number; the gate's test, e.g. a smaller
``gate_elo1`` with more ``gate_games`` once the gains per generation shrink; extra ladder
anchors, once the built-in ones saturate; ``train_steps``, the training of the generations
not yet trained, as self-play costs far more than training and a run may find that more steps
on the same games pay; a manifest written before a field existed resumes with its default).
Each start's row in the manifest records the fields it changed (``changed``), and each
generation's metrics row its ``train_steps``. The book, the fixed N of the gate and ladder,
the searches and the rest of the training stay as the run began."""


@dataclass(frozen=True, kw_only=True)
class SelfPlayConfig:
    """A self-play run (defaults and why: ``docs/nets.md``, "Self-play").

    Args:
        net: The network's shape and inputs (default: the ``paper-9x9`` preset).
        komi: Komi of the games.
        max_moves: Move cap (``None``: the rules' ``2*N*N``).
        generations: Generations to reach (a rerun may raise it).
        games: Self-play games per generation.
        search: ``"gumbel"`` or ``"puct"`` (:mod:`agents.nets.training.generation`).
        sims: Simulations of a full search.
        fast_sims: Simulations of a fast search (playout cap randomisation).
        full_share: Share of moves with a full search (1: playout cap off).
        considered: Gumbel's ``m``.
        c_visit: Gumbel's ``c_visit``.
        c_scale: Gumbel's ``c_scale``.
        c: PUCT constant.
        noise_alpha: Dirichlet concentration (PUCT).
        noise_weight: Dirichlet weight (PUCT).
        temperature_moves: Moves sampled by visit counts (PUCT).
        fpu: First-play urgency of the self-play PUCT searches (the whole PUCT search, and
            below Gumbel's root): ``"parent"`` (the parent's value less ``fpu_reduction``)
            or ``"auto"`` (0; runs made before this field existed,
            :data:`LEGACY_VALUES`). The gate's and the ladder's agents keep ``"auto"``.
        fpu_reduction: The reduction under ``fpu="parent"`` (under ``"auto"`` there is none:
            the field is stored as 0, so ``--fpu auto`` resumes an old run whatever
            ``--fpu-reduction`` says).
        window: Generations of games in the replay window.
        train_steps: Optimizer steps per generation.
        batch_size: Examples per step.
        lr: Learning rate (AdamW).
        weight_decay: Weight decay.
        ownership_weight: Weight of KataGo's ownership term in the loss
            (:mod:`agents.nets.training.step`; Wu uses 1.5); the network has an ownership
            head exactly when it is above 0 (``net.ownership`` follows it). 0, the default:
            no head, no term (runs made before this field existed, :data:`LEGACY_VALUES`).
        gate_sims: Simulations per move of the gate's and the ladder's PUCT agents (fixed N).
        gate_games: Most games of a gate match (the SPRT usually stops it sooner).
        gate_elo0: The SPRT's H0 (candidate no better than ``elo0``).
        gate_elo1: The SPRT's H1 (candidate at least ``elo1`` better).
        gate_alpha: The SPRT's false-promotion rate.
        gate_beta: The SPRT's false-rejection rate.
        book_size: Openings of the gate's balanced book.
        ladder_games: Games of the best network against each anchor.
        ladder_every: Also measure the ladder every this many generations (0: only after a
            promotion).
        ladder_gnugo: GTP command of a GNU Go anchor (``""``: none).
        ladder_anchors: Extra anchors, comma-separated, played after the built-in ones in
            the order given: ``gen-NNNN``, ``gen-NNNN@SIMS``, ``supervised@SIMS``
            (:mod:`agents.nets.training.ladder_anchors`; ``""``: none).
        init: Checkpoint to start from (``None``: tabula rasa, random weights).
        evaluator: The ``net`` evaluator spec without a model (the run's network is filled
            in), e.g. ``"net:symmetry=random,cache=100000"``; its options pass through.
        seed: Seed of the run.
        workers: Worker processes of self-play and of the gate.
        games_per_worker: Games each worker plays at once, sharing network calls.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"`` (training; the evaluator has its own).
        threads: Torch CPU threads of the training process.
    """

    net: NetConfig = dataclasses.field(default_factory=lambda: NetConfig.preset("paper-9x9"))
    komi: float = 7.5
    max_moves: int | None = None
    generations: int = 100
    games: int = 2500
    search: Literal["gumbel", "puct"] = "puct"
    sims: int = 64
    fast_sims: int = 16
    full_share: float = 0.25
    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 0.1
    c: float = 1.0
    noise_alpha: float = 0.15
    noise_weight: float = 0.25
    temperature_moves: int = 8
    fpu: Literal["parent", "auto"] = "parent"
    fpu_reduction: float = 0.2
    window: int = 4
    train_steps: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    ownership_weight: float = 0.0
    gate_sims: int = 64
    gate_games: int = 100
    gate_elo0: float = 0.0
    gate_elo1: float = 50.0
    gate_alpha: float = 0.05
    gate_beta: float = 0.1
    book_size: int = 50
    ladder_games: int = 40
    ladder_every: int = 5
    ladder_gnugo: str = ""
    ladder_anchors: str = ""
    init: str | None = None
    evaluator: str = "net"
    seed: int = 0
    workers: int = 1
    games_per_worker: int = 16
    device: str = "cpu"
    threads: int = 1

    def __post_init__(self) -> None:
        for name in (
            "generations",
            "games",
            "window",
            "train_steps",
            "batch_size",
            "gate_sims",
            "gate_games",
            "book_size",
            "ladder_games",
            "workers",
            "games_per_worker",
        ):
            value = getattr(self, name)
            check_int(name, value, min=1)
        if self.gate_games < 2:
            raise ValueError(f"gate_games must be >= 2 (pairs of games), got {self.gate_games}")
        if self.ladder_every < 0:
            raise ValueError(f"ladder_every must be >= 0, got {self.ladder_every}")
        for name in ("lr", "weight_decay", "ownership_weight"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not self.evaluator.strip().startswith("net"):
            raise ValueError(
                f"evaluator must be a 'net' evaluator spec (e.g. 'net:symmetry=random'), "
                f"got {self.evaluator!r}"
            )
        from agents.mcts.evaluator_plugins import make_evaluator

        make_evaluator(self.evaluator_spec("default"))  # a bad option fails here, not later
        check_threads(self.threads)
        extra = self.extra_anchors()
        if self.net.size != 9 and any(a.generation is None for a in extra):
            raise ValueError(
                f"ladder_anchors: supervised@SIMS needs a 9x9 run (the shipped supervised "
                f"network plays 9x9), this run is {self.net.size}x{self.net.size}; use "
                "gen-NNNN or gen-NNNN@SIMS anchors"
            )
        if self.fpu == "auto":  # no reduction under auto: stored as 0, whatever was given
            object.__setattr__(self, "fpu_reduction", 0.0)
        head = self.ownership_weight > 0
        if self.net.ownership != head:  # the head follows the weight
            object.__setattr__(self, "net", dataclasses.replace(self.net, ownership=head))
        self.settings()  # validates the search fields
        self.rules  # noqa: B018 - validates komi and the move cap

    @property
    def rules(self) -> Rules:
        """The rules of the games (the board size is the network's)."""
        return Rules(size=self.net.size, komi=self.komi, max_moves=self.max_moves)

    def settings(self) -> GameSettings:
        """How each self-play game is played."""
        shared = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(GameSettings)
            if f.name != "rules"
        }
        return GameSettings(rules=self.rules, **shared)

    def evaluator_spec(self, model: str) -> str:
        """The evaluator spec with ``model`` as its network (other options kept)."""
        from agents.spec import POSITIONAL, parse_spec

        _, params = parse_spec(self.evaluator)
        params.pop(POSITIONAL, None)
        return "net:" + ",".join([model, *(f"{k}={v}" for k, v in params.items())])

    def extra_anchors(self) -> tuple[LadderAnchor, ...]:
        """The anchors of ``ladder_anchors``, parsed and checked."""
        return parse_ladder_anchors(self.ladder_anchors, gate_sims=self.gate_sims)

    def agent_spec(self, model: str, name: str, *, sims: int | None = None) -> str:
        """The fixed-N PUCT agent of the gate and the ladder, with the network at ``model``.

        ``sims``: another fixed N (an extra ladder anchor's); ``None``, the gate's
        ``gate_sims``, gives the spec every gate and built-in anchor has always had.
        """
        evaluator = self.evaluator_spec(model)
        n = self.gate_sims if sims is None else sims
        return f'mcts:policy=puct,sims={n},c={self.c:g},name={name},evaluator="{evaluator}"'

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        out = dataclasses.asdict(self)
        out["net"] = self.net.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SelfPlayConfig:
        """The config of :meth:`to_dict`'s output (a field it lacks: :data:`LEGACY_VALUES`)."""
        return cls(**{**LEGACY_VALUES, **data, "net": NetConfig.from_dict(data["net"])})

    def runtime_changes(self, saved: dict[str, Any]) -> dict[str, list[Any]]:
        """The runtime fields whose value differs from ``saved``'s: name -> ``[saved, now]``.

        A field ``saved`` lacks (a manifest written before it existed) counts as its default.
        """
        mine = self.to_dict()
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        return {
            k: [saved.get(k, defaults[k]), mine[k]]
            for k in sorted(RUNTIME_FIELDS)
            if saved.get(k, defaults[k]) != mine[k]
        }

    def check_resume(self, saved: dict[str, Any]) -> None:
        """Refuse to continue a run saved with other settings.

        Raises:
            ValueError: Naming the fields that differ.
        """
        mine = self.to_dict()
        saved = {**LEGACY_VALUES, **saved}
        saved["net"] = NetConfig.from_dict(saved["net"]).to_dict()  # a newer field's default
        differ = sorted(
            k
            for k in set(mine) | set(saved)
            if k not in RUNTIME_FIELDS and mine.get(k) != saved.get(k)
        )
        if differ:
            shown = ", ".join(f"{k}: {saved.get(k)!r} -> {mine.get(k)!r}" for k in differ)
            raise ValueError(
                f"this folder holds a self-play run with other settings ({shown}); rerun with "
                f"the same settings (only {', '.join(sorted(RUNTIME_FIELDS))} may change) or "
                "use another --out folder"
            )


def field_value(name: str, text: str) -> Any:
    """The value of :class:`SelfPlayConfig` field ``name`` written as ``text`` (``--set``).

    Converted to the type of the field's default (``str``, ``float`` or ``int``).

    Raises:
        ValueError: ``name`` is no settable field (``net`` is set by the network's own
            options), or ``text`` is no value of its type.
    """
    fields = {f.name: f for f in dataclasses.fields(SelfPlayConfig) if f.name != "net"}
    if name not in fields:
        raise ValueError(f"unknown field {name!r}; known: {', '.join(sorted(fields))}")
    default = fields[name].default
    kind: type = int
    if name == "init" or isinstance(default, str):
        kind = str
    elif isinstance(default, float):
        kind = float
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected {kind.__name__}") from None


def parse_settings(items: Iterable[str]) -> dict[str, Any]:
    """``FIELD=VALUE`` texts (``--set``, repeatable) as field -> value (:func:`field_value`).

    Raises:
        ValueError: An item without ``=``, or one :func:`field_value` refuses, named.
    """
    settings: dict[str, Any] = {}
    for item in items:
        name, equals, text = item.partition("=")
        if not equals:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE, e.g. --set search=puct")
        try:
            settings[name] = field_value(name, text)
        except ValueError as exc:
            raise ValueError(f"--set {item!r}: {exc}") from None
    return settings
