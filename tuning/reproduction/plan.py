"""Experiment plans: a TOML file that declares the matches and studies of a reproduction.

A plan (``experiments/li-lim-9x9.toml`` is the one of ``docs/reproduction.md``) has three
parts::

    [plan]                       # name, output folder, what the plan reproduces
    name = "li-lim-9x9"
    root = ".."                  # paths below are relative to this folder (default: the plan's)
    out = "docs/results/reproduction/li-lim-9x9"

    [setting]                    # shared by every row unless a row overrides it
    size = 9
    komi = 7.5
    ko = "positional"
    sims = 200
    paper_sims = 5000
    agent = "mcts:sims={sims},policy=puct,c=0.5,evaluator=net,choice=visits"
    openings = "book:docs/results/reproduction/li-lim-9x9/openings-balanced.txt"
    games_per_worker = 16        # how games are played (shared network calls), not what

    [[row]]                      # a match: candidate backup against baseline backup
    id = "coulom-2-16"
    table = "A"
    label = "Coulom(2,16) vs standard"
    paper = 44.9                 # the paper's winrate in percent (optional)
    candidate = "coulom:a=2,b=16"
    baseline = "mean"
    games = 800
    seed = 2

    [[row]]                      # a study: Bayesian optimisation of a backup's weights
    id = "bo-softmax"
    kind = "study"
    space = "softmax"
    d = 3
    trials = 20
    games = 100

A study row's keys are its ``space`` (a backup with a tunable space), ``d`` (segments, default
3) and ``bounds``, the row's ``sims``, ``agent`` template and ``baseline`` backup as a match
row's, and every setting of :class:`tuning.studies.config.StudyConfig` that describes the
study under its own name (``games``, ``batch``, ``prune``, ``prune_z``, ``prune_min_games``,
``trials``, ``sampler``, ``startup_trials``, ``seed``, ``opening_moves``, ``book``, ``jobs``,
``max_retry``...; a setting added there is a row key too, checked by the type of its field
and by ``StudyConfig``'s own validation). Those the plan decides itself are not keys:
the rules (``[setting]``), the folder and storage (the row's folder), how this run plays
(``games_per_worker``, ``workers``, ``ray``: ``[setting]`` and the command's options), the
verification (the plan's own match rows confirm a recommendation) and the trap-tree
objective (a plan's studies play arena games). A path (``book``) is relative to the plan's
root. The plan's defaults differ from ``StudyConfig``'s in two places: ``startup_trials`` 8
and ``batch`` ``min(20, games)``.

A match row's agents are ``setting.agent`` (``{sims}`` filled with the row's ``sims``) with
``backup="<candidate>"`` and ``backup="<baseline>"``: only the backup differs. A row may give
its own ``agent`` template, ``sims``, ``openings`` (``book:PATH`` or ``random:K``), ``komi``
and ``compare_with`` (ids of rows that met the same baseline on the same openings: the
results table adds a paired sign test). A backup spec may name a study's recommended
parameters as ``@study:ID`` (``softmax:@study:bo-softmax``); the reference resolves to the
parameter file the study wrote.

Everything is checked when the plan is loaded: unknown keys, duplicate ids, references to
unknown or later studies, and every spec (parsed by the agents' own validation), so a typo
fails at once with the row and key named, not hours later in a worker.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import string
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from go_env.rules import KoRule, Rules
from tuning.paths import relative_inside

if TYPE_CHECKING:
    from tuning.studies.config import StudyConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "SET_BY_PLAN",
    "STUDY_REF",
    "MatchRow",
    "Openings",
    "Plan",
    "PlanError",
    "Setting",
    "StudyRow",
    "agent_with_backup",
    "load_plan",
    "study_settings",
]

STUDY_REF = re.compile(r"@study:([a-z0-9][a-z0-9_-]*)")
"""A reference to a study's recommended parameters inside a backup spec."""

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_PLAN_KEYS = {"name", "description", "root", "out", "reproduces", "docs"}
_SETTING_KEYS = {
    "size",
    "komi",
    "ko",
    "sims",
    "paper_sims",
    "agent",
    "openings",
    "referee",
    "notes",
    "games_per_worker",
}
_COMMON_ROW_KEYS = {"id", "kind", "table", "label", "paper", "note", "seed", "games"}
_MATCH_KEYS = _COMMON_ROW_KEYS | {
    "candidate",
    "baseline",
    "agent",
    "sims",
    "openings",
    "komi",
    "compare_with",
}
_STUDY_OWN_KEYS = {"space", "d", "bounds", "sims", "agent", "baseline"}
"""A study row's keys that the plan reads itself (the module docstring)."""

