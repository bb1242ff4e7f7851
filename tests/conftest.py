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
