"""The Elo ladder's extra anchors, their validation, and the backfill of a run's ladder."""

from __future__ import annotations

import json

import pytest

from agents.cli import main as gomcts
from agents.nets.checkpoint import shipped_model_path
from agents.nets.model import NetConfig
from agents.nets.training.ladder import anchors, backfill_ladder, parse_generations
from agents.nets.training.manifest import Manifest
from agents.nets.training.plots import plot_elo
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.selfplay_config import RUNTIME_FIELDS, SelfPlayConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("gen-2", "'gen-2' is not an anchor"),
        ("gen-00002", "leading zero"),
        ("sup@8", "'sup@8' is not an anchor"),
        ("gen-0002@0", "not an integer >= 1"),
        ("gen-0002@x", "not an integer >= 1"),
        ("gen-0002,,gen-0003", "empty item"),
        ("gen-0002,", "empty item"),
        ("gen-0002, gen-0002", "a second time"),
        ("gen-0002,gen-0002@2", "a second time"),  # @2 is the ladder's N (gate_sims)
        ("gen-0000", "built-in initial"),
        ("gen-0000@2", "built-in initial"),
        ("supervised", "built-in supervised"),
        ("supervised@8", "needs a 9x9 run"),
    ],
)
def test_bad_ladder_anchors_are_refused_saying_what_is_allowed(
    selfplay_config, text: str, why: str
) -> None:
    with pytest.raises(ValueError, match=why) as caught:
        selfplay_config(ladder_anchors=text)
    if "9x9" not in why:
        assert "allowed: a comma-separated list of gen-NNNN" in str(caught.value)


def test_extra_anchors_keep_the_built_in_specs(tmp_path, selfplay_config) -> None:
    config = selfplay_config(ladder_anchors=" gen-0003@5 ,gen-0001")
    assert [a.name for a in config.extra_anchors()] == ["gen-0003-n5", "gen-0001"]
    with pytest.raises(ValueError, match=r"gen-0003\.pt does not exist"):
        anchors(config, tmp_path)
    (tmp_path / "nets").mkdir()
    for g in (1, 3):
        (tmp_path / "nets" / f"gen-{g:04d}.pt").write_bytes(b"")
    found = anchors(config, tmp_path)
    assert list(found) == ["initial", "gen-0003-n5", "gen-0001"]
    plain = anchors(selfplay_config(), tmp_path)
    assert (
        plain["initial"]
        == found["initial"]
        == (f'mcts:policy=puct,sims=2,c=1,name=initial,evaluator="net:{tmp_path}/nets/gen-0000.pt"')
    )  # byte for byte the spec of the runs recorded before extra anchors existed
    assert found["gen-0003-n5"] == (
        f'mcts:policy=puct,sims=5,c=1,name=gen-0003-n5,evaluator="net:{tmp_path}/nets/gen-0003.pt"'
    )
    assert "sims=2," in found["gen-0001"]


@pytest.mark.skipif(not shipped_model_path().exists(), reason="no shipped supervised network")
def test_supervised_at_another_n(tmp_path, selfplay_config) -> None:
    net = NetConfig(size=9, blocks=1, filters=8, history=2)
    config = selfplay_config(net=net, evaluator="net:symmetry=none", ladder_anchors="supervised@8")
    found = anchors(config, tmp_path)
    assert list(found) == ["supervised", "initial", "supervised-n8"]
    assert found["supervised"] == (
        'mcts:policy=puct,sims=2,c=1,name=supervised,evaluator="net:default,symmetry=none"'
    )
    assert found["supervised-n8"] == (
        'mcts:policy=puct,sims=8,c=1,name=supervised-n8,evaluator="net:default,symmetry=none"'
    )
    from agents.registry import make_agent

    assert make_agent(found["supervised-n8"]) is not None  # a spec the arena can build


def test_generations_range() -> None:
    assert parse_generations("2-5") == (2, 5) and parse_generations("3") == (3, 3)
    for bad in ("5-2", "0-3", "a-b", "1-2-3", ""):
        with pytest.raises(ValueError, match="A-B or A"):
            parse_generations(bad)