SET_BY_PLAN = frozenset(
    {
        "space",  # from the row's space, d and bounds
        "agent",  # the row's agent template with its sims
        "baseline",  # the template with the row's baseline backup
        "rules",  # [setting]
        "out",  # the row's folder holds the study
        "storage",
        "study_name",
        "games_per_worker",  # how this run plays: [setting], the command's options
        "workers",
        "ray",
        "verify_games",  # the plan's own match rows confirm a recommendation
        "verify_workers",
        "traps",  # a plan's studies play arena games
    }
)
"""The :class:`~tuning.studies.config.StudyConfig` fields that a study row does not set."""

_STUDY_DEFAULTS: dict[str, Any] = {"startup_trials": 8}
"""The plan's defaults where they are not ``StudyConfig``'s (and ``batch``: min(20, games))."""

_TYPE_NAMES = {bool: "true or false", int: "an int", float: "a number", str: "a string"}


def agent_with_backup(template: str, sims: int, backup: str) -> str:
    """The agent spec of ``template`` (``{sims}`` filled) searching with ``backup``.

    The standard mean, the agent's default backup, is left out, so that the baseline reads
    as the plain agent (the spec a match started by hand would most likely use).
    """
    agent = template.format(sims=sims)
    return agent if backup == "mean" else f'{agent},backup="{backup}"'


class PlanError(ValueError):
    """A plan file is malformed; the message names the row and the key."""


def check_agent_template(template: str, where: str) -> None:
    """Check an agent template: ``{sims}`` is its one field (``{{`` and ``}}`` are braces).

    Raises:
        PlanError: For a template without ``{sims}``, with another field (``{0}``, ``{x}``,
            ``{sims:3}``) or with an unpaired brace.
    """
    allowed = "its one field is {sims} (write {{ and }} for literal braces)"
    try:
        fields = [
            (name, spec, conversion)
            for _, name, spec, conversion in string.Formatter().parse(template)
            if name is not None
        ]
    except ValueError as exc:  # "Single '}' encountered in format string"
        raise PlanError(f"{where}: bad agent template {template!r} ({exc}); {allowed}") from None
    others = [
        name for name, spec, conversion in fields if (name, spec, conversion) != ("sims", "", None)
    ]
    if others or not fields:
        found = f"fields {others}" if others else "it must contain {sims}"
        raise PlanError(f"{where}: bad agent template {template!r} ({found}); {allowed}")


@dataclass(frozen=True)
class Openings:
    """Where a match's openings come from: a book file or ``k`` random moves.

    Attributes:
        kind: ``"book"`` or ``"random"``.
        path: The book (``kind == "book"``), resolved against the plan's root.
        moves: Random opening moves (``kind == "random"``).
        text: The value as written in the plan.
    """

    kind: str
    path: Path | None
    moves: int
    text: str

    @classmethod
    def parse(cls, text: str, root: Path, where: str) -> Openings:
        """Parse ``book:PATH`` or ``random:K``."""
        kind, _, value = str(text).partition(":")
        if kind == "book" and value:
            return cls("book", root / value, 0, text)
        if kind == "random" and value.isdigit():
            return cls("random", None, int(value), text)
        raise PlanError(
            f"{where}: openings must be 'book:PATH' or 'random:K' (K moves), got {text!r}"
        )


