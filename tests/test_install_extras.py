"""The extras: torch as a range (the exact build only in the bootstrap's constraints), and a
tuning extra without torch, BoTorch and the PostgreSQL driver."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _extras() -> dict[str, list[str]]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["optional-dependencies"]


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert match, requirement
    return match.group(0).lower()


def test_torch_is_a_range_in_every_extra_and_pinned_only_in_the_constraints() -> None:
    torch = [r for reqs in _extras().values() for r in reqs if _name(r) == "torch"]
    assert torch and all(r.replace(" ", "") == "torch>=2.4,<3" for r in torch), torch
    constraints = (ROOT / "scripts" / "constraints.txt").read_text().splitlines()
    assert "torch==2.13.0" in constraints  # the local CPU wheel: no multi-GB CUDA download
    bootstrap = (ROOT / "scripts" / "bootstrap.sh").read_text()
    assert "-c scripts/constraints.txt" in bootstrap


def test_tuning_is_optuna_without_torch_botorch_or_postgres() -> None:
    extras = _extras()
    tuning = {_name(r) for r in extras["tuning"]}
    assert "optuna" in tuning and not tuning & {"torch", "botorch", "psycopg2-binary"}
    assert {_name(r) for r in extras["botorch"]} >= {"botorch", "torch"}
    assert {_name(r) for r in extras["gp"]} == {"torch"}
    assert {_name(r) for r in extras["postgres"]} == {"psycopg2-binary"}


def test_the_bootstrap_installs_the_split_extras() -> None:
    bootstrap = (ROOT / "scripts" / "bootstrap.sh").read_text()
    match = re.search(r'-e "\.\[([a-z,]+)\]"', bootstrap)
    assert match, "bootstrap.sh installs no extras"
    installed = set(match.group(1).split(","))
    assert installed <= set(_extras())
    assert {"agents", "nets", "tuning", "gp", "botorch", "postgres", "cluster", "dev"} <= installed
