"""Run an experiment plan (:mod:`tuning.reproduction.plan`) resumably, row by row.

Each **match row** is an arena match whose folder ``<plan out>/<id>/`` is laid out exactly as
``gomcts arena --out <folder>`` lays it out (``results.jsonl``, ``sgf/``, ``summary.json``,
``winrate.png``), and is played by the same code (:func:`agents.matches.arena.run_match`). So the
arena's own resume carries an interrupted row, and a match started by hand with the command
that :func:`arena_command` prints is adopted: the arena refuses a results file whose header
differs from the row's match, naming the differing keys.

Each **study row** is a :func:`tuning.studies.study.run_study` study in its folder (its SQLite
storage, trial games and outputs), resumed by the study's own machinery. When it is complete,
the row records the parameter file of its recommendation in ``study.json``, which later rows
name as ``@study:ID``.

**Fingerprints.** Before a row plays, everything that decides its games (the resolved agent
specs, rules, seed, openings with the SHA-256 of the book's moves, the referee; for a study
its identity and sampler) is hashed and stored in ``row.json``. A row whose folder holds
games under another fingerprint is refused with the differing keys named: an edited plan
entry never mixes with a half-run result. The number of games (trials of a study) is not part
of it, so raising it extends a row. Descriptive keys (label, table, paper value, notes) are
not part of it either.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tuning.paths import relative_inside
from tuning.reproduction.plan import STUDY_REF, MatchRow, Plan, PlanError, Row, StudyRow

__all__ = [
    "PlanProgress",
    "RowChangedError",
    "RowWaitingError",
    "arena_command",
    "fingerprint",
    "match_config",
    "params_digest",
    "played_games",
    "resolve_backup",
    "row_definition",
    "run_plan",
    "study_config",
    "study_so_far",
]

ROW_FILE = "row.json"
STUDY_FILE = "study.json"
FORMAT = 1


class RowChangedError(PlanError):
    """A row's folder holds results of another definition of the row."""


class RowWaitingError(PlanError):
    """A row uses the parameters of a study that has not finished."""


# ------------------------------------------------------------------------ definitions
def params_digest(path: Path) -> str:
    """SHA-256 of a parameter file's values, laid out as the study wrote them.

    The layout is :func:`agents.mcts.backups.params_io.write_params`'s (indented by 2), so
    the digest of a file it wrote is that of the file's bytes, and a record that lays the
    file out otherwise (``gomcts record`` puts each list of numbers on one line) keeps it:
    the digest follows the values, not the layout.

    Raises:
        PlanError: When the file is not JSON.
    """
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PlanError(f"the parameter file {path} is not JSON: {exc}") from None
    text = json.dumps(values, indent=2, allow_nan=False) + "\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_backup(plan: Plan, backup: str) -> tuple[str, dict[str, str]]:
    """``backup`` with each ``@study:ID`` replaced by the study's parameter file.

    Returns:
        The resolved spec and, for each referenced study, the digest of its parameter file
        (:func:`params_digest`).

    Raises:
        RowWaitingError: When a referenced study has no recommendation yet.
    """
    digests: dict[str, str] = {}

    def replace(match: Any) -> str:
        study = match.group(1)
        record = plan.folder(study) / STUDY_FILE
        if not record.exists():
            raise RowWaitingError(
                f"{backup!r} needs the parameters of study {study!r}, which has not finished; "
                f"run it first: gomcts reproduce {plan.path} --only {study}"
            )
        params = Path(json.loads(record.read_text(encoding="utf-8"))["params_file"])
        digests[study] = params_digest(plan.root / params)
        return str(params)

    return STUDY_REF.sub(replace, backup), digests


def _book_digest(row: MatchRow) -> str | None:
    """SHA-256 of the book's openings as read (comments and layout do not count)."""
    from agents.matches.openings import load_book

    if row.openings.path is None:
        return None
    if not row.openings.path.exists():
        raise PlanError(f"row {row.id!r}: the opening book {row.openings.path} does not exist")
    openings = [list(opening) for opening in load_book(row.openings.path, row.rules)]
    return hashlib.sha256(json.dumps(openings).encode("utf-8")).hexdigest()


