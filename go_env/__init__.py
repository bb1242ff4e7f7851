"""go_env: the game of Go (a compiled rules core) and its PettingZoo AEC environment.

Public API:

* :class:`GoState`, :class:`Color`: a game and its rules engine (``play``, ``legal_moves``,
  ``clone``, ``score``, ASCII rendering and parsing).
* :class:`Rules`, :class:`KoRule`: per-instance rules (size, komi, ko rule, suicide, move cap,
  handicap).
* :func:`env`, :func:`raw_env`: the PettingZoo AEC environment.
* Gymnasium ids, registered on import: ``go_env/GoVsOpponent-v0`` (Go against a callable
  opponent, :class:`go_env.single_agent.GoVsOpponentEnv`) and ``go_env/GoVsAgent-v0`` (against
  an agent spec such as ``"mcts:sims=100"``; needs the ``agents`` package).
* :class:`GoError`, :class:`IllegalMoveError`, :class:`IllegalReason`: errors.
* :mod:`go_env.sgf`, :mod:`go_env.coords`, :mod:`go_env.features`: SGF records, move
  encodings, observation planes.
"""

from go_env.aec_env import GoEnv, env, raw_env
from go_env.errors import GoError, IllegalMoveError, IllegalReason
from go_env.rules import KoRule, Rules
from go_env.single_agent import register_envs
from go_env.state import Color, GoState

register_envs()

__all__ = [
    "Color",
    "GoEnv",
    "GoError",
    "GoState",
    "IllegalMoveError",
    "IllegalReason",
    "KoRule",
    "Rules",
    "env",
    "raw_env",
]
