"""Tuning-study helpers shared by the test modules: one tiny study, changed where a test needs.

Use it in a test module as::

    from study_support import tiny_study

    config = tiny_study(tmp_path, trials=2, verify_games=0)
    run_study(config, progress=None)

Optuna is imported only when a study is made, so that importing this module costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuning.search_spaces import SearchSpace
    from tuning.studies.study import StudyConfig

__all__ = ["tiny_study"]


def tiny_study(out: Path, space: str | SearchSpace = "monotone", **changes: Any) -> StudyConfig:
    """A study of a few 4-game trials of 8-simulation agents on 5x5 (komi 0.5), kept in ``out``.

    ``space`` is a backup name (its space with two segments, ``d=2``) or a built space;
    ``changes`` replace any :class:`tuning.studies.study.StudyConfig` field. Without them: 5 trials
    (3 of them start-up points), seed 11, a 4-game verification in one process, no heartbeat.
    """
    from go_env.rules import Rules
    from tuning.search_spaces import make_space
    from tuning.studies.study import StudyConfig

    fields: dict[str, Any] = dict(
        space=make_space(space, d=2) if isinstance(space, str) else space,
        agent="mcts:sims=8",
        rules=Rules(size=5, komi=0.5),
        games=4,
        batch=2,
        trials=5,
        startup_trials=3,
        seed=11,
        out=out,
        verify_games=4,
        verify_workers=1,
        heartbeat_interval=None,
    )
    fields.update(changes)
    return StudyConfig(**fields)
