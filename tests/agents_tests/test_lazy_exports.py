"""Lazy re-exports: a name loads its module on first use; an unknown name is an AttributeError."""

from __future__ import annotations

import sys

import pytest

from agents.lazy_exports import lazy_exports


def test_a_name_is_imported_on_first_use(tmp_path, monkeypatch):
    (tmp_path / "lazy_probe_module.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    getattr_, dir_ = lazy_exports("pkg", {"VALUE": "lazy_probe_module"})
    assert dir_() == ["VALUE"]
    assert "lazy_probe_module" not in sys.modules
    assert getattr_("VALUE") == 42
    assert "lazy_probe_module" in sys.modules
    monkeypatch.delitem(sys.modules, "lazy_probe_module")


def test_an_unknown_name_says_which_package():
    getattr_, _ = lazy_exports("pkg", {})
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'nope'"):
        getattr_("nope")


@pytest.mark.parametrize(
    "package", ["agents.nets", "agents.nets.training", "tuning.studies", "tuning.reproduction"]
)
def test_every_exported_name_resolves(package):
    import importlib

    module = importlib.import_module(package)
    assert dir(module) == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None
