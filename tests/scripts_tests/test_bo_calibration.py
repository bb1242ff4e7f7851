"""The BO calibration study at a tiny size: a run, its resume, and re-scoring stored runs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import ModuleType

import pytest
from script_support import load_script

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    return load_script("bo_calibration")


def test_a_tiny_study_resumes_and_its_runs_are_rescored_on_the_same_trials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calib = _script()
    out = tmp_path / "runs"
    tiny = ["--seeds", "1", "--first-seed", "3", "--trials", "5", "--startup", "4"]
    args = [*tiny, "--games", "30", "--functions", "flat", "cliff", "--out", str(out)]
    assert calib.main(args) == 0
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [(r["function"], r["seed"]) for r in runs] == [("flat", 3), ("cliff", 3)]
    for r in runs:
        assert len(r["points"]) == len(r["values"]) == len(r["truths"]) == 5
        # stored to 6 decimals (rounded)
        assert r["mean"] == pytest.approx(r["posterior_mean"] - r["selection_bias"], abs=2e-6)
        assert r["z"] == pytest.approx((r["mean"] - r["truth"]) / r["sd"], abs=1e-3)
        assert all(len(repr(x).split(".")[-1]) <= 6 for x in r["truths"])
        # every correction at the same point, the shipped one among them
        reports = r["corrections"]
        assert set(reports) == set(calib.CORRECTIONS)
        assert reports["iterated"] == {"mean": r["mean"], "z": r["z"]}
        assert reports["none"]["mean"] == r["posterior_mean"]
    assert calib.main(args) == 0  # resumed: nothing run again
    assert len((out / "runs.jsonl").read_text().splitlines()) == 2
    assert "2 runs on disk, 0 to go" in capsys.readouterr().out

    # the same trials, re-scored by the same model: the same report
    again = tmp_path / "again"
    assert calib.main(["--rescore", str(out / "runs.jsonl"), "--out", str(again)]) == 0
    rescored = [json.loads(line) for line in (again / "runs.jsonl").read_text().splitlines()]
    for old, new in zip(runs, rescored, strict=True):
        assert new["values"] == old["values"] and new["trial"] == old["trial"]
        assert new["mean"] == pytest.approx(old["mean"], abs=1e-3)
        assert new["sd"] == pytest.approx(old["sd"], abs=1e-3)
    summary = json.loads((again / "summary.json").read_text())
    assert summary["setting"]["rescored"] == str(out / "runs.jsonl")
    assert set(summary["functions"]) == {"flat", "cliff"}
    text = capsys.readouterr().out
    assert "| flat | 1 |" in text and "| selection | " in text and "| iterated | " in text
    assert summary["corrections"]["iterated"] == summary["functions"]

    # a recorded (compressed) runs file, re-scored with input warping: same trials, new fit
    packed = tmp_path / "recorded" / "runs.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress((out / "runs.jsonl").read_bytes()))
    warped = tmp_path / "warped"
    assert calib.main(["--rescore", str(packed), "--input-warp", "--out", str(warped)]) == 0
    summary = json.loads((warped / "summary.json").read_text())
    assert summary["setting"]["input_warp"] is True
    again_warped = [json.loads(line) for line in (warped / "runs.jsonl").read_text().splitlines()]
    assert [r["values"] for r in again_warped] == [r["values"] for r in runs]
    for flag in ("--input-warp", "--bootstrap-sd"):
        with pytest.raises(SystemExit):
            calib.main([*args, flag])
        assert f"{flag} changes the report only: give it with --rescore" in (
            capsys.readouterr().err
        )

    # the bootstrap's width: the same points and estimates, another sd
    wide = tmp_path / "bootstrap-sd"
    assert calib.main(["--rescore", str(packed), "--bootstrap-sd", "--out", str(wide)]) == 0
    assert json.loads((wide / "summary.json").read_text())["setting"]["bootstrap_sd"] is True
    for old, new in zip(
        runs,
        [json.loads(line) for line in (wide / "runs.jsonl").read_text().splitlines()],
        strict=True,
    ):
        assert new["trial"] == old["trial"] and new["mean"] == pytest.approx(old["mean"], abs=1e-3)
        assert new["sd"] > 0 and new["sd"] != pytest.approx(old["sd"], abs=1e-4)
        assert new["z"] == pytest.approx((new["mean"] - new["truth"]) / new["sd"], abs=1e-3)

    # a stored run without its trials, the input file as the output, a missing file
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({k: runs[0][k] for k in ("function", "seed", "mean")}) + "\n")
    for bad, message in (
        (["--rescore", str(bare), "--out", str(tmp_path / "b")], "has no points"),
        (["--rescore", str(out / "runs.jsonl"), "--out", str(out)], "to another --out"),
        (["--rescore", str(tmp_path / "none.jsonl"), "--out", str(again)], "no file"),
    ):
        with pytest.raises(SystemExit):
            calib.main(bad)
        assert message in capsys.readouterr().err


def test_the_width_frontier_scores_every_scale_and_the_homogeneity_test() -> None:
    calib = _script()

    def run(function: str, error: float, values: list[float]) -> dict[str, object]:
        return {
            "function": function,
            "mean": 0.5 + error,
            "truth": 0.5,
            "sd": 0.01,
            "games": 100,
            "values": values,
        }

    same = [0.5] * 10  # trials that agree: no reason to reject a common winrate
    apart = [0.2] * 5 + [0.8] * 5  # 0.2 against 0.8 over 100 games each: rejected
    records = [run("flat", 0.005, same), run("flat", 0.015, same), run("cliff", 0.0, apart)]
    frontier = calib.width_frontier(records)
    flat = frontier["coverage_at_scale"]["flat"]
    # errors of 0.5 and 1.5 sd: the second is inside from 1.5 / 1.96 = 0.77 sd on
    assert flat["0.7"] == 0.5 and flat["0.8"] == 1.0
    assert frontier["coverage_at_scale"]["cliff"]["0.6"] == 1.0
    assert frontier["scales_meeting_target"] == []  # coverage 50% or 100%, never 90-97%
    assert frontier["homogeneity"] == {"flat": 0.0, "cliff": 1.0}
    assert calib.homogeneity_p(records[0]) == pytest.approx(1.0)
    text = calib.format_frontier(frontier)
    assert "| 0.8 | 100% | 100% |" in text and "none" in text


def test_the_recorded_study_summarises_to_its_committed_summary(tmp_path: Path) -> None:
    import gzip

    calib = _script()
    record = ROOT / "docs" / "results" / "tuning" / "bo-calibration"
    out = tmp_path / "again"
    out.mkdir()
    (out / "runs.jsonl").write_bytes(gzip.decompress((record / "runs.jsonl.gz").read_bytes()))
    assert calib.main(["--seeds", "100", "--out", str(out)]) == 0  # all on disk: no run
    assert json.loads((out / "summary.json").read_text()) == json.loads(
        (record / "summary.json").read_text()
    )
    assert (out / "summary.md").read_text() == (record / "summary.md").read_text()


def test_the_run_log_drops_a_torn_last_line_and_refuses_a_damaged_one(tmp_path: Path) -> None:
    calib = _script()
    log = tmp_path / "runs.jsonl"
    log.write_text('{"function": "flat", "seed": 0}\n{"function": "cliff", "se')
    assert calib._done(log) == [{"function": "flat", "seed": 0}]  # the cut run plays again
    packed = tmp_path / "runs.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"function": "flat", "seed": 0}\n'))
    assert calib._done(packed) == [{"function": "flat", "seed": 0}]
    log.write_text('{"function": "flat", "seed": 0}\nnot json\n{"function": "cliff", "seed": 0}\n')
    with pytest.raises(SystemExit, match=r"runs\.jsonl, line 2: not JSON"):
        calib._done(log)