def match_config(plan: Plan, row: MatchRow) -> Any:
    """The :class:`agents.matches.arena.MatchConfig` of a match row (references resolved)."""
    from agents.matches.arena import MatchConfig
    from agents.matches.openings import load_book

    candidate, _ = resolve_backup(plan, row.candidate)
    baseline, _ = resolve_backup(plan, row.baseline)
    book: tuple[tuple[int, ...], ...] = ()
    if row.openings.path is not None:
        book = load_book(row.openings.path, row.rules)
    return MatchConfig(
        agent_a=row.agent_spec(candidate),
        agent_b=row.agent_spec(baseline),
        games=row.games,
        rules=row.rules,
        seed=row.seed,
        opening_moves=row.openings.moves,
        book=book,
        referee=row.referee,
    )


def study_config(
    plan: Plan, row: StudyRow, *, workers: int = 1, games_per_worker: int | None = None
) -> Any:
    """The :class:`tuning.studies.config.StudyConfig` of a study row, as a run plays it.

    The row's study (:attr:`StudyRow.study`) with the run's parallel trials (``workers``,
    at most the row's ``jobs`` where it gives more than one) and games per worker.
    """
    jobs = row.study.jobs
    return dataclasses.replace(
        row.study,
        jobs=max(1, min(workers, jobs if jobs > 1 else workers)),
        games_per_worker=games_per_worker_of(plan, games_per_worker),
    )


def games_per_worker_of(plan: Plan, value: int | None) -> int:
    """Games each arena process plays at once: ``value``, else the plan's ``[setting]``."""
    return plan.setting.games_per_worker if value is None else value


def row_definition(plan: Plan, row: Row) -> dict[str, Any]:
    """Everything that decides a row's games (its fingerprint is the hash of this)."""
    if isinstance(row, MatchRow):
        candidate, refs_a = resolve_backup(plan, row.candidate)
        baseline, refs_b = resolve_backup(plan, row.baseline)
        return {
            "kind": "match",
            "agent_a": row.agent_spec(candidate),
            "agent_b": row.agent_spec(baseline),
            "rules": {**asdict(row.rules), "ko": row.rules.ko.value},
            "seed": row.seed,
            "openings": row.openings.text,
            "book_sha256": _book_digest(row),
            "referee": row.referee,
            "study_params_sha256": {**refs_a, **refs_b},
        }
    config = study_config(plan, row)
    identity = config.identity()
    return {"kind": "study", **identity, "sampler": config.sampler}


def fingerprint(definition: dict[str, Any]) -> str:
    """SHA-256 of a row definition's canonical JSON."""
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def played_games(plan: Plan, row: Row) -> int:
    """Games already recorded in a row's folder (match games, or games of all trials)."""
    folder = plan.folder(row)
    if isinstance(row, MatchRow):
        from agents.matches.results import read_results, stored_results

        try:
            path = stored_results(folder / "results.jsonl")  # plain, or compressed as recorded
            return 0 if path is None else len(read_results(path)[1])
        except (ValueError, OSError):
            return 0
    study = _stored_study(plan, row)
    return 0 if study is None else _study_games(study)


def _stored_study(plan: Plan, row: StudyRow) -> Any:
    """The Optuna study of a study row as its folder holds it (``None``: not started).

    A recorded row's database may be stored compressed (``study.db.gz``): it is read from a
    temporary plain copy (:func:`tuning.studies.storage.recorded_storage_url`).
    """
    from tuning.studies.storage import recorded_storage_url

    url = recorded_storage_url(plan.folder(row) / "study.db")
    if url is None:
        return None
    import optuna

    config = study_config(plan, row)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        return optuna.load_study(study_name=config.name, storage=url)
    except KeyError:  # no study of that name yet
        return None


def _study_games(study: Any) -> int:
    """Games played by all of a study's trials (finished or not).

    A retried trial carries on from the games its origin kept (one games file per origin), and
    its ``games`` count includes them: each origin counts once, with its largest count.
    """
    from tuning.studies.objective import origin_of

    games: dict[int, int] = {}
    for trial in study.get_trials(deepcopy=False):
        origin = origin_of(trial)
        games[origin] = max(games.get(origin, 0), int(trial.user_attrs.get("games", 0)))
    return sum(games.values())


