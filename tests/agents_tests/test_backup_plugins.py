"""Plugin mechanics of the ``gomcts.backups`` group: discovery, laziness, isolation, clashes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agents.mcts.backups import BACKUPS, make_backup
from agents.plugins import DuplicatePluginError, PluginLoadError, PluginNotFoundError

STRATEGY_MODULES = [
    "coulom",
    "erwa",
    "maxmcts",
    "mean",
    "monotone",
    "power_mean",
    "softmax",
    "solver",
    "xie_liu",
]

GOOD_MODULE = """
from dataclasses import dataclass
from typing import ClassVar

@dataclass(frozen=True, kw_only=True)
class Good:
    n_stats: ClassVar[int] = 0

    def bind(self, n_simulations):
        return self

    def backup(self, tree, path, leaf_value):
        x = -leaf_value
        for node in path[::-1]:
            tree.visits[node] += 1
            tree.value[node] += (x - tree.value[node]) / tree.visits[node]
            x = -x
"""

MakeDist = Callable[[str, dict[str, str], dict[str, str]], None]


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeDist]:
    """Install throwaway distributions on ``sys.path``; everything is restored afterwards."""
    modules: list[str] = []

    def make(dist: str, entries: dict[str, str], files: dict[str, str]) -> None:
        info = tmp_path / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
        (info / "entry_points.txt").write_text(f"[gomcts.backups]\n{lines}")
        for module, code in files.items():
            (tmp_path / f"{module}.py").write_text(textwrap.dedent(code))
            modules.append(module)
        BACKUPS.refresh()

    monkeypatch.syspath_prepend(str(tmp_path))
    yield make
    monkeypatch.undo()
    for module in modules:
        sys.modules.pop(module, None)
    BACKUPS.refresh()


def test_listing_imports_no_plugin_code_and_loading_is_lazy() -> None:
    code = textwrap.dedent(f"""
        import json, sys
        from agents.mcts.backups import BACKUPS
        mods = {STRATEGY_MODULES!r}
        def loaded():
            return [m for m in mods if "agents.mcts.backups." + m in sys.modules]
        names = BACKUPS.names()
        infos = [i.name for i in BACKUPS.infos()]
        before = loaded()
        BACKUPS.get("softmax")
        print(json.dumps({{"names": names, "infos": infos, "before": before,
                          "after": loaded()}}))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    result = json.loads(out.stdout)
    assert set(STRATEGY_MODULES) <= set(result["names"])
    assert set(STRATEGY_MODULES) <= set(result["infos"])
    assert result["before"] == []
    assert result["after"] == ["softmax"]


def test_unknown_name_suggests_close_names() -> None:
    with pytest.raises(PluginNotFoundError) as info:
        BACKUPS.get("monotne")
    message = str(info.value)
    assert "Did you mean 'monotone'" in message and "Installed:" in message


def test_a_plugin_that_fails_to_import_is_isolated(make_dist: MakeDist) -> None:
    make_dist(
        "gomcts-broken-plugin",
        {"broken": "broken_backup_mod:Broken"},
        {"broken_backup_mod": "raise ImportError('missing dependency xyz')\n"},
    )
    assert "broken" in BACKUPS.names()  # listing does not import it
    with pytest.raises(PluginLoadError) as info:
        BACKUPS.get("broken")
    message = str(info.value)
    assert "gomcts-broken-plugin 0.1" in message and "failed to import" in message
    assert "missing dependency xyz" in message
    assert make_backup("softmax").n_stats == 3  # the others still work
    assert BACKUPS.get("mean").__name__ == "MeanBackup"


@pytest.mark.parametrize(
    "code, reason",
    [
        ("class NotADataclass:\n    n_stats = 0\n", "expected a dataclass"),
        (
            "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass NotADataclass:\n"
            "    def bind(self, n):\n        return self\n",
            "lacks backup, n_stats",
        ),
    ],
)
def test_a_plugin_that_breaks_the_protocol_is_isolated(
    make_dist: MakeDist, code: str, reason: str
) -> None:
    make_dist(
        "gomcts-odd-plugin", {"odd": "odd_backup_mod:NotADataclass"}, {"odd_backup_mod": code}
    )
    with pytest.raises(PluginLoadError) as info:
        BACKUPS.get("odd")
    message = str(info.value)
    assert "gomcts-odd-plugin 0.1" in message and "not a valid backup strategy" in message
    assert reason in message
    assert BACKUPS.get("erwa").__name__ == "ErwaBackup"


def test_a_working_plugin_is_found_and_used(make_dist: MakeDist) -> None:
    make_dist(
        "gomcts-good-plugin", {"good": "good_backup_mod:Good"}, {"good_backup_mod": GOOD_MODULE}
    )
    info = {i.name: i for i in BACKUPS.infos()}["good"]
    assert info.distribution == "gomcts-good-plugin 0.1"
    assert "good_backup_mod" not in sys.modules
    strategy = make_backup("good")
    assert type(strategy).__module__ == "good_backup_mod"


def test_duplicate_names_across_distributions_name_both(make_dist: MakeDist) -> None:
    make_dist("gomcts-twin-a", {"twin": "twin_a:Good"}, {"twin_a": GOOD_MODULE})
    make_dist(
        "gomcts-twin-b", {"twin": "twin_b:Good", "mean": "twin_b:Good"}, {"twin_b": GOOD_MODULE}
    )
    with pytest.raises(DuplicatePluginError) as info:
        BACKUPS.get("twin")
    message = str(info.value)
    assert "gomcts-twin-a 0.1" in message and "gomcts-twin-b 0.1" in message
    with pytest.raises(DuplicatePluginError) as info:
        BACKUPS.get("mean")  # a clash with a built-in is refused too
    assert "gomcts " in str(info.value) and "gomcts-twin-b 0.1" in str(info.value)
    assert BACKUPS.get("softmax").__name__ == "SoftmaxBackup"  # the others are unaffected


def test_everything_is_restored_after_the_throwaway_distributions() -> None:
    assert not {"broken", "odd", "good", "twin"} & set(BACKUPS.names())
    assert BACKUPS.get("mean").__name__ == "MeanBackup"
