"""The re-exports of tuning.studies and tuning.reproduction (their ``__all__``)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tuning.studies", "tuning.reproduction")


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_is_importable_once_and_is_its_modules_own(name: str) -> None:
    package = importlib.import_module(name)
    exported = package.__all__
    assert len(exported) == len(set(exported)), "a name is exported twice"
    assert exported == sorted(exported)
    for attr in exported:
        value = getattr(package, attr)
        home = importlib.import_module(package._WHERE[attr])
        assert value is getattr(home, attr), attr
        assert attr in home.__all__, f"{attr} is not in {home.__name__}.__all__"
    assert sorted(package._WHERE) == sorted(exported)
    namespace: dict[str, object] = {}
    exec(f"from {name} import *", namespace)  # the star import a user may write
    assert set(exported) <= set(namespace)
    with pytest.raises(AttributeError, match=f"module '{name}' has no attribute 'nothing'"):
        _ = package.nothing


def test_importing_the_packages_imports_neither_optuna_nor_torch() -> None:
    code = (
        "import sys, tuning, tuning.studies, tuning.reproduction; "
        "print(sorted(m for m in ('optuna', 'torch', 'botorch', 'agents.registry') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