@dataclass(frozen=True)
class Setting:
    """The shared setting of the plan's rows (``[setting]``)."""

    size: int = 9
    komi: float = 7.5
    ko: str = "positional"
    sims: int = 200
    paper_sims: int | None = None
    agent: str = "mcts:sims={sims},policy=puct,c=0.5,evaluator=net,choice=visits"
    openings: str = "random:2"
    referee: str = "auto"
    notes: str = ""
    games_per_worker: int = 1
    """Games each arena process plays at once, their leaves evaluated by shared network calls
    (``docs/arena.md``): how the rows are played, not what they are, so it is in no row's
    fingerprint; ``gomcts reproduce --games-per-worker`` overrides it."""


@dataclass(frozen=True)
class MatchRow:
    """A match: the candidate backup against the baseline backup (module docstring)."""

    id: str
    table: str
    label: str
    paper: float | str | None
    candidate: str
    baseline: str
    games: int
    seed: int
    sims: int
    agent: str
    openings: Openings
    rules: Rules
    referee: str
    compare_with: tuple[str, ...] = ()
    note: str = ""
    kind: str = "match"

    def agent_spec(self, backup: str) -> str:
        """The full agent spec with ``backup`` (references not resolved)."""
        return agent_with_backup(self.agent, self.sims, backup)

    def references(self) -> list[str]:
        """Ids of the studies whose parameters this row uses."""
        return STUDY_REF.findall(self.candidate) + STUDY_REF.findall(self.baseline)


@dataclass(frozen=True)
class StudyRow:
    """A Bayesian-optimisation study of a backup's weights against the baseline.

    Attributes:
        space: The tuned backup (the space's name), ``d`` its segments and ``bounds`` its box.
        sims: Simulations per move of both sides.
        agent: The agent template (``{sims}`` unfilled).
        baseline: The baseline's backup.
        study: The study the row describes: every setting of the row, the plan's defaults
            and the ``[setting]``, with the row's folder as ``out`` (the runner sets the
            parallel jobs and the games per worker of a run).
    """

    id: str
    table: str
    label: str
    space: str
    d: int
    bounds: tuple[float, float] | None
    sims: int
    agent: str
    baseline: str
    study: StudyConfig
    paper: float | None = None
    note: str = ""
    kind: str = "study"

    @property
    def games(self) -> int:
        """Games per trial."""
        return self.study.games

    @property
    def trials(self) -> int:
        """Trials the study runs to."""
        return self.study.trials

    @property
    def seed(self) -> int:
        """The study's seed."""
        return self.study.seed

    def agent_spec(self, backup: str) -> str:
        """The full agent spec with ``backup``."""
        return agent_with_backup(self.agent, self.sims, backup)


Row = MatchRow | StudyRow


@dataclass(frozen=True)
class Plan:
    """A loaded plan: its rows in file order, and where their results go."""

    path: Path
    name: str
    description: str
    reproduces: str
    root: Path
    out: Path
    setting: Setting
    rows: tuple[Row, ...] = field(default_factory=tuple)
    docs: Path | None = None

    def row(self, row_id: str) -> Row:
        """The row called ``row_id``."""
        for row in self.rows:
            if row.id == row_id:
                return row
        raise PlanError(f"no row {row_id!r} in {self.path}; rows: {', '.join(self.ids)}")

    @property
    def ids(self) -> list[str]:
        """Row ids in plan order."""
        return [row.id for row in self.rows]

    def folder(self, row: Row | str) -> Path:
        """The results folder of a row."""
        return self.out / (row if isinstance(row, str) else row.id)