def study_so_far(plan: Plan, row: StudyRow) -> dict[str, Any] | None:
    """A study row's trials as they stand (for the table while the study runs).

    Returns:
        ``{"complete", "running", "games", "best_raw"}`` (``best_raw``: the study's best raw
        trial, as :func:`tuning.studies.outputs.best_trial` ranks them, ``{"number", "winrate",
        "games", "ci95", "stopped_early"}`` or ``None``), or ``None`` when the study has not
        started.
    """
    study = _stored_study(plan, row)
    if study is None:
        return None
    from optuna.trial import TrialState

    from tuning.studies.outputs import best_trial
    from tuning.studies.study import count_states

    count = count_states(study)
    best = best_trial(study)
    return {
        "complete": count[TrialState.COMPLETE],
        "running": count[TrialState.RUNNING],
        "games": _study_games(study),
        "best_raw": None
        if best is None
        else {
            "number": best.number,
            "winrate": best.value,
            "games": best.user_attrs.get("games"),
            "ci95": [best.user_attrs.get("ci_low"), best.user_attrs.get("ci_high")],
            "stopped_early": bool(best.user_attrs.get("stopped_early")),
        },
    }


def planned_games(row: Row) -> int:
    """Games a row plays in full (a study's trials stopped early play fewer)."""
    return row.games if isinstance(row, MatchRow) else row.games * row.trials


def _study_finished(plan: Plan, row: StudyRow) -> bool:
    """Whether a study row has finished (its record, written last, exists)."""
    return (plan.folder(row) / STUDY_FILE).exists()


def games_done(plan: Plan, row: Row) -> int:
    """Games of a row's plan already played: all of them once a study has finished."""
    if isinstance(row, StudyRow) and _study_finished(plan, row):
        return planned_games(row)
    return min(played_games(plan, row), planned_games(row))


def check_row(plan: Plan, row: Row) -> dict[str, Any]:
    """Compare a row's folder with its definition; store the definition when it is new.

    Raises:
        RowChangedError: When the folder holds games of another definition.
        RowWaitingError: When the row needs a study that has not finished.
    """
    definition = row_definition(plan, row)
    digest = fingerprint(definition)
    folder = plan.folder(row)
    record = folder / ROW_FILE
    if record.exists():
        stored = json.loads(record.read_text(encoding="utf-8"))
        if stored.get("fingerprint") != digest and played_games(plan, row) > 0:
            old = stored.get("definition", {})
            changed = sorted(
                key for key in set(old) | set(definition) if old.get(key) != definition.get(key)
            )
            raise RowChangedError(
                f"row {row.id!r} was edited under a half-run result: {folder} holds "
                f"{played_games(plan, row)} games of another definition (changed: "
                f"{', '.join(changed)}). Restore the plan entry, or give the row a new id "
                "(or move its folder away) to start it afresh"
            )
    folder.mkdir(parents=True, exist_ok=True)
    document = {
        "format": FORMAT,
        "id": row.id,
        "fingerprint": digest,
        "definition": definition,
        "plan": relative_inside(plan.path, plan.root),  # the same on every machine
    }
    record.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return definition


