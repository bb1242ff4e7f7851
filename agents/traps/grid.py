"""The trap-tree grid: backups x budgets x trees, in worker processes, resumable.

Every cell ``(backup, budget)`` searches the same trees (``tree_seed(seed, i)`` for
``i = 0 .. trees - 1``), so the backups are compared paired, tree by tree
(``docs/traps.md#the-trees``). The work is cut into chunks of ``chunk`` trees of one cell; each
finished chunk is appended to the results file at once.

The results file is JSON lines: a header ``{"kind": "header", "format": 1, "setup": {...}}``
with everything that decides a search's outcome (the tree family, the seed, the tree policy,
its constant and the chunk size), then one ``{"kind": "chunk", ...}`` line per finished chunk,
flushed and ``fsync``-ed. Running the same grid again resumes it: finished chunks are read
back, not searched again. A file whose header differs from the grid's setup is refused (the
error names the differing keys); more trees, budgets or backups may be added to a grid, since
results already there stay valid. A last line cut short by an interruption is dropped (once
the header has been read: a file that is not a grid's is refused and left as it is). A recorded
grid's file may be stored compressed, ``results.jsonl.gz`` (:mod:`agents.stored`).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from agents.mcts.backups import make_backup
from agents.stored import StoredFileError, expand, pair_of, read_stored, stored_file
from agents.traps.search import POLICIES, TrapSearch
from agents.traps.trees import TrapTreeConfig
from go_env.validation import check_choice, check_float, check_int

__all__ = [
    "DEFAULT_BACKUPS",
    "DEFAULT_BUDGETS",
    "GridConfig",
    "GridError",
    "GridResults",
    "TreeResult",
    "read_grid",
    "run_grid",
    "tree_seed",
]

FORMAT = 1

DEFAULT_BACKUPS = ("mean", "softmax", "monotone", "coulom", "maxmcts:lam=0.5", "power_mean")
"""The default grid's backups: mean and five alternatives, at their default parameters
(MaxMCTS at ``lam=0.5``: its default ``lam=1`` is the mean itself)."""

DEFAULT_BUDGETS = (100, 300, 1000, 3000)
"""The default simulation budgets (issue 17)."""


class GridError(ValueError):
    """A grid that cannot run: a bad option or a results file of another setup."""


def tree_seed(seed: int, index: int) -> int:
    """The seed of tree ``index`` of a grid with ``seed``: ``seed * 1_000_000 + index``."""
    return seed * 1_000_000 + index


@dataclass(frozen=True)
class GridConfig:
    """A grid of trap-tree searches.

    Attributes:
        trees: The tree family.
        backups: Backup spec strings (``"mean"``, ``"coulom:a=2,b=16"``); the first is the
            reference of the paired tests when ``"mean"`` is absent.
        budgets: Simulations per search.
        n_trees: Trees per cell.
        seed: Grid seed; tree ``i`` is :func:`tree_seed` ``(seed, i)``.
        policy: Tree policy (:data:`agents.traps.search.POLICIES`).
        c: Exploration constant; ``None`` the project's default for the policy.
        chunk: Trees per unit of work (and per results-file line).
    """

    trees: TrapTreeConfig = field(default_factory=TrapTreeConfig)
    backups: tuple[str, ...] = DEFAULT_BACKUPS
    budgets: tuple[int, ...] = DEFAULT_BUDGETS
    n_trees: int = 500
    seed: int = 0
    policy: str = "uct"
    c: float | None = None
    chunk: int = 50

    def __post_init__(self) -> None:
        if not self.backups:
            raise GridError("backups: give at least one backup spec")
        if len(set(self.backups)) != len(self.backups):
            raise GridError(f"backups: each backup once, got {list(self.backups)}")
        for spec in self.backups:
            try:
                make_backup(spec)
            except Exception as exc:
                raise GridError(f"backup {spec!r}: {exc}") from exc
        if not self.budgets:
            raise GridError("budgets: give at least one budget (simulations per search, >= 1)")
        try:  # the shared checks raise ValueError; callers of a grid catch GridError
            for i, budget in enumerate(self.budgets):
                check_int(f"budgets[{i}]", budget, min=1)
            check_int("n_trees", self.n_trees, min=1)
            check_int("chunk", self.chunk, min=1)
            check_int("seed", self.seed, min=0)
            check_choice("policy", self.policy, POLICIES)
            if self.c is not None:
                check_float("c", self.c, min=0)
        except ValueError as exc:
            raise GridError(str(exc)) from None
        if len(set(self.budgets)) != len(self.budgets):
            raise GridError(f"budgets: each budget once, got {list(self.budgets)}")

    @property
    def reference(self) -> str:
        """The backup the others are compared with: ``mean`` if present, else the first."""
        return "mean" if "mean" in self.backups else self.backups[0]

    def setup(self) -> dict[str, Any]:
        """What decides a search's outcome (the results file's header)."""
        return {
            "trees": self.trees.to_dict(),
            "seed": self.seed,
            "policy": self.policy,
            "c": self.c,
            "chunk": self.chunk,
        }

    def chunks(self) -> list[tuple[str, int, int]]:
        """Every unit of work ``(backup, budget, chunk index)``, cheapest budgets first."""
        count = -(-self.n_trees // self.chunk)
        return [
            (backup, budget, index)
            for budget in sorted(self.budgets)
            for index in range(count)
            for backup in self.backups
        ]

    def trees_of(self, index: int) -> range:
        """Tree indices of chunk ``index``."""
        start = index * self.chunk
        return range(start, min(start + self.chunk, self.n_trees))


@dataclass(frozen=True)
class TreeResult:
    """One search of one tree (see :class:`agents.traps.search.TrapOutcome`)."""

    tree: int
    move: int
    winning: bool
    trap: bool
    root_traps: int
    root_value: float
    simulations: int

    @property
    def error(self) -> float:
        """Root-value error ``|value - V*|`` with ``V*(root) = +1``."""
        return abs(self.root_value - 1.0)


@dataclass
class GridResults:
    """Results of a grid: ``cells[(backup, budget)][tree index]``, and the time spent.

    Attributes:
        config: The grid.
        cells: Per cell, the searched trees by index.
        simulations: Simulations run by this process's workers in this call.
        seconds: Search time of those simulations (summed over workers).
    """

    config: GridConfig
    cells: dict[tuple[str, int], dict[int, TreeResult]] = field(default_factory=dict)
    simulations: int = 0
    seconds: float = 0.0

    def add(self, backup: str, budget: int, results: Sequence[TreeResult]) -> None:
        """Record searched trees of a cell."""
        cell = self.cells.setdefault((backup, budget), {})
        for result in results:
            cell.setdefault(result.tree, result)

    def cell(self, backup: str, budget: int) -> list[TreeResult]:
        """The cell's trees of this grid (``0 .. n_trees - 1``), in tree order."""
        found = self.cells.get((backup, budget), {})
        return [found[i] for i in range(self.config.n_trees) if i in found]

    @property
    def sims_per_second(self) -> float:
        """Simulations per second of search in this call (per worker process)."""
        return self.simulations / self.seconds if self.seconds > 0 else float("nan")


