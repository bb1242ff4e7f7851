"""Torch's CPU thread count, set the one way the whole package means it.

Every ``threads`` setting of :mod:`agents.nets` (the ``net`` agent, the ``net:`` evaluator,
supervised and self-play runs) and every ``--threads`` option means the same: the number of
threads torch uses for CPU work, 0 leaving torch's setting as it is.
"""

from __future__ import annotations

from go_env.validation import check_int

__all__ = ["check_threads", "use_threads"]


def check_threads(threads: object) -> None:
    """Refuse a thread count that is not an int >= 0.

    Raises:
        ValueError: Naming what was given and what is allowed.
    """
    check_int("threads", threads, min=0, allowed="an int >= 0 (0: torch's setting)")


def use_threads(threads: int) -> None:
    """Let torch use ``threads`` CPU threads (0: leave torch's setting).

    Raises:
        ValueError: For a count :func:`check_threads` refuses.
    """
    check_threads(threads)
    if threads:
        import torch

        torch.set_num_threads(threads)
