"""The dispenser of RayStreamPool (agents/matches/ray_stream_pool.py), without Ray.

It hands out indices in order, takes a dead worker's unfinished ones back to the front, and
gives a dead worker nothing more, even a call that arrives after its games were put back.
"""

from __future__ import annotations

from agents.matches.ray_stream_pool import _Dispenser


def test_indices_go_out_in_order_and_a_dead_workers_come_back_first() -> None:
    dispenser = _Dispenser(list(range(6)))
    assert [dispenser.take(0), dispenser.take(1), dispenser.take(0)] == [0, 1, 2]
    lost, waiting = dispenser.give_back(0, finished=[0])
    assert (lost, waiting) == ([2], 4)
    assert [dispenser.take(2) for _ in range(5)] == [2, 3, 4, 5, None]


def test_a_late_take_of_a_dead_worker_gets_nothing() -> None:
    """The order a killed worker can produce: its next ``take`` was under way when it died
    and reaches the dispenser after the driver gave its games back."""
    dispenser = _Dispenser(list(range(4)))
    assert [dispenser.take(0), dispenser.take(0)] == [0, 1]
    assert dispenser.give_back(0, finished=[0]) == ([1], 3)
    assert dispenser.take(0) is None  # the late call
    assert [dispenser.take(1) for _ in range(4)] == [1, 2, 3, None]
    assert dispenser.give_back(1, finished=[1, 2, 3]) == ([], 0)


def test_clear_hands_out_nothing_more() -> None:
    dispenser = _Dispenser([0, 1])
    dispenser.clear()
    assert dispenser.take(0) is None
