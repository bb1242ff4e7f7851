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

import re
import string
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from go_env.rules import KoRule, Rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "STUDY_REF",
    "MatchRow",
    "Openings",
    "Plan",
    "PlanError",
    "Setting",
    "StudyRow",
    "agent_with_backup",
    "load_plan",
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
_STUDY_KEYS = _COMMON_ROW_KEYS | {
    "space",
    "d",
    "bounds",
    "trials",
    "startup_trials",
    "batch",
    "prune",
    "sampler",
    "baseline",
    "agent",
    "sims",
    "opening_moves",
    "jobs",
}


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
    """A Bayesian-optimisation study of a backup's weights against the baseline."""

    id: str
    table: str
    label: str
    space: str
    d: int
    bounds: tuple[float, float] | None
    trials: int
    startup_trials: int
    games: int
    batch: int
    prune: bool
    sampler: str
    baseline: str
    seed: int
    sims: int
    agent: str
    opening_moves: int
    rules: Rules
    jobs: int = 1
    paper: float | None = None
    note: str = ""
    kind: str = "study"

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
            row = _study_row(raw, setting, where)
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
        out=root / str(head["out"]),
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


def _study_row(raw: Mapping[str, Any], setting: Setting, where: str) -> StudyRow:
    _check_keys(raw, _STUDY_KEYS, where)
    for key in ("space", "trials", "games", "seed"):
        if key not in raw:
            raise PlanError(f"{where}: '{key}' is required")
    space = str(raw["space"])
    bounds = raw.get("bounds")
    if bounds is not None:
        if not (isinstance(bounds, list) and len(bounds) == 2):
            raise PlanError(f"{where}: bounds must be [LOW, HIGH], got {bounds!r}")
        bounds = (float(bounds[0]), float(bounds[1]))
    d = _positive_int(raw, "d", where) if "d" in raw else 3
    _check_space(space, d, bounds, where)
    sims = _positive_int(raw, "sims", where) if "sims" in raw else setting.sims
    games = _positive_int(raw, "games", where, even=True)
    row = StudyRow(
        id=str(raw["id"]),
        table=str(raw.get("table", "BO")),
        label=str(raw.get("label", raw["id"])),
        space=space,
        d=d,
        bounds=bounds,
        trials=_positive_int(raw, "trials", where),
        startup_trials=(
            _positive_int(raw, "startup_trials", where) if "startup_trials" in raw else 8
        ),
        games=games,
        batch=_positive_int(raw, "batch", where, even=True) if "batch" in raw else min(20, games),
        prune=bool(raw.get("prune", True)),
        sampler=str(raw.get("sampler", "botorch")),
        baseline=str(raw.get("baseline", "mean")),
        seed=int(_typed(raw, "seed", int, where)),
        sims=sims,
        agent=str(raw.get("agent", setting.agent)),
        opening_moves=int(raw.get("opening_moves", 2)),
        rules=_rules(setting, setting.komi),
        jobs=_positive_int(raw, "jobs", where) if "jobs" in raw else 1,
        paper=None,
        note=str(raw.get("note", "")),
    )
    _check_backup(row.baseline, f"{where}, baseline")
    _check_spec(row.agent_spec(row.baseline), f"{where}, agent")
    return row