def _check_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise PlanError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def _typed(table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = table[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise PlanError(f"{where}: {key} must be {kind}, got {value!r}")
    if not isinstance(value, kind):
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise PlanError(f"{where}: {key} must be {name}, got {value!r}")
    return value


def _positive_int(table: Mapping[str, Any], key: str, where: str, *, even: bool = False) -> int:
    value = _typed(table, key, int, where)
    if value <= 0 or (even and value % 2):
        raise PlanError(
            f"{where}: {key} must be a positive{' even' if even else ''} integer, got {value}"
        )
    return int(value)


def _check_spec(spec: str, where: str) -> None:
    from agents.registry import agent_config

    try:
        agent_config(spec)
    except (ValueError, TypeError, KeyError) as exc:
        raise PlanError(f"{where}: bad agent spec {spec!r}: {exc}") from None


def _check_backup(backup: str, where: str) -> None:
    from agents.mcts.backups.factory import make_backup

    if "@study:" in backup:
        from tuning.search_spaces import tunable_backups

        name = backup.split(":", 1)[0]
        tunable = tunable_backups()
        if name not in tunable:
            raise PlanError(
                f"{where}: only a backup that declares tunable parameters "
                f"({', '.join(tunable)}) takes a study's parameters, got {backup!r}"
            )
        return
    try:
        make_backup(backup)
    except (ValueError, TypeError, KeyError) as exc:
        raise PlanError(f"{where}: bad backup spec {backup!r}: {exc}") from None


def _check_space(space: str, d: int, bounds: tuple[float, float] | None, where: str) -> None:
    """A study row's space: any backup that declares tunable parameters, as ``gomcts tune``."""
    from tuning.search_spaces import make_space

    try:
        make_space(space, d=d, bounds=bounds)
    except ValueError as exc:
        raise PlanError(f"{where}: space must be a backup with a tunable space: {exc}") from None


def _rules(setting: Setting, komi: float) -> Rules:
    try:
        return Rules(size=setting.size, komi=komi, ko=KoRule(setting.ko))
    except ValueError as exc:
        raise PlanError(f"[setting]: {exc}") from None


def load_plan(path: str | PathLike[str]) -> Plan:
    """Read and check a plan file (module docstring).

    Raises:
        PlanError: For a malformed plan; the message names the row (by id or number) and key.
        OSError: When the file cannot be read.
    """
    source = Path(path)
    try:
        doc = tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: not valid TOML: {exc}") from None
    _check_keys(doc, {"plan", "setting", "row"}, str(source))
    head = doc.get("plan", {})
    _check_keys(head, _PLAN_KEYS, f"{source} [plan]")
    if "name" not in head or "out" not in head:
        raise PlanError(f"{source} [plan]: 'name' and 'out' are required")
    root = (source.parent / str(head.get("root", "."))).resolve()
    raw_setting = doc.get("setting", {})
    _check_keys(raw_setting, _SETTING_KEYS, f"{source} [setting]")
    if "games_per_worker" in raw_setting:
        _positive_int(raw_setting, "games_per_worker", f"{source} [setting]")
    setting = Setting(**raw_setting)
    check_agent_template(setting.agent, f"{source} [setting]")
    out = root / str(head["out"])
    rows: list[Row] = []
    seen: dict[str, str] = {}
    raw_rows = doc.get("row", [])
    if not raw_rows:
        raise PlanError(f"{source}: the plan has no [[row]]")
    for number, raw in enumerate(raw_rows, 1):
        where = f"{source}, row {number}"
        if "id" not in raw:
            raise PlanError(f"{where}: 'id' is required")
        row_id = str(raw["id"])
        where = f"{source}, row {row_id!r}"
        if not _ID.match(row_id):
            raise PlanError(f"{where}: id must match [a-z0-9][a-z0-9_-]*, got {row_id!r}")
        if row_id in seen:
            raise PlanError(f"{where}: the id is used twice")
        kind = raw.get("kind", "match")
        if kind == "match":
            match = _match_row(raw, setting, root, where)
            row: Row = match
            for ref in match.references():
                if seen.get(ref) != "study":
                    raise PlanError(f"{where}: @study:{ref} names no study defined above this row")
        elif kind == "study":
            row = _study_row(raw, setting, root, out / row_id, where)
        else:
            raise PlanError(f"{where}: kind must be 'match' or 'study', got {kind!r}")
        seen[row_id] = kind
        rows.append(row)
    for row in rows:
        if isinstance(row, MatchRow):
            for other in row.compare_with:
                if seen.get(other) != "match":
                    raise PlanError(
                        f"{source}, row {row.id!r}: compare_with names no match row {other!r}"
                    )
    return Plan(
        path=source,
        name=str(head["name"]),
        description=str(head.get("description", "")),
        reproduces=str(head.get("reproduces", "")),
        root=root,
        out=out,
        setting=setting,
        rows=tuple(rows),
        docs=root / str(head["docs"]) if "docs" in head else None,
    )


def _match_row(raw: Mapping[str, Any], setting: Setting, root: Path, where: str) -> MatchRow:
    _check_keys(raw, _MATCH_KEYS, where)
    for key in ("candidate", "games", "seed"):
        if key not in raw:
            raise PlanError(f"{where}: '{key}' is required")
    sims = _positive_int(raw, "sims", where) if "sims" in raw else setting.sims
    komi = float(_typed(raw, "komi", (int, float), where)) if "komi" in raw else setting.komi
    paper = raw.get("paper")
    if isinstance(paper, bool) or not (
        paper is None
        or isinstance(paper, str)
        or (isinstance(paper, (int, float)) and 0 <= paper <= 100)
    ):
        raise PlanError(
            f"{where}: paper must be a winrate in percent (0-100) or a text, got {paper!r}"
        )
    seed = _typed(raw, "seed", int, where)
    if seed < 0:
        raise PlanError(f"{where}: seed must be >= 0, got {seed}")
    compare = raw.get("compare_with", [])
    if isinstance(compare, str):
        compare = [compare]
    row = MatchRow(
        id=str(raw["id"]),
        table=str(raw.get("table", "")),
        label=str(raw.get("label", raw["id"])),
        paper=paper if paper is None or isinstance(paper, str) else float(paper),
        candidate=str(_typed(raw, "candidate", str, where)),
        baseline=str(raw.get("baseline", "mean")),
        games=_positive_int(raw, "games", where, even=True),
        seed=int(seed),
        sims=sims,
        agent=str(raw.get("agent", setting.agent)),
        openings=Openings.parse(str(raw.get("openings", setting.openings)), root, where),
        rules=_rules(setting, komi),
        referee=setting.referee,
        compare_with=tuple(str(c) for c in compare),
        note=str(raw.get("note", "")),
    )
    check_agent_template(row.agent, where)
    for side in ("candidate", "baseline"):
        backup = getattr(row, side)
        _check_backup(backup, f"{where}, {side}")
        if "@study:" not in backup:
            _check_spec(row.agent_spec(backup), f"{where}, {side}")
    return row


def study_settings() -> dict[str, dataclasses.Field[Any]]:
    """The :class:`~tuning.studies.config.StudyConfig` fields a study row sets by name."""
    from tuning.studies.config import StudyConfig

    return {f.name: f for f in dataclasses.fields(StudyConfig) if f.name not in SET_BY_PLAN}


@functools.cache
def _study_types() -> dict[str, Any]:
    from tuning.studies.config import StudyConfig

    return typing.get_type_hints(StudyConfig)


def _kinds(hint: Any) -> tuple[Any, ...]:
    """The types a field's annotation allows, ``None`` left out (TOML has no null)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return tuple(k for k in (typing.get_args(hint) if union else (hint,)) if k is not type(None))


def _setting(
    name: str, value: Any, study_field: dataclasses.Field[Any], root: Path, where: str
) -> Any:
    """A study row's value of a ``StudyConfig`` setting, checked against the field's type.

    A path (a ``Path`` field, or an option whose value is a ``PATH``) is relative to the
    plan's root; it is given to the study relative to the working folder where it lies
    inside it (the study records it, and the plan runs from its root).
    """
    kinds = _kinds(_study_types()[name])
    option = study_field.metadata.get("option")
    is_path = Path in kinds or getattr(option, "metavar", None) == "PATH"
    if is_path:
        if not isinstance(value, str):
            raise PlanError(f"{where}: {name} must be a path (a string), got {value!r}")
        path = root / value
        if not path.is_file():
            raise PlanError(
                f"{where}: {name} {value!r} is not a file (paths are relative to the plan's "
                f"root {root})"
            )
        return relative_inside(path, Path.cwd())
    for kind in kinds:
        if kind is bool and isinstance(value, bool):
            return value
        if isinstance(value, bool):
            continue
        if kind is float and isinstance(value, (int, float)):
            return float(value)
        if kind in (int, str) and isinstance(value, kind):
            return value
        if typing.get_origin(kind) is tuple and isinstance(value, list):
            return tuple(value)
    names = [_TYPE_NAMES.get(kind, getattr(kind, "__name__", str(kind))) for kind in kinds]
    raise PlanError(f"{where}: {name} must be {' or '.join(names)}, got {value!r}")


def _study_row(
    raw: Mapping[str, Any], setting: Setting, root: Path, folder: Path, where: str
) -> StudyRow:
    from tuning.search_spaces import make_space
    from tuning.studies.config import StudyConfig

    fields = study_settings()
    _check_keys(raw, _COMMON_ROW_KEYS | _STUDY_OWN_KEYS | set(fields), where)
    for key in ("space", "trials", "games", "seed"):
        if key not in raw:
            raise PlanError(f"{where}: '{key}' is required")
    space = str(_typed(raw, "space", str, where))
    bounds = raw.get("bounds")
    if bounds is not None:
        if not (
            isinstance(bounds, list)
            and len(bounds) == 2
            and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
        ):
            raise PlanError(f"{where}: bounds must be [LOW, HIGH] (two numbers), got {bounds!r}")
        bounds = (float(bounds[0]), float(bounds[1]))
    d = _positive_int(raw, "d", where) if "d" in raw else 3
    _check_space(space, d, bounds, where)
    sims = _positive_int(raw, "sims", where) if "sims" in raw else setting.sims
    agent = str(_typed(raw, "agent", str, where)) if "agent" in raw else setting.agent
    check_agent_template(agent, where)
    baseline = str(_typed(raw, "baseline", str, where)) if "baseline" in raw else "mean"
    _check_backup(baseline, f"{where}, baseline")
    _check_spec(agent_with_backup(agent, sims, baseline), f"{where}, agent")
    _positive_int(raw, "trials", where)  # a plan's study must recommend parameters
    settings = {
        name: _setting(name, raw[name], fields[name], root, where) for name in fields if name in raw
    }
    for name, default in _STUDY_DEFAULTS.items():
        settings.setdefault(name, default)
    if isinstance(settings["games"], int):
        settings.setdefault("batch", min(20, settings["games"]))
    try:
        study = StudyConfig(
            space=make_space(space, d=d, bounds=bounds),
            agent=agent.format(sims=sims),
            baseline=agent_with_backup(agent, sims, baseline),
            rules=_rules(setting, setting.komi),
            out=folder,
            verify_games=0,
            games_per_worker=setting.games_per_worker,
            **settings,
        )
    except (ValueError, TypeError) as exc:
        raise PlanError(f"{where}: {exc}") from None
    return StudyRow(
        id=str(raw["id"]),
        table=str(raw.get("table", "BO")),
        label=str(raw.get("label", raw["id"])),
        space=space,
        d=d,
        bounds=bounds,
        sims=sims,
        agent=agent,
        baseline=baseline,
        study=study,
        paper=None,
        note=str(raw.get("note", "")),
    )
