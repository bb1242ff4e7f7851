"""Shared fixtures of the test suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from go_env.rules import Rules
from go_env.state import Color, GoState

BoardFactory = Callable[..., GoState]


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
