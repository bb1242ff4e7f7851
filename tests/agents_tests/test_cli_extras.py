"""A command whose optional package is missing names the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agents.cli import EXTRA_OF_MODULE, missing_extra


def _run_without(module: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # as if the package were not installed\n"
        "from agents.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_arena_without_the_agents_extra_says_so(tmp_path: object) -> None:
    proc = _run_without(
        "tqdm", ["arena", "random", "random", "--size", "5", "--games", "2", "--out", str(tmp_path)]
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "gomcts arena: error: this needs the Python package 'tqdm'" in proc.stderr
    assert "pip install 'gomcts[agents]'" in proc.stderr


@pytest.mark.parametrize("argv", [["tune", "monotone"], ["tune", "--help"]])
def test_tune_without_optuna_names_the_extra_not_invalid_choice(argv: list[str]) -> None:
    proc = _run_without("optuna", argv)
    assert proc.returncode == 2
    assert "invalid choice" not in proc.stderr and "Traceback" not in proc.stderr
    assert "gomcts tune: error:" in proc.stderr and "pip install 'gomcts[tuning]'" in proc.stderr


def test_the_help_lists_an_uninstalled_command_with_its_extra() -> None:
    proc = _run_without("optuna", ["--help"])
    assert proc.returncode == 0
    assert "(not installed: pip install 'gomcts[tuning]')" in proc.stdout


def test_missing_extra_maps_modules_and_keeps_other_import_errors() -> None:
    exc = ModuleNotFoundError("No module named 'psycopg2'", name="psycopg2")
    assert "pip install 'gomcts[postgres]'" in (missing_extra(exc) or "")
    assert missing_extra(ModuleNotFoundError("x", name="not_an_optional_one")) is None
    assert missing_extra(ImportError("cannot import name 'x'")) is None
    assert {"agents", "nets", "tuning", "gp", "botorch", "postgres"} >= {
        EXTRA_OF_MODULE[m] for m in ("tqdm", "torch", "optuna", "botorch", "psycopg2")
    }


def test_the_samplers_name_their_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("optuna")
    from tuning.samplers import make_sampler

    monkeypatch.setitem(sys.modules, "botorch", None)
    with pytest.raises(ImportError, match=r"pip install 'gomcts\[botorch\]'"):
        make_sampler("botorch", seed=0, startup_trials=4)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"pip install 'gomcts\[gp\]'"):
        make_sampler("gp", seed=0, startup_trials=4)
