"""The ``gomcts traps`` command: the trap-tree grid (registered in ``gomcts.commands``).

It runs :func:`agents.traps.grid.run_grid`, the same code as the Python API, and writes into
the output folder: ``results.jsonl`` (resumable), ``table.md``, ``summary.json`` and the plots
``winning.png``, ``trap-avoidance.png``, ``error.png``. Rerunning the same command resumes.
Examples::

    gomcts traps --deceptive --out runs/traps-deceptive
    gomcts traps --backups mean softmax "coulom:a=4,b=32" --budgets 100 1000 --trees 200
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

__all__ = ["add_tree_arguments", "go_sims_per_second", "register", "trees_from_args"]


def add_tree_arguments(parser: Any) -> None:
    """Add the options of the tree family (``--b --depth --rho --k ...``) to a parser or group."""
    from agents.traps import TrapTreeConfig

    d = TrapTreeConfig()
    group = (
        parser.add_argument_group("trees (docs/traps.md#the-trees)")
        if isinstance(parser, argparse.ArgumentParser)
        else parser
    )
    group.add_argument("--b", type=int, default=d.b, help=f"branching factor (default {d.b})")
    group.add_argument("--depth", type=int, default=d.depth, help=f"plies (default {d.depth})")
    group.add_argument("--rho", type=float, default=d.rho, help=f"trap density (default {d.rho})")
    group.add_argument(
        "--k", type=int, default=d.k, choices=(1, 3, 5), help=f"trap level (default {d.k})"
    )
    group.add_argument(
        "--q-win", type=float, default=d.q_win, help=f"winning-move probability ({d.q_win})"
    )
    group.add_argument(
        "--sigma", type=float, default=d.sigma, help=f"evaluator noise sd (default {d.sigma})"
    )
    group.add_argument(
        "--deceptive",
        action="store_true",
        help="evaluate nodes inside traps the wrong way (v = -V* + noise)",
    )
    group.add_argument(
        "--root-traps",
        type=int,
        default=d.root_traps,
        help=f"traps forced among the root's mistakes (default {d.root_traps})",
    )
    group.add_argument(
        "--prior-sigma",
        type=float,
        default=d.prior_sigma,
        help=f"noise sd of the puct-noisy prior (default {d.prior_sigma})",
    )


def trees_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~agents.traps.TrapTreeConfig` named by :func:`add_tree_arguments`."""
    from agents.traps import TrapTreeConfig

    return TrapTreeConfig(
        b=args.b,
        depth=args.depth,
        rho=args.rho,
        k=args.k,
        q_win=args.q_win,
        sigma=args.sigma,
        deceptive=args.deceptive,
        root_traps=args.root_traps,
        prior_sigma=args.prior_sigma,
    )


def go_sims_per_second(sims: int = 1000, repeats: int = 3) -> float:
    """Simulations per second of the Go search: 9x9 empty board, rollouts, mean, UCT c=1."""
    from agents.mcts.config import MCTSConfig
    from agents.mcts.search import Search
    from go_env import GoState, Rules

    search = Search(MCTSConfig(sims=sims, c=1.0).search_params(), seed=0)
    state = GoState(Rules(size=9, komi=7.5))
    search.set_root(state)
    search.run(sims=10)  # compile
    done, seconds = 0, 0.0
    for _ in range(repeats):
        search.set_root(state)
        start = time.perf_counter()
        done += search.run(sims=sims).simulations
        seconds += time.perf_counter() - start
    return done / seconds


def register(subparsers: Any) -> None:
    """Add the ``traps`` subcommand to the ``gomcts`` parser."""
    from agents.cli import output_folder
    from agents.traps import POLICIES
    from agents.traps.grid import DEFAULT_BACKUPS, DEFAULT_BUDGETS

    parser = subparsers.add_parser(
        "traps",
        help="backups on synthetic trees with search traps and known values (resumable)",
        description="Search trap trees with each backup at each budget (see docs/traps.md).",
    )
    parser.add_argument(
        "--backups",
        nargs="+",
        default=list(DEFAULT_BACKUPS),
        help=f"backup specs (default {' '.join(DEFAULT_BACKUPS)})",
    )
    parser.add_argument(
        "--budgets",
        nargs="+",
        type=int,
        default=list(DEFAULT_BUDGETS),
        help=f"simulations per search (default {' '.join(map(str, DEFAULT_BUDGETS))})",
    )
    parser.add_argument("--trees", type=int, default=500, help="trees per cell (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="grid seed (default 0)")
    parser.add_argument(
        "--policy", choices=POLICIES, default="uct", help="tree policy (default uct)"
    )
    parser.add_argument("--c", type=float, default=None, help="exploration constant")
    parser.add_argument("--chunk", type=int, default=50, help="trees per unit of work (50)")
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: all cores)"
    )
    parser.add_argument(
        "--out",
        type=output_folder,
        default="runs/traps",
        help="output folder; rerun with it to resume (default runs/traps)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-go-speed", action="store_true", help="skip the Go search's simulations/s"
    )
    add_tree_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the grid of ``args``; print the table; write the outputs."""
    from agents.traps.grid import GridConfig, GridError, run_grid
    from agents.traps.report import markdown_table, plot_grid, summarise

    try:
        config = GridConfig(
            trees=trees_from_args(args),
            backups=tuple(args.backups),
            budgets=tuple(args.budgets),
            n_trees=args.trees,
            seed=args.seed,
            policy=args.policy,
            c=args.c,
            chunk=args.chunk,
        )
    except ValueError as exc:
        print(f"gomcts traps: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    start = time.perf_counter()
    try:
        results = run_grid(
            config,
            results=out / "results.jsonl",
            workers=args.workers,
            progress=not args.no_progress,
        )
    except GridError as exc:
        print(f"gomcts traps: {exc}", file=sys.stderr)
        return 2
    wall = time.perf_counter() - start
    summaries = summarise(results)
    table = markdown_table(summaries, config.reference)
    trees = config.trees
    title = (
        f"trap trees b={trees.b} D={trees.depth} rho={trees.rho} k={trees.k} "
        f"q_win={trees.q_win} sigma={trees.sigma}{' deceptive' if trees.deceptive else ''}, "
        f"{config.policy}, {config.n_trees} trees"
    )
    (out / "table.md").write_text(f"{title}\n\n{table}", encoding="utf-8")
    plots = plot_grid(summaries, out, title)
    summary = {
        "setup": config.setup(),
        "backups": list(config.backups),
        "budgets": list(config.budgets),
        "n_trees": config.n_trees,
        "wall_seconds": round(wall, 1),
        "sims_per_second": round(results.sims_per_second, 1),
        "cells": [asdict(s) for s in summaries],
    }
    print(title)
    print(table)
    print(f"wall time {wall:.1f} s; plots: {', '.join(str(p) for p in plots)}")
    if results.simulations:
        line = f"trap search: {results.sims_per_second:,.0f} simulations/s per worker"
        if not args.no_go_speed:
            go = go_sims_per_second()
            summary["go_sims_per_second"] = round(go, 1)
            line += f"; Go search (9x9, rollouts, mean, 1,000 sims): {go:,.0f} simulations/s"
        print(line)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0