def test_old_manifest_resumes_and_the_ladder_is_backfilled(
    tmp_path, selfplay_config, capsys
) -> None:
    assert "ladder_anchors" in RUNTIME_FIELDS
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config(max_moves=12)) == "done"
    path = out / "manifest.json"
    manifest = Manifest.load(path)
    del manifest.data["config"]["ladder_anchors"]  # a manifest written before the field
    manifest.save()
    assert SelfPlayConfig.from_dict(manifest.data["config"]).ladder_anchors == ""
    ladder = out / "ladder.jsonl"
    before = ladder.read_text()
    assert [(r["generation"], r["anchor"]) for r in map(json.loads, before.splitlines())] == [
        (1, "initial")
    ]
    # a resumed run may add anchors; one whose checkpoint is missing is refused before it starts
    with pytest.raises(ValueError, match=r"gen-0007\.pt does not exist"):
        run_selfplay(out, selfplay_config(max_moves=12, ladder_anchors="gen-0007"))
    # the backfill: past generations against the new anchors, the recorded rows kept
    config = selfplay_config(max_moves=12, ladder_anchors="gen-0001,gen-0000@1")
    logged: list[str] = []
    assert backfill_ladder(out, config, budget_minutes=1e-6, log=logged.append) == "budget"
    assert backfill_ladder(out, config, generations=(2, 9), log=logged.append) == "done"
    assert ladder.read_text() == before and "0 matches" in logged[-1]  # 2: not a past one
    argv = ["train", "ladder", "--out", str(out), "--ladder-anchors", "gen-0001,gen-0000@1"]
    assert gomcts(argv) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out.splitlines()[-1])["status"] == "done"
    err = printed.err
    assert "2 matches of 2 games" in err and "vs gen-0000-n1: 2/2 games" in err
    rows = [json.loads(x) for x in ladder.read_text().splitlines()]
    assert [(r["generation"], r["anchor"]) for r in rows] == [
        (1, "initial"),
        (1, "gen-0001"),
        (1, "gen-0000-n1"),
    ]
    assert ladder.read_text().startswith(before)  # the recorded row, byte for byte
    assert all(r["games"] == 2 and r["best_generation"] == rows[0]["best_generation"] for r in rows)
    assert (out / "ladder" / "gen-0001-gen-0000-n1.jsonl").exists()
    stamp = ladder.stat().st_mtime_ns
    assert gomcts([*argv, "--quiet"]) == 0  # a rerun has nothing left to play
    assert ladder.stat().st_mtime_ns == stamp
    # the run resumes with the new anchors, which its next generation plays
    resumed = selfplay_config(generations=2, max_moves=12, ladder_anchors="gen-0001,gen-0000@1")
    assert run_selfplay(out, resumed) == "done"
    rows = [json.loads(x) for x in ladder.read_text().splitlines()]
    assert [(r["generation"], r["anchor"]) for r in rows] == [
        (g, a) for g in (1, 2) for a in ("initial", "gen-0001", "gen-0000-n1")
    ]
    assert Manifest.load(path).data["config"]["ladder_anchors"] == "gen-0001,gen-0000@1"
    assert gomcts([*argv[:4], "--generations", "3-1"]) == 2
    assert "--generations must be A-B" in capsys.readouterr().err
    assert gomcts(["train", "ladder", "--out", str(tmp_path / "none")]) == 2
    assert "no self-play run" in capsys.readouterr().err


def test_elo_plot_draws_every_anchor_and_saturated_bounds(tmp_path) -> None:
    rows = [
        {"generation": 1, "anchor": "supervised", "elo": None, "elo_low": None, "elo_high": -407.0},
        {"generation": 1, "anchor": "initial", "elo": 300.0, "elo_low": 150.0, "elo_high": 450.0},
        {"generation": 5, "anchor": "initial", "elo": None, "elo_low": 407.0, "elo_high": None},
        {
            "generation": 5,
            "anchor": "supervised-n8",
            "elo": 10.0,
            "elo_low": -90.0,
            "elo_high": 110.0,
        },
    ]
    path = plot_elo(rows, tmp_path / "elo.png")
    assert path is not None and path.stat().st_size > 0
    from PIL import Image

    with Image.open(path) as image:  # a palette PNG of the figure's size
        assert image.format == "PNG" and image.mode == "P" and image.size == (560, 360)
        assert len(image.getcolors()) > 4  # the curves' colours survive the palette
    assert plot_elo([], tmp_path / "none.png") is None


def test_elo_plot_draws_each_reference_as_a_dashed_line(tmp_path, monkeypatch) -> None:
    from agents.nets.training import plots

    drawn = {}

    def keep(plt, fig, path):
        drawn["lines"] = [(line.get_label(), line.get_linestyle()) for line in fig.axes[0].lines]
        drawn["ys"] = {line.get_label(): list(line.get_ydata()) for line in fig.axes[0].lines}
        return plots_save(plt, fig, path)

    plots_save = plots._save
    monkeypatch.setattr(plots, "_save", keep)
    rows = [{"generation": 8, "anchor": "GNU Go", "elo": 53.0, "elo_low": -55.0, "elo_high": 160.0}]
    path = plot_elo(rows, tmp_path / "elo.png", references=[("supervised", 108.0), ("b6", -40.0)])
    assert path is not None and path.stat().st_size > 0
    assert ("supervised (+108)", "--") in drawn["lines"]
    assert ("b6 (-40)", "--") in drawn["lines"]
    assert drawn["ys"]["supervised (+108)"] == [108.0, 108.0]
    assert ("vs GNU Go", "-") in drawn["lines"]
