"""Where heat helps on trap trees, mapped: winning-move rate over the backup's heat and N.

For each tree family (honest or deceptive evaluations, trap level k = 3 or 5; the other tree
settings are ``gomcts traps``'s defaults, ``docs/traps.md``) and each budget N, the same
trees are searched by:

* **heat fixed in n**: Softmax with a constant ``g`` (``tau(n) = e^g n``, the same function
  of a node's visits at every N) for each ``--g``, and power mean for each ``--p``;
* **heat fixed at N**: Softmax with ``g = ln(tau / N)`` for each ``--tau``, so that
  ``tau(N)`` is the same at every budget (a different spec at each N);
* mean, the reference of every paired test.

Each family's searches go to one resumable grid file (``agents.traps.run_grid``: the same
command continues an interrupted run and extends it with more trees, budgets or backups),
``OUT/<family>/results.jsonl``; then ``OUT/<family>/table.md`` gives the winning-move rate
with its 95% Wilson interval and the sign test against mean in every cell, and
``OUT/<family>/heat.png`` draws it::

    nice -n 10 python scripts/trap_heat_map.py --out runs/trap-heat-map
    nice -n 10 python scripts/trap_heat_map.py --trees 4 --budgets 100 300 --families deceptive-k3
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.figures import save_figure

FAMILIES = {
    "honest-k3": (False, 3),
    "deceptive-k3": (True, 3),
    "honest-k5": (False, 5),
    "deceptive-k5": (True, 5),
}
"""Tree families: ``(deceptive, k)``."""


def softmax_constant(g: float) -> str:
    """Softmax with a constant ``g``: ``tau(n) = e^g n``."""
    return f"softmax:g=[{g:g},{g:g}]"


def softmax_at(tau: float, budget: int) -> str:
    """Softmax whose ``tau(N)`` is ``tau`` at ``N = budget``."""
    g = math.log(tau / budget)
    return f"softmax:g=[{g:.4f},{g:.4f}]"


def main(argv: Sequence[str] | None = None) -> int:
    """Run (or resume) the map and write its tables and plots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--budgets", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
    parser.add_argument("--g", type=float, nargs="+", default=[-6, -4, -3, -2, -1, 0, 1])
    parser.add_argument("--p", type=float, nargs="+", default=[2, 4, 8, 16, 32])
    parser.add_argument("--tau", type=float, nargs="+", default=[1, 3, 10, 30, 100, 300])
    parser.add_argument("--trees", type=int, default=500, help="trees per cell (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="grid seed (default 0)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default all)")
    parser.add_argument("--out", default="runs/trap-heat-map", help="output folder")
    args = parser.parse_args(argv)

    from agents.traps import GridConfig, TrapTreeConfig, run_grid
    from agents.traps.grid import GridError
    from agents.traps.report import summarise

    fixed_n = ["mean"] + [softmax_constant(g) for g in args.g]
    fixed_n += [f"power_mean:p={p:g}" for p in args.p]
    try:
        for family in args.families:
            deceptive, k = FAMILIES[family]
            trees = TrapTreeConfig(deceptive=deceptive, k=k)
            folder = Path(args.out) / family
            folder.mkdir(parents=True, exist_ok=True)
            results = folder / "results.jsonl"
            print(f"{family}: heat fixed in n, budgets {args.budgets}", flush=True)
            grids = [
                GridConfig(
                    trees=trees,
                    backups=tuple(fixed_n),
                    budgets=tuple(args.budgets),
                    n_trees=args.trees,
                    seed=args.seed,
                )
            ]
            for budget in args.budgets:
                grids.append(
                    GridConfig(
                        trees=trees,
                        backups=("mean", *(softmax_at(t, budget) for t in args.tau)),
                        budgets=(budget,),
                        n_trees=args.trees,
                        seed=args.seed,
                    )
                )
            rows: dict[str, dict[int, str]] = {}
            rates: dict[str, dict[int, float]] = {}
            for number, grid in enumerate(grids):
                if number:
                    print(f"{family}: tau(N) fixed at N = {grid.budgets[0]}", flush=True)
                done = run_grid(grid, results=results, workers=args.workers, progress=True)
                for cell in summarise(done):
                    spec = cell.backup
                    if spec not in grid.backups or cell.budget not in grid.budgets:
                        continue  # another grid's cells in the same file
                    label = spec
                    if number and spec != "mean":
                        tau = args.tau[grid.backups.index(spec) - 1]
                        label = f"softmax tau(N) = {tau:g}"
                    elif spec.startswith("softmax:g="):
                        g = spec.split("[")[1].split(",")[0]
                        label = f"softmax g = {g} (tau(n) = e^g n)"
                    low, high = cell.winning_ci
                    test = "" if cell.vs_winning is None else f"; {cell.vs_winning}"
                    rows.setdefault(label, {})[cell.budget] = (
                        f"{cell.winning:.3f} [{low:.3f}, {high:.3f}]{test}"
                    )
                    rates.setdefault(label, {})[cell.budget] = cell.winning
            _write(folder, family, args.budgets, rows, rates, args.trees)
    except GridError as exc:
        print(f"trap_heat_map: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _write(
    folder: Path,
    family: str,
    budgets: Sequence[int],
    rows: dict[str, dict[int, str]],
    rates: dict[str, dict[int, float]],
    trees: int,
) -> None:
    lines = [
        f"Winning-move rate, {family}, {trees} trees per cell (95% Wilson; against mean: "
        "trees better/worse, exact sign test)",
        "",
        "| backup | " + " | ".join(f"N = {b}" for b in budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    for label, cells in rows.items():
        lines.append(f"| {label} | " + " | ".join(cells.get(b, "") for b in budgets) + " |")
    (folder / "table.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines), flush=True)

    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib.figure import Figure

    labels = list(rates)
    grid = np.array([[rates[lab].get(b, np.nan) for b in budgets] for lab in labels])
    fig = Figure(figsize=(7, 0.3 * len(labels) + 1.5))
    ax = fig.add_subplot(1, 1, 1)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(budgets)), [str(b) for b in budgets])
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel("simulations N")
    ax.set_title(f"winning-move rate, {family}", fontsize=9)
    for i in range(len(labels)):
        for j in range(len(budgets)):
            if not np.isnan(grid[i, j]):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if grid[i, j] < 0.6 else "black",
                )
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    save_figure(fig, folder / "heat.png", dpi=110, colours=256)


if __name__ == "__main__":
    sys.exit(main())
