"""Compiled kernels for search code that runs inside numba (e.g. a compiled MCTS).

These functions operate on :attr:`go_env.state.CompiledState.vector` and the tables of its
``geometry``; call them from ``@numba.njit`` code or from Python. They are the stable surface of
the private :mod:`go_env._core` package:

* ``play(s, nbr, zob, move)``: play for the player to move, no validation; ``move == P`` passes.
* ``check_local(s, nbr, p, color, allow_suicide)``: ``LEGAL`` or a reason code, without superko.
* ``candidate_hash(s, nbr, zob, p, color)``: the stones' hash after a locally legal move.
* ``random_playout(s, nbr, diag, zob, max_moves, rng)``: light playout, ``(black, white)`` area;
  ``heavy_playout`` (the same arguments, ``nakade``, and optional ``patterns`` and
  ``lowlib``) answers the last move's ataris and plays no self-atari, but with ``nakade`` the
  one that kills an eye space; with ``patterns`` it answers MoGo's 3x3 shapes and captures
  anywhere, and with ``lowlib`` chains left with two liberties
  (:mod:`go_env._core.heavy_playout`, :mod:`go_env._core.patterns`).
* ``area(s, nbr)``: Tromp-Taylor ``(black, white)`` area; ``area_owners(s, nbr, owners)``
  fills each point's owner under that count.
* ``area_without_dead(s, nbr, diag, zob, playouts, rng, work, owned)``: the area after
  removing the stones that random-playout ownership judges dead; ``ownership(...)`` and
  ``mark_dead(s, owned, dead)`` are its two halves (:mod:`go_env._core.ownership`).
* ``is_own_eye(s, nbr, diag, p, color)``, ``next_random(rng)``, ``seed_rng(seed)``.
* Header slots ``H_*`` (to play, ko point, passes, moves, hash...) index the vector.
"""

from __future__ import annotations

from go_env._core.board import (
    LEGAL,
    R_KO,
    R_OCCUPIED,
    R_SUICIDE,
    R_SUPERKO,
    candidate_hash,
    check_local,
    play,
)
from go_env._core.heavy_playout import heavy_playout
from go_env._core.layout import (
    H_HASH,
    H_KO,
    H_LAST,
    H_MOVES,
    H_NEMPTY,
    H_P,
    H_PASSES,
    H_SIZE,
    H_TO_PLAY,
    HEADER,
    Geometry,
    geometry,
)
from go_env._core.ownership import area_without_dead, mark_dead, ownership
from go_env._core.playout import is_own_eye, next_random, random_playout, seed_rng
from go_env._core.scoring import area, area_owners

__all__ = [
    "HEADER",
    "H_HASH",
    "H_KO",
    "H_LAST",
    "H_MOVES",
    "H_NEMPTY",
    "H_P",
    "H_PASSES",
    "H_SIZE",
    "H_TO_PLAY",
    "LEGAL",
    "R_KO",
    "R_OCCUPIED",
    "R_SUICIDE",
    "R_SUPERKO",
    "Geometry",
    "area",
    "area_owners",
    "area_without_dead",
    "candidate_hash",
    "check_local",
    "geometry",
    "heavy_playout",
    "is_own_eye",
    "mark_dead",
    "next_random",
    "ownership",
    "play",
    "random_playout",
    "seed_rng",
]
