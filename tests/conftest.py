"""Shared fixtures of the test suite."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from go_env.rules import Rules
from go_env.state import Color, GoState

if TYPE_CHECKING:
    from agents.gtp import GtpProcess

BoardFactory = Callable[..., GoState]

ROOT = Path(__file__).resolve().parents[1]


def _root_entries() -> set[str]:
    """Names in the repository root, less the hidden caches that tools keep there."""
    return {p.name for p in ROOT.iterdir() if not p.name.startswith(".")} - {"__pycache__"}


@pytest.fixture(scope="session", autouse=True)
def repository_root_stays_clean():  # type: ignore[no-untyped-def]
    """Fail the run when a test leaves a file or folder in the repository root.

    Tests write into ``tmp_path``; a command run with the repository as its working directory
    (``printsgf FILE``, ``gomcts tune`` without ``--out``) must be given a scratch one.
    """
    before = _root_entries()
    yield
    left = sorted(_root_entries() - before)
    assert not left, f"tests left these in the repository root: {left}"


def make_board(text: str, to_play: Color = Color.BLACK, **rules: Any) -> GoState:
    """A :class:`GoState` from ASCII rows (see ``GoState.from_ascii``).

    Keyword arguments other than ``to_play`` are :class:`Rules` fields; the size comes from the
    text.
    """
    size = GoState.from_ascii(text).size
    return GoState.from_ascii(text, Rules(size=size, **rules), to_play=to_play)


@pytest.fixture
def board() -> BoardFactory:
    """``board(text, to_play=Color.BLACK, **rules)``: a position from ASCII rows."""
    return make_board


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a test module (``pytest.mark.usefixtures``), then as before.

    Small networks run fastest on one thread, and far faster on a busy machine. Torch is
    imported here, not at the top, so that the suite's other modules never need it.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def gnugo_path() -> str:
    """Path of the GNU Go program (skips without it, fails under ``CI=true``)."""
    from gnugo_support import require_gnugo

    return require_gnugo()


@pytest.fixture(scope="module")
def gnugo_engine(gnugo_path: str) -> Iterator[GtpProcess]:
    """One GNU Go GTP engine for a test module (the caller sets the board size first)."""
    from agents.gtp import GtpProcess

    with GtpProcess([gnugo_path, "--mode", "gtp", "--level", "0"], timeout=30.0) as engine:
        yield engine


TINY_SELFPLAY = dict(
    komi=0.5,
    max_moves=24,
    generations=1,
    games=3,
    sims=4,
    fast_sims=2,
    full_share=0.5,
    considered=4,
    train_steps=1,
    batch_size=8,
    gate_sims=2,
    gate_games=2,
    book_size=2,
    ladder_games=2,
    ladder_every=1,
    games_per_worker=2,
    workers=1,
)
"""A self-play run small enough for a test (5x5, a one-block network, a few games)."""


@pytest.fixture
def selfplay_config() -> Callable[..., Any]:
    """Make the tiny self-play run's config, fields overridden by keyword."""
    from agents.nets.model import NetConfig
    from agents.nets.training.selfplay_config import SelfPlayConfig

    def make(**extra: Any) -> Any:
        base = {"net": NetConfig(size=5, blocks=1, filters=8, history=2), **TINY_SELFPLAY}
        return SelfPlayConfig(**{**base, **extra})

    return make


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    """A private Ray of 2 CPUs for a test module (an existing connection is kept)."""
    from agents.matches.ray_pool import import_ray

    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started_here:
        ray.shutdown()
