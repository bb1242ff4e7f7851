"""docs/environment.md against the environment: the documented planes, spaces and infos are real.

The plane table is parsed and every documented plane is compared with boards replayed move by
move, for both agents; so the page cannot drift from the code.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from game_support import replay

from go_env.aec_env import AGENTS, GoEnv, raw_env
from go_env.coords import from_gtp
from go_env.rules import Rules
from go_env.state import Color

DOC = Path(__file__).resolve().parents[2] / "docs" / "environment.md"
ENV_TESTS = Path(__file__).resolve().parent / "test_env.py"

# A 9x9 game with a pass (move 4) and a capture (Black's E7, move 7, takes White's E6).
GAME = ["E5", "E6", "D6", "pass", "F6", "D7", "E7", "C6", "E4", "F7", "G4", "D5"]


def section(title: str) -> str:
    """The text of the ``## title`` section (up to the next ``## ``)."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"docs/environment.md has no section '## {title}'"
    return match.group(1)


def table(text: str, header: str) -> list[list[str]]:
    """Rows (cells stripped) of the markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def affine(expr: str, k: int, i: int) -> int:
    """Value of a sum of terms like ``2k``, ``k``, ``i``, ``3`` (the plane column's syntax)."""
    total = 0
    for term in expr.replace(" ", "").split("+"):
        match = re.fullmatch(r"(\d*)(k|i)?", term)
        assert match and term, f"unreadable plane expression {expr!r}"
        factor, name = match.groups()
        if name is None:
            total += int(factor)
        else:
            total += (int(factor) if factor else 1) * (k if name == "k" else i)
    return total


def documented_planes(k: int) -> dict[int, tuple[str, int]]:
    """Plane index -> (kind, age) from the doc; kind is ``own``, ``opponent`` or ``colour``."""
    planes: dict[int, tuple[str, int]] = {}
    for plane_cell, content in table(section("Observations"), "| plane | content |"):
        match = re.fullmatch(r"`([^`]+)`(?: for `0 <= i < k`)?", plane_cell)
        assert match, f"unreadable plane cell {plane_cell!r}"
        ranged = "for `0 <= i < k`" in plane_cell
        if "observing agent's stones" in content:
            kind = "own"
        elif "opponent's stones" in content:
            kind = "opponent"
        elif "colour" in content and "all ones if it plays Black" in content:
            kind = "colour"
        else:
            raise AssertionError(f"the test does not know the plane content {content!r}")
        if kind != "colour":
            assert "`i` moves ago" in content and ranged, content
        for i in range(k) if ranged else [0]:
            index = affine(match.group(1), k, i)
            assert index not in planes, f"plane {index} is documented twice"
            planes[index] = (kind, i)
    return planes


@pytest.mark.parametrize("k", [1, 3, 8, 16])
def test_plane_table_matches_observations(k: int) -> None:
    planes = documented_planes(k)
    assert sorted(planes) == list(range(2 * k + 1)), "the table must cover every plane once"
    _, boards = replay(GAME, Rules(size=9))
    game = raw_env(board_size=9, history=k)
    game.reset()
    for vertex in GAME:
        game.step(from_gtp(vertex, 9))
    assert game.unwrapped.game_state.captures(Color.BLACK) == 1, "the game should hold a capture"
    for agent, colour in zip(AGENTS, (Color.BLACK, Color.WHITE), strict=True):
        observation = game.observe(agent)["observation"]
        assert observation.shape == (9, 9, len(planes))
        for index, (kind, age) in planes.items():
            if kind == "colour":
                expected = np.full((9, 9), 1 if colour == Color.BLACK else 0)
            else:
                board = boards[-1 - age] if age < len(boards) else np.zeros((9, 9))
                stones = colour if kind == "own" else colour.opponent
                expected = board == stones
            np.testing.assert_array_equal(
                observation[:, :, index], expected, err_msg=f"{agent}, plane {index} ({kind})"
            )


def test_space_lines_match_the_spaces() -> None:
    text = section("Observations")
    game = GoEnv(board_size=7, history=5)
    space = game.observation_space("black_0")
    match = re.search(r"`observation`: `Box\(0, 1, \(N, N, 2k \+ 1\), (\w+)\)`", text)
    assert match, "the observation space line is missing"
    assert np.dtype(match.group(1)) == space["observation"].dtype
    assert space["observation"].shape == (7, 7, 2 * 5 + 1)
    match = re.search(r"`action_mask`: `Box\(0, 1, \(N \* N \+ 1,\), (\w+)\)`", text)
    assert match, "the action mask space line is missing"
    assert np.dtype(match.group(1)) == space["action_mask"].dtype
    assert space["action_mask"].shape == (7 * 7 + 1,)


def test_info_table_lists_the_info_keys() -> None:
    keys = {row[0].strip("`") for row in table(section("Infos"), "| key | value |")}
    game = raw_env(board_size=5)
    game.reset()
    assert set(game.infos["black_0"]) == keys
    game.step(0)
    assert set(game.infos["white_0"]) == keys


def test_argument_table_lists_the_constructor_arguments() -> None:
    rows = table(section("Arguments"), "| argument | default | meaning |")
    documented = {row[0].strip("`"): row[1].strip("`") for row in rows}
    parameters = inspect.signature(GoEnv.__init__).parameters
    actual = {name: p.default for name, p in parameters.items() if name != "self"}
    assert set(documented) == set(actual)
    for name, default in actual.items():
        value = default.value if hasattr(default, "value") else default  # KoRule -> str
        assert ast.literal_eval(documented[name]) == value, name


def test_ansi_example_is_real_output() -> None:
    match = re.search(
        r"after Black E5 and White D4:\n\n```\n(.*?)\n```", section("Rendering"), re.S
    )
    assert match, "the ansi example is missing"
    game = raw_env(board_size=9, render_mode="ansi")
    game.reset()
    game.step(from_gtp("E5", 9))
    game.step(from_gtp("D4", 9))
    assert game.render() == match.group(1)


def test_pitfall_table_names_real_tests() -> None:
    rows = table(section("PettingZoo go_v5 pitfalls avoided"), "| pitfall of")
    assert len(rows) == 8
    defined = set(re.findall(r"^def (test_\w+)\(", ENV_TESTS.read_text(encoding="utf-8"), re.M))
    for row in rows:
        names = re.findall(r"`(test_\w+)`", row[2])
        assert names, f"no test named for {row[0]!r}"
        for name in names:
            assert name in defined, f"{name} is not a test of tests/go_env_tests/test_env.py"


def test_quick_start_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "the quick-start example is missing"
    exec(compile(match.group(1), "docs/environment.md", "exec"), {})
    assert re.fullmatch(r"(B\+|W\+)\d+(\.5)?|0", capsys.readouterr().out.strip())