# ------------------------------------------------------------------------ progress
@dataclass
class PlanProgress:
    """Games of the selected rows: done, to do, and the estimated time left.

    The rate is measured on the games played by this run (not the resumed ones). With
    ``in_flight`` games played at once (workers x games per worker), the games still in
    play count as half played: otherwise the first games to finish, which all finish near
    one game's wall time, would give an estimate ``in_flight`` times too long.

    Time is estimated per simulation, not per game: a game costs about its simulations per
    move (``sims``), so the games left of an N = 800 row count four times those of an
    N = 200 row. ``work_total`` and ``work_done`` are games x simulations per move.
    """

    total: int
    done: int
    say: Callable[[str], None]
    work_total: float
    work_done: float
    started: float = 0.0
    played: int = 0
    last: float = 0.0
    every: float = 30.0
    in_flight: int = 1
    played_work: float = 0.0
    sims: int = 1

    def __post_init__(self) -> None:
        self.started = self.last = time.monotonic()

    def count_done(self, games: int, sims: int) -> None:
        """Count ``games`` at ``sims`` simulations per move as done (played now or saved)."""
        self.done += games
        self.work_done += games * sims

    def add(self, games: int, sims: int) -> None:
        """Count ``games`` played now by this run at ``sims`` simulations per move."""
        self.count_done(games, sims)
        self.sims = sims
        self.played += games
        self.played_work += games * sims

    def game(
        self, row_id: str, row_done: int, row_total: int, *, sims: int = 1, force: bool = False
    ) -> None:
        """Count one game played now; print a line at most every ``every`` seconds."""
        self.add(1, sims)
        now = time.monotonic()
        if force or now - self.last >= self.every:
            self.last = now
            self.say(self.line(row_id, row_done, row_total))

    def line(self, row_id: str, row_done: int, row_total: int) -> str:
        """One progress line with the ETA."""
        elapsed = time.monotonic() - self.started
        left = max(0.0, self.work_total - self.work_done)
        if self.played:
            in_play = (max(1, self.in_flight) - 1) / 2 * self.sims
            per_sim = elapsed / (self.played_work + in_play)
            eta = _duration(per_sim * left)
            rate = f"{per_sim * self.sims:.1f} s/game"
        else:
            eta, rate = "unknown", "no game yet"
        return (
            f"[plan] {row_id}: {row_done}/{row_total} | plan {self.done}/{self.total} games"
            f" | {rate} | about {eta} left"
        )


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


# ------------------------------------------------------------------------ running
def arena_command(
    plan: Plan, row: MatchRow, *, workers: int | None = None, games_per_worker: int | None = None
) -> str:
    """The ``gomcts arena`` command that plays the same match into the row's folder.

    Run from the plan's root; the runner adopts and resumes what it wrote.
    """
    config = match_config(plan, row)
    parts = [
        "gomcts",
        "arena",
        config.agent_a,
        config.agent_b,
        "--games",
        str(row.games),
        "--seed",
        str(row.seed),
        "--size",
        str(row.rules.size),
        "--komi",
        f"{row.rules.komi:g}",
        "--ko",
        row.rules.ko.value,
    ]
    if row.openings.path is not None:
        parts += ["--book", relative_inside(row.openings.path, plan.root)]
    else:
        parts += ["--opening-moves", str(row.openings.moves)]
    if row.referee != "auto":
        parts += ["--referee", row.referee]
    if workers is not None:
        parts += ["--workers", str(workers)]
    k = games_per_worker_of(plan, games_per_worker)
    if k > 1:
        parts += ["--games-per-worker", str(k)]
    parts += ["--out", relative_inside(plan.folder(row), plan.root)]
    return shlex.join(parts)


def _run_match_row(
    plan: Plan,
    row: MatchRow,
    *,
    workers: int | None,
    ray: str | None,
    progress: PlanProgress,
    games_per_worker: int | None = None,
) -> None:
    from agents.matches.arena import run_match
    from agents.matches.plots import plot_running_score

    config = match_config(plan, row)
    folder = plan.folder(row)
    kwargs: dict[str, Any] = {"games_per_worker": games_per_worker_of(plan, games_per_worker)}
    if ray is not None:
        kwargs["ray"] = ray
    done_before = played_games(plan, row)
    seen = 0

    def on_game(game: Any, result: Any) -> None:
        nonlocal seen
        seen += 1
        if seen > done_before:
            progress.game(row.id, seen, row.games, sims=row.sims)

    result = run_match(
        config,
        results=folder / "results.jsonl",
        workers=workers,
        sgf_dir=folder / "sgf",
        on_game=on_game,
        **kwargs,
    )
    (folder / "summary.json").write_text(
        json.dumps(result.summary(), indent=2) + "\n", encoding="utf-8"
    )
    plot_running_score(
        result.scores,
        folder / "winrate.png",
        label="A",
        title=f"{row.id}: {row.label} ({row.sims} simulations per move)",
    )
    progress.say(progress.line(row.id, len(result.games), row.games))


