"""The trap-tree grid: resumable results, refused setups, statistics, the command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agents.cli import main
from agents.matches.stats import wilson_interval
from agents.traps import (
    GridConfig,
    GridError,
    GridResults,
    TrapSearch,
    TrapTreeConfig,
    TreeResult,
    run_grid,
    summarise,
)
from agents.traps.grid import read_grid, tree_seed
from agents.traps.report import legend_label, markdown_table, plot_grid, t_interval, t_quantile

TREES = TrapTreeConfig(b=4, depth=8, rho=0.2, deceptive=True)


def small(**changes: object) -> GridConfig:
    base: dict[str, object] = {
        "trees": TREES,
        "backups": ("mean", "softmax"),
        "budgets": (50, 100),
        "n_trees": 6,
        "chunk": 4,
    }
    base.update(changes)
    return GridConfig(**base)  # type: ignore[arg-type]


def outcomes(results: GridResults) -> dict[tuple[str, int], list[TreeResult]]:
    return {cell: results.cell(*cell) for cell in sorted(results.cells)}


def test_grid_searches_each_tree_with_the_trap_search(tmp_path: Path) -> None:
    config = small()
    results = run_grid(config, results=tmp_path / "r.jsonl", workers=1)
    assert set(results.cells) == {(b, n) for b in config.backups for n in config.budgets}
    for (backup, budget), trees in outcomes(results).items():
        assert [t.tree for t in trees] == list(range(6))
        for t in trees:
            direct = TrapSearch(backup, TREES).run(tree_seed(0, t.tree), budget)
            assert (t.move, t.winning, t.trap) == (direct.move, direct.winning, direct.trap)
            assert t.root_value == pytest.approx(direct.root_value, abs=1e-8)
    assert results.simulations == 2 * 6 * (50 + 100)


def test_rerun_resumes_and_a_cut_line_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = run_grid(small(), results=path, workers=1)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "header"
    assert len(lines) == 1 + 2 * 2 * 2  # backups x budgets x chunks
    again = run_grid(small(), results=path, workers=1)
    assert again.simulations == 0
    assert outcomes(again) == outcomes(first)
    # an interrupted write: half of the last line
    text = path.read_text()
    path.write_text(text[: len(text) - len(lines[-1]) // 2 - 1])
    resumed = run_grid(small(), results=path, workers=1)
    assert resumed.simulations == 2 * 100  # the lost chunk (2 trees at 100 sims) again
    assert outcomes(resumed) == outcomes(first)
    assert all(json.loads(line) for line in path.read_text().splitlines())
    # more trees extend the grid
    more = run_grid(small(n_trees=8), results=path, workers=1)
    assert more.simulations == 2 * 2 * (50 + 100)
    assert read_grid(path, small(n_trees=8)).cell("mean", 50)[-1].tree == 7


def test_a_changed_setup_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_grid(small(budgets=(50,)), results=path, workers=1)
    with pytest.raises(GridError, match="different trees"):
        run_grid(small(trees=TrapTreeConfig(b=4, depth=8)), results=path, workers=1)
    with pytest.raises(GridError, match="different policy"):
        run_grid(small(policy="puct"), results=path, workers=1)


def test_workers_give_the_same_results(tmp_path: Path) -> None:
    config = small(budgets=(50,), n_trees=8)
    one = run_grid(config, workers=1)
    two = run_grid(config, results=tmp_path / "r.jsonl", workers=2)
    assert outcomes(one) == outcomes(two)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"backups": ()}, "at least one backup"),
        ({"backups": ("mean", "nosuch")}, "backup 'nosuch'"),
        ({"budgets": ()}, "at least one budget"),
        ({"budgets": (100, 0)}, r"budgets\[1\] must be an int >= 1, got 0"),
        ({"budgets": (100, True)}, r"budgets\[1\] must be an int >= 1, got True"),
        ({"budgets": (100, 100)}, "each budget once"),
        ({"n_trees": 0}, "n_trees must be an int >= 1, got 0"),
        ({"chunk": 2.5}, "chunk must be an int >= 1, got 2.5"),
        ({"seed": -1}, "seed must be an int >= 0, got -1"),
        ({"policy": "ucb"}, "policy must be one of uct, puct, puct-noisy; got 'ucb'"),
        ({"c": -0.5}, r"c must be a number >= 0, got -0.5"),
        ({"c": float("nan")}, r"c must be a number >= 0, got nan"),
        ({"backups": ("mean", "mean")}, "each backup once"),
    ],
)
def test_bad_grids_are_named(changes: dict[str, object], message: str) -> None:
    with pytest.raises(GridError, match=message):
        small(**changes)


def _tree(i: int, winning: bool, trap: bool, value: float) -> TreeResult:
    return TreeResult(i, 0, winning, trap, 1, value, 10)


def test_summary_rates_intervals_and_paired_tests() -> None:
    config = small(budgets=(10,), n_trees=4)
    results = GridResults(config)
    results.add(
        "mean",
        10,
        [
            _tree(0, True, False, 1.0),
            _tree(1, False, True, 0.0),
            _tree(2, False, True, 0.5),
            _tree(3, True, False, 0.8),
        ],
    )
    results.add(
        "softmax",
        10,
        [
            _tree(0, True, False, 0.9),
            _tree(1, True, False, 0.2),
            _tree(2, True, False, 0.5),
            _tree(3, False, True, 0.8),
        ],
    )
    mean, soft = summarise(results)
    assert (mean.backup, soft.backup) == ("mean", "softmax")
    assert mean.winning == 0.5 and mean.winning_ci == wilson_interval(2, 4)
    assert soft.avoid == 0.75 and soft.trap_trees == 4
    assert soft.vs_winning is not None and soft.vs_avoid is not None and soft.vs_error is not None
    assert (soft.vs_winning.better, soft.vs_winning.worse) == (2, 1)
    assert (soft.vs_avoid.better, soft.vs_avoid.worse) == (2, 1)
    # errors: mean 0, 1, 0.5, 0.2; softmax 0.1, 0.8, 0.5, 0.2 -> better on 1, worse on 1
    assert (soft.vs_error.better, soft.vs_error.worse) == (1, 1)
    assert soft.vs_winning.p == 1.0
    assert mean.vs_winning is None
    assert mean.error == pytest.approx((0 + 1 + 0.5 + 0.2) / 4)
    table = markdown_table([mean, soft])
    assert "| softmax | 10 | 4 | 0.750" in table and "+2/-1 p=1" in table


def test_t_interval() -> None:
    mean, low, high = t_interval([1.0, 2.0, 3.0])
    # t(0.975, 2) = 4.303; sd = 1; half = 4.303 / sqrt(3)
    assert mean == 2.0 and high - mean == pytest.approx(4.3027 / math.sqrt(3), rel=1e-4)
    assert low == pytest.approx(2 * mean - high)
    assert t_interval([])[0] != t_interval([])[0]  # NaN
    # Student t quantiles from tables (two-sided 95%)
    for df, table in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (30, 2.0423)):
        assert t_quantile(0.975, df) == pytest.approx(table, rel=2e-3)
    with pytest.raises(ValueError, match="df >= 1"):
        t_quantile(0.975, 0)


def test_plots_are_written(tmp_path: Path) -> None:
    results = run_grid(small(budgets=(20, 40), n_trees=3), workers=1)
    paths = plot_grid(summarise(results), tmp_path, "test")
    assert [p.name for p in paths] == ["winning.png", "trap-avoidance.png", "error.png"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_legend_labels_of_tuned_specs_are_short() -> None:
    tuned = "monotone:g=[6.35618750762055,-1.7211160025884578,-4.983771195469354,5.78,1e-05]"
    assert legend_label(tuned) == "monotone:g=[6.36,-1.72,-4.98,5.78,1e-05]"
    assert legend_label("maxmcts:lam=0.5") == "maxmcts:lam=0.5"
    long = legend_label("softmax:g=[" + ",".join(["-1.23456"] * 20) + "]")
    assert len(long) == 60 and long.endswith("...")


def test_command_writes_table_plots_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "grid"
    args = [
        "traps",
        "--backups",
        "mean",
        "maxmcts:lam=0",
        "--budgets",
        "30",
        "--trees",
        "3",
        "--b",
        "3",
        "--depth",
        "6",
        "--deceptive",
        "--workers",
        "1",
        "--no-progress",
        "--no-go-speed",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "| maxmcts:lam=0 | 30 | 3 |" in printed and "simulations/s" in printed
    for name in ("results.jsonl", "table.md", "summary.json", "winning.png"):
        assert (out / name).exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["setup"]["trees"]["deceptive"] is True
    assert len(summary["cells"]) == 2
    # a changed tree family with the same folder is refused
    assert main([*args[:-1], str(out), "--sigma", "0.5"]) == 2
    assert "holds another grid" in capsys.readouterr().err
    assert main(["traps", "--backups", "nosuch", "--out", str(out)]) == 2
    assert "backup 'nosuch'" in capsys.readouterr().err
