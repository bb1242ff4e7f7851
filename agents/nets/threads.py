"""Torch's CPU thread count, set the one way the whole package means it.

Every ``threads`` setting of :mod:`agents.nets` (the ``net`` agent, the ``net:`` evaluator,
supervised and self-play runs) and every ``--threads`` option means the same: the number of
threads torch uses for CPU work, 0 leaving torch's setting as it is.
"""

from __future__ import annotations

__all__ = ["check_threads", "use_threads"]


def check_threads(threads: object) -> None:
    """Refuse a thread count that is not an int >= 0.

    Raises:
        ValueError: Naming what was given and what is allowed.
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be an int >= 0 (0: torch's setting), got {threads!r}")


def use_threads(threads: int) -> None:
    """Let torch use ``threads`` CPU threads (0: leave torch's setting).

    Raises:
        ValueError: For a count :func:`check_threads` refuses.
    """
    check_threads(threads)
    if threads:
        import torch

        torch.set_num_threads(threads)
