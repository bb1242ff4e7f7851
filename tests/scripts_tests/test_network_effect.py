"""scripts/network_effect.py: the pre-registered analysis of the paper-net-9x9 plan."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_support import ROOT, load_script


@pytest.fixture(scope="module")
def effect() -> ModuleType:
    return load_script("network_effect")


def test_verdicts_are_read_from_the_interval(effect) -> None:
    assert effect.verdict(0.42, 0.49) == "below"
    assert effect.verdict(0.46, 0.55) == "even"
    assert effect.verdict(0.51, 0.58) == "above"


def test_the_recorded_reproduction_paired_with_itself(effect, tmp_path, capsys) -> None:
    """On the recorded rows of li-lim-9x9 (each paired with itself): its published numbers,
    no game won by one side alone, no verdict changed."""
    base = str(ROOT / "experiments" / "li-lim-9x9.toml")
    assert effect.main(["--plan", base, "--base", base, "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "network-effect.json").read_text())
    rows = {m["id"]: m for m in result["rows"]}
    assert round(100 * rows["aa-mean"]["rate"], 1) == 55.5
    assert [round(100 * x, 1) for x in rows["coulom-2-16"]["interval"]] == [42.3, 49.2]
    assert rows["coulom-2-16"]["verdict"] == "below" and rows["softmax-g-2"]["verdict"] == "below"
    assert rows["confirm-softmax"]["verdict"] == "even"
    for m in rows.values():
        assert m["base"]["paired"]["this_only"] == m["base"]["paired"]["base_only"] == 0
        assert not m["base"]["verdict_changed"] and m["p_holm"] >= m["p"]
    assert result["studies"]["bo-softmax"]["number"] == 17 and result["complete"]
    assert "| `coulom-2-16` (primary) | 200 | 45.8 [42.3, 49.2], 800 games | below |" in (
        capsys.readouterr().out
    )


def test_the_plan_before_its_games_and_a_bad_plan(effect, tmp_path, capsys) -> None:
    assert effect.main(["--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "network-effect.json").read_text())
    assert [m["id"] for m in result["rows"]] == [
        "aa-mean",
        "coulom-2-16",
        "softmax-g-2",
        "confirm-softmax",
        "confirm-monotone",
        "recheck-n800-tau27",
        "coulom-2-16-n800",
    ]
    assert set(result["studies"]) == {"bo-softmax", "bo-monotone"}
    if not Path(ROOT / "runs" / "reproduction" / "paper-net-9x9").exists():
        assert all(m.get("status") == "not played" for m in result["rows"])
        assert not result["complete"]
    assert effect.main(["--plan", str(tmp_path / "none.toml"), "--out", str(tmp_path)]) == 2
    assert "network_effect: error" in capsys.readouterr().err


def test_a_plan_names_its_own_primary_row(effect, tmp_path, capsys) -> None:
    plan = str(ROOT / "experiments" / "paper-net-g70-9x9.toml")
    base = str(ROOT / "experiments" / "paper-net-9x9.toml")
    args = ["--plan", plan, "--base", base, "--out", str(tmp_path)]
    assert effect.main([*args, "--primary", "recheck-n800-tau27"]) == 0
    result = json.loads((tmp_path / "network-effect.json").read_text())
    assert result["primary"] == "recheck-n800-tau27" and result["base"] == "paper-net-9x9"
    assert result["rows"][0]["id"] == "recheck-n800-tau27"
    assert "| verdict | paper-net-9x9 | verdict |" in capsys.readouterr().out
    # A primary the plan does not hold (a study row, or a typo) is refused with the choices.
    assert effect.main([*args, "--primary", "bo-softmax"]) == 2
    err = capsys.readouterr().err
    assert "'bo-softmax' is not a match row of paper-net-g70-9x9" in err
    assert "recheck-n800-tau27, softmax-g-2, aa-mean, coulom-2-16, coulom-2-16-n800" in err


def test_rows_pair_with_every_base_plan_and_are_drawn(effect, tmp_path, capsys) -> None:
    """Two base plans: the rows carry both comparisons (the first is also ``base``), the
    printout has a table for each, and the plot draws the plan's rows beside theirs."""
    recorded = str(ROOT / "experiments" / "li-lim-9x9.toml")
    elsewhere = str(ROOT / "experiments" / "paper-net-g70-9x9.toml")  # its rows: not on disk
    plot = tmp_path / "scores.png"
    args = ["--plan", recorded, "--base", recorded, elsewhere, "--out", str(tmp_path)]
    assert effect.main([*args, "--plot", str(plot)]) == 0
    result = json.loads((tmp_path / "network-effect.json").read_text())
    assert result["bases"] == ["li-lim-9x9", "paper-net-g70-9x9"]
    rows = {m["id"]: m for m in result["rows"]}
    both = rows["recheck-n800-tau27"]["bases"]
    assert both["li-lim-9x9"] == rows["recheck-n800-tau27"]["base"]
    assert both["li-lim-9x9"]["paired"]["this_only"] == 0
    assert rows["coulom-4-32"]["bases"]["li-lim-9x9"]["verdict"] == "below"
    if not (ROOT / "runs" / "reproduction" / "paper-net-g70-9x9").exists():
        assert both["paper-net-g70-9x9"] is None
    out = capsys.readouterr().out
    assert "| verdict | li-lim-9x9 | verdict |" in out
    assert "| verdict | paper-net-g70-9x9 | verdict |" in out
    assert "| `recheck-n800-tau27` | 800 | 42.5 [35.9, 49.4], 200 games | below |" in out
    assert f"plot: {plot}" in out and plot.read_bytes().startswith(b"\x89PNG")