def search_chunk(
    config: GridConfig, backup: str, budget: int, trees: Sequence[int]
) -> tuple[list[TreeResult], float]:
    """Search the trees ``trees`` of one cell; their results and the seconds spent searching."""
    search = TrapSearch(backup, config.trees, policy=config.policy, c=config.c)
    # untimed: the first search of a process compiles (or loads) the kernels, which the Go
    # search's figure beside it excludes too (agents.traps.cli.go_sims_per_second)
    search.run(0, 1)
    out = []
    seconds = 0.0
    for tree in trees:
        outcome = search.run(tree_seed(config.seed, tree), budget)
        seconds += outcome.seconds
        out.append(
            TreeResult(
                tree=tree,
                move=outcome.move,
                winning=outcome.winning,
                trap=outcome.trap,
                root_traps=outcome.root_traps,
                root_value=round(outcome.root_value, 9),
                simulations=outcome.simulations,
            )
        )
    return out, seconds


# ------------------------------------------------------------------ the results file


class _Store:
    """The JSON-lines results file (see the module docstring)."""

    def __init__(self, path: Path, setup: dict[str, Any]) -> None:
        self.path = pair_of(path)[0]  # appended to plain; read as stored (agents.stored)
        self.setup = setup
        self.packed = False  # the file is stored compressed (expanded at the first append)

    def load(self) -> Iterator[tuple[str, int, int, list[TreeResult]]]:
        try:
            stored = stored_file(self.path)
            if stored is None:
                return
            data = read_stored(stored)
        except StoredFileError as exc:
            raise GridError(str(exc)) from None
        self.packed = stored != self.path
        end = data.rfind(b"\n") + 1
        if end == 0 and not self.packed:
            first = b'{"kind": "header"'
            if first.startswith(data[: len(first)]) and b"\0" not in data:
                # the first write (header and chunk) was cut short: nothing to keep
                with self.path.open("r+b") as handle:
                    handle.truncate(0)
                return
        lines: list[str] = []
        header: Any = None
        try:
            lines = data[:end].decode("utf-8").splitlines()
            header = json.loads(lines[0]) if lines else None
        except (ValueError, RecursionError):
            header = None
        if (
            not isinstance(header, dict)
            or header.get("kind") != "header"
            or header.get("format") != FORMAT
        ):
            raise GridError(f"{stored}: not a trap-grid results file (format {FORMAT})")
        if end < len(data) and not self.packed:  # a line cut short by an interruption
            with self.path.open("r+b") as handle:
                handle.truncate(end)
        theirs = header.get("setup", {})
        if theirs != self.setup:
            keys = sorted(
                k for k in set(theirs) | set(self.setup) if theirs.get(k) != self.setup.get(k)
            )
            raise GridError(
                f"{self.path} holds another grid (different {', '.join(keys)}: "
                f"file {[theirs.get(k) for k in keys]}, now {[self.setup.get(k) for k in keys]}); "
                "use another results file or the same setup"
            )
        for number, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
                results = [
                    TreeResult(
                        tree=t,
                        move=m,
                        winning=bool(w),
                        trap=bool(p),
                        root_traps=r,
                        root_value=v,
                        simulations=s,
                    )
                    for t, m, w, p, r, v, s in zip(
                        entry["trees"],
                        entry["move"],
                        entry["winning"],
                        entry["trap"],
                        entry["root_traps"],
                        entry["root_value"],
                        entry["simulations"],
                        strict=True,
                    )
                ]
                yield entry["backup"], entry["budget"], entry["chunk"], results
            except (KeyError, TypeError, ValueError) as exc:
                raise GridError(f"{stored}, line {number}: unreadable chunk: {exc}") from exc

    def append(self, backup: str, budget: int, index: int, results: Sequence[TreeResult]) -> None:
        if self.packed:
            try:
                expand(self.path)
            except StoredFileError as exc:
                raise GridError(str(exc)) from None
            self.packed = False
        new = not self.path.exists() or self.path.stat().st_size == 0
        entry = {
            "kind": "chunk",
            "backup": backup,
            "budget": budget,
            "chunk": index,
            "trees": [r.tree for r in results],
            "move": [r.move for r in results],
            "winning": [int(r.winning) for r in results],
            "trap": [int(r.trap) for r in results],
            "root_traps": [r.root_traps for r in results],
            "root_value": [r.root_value for r in results],
            "simulations": [r.simulations for r in results],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            if new:
                header = {"kind": "header", "format": FORMAT, "setup": self.setup}
                handle.write(json.dumps(header) + "\n")
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def read_grid(path: str | PathLike[str], config: GridConfig) -> GridResults:
    """The results of ``config`` already in the file ``path`` (nothing is searched)."""
    results = GridResults(config)
    for backup, budget, _, trees in _Store(Path(path), config.setup()).load():
        results.add(backup, budget, trees)
    return results


def _worker_chunk(
    config: GridConfig, backup: str, budget: int, trees: list[int]
) -> tuple[list[TreeResult], float]:
    return search_chunk(config, backup, budget, trees)


def run_grid(
    config: GridConfig,
    *,
    results: str | PathLike[str] | None = None,
    workers: int | None = None,
    progress: bool = False,
    on_chunk: Callable[[str, int, int], None] | None = None,
) -> GridResults:
    """Search every tree of every cell of ``config`` and return the results.

    Args:
        config: The grid.
        results: The results file (resumes a grid already in it); ``None``: keep nothing.
        workers: Worker processes (default: all cores); 1 searches in this process.
        progress: Show a progress bar (trees searched) on stderr.
        on_chunk: Called with ``(backup, budget, chunk)`` after each finished chunk.

    Raises:
        GridError: For a results file of another setup.
    """
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise GridError(f"workers must be a positive int, got {workers!r}")
    out = GridResults(config)
    store = _Store(Path(results), config.setup()) if results is not None else None
    if store is not None:
        for backup, budget, _, trees in store.load():
            out.add(backup, budget, trees)
    todo: list[tuple[str, int, int, list[int]]] = []
    for backup, budget, index in config.chunks():
        have = out.cells.get((backup, budget), {})
        missing = [t for t in config.trees_of(index) if t not in have]
        if missing:  # a chunk of a smaller grid lacks the trees added since
            todo.append((backup, budget, index, missing))
    bar = None
    if progress:
        from tqdm import tqdm

        total = len(config.backups) * len(config.budgets) * config.n_trees
        finished = total - sum(len(trees) for *_, trees in todo)
        bar = tqdm(total=total, initial=finished, file=sys.stderr, unit="tree", dynamic_ncols=True)

    def record(
        task: tuple[str, int, int, list[int]], trees: list[TreeResult], seconds: float
    ) -> None:
        backup, budget, index, _ = task
        if store is not None:
            store.append(backup, budget, index, trees)
        out.add(backup, budget, trees)
        out.simulations += sum(t.simulations for t in trees)
        out.seconds += seconds
        if bar is not None:
            bar.set_postfix_str(f"{backup} {budget} sims", refresh=False)
            bar.update(len(trees))
        if on_chunk is not None:
            on_chunk(backup, budget, index)

    try:
        if workers == 1 or len(todo) <= 1:
            for task in todo:
                record(task, *search_chunk(config, *task[:2], task[3]))
            return out
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=context) as pool:
            running: dict[
                Future[tuple[list[TreeResult], float]], tuple[str, int, int, list[int]]
            ] = {pool.submit(_worker_chunk, config, *task[:2], task[3]): task for task in todo}
            try:
                while running:
                    ready, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in ready:
                        task = running.pop(future)
                        record(task, *future.result())
            finally:
                for future in running:
                    future.cancel()
        return out
    finally:
        if bar is not None:
            bar.close()
