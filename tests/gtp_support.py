"""Agents shared by the GTP test modules: a first-legal player, a fake analyser, transcripts."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from typing import Any

from agents.gtp.analysis import MoveInfo
from agents.gtp.engine import GtpEngine
from go_env.state import GoState


class FirstLegal:
    """Plays the first legal point (in action order), or passes."""

    name = "first"

    def reset(self) -> None:
        pass

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        return int(state.legal_moves()[0])

    def close(self) -> None:
        pass


class FakeAnalyzer(FirstLegal):
    """Reports two candidate moves at once, then searches until told to stop."""

    name = "analyzer"

    def __init__(self) -> None:
        self.seen: list[GoState] = []

    def analyze(
        self,
        state: GoState,
        *,
        report: Callable[[Sequence[MoveInfo]], None],
        should_stop: Callable[[], bool],
        interval: float,
    ) -> None:
        self.seen.append(state)
        report(
            [
                MoveInfo(move=12, visits=30, winrate=0.61234, prior=0.25, pv=(12, 6)),
                MoveInfo(move=6, visits=50, winrate=0.5, prior=0.1),
            ]
        )
        while not should_stop():
            time.sleep(0.01)


def transcript(text: str, agent: Any = None, **kwargs: Any) -> str:
    """What a :class:`GtpEngine` for ``agent`` (default :class:`FirstLegal`) answers ``text``."""
    engine = GtpEngine(agent or FirstLegal(), engine_version="test", **kwargs)
    out = io.StringIO()
    engine.serve(io.StringIO(text), out)
    return out.getvalue()