def _run_study_row(
    plan: Plan,
    row: StudyRow,
    *,
    workers: int | None,
    progress: PlanProgress,
    games_per_worker: int | None = None,
) -> None:
    from agents.stored import expand
    from tuning.studies.study import run_study

    config = study_config(plan, row, workers=workers or 1, games_per_worker=games_per_worker)
    before = played_games(plan, row)
    expand(plan.folder(row) / "study.db")  # a recorded (compressed) study continues in place
    finished_before = _study_finished(plan, row)
    report = run_study(config, progress=progress.say)
    after = played_games(plan, row)
    progress.add(max(0, after - before), row.sims)
    if not finished_before:  # the games its early stops saved are done too
        progress.count_done(max(0, planned_games(row) - after), row.sims)
    if report is None or report.best_file is None:
        raise PlanError(f"study {row.id!r} finished without a best trial")
    record = {
        "format": FORMAT,
        "id": row.id,
        "params_file": relative_inside(Path(report.best_file), plan.root),
        "sampler": config.sampler,
        "trials": report.trials,
        "best": report.best,
        "study": report.study,
    }
    (plan.folder(row) / STUDY_FILE).write_text(
        json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8"
    )
    progress.say(progress.line(row.id, after, planned_games(row)))


def select_rows(plan: Plan, only: Sequence[str] = ()) -> list[Row]:
    """The rows to run, in plan order (all, or those named in ``only``)."""
    if not only:
        return list(plan.rows)
    for row_id in only:
        plan.row(row_id)  # a clear error for an unknown id
    return [row for row in plan.rows if row.id in set(only)]


def run_plan(
    plan: Plan,
    *,
    only: Sequence[str] = (),
    workers: int | None = None,
    ray: str | None = None,
    say: Callable[[str], None] = print,
    keep_going: bool = False,
    games_per_worker: int | None = None,
) -> list[str]:
    """Run the selected rows in plan order, then write the results table.

    Args:
        plan: The plan.
        only: Ids of the rows to run (default: all).
        workers: Arena worker processes of a match, parallel trials of a study.
        ray: Ray address for the arena, when the installed arena supports it.
        say: Receives progress lines.
        keep_going: Go on with the next row when a row waits for an unfinished study.
        games_per_worker: Games each arena process plays at once, sharing its network
            calls (``None``: the plan's ``[setting] games_per_worker``, default 1).

    Returns:
        Ids of the rows skipped because they wait for a study.

    Raises:
        RowChangedError: For a row edited under a half-run result (checked for every selected
            row before anything is played).
    """
    from tuning.reproduction.table import write_table

    rows = select_rows(plan, only)
    for row in rows:  # refuse edits before playing anything
        with contextlib.suppress(RowWaitingError):
            check_row(plan, row)
    total = sum(planned_games(row) for row in rows)
    played = {row.id: games_done(plan, row) for row in rows}
    done = sum(played.values())
    processes = (os.cpu_count() or 1) if workers is None else workers  # the arena's default
    in_flight = processes * games_per_worker_of(plan, games_per_worker)
    progress = PlanProgress(
        total=total,
        done=done,
        say=say,
        in_flight=in_flight,
        work_total=float(sum(planned_games(row) * row.sims for row in rows)),
        work_done=float(sum(played[row.id] * row.sims for row in rows)),
    )
    say(f"[plan] {plan.name}: {len(rows)} rows, {done}/{total} games already played")
    waiting: list[str] = []
    for row in rows:
        try:
            check_row(plan, row)
        except RowWaitingError as exc:
            if not keep_going:
                raise
            say(f"[plan] {row.id}: skipped, {exc}")
            waiting.append(row.id)
            continue
        say(f"[plan] {row.id}: {row.label}")
        if isinstance(row, MatchRow):
            _run_match_row(
                plan,
                row,
                workers=workers,
                ray=ray,
                progress=progress,
                games_per_worker=games_per_worker,
            )
        else:
            _run_study_row(
                plan, row, workers=workers, progress=progress, games_per_worker=games_per_worker
            )
        write_table(plan, study_state=study_so_far)
    write_table(plan, study_state=study_so_far)
    return waiting
