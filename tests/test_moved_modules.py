"""The old import paths of moved modules (CHANGELOG.md) keep working for one release.

Each old name must resolve to the very module object of its new name (not a copy: classes and
module state are shared), warn with a DeprecationWarning that names the new path, and be
listed in CHANGELOG.md. Every check runs in a fresh interpreter, so that the first import (the
one that warns) is the one observed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents._moved import MOVED, MOVED_NAMES, REMOVED_IN

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import importlib, json, sys, warnings
old, new = sys.argv[1], sys.argv[2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    module = importlib.import_module(old)
parent, _, leaf = old.rpartition(".")
exec(f"from {parent} import {leaf} as via_from")
exec(f"import {old} as via_import")
print(json.dumps({
    "same": module is importlib.import_module(new) is via_from is via_import,
    "name": module.__name__,
    "spec": module.__spec__.name,
    "in_sys_modules": sys.modules[old] is sys.modules[new],
    "warnings": [
        [w.category.__name__, str(w.message), w.filename]
        for w in caught if issubclass(w.category, DeprecationWarning) and old in str(w.message)
    ],
}))
"""


def probe(old: str, new: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, old, new],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_is_the_same_module_and_warns(old: str, new: str) -> None:
    got = probe(old, new)
    assert got["same"], f"{old} is not the module object of {new}"
    assert got["in_sys_modules"]
    assert got["name"] == new and got["spec"] == new  # the module keeps its real identity
    assert len(got["warnings"]) == 1, got["warnings"]
    category, message, filename = got["warnings"][0]
    assert category == "DeprecationWarning"
    assert new in message
    assert filename == "<string>"  # points at the code that wrote the old import


def test_old_names_do_not_exist_as_files() -> None:
    """An old name must not also be a real module (it would shadow the alias or drift)."""
    for old in MOVED:
        path = ROOT.joinpath(*old.split("."))
        assert not path.with_suffix(".py").exists(), path
        assert not (path / "__init__.py").exists(), path


def test_every_moved_module_is_in_the_changelog() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = changelog.split("## Unreleased", 1)[1].split("\n## ", 1)[0]
    for old, new in MOVED.items():
        assert f"`{old}` -> `{new}`" in unreleased, f"CHANGELOG.md does not list {old}"


def test_unknown_names_still_fail() -> None:
    """The hook answers only for its listed names."""
    with pytest.raises(ModuleNotFoundError):
        __import__("tuning.no_such_module")


def test_training_package_keeps_the_old_training_module_names() -> None:
    """``agents.nets.training`` was the training-step module; its names still import from it."""
    pytest.importorskip("torch")
    from agents.nets.training import step, train_step

    assert train_step is step.train_step


def test_old_entry_points_still_register_the_commands() -> None:
    """An environment installed before the move names ``tuning.cli:register``; it still works."""
    proc = subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore::DeprecationWarning",
            "-c",
            "import argparse, tuning.cli, tuning.train_cli\n"
            "p = argparse.ArgumentParser(); sub = p.add_subparsers()\n"
            "tuning.cli.register(sub); tuning.train_cli.register(sub)\n"
            "print(sorted(sub.choices))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['arena', 'train']"


def test_the_network_functions_of_balanced_books_moved_to_agents_nets() -> None:
    """The arena package takes network values from its caller (no agents.matches ->
    agents.nets import); the old names still resolve, with a warning, for one release."""
    import agents.matches.balanced as balanced
    from agents.nets.checkpoint import model_digest
    from agents.nets.evaluator import net_value_fn

    with pytest.warns(DeprecationWarning, match="agents.nets.evaluator.net_value_fn"):
        assert balanced.net_value_fn is net_value_fn  # type: ignore[attr-defined]
    with pytest.warns(DeprecationWarning, match="agents.nets.checkpoint.model_digest"):
        assert balanced.model_digest is model_digest  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        balanced.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_shims_go_in_the_release_the_changelog_names() -> None:
    """The old names are kept through this release and go in ``REMOVED_IN``: once the
    project's version reaches it, this fails until they are removed."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = changelog.split("## Unreleased", 1)[1].split("\n## ", 1)[0]
    assert f"removed in {REMOVED_IN}" in unreleased
    assert _version(version) < _version(REMOVED_IN), (
        f"version {version} is the release that removes the shims of agents/_moved.py "
        f"(MOVED, MOVED_NAMES), StateAccess and Search(MCTSConfig): remove them"
    )
    assert MOVED and MOVED_NAMES  # while they exist, their release is pending
