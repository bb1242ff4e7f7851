"""Go as a Gymnasium single-agent environment: play against a fixed opponent.

:class:`GoVsOpponentEnv` is a ``gymnasium.Env`` for reinforcement-learning libraries that take
one agent: the learner plays one colour and ``step`` answers each of its moves with the
opponent's. The opponent is any callable ``opponent(state) -> action`` or any object with an
``act(state, observation) -> action`` method (the agents of :mod:`agents`, for instance);
``go_env`` imports no agent code, and :func:`agents.gym_env.make_env` builds the opponent from an
agent spec (``"random"``, ``"mcts:sims=100"``).

Observation: a dict of ``observation``, the learner's planes of :mod:`go_env.features` (its
stones first, as in the PettingZoo environment) in the layout ``observation_format`` of
:mod:`go_env.observation_format` (default ``"flat"``: ``float32 (C * N * N,)`` in
channel-first order, which Stable-Baselines3's ``check_env`` takes without a warning;
``"chw"``: ``float32 (C, N, N)``; ``"hwc"``: the PettingZoo environment's ``int8 (N, N, C)``),
and ``action_mask``, ``int8 (N*N + 1,)``, 1 for each legal move.
:meth:`GoVsOpponentEnv.action_masks` returns the same mask as booleans, the method
action-masked PPO implementations (e.g. sb3-contrib's ``MaskablePPO``) call.

Seeding: ``reset(seed=s)`` seeds the environment's generator (``colour="random"``), the
opponent (when it has ``reseed``) and ``action_space``, so that a loop sampling
``env.action_space.sample(mask)`` after ``reset(seed=s)`` repeats exactly.

Ids (registered when :mod:`go_env` is imported): ``go_env/GoVsOpponent-v0`` is this class
(``opponent`` a callable or an agent object); ``go_env/GoVsAgent-v0`` is
:func:`agents.gym_env.make_env` (``opponent`` an agent spec such as ``"mcts:sims=100"``; it
needs the ``agents`` package, imported only when the id is made).

Rewards: 0 until the end, then +1 for a win, -1 for a loss and 0 for a draw (Tromp-Taylor area
score with komi, as in :mod:`go_env.aec_env`). The game ends by two passes (``terminated``) or
by the move cap (``truncated``, scored as it stands). An illegal action ends the episode with
reward -1 and ``info["illegal"] = True`` (PettingZoo's ``TerminateIllegalWrapper`` does the
same), so an unmasked learner can still be trained.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from go_env.errors import IllegalMoveError
from go_env.features import history_planes_hwc, num_planes
from go_env.observation_format import ObservationFormat, check_format, convert, planes_space
from go_env.render import render_ansi, render_rgb
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState
from go_env.validation import check_int

__all__ = ["AGENT_ENV_ID", "ENV_ID", "GoVsOpponentEnv", "Opponent", "register_envs"]

ENV_ID = "go_env/GoVsOpponent-v0"
"""The Gymnasium id: ``gymnasium.make(ENV_ID, opponent=...)`` (registered by ``import go_env``)."""
AGENT_ENV_ID = "go_env/GoVsAgent-v0"
"""The id of :func:`agents.gym_env.make_env`: ``gymnasium.make(AGENT_ENV_ID, opponent=SPEC)``."""

Opponent = Callable[[GoState], int] | Any
"""A callable ``(state) -> action`` or an object with ``act(state, observation) -> action``."""

_COLOURS = {"black": Color.BLACK, "white": Color.WHITE}


class GoVsOpponentEnv(gymnasium.Env[dict[str, np.ndarray], int]):
    """Go against a fixed opponent, as a Gymnasium environment (see the module docstring).

    Args:
        opponent: A callable ``opponent(state) -> action`` or an object with
            ``act(state, observation) -> action``. It gets the live state (read only; clone
            it to search) and must return a legal action. When it has a ``reset()`` method, it
            is called at each reset; when it has ``reseed(seed)``, ``reset(seed=...)`` calls it
            with a seed drawn from that seed, so that seeded episodes repeat exactly.
        colour: The learner's colour, ``"black"``, ``"white"`` or ``"random"`` (drawn at each
            reset from the environment's generator; ``info["colour"]`` says which).
        board_size: N (2..25).
        komi: Points given to White.
        ko: Ko rule (``"simple"``, ``"positional"``, ``"situational"``).
        suicide: Whether suicide is legal.
        max_moves: Move cap (``None``: ``2 * N * N``).
        history: Positions in the observation (``2k + 1`` planes).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``.
        observation_format: Layout of the planes: ``"flat"`` (default), ``"chw"`` or
            ``"hwc"`` (see :mod:`go_env.observation_format`).

    Raises:
        ValueError: For a bad colour, opponent or rule; the message names what is allowed.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        opponent: Opponent,
        *,
        colour: str = "random",
        board_size: int = 9,
        komi: float = 7.5,
        ko: KoRule | str = KoRule.POSITIONAL,
        suicide: bool = False,
        max_moves: int | None = None,
        history: int = 8,
        render_mode: str | None = None,
        observation_format: ObservationFormat = "flat",
    ) -> None:
        act = getattr(opponent, "act", None)
        if callable(act):
            self._opponent_move: Callable[[GoState, dict[str, np.ndarray]], Any] = act
        elif callable(opponent):
            self._opponent_move = lambda state, observation: opponent(state)
        elif isinstance(opponent, str):  # go_env knows no agents: the spec is for agents
            raise ValueError(
                f"opponent {opponent!r} looks like an agent spec: go_env takes a callable "
                "(state) -> action or an object with act(state, observation) -> action; for an "
                "agent spec use agents.gym_env.make_env(spec, ...) or gymnasium.make("
                f'"{AGENT_ENV_ID}", opponent=spec, ...)'
            )
        else:
            raise ValueError(
                "opponent must be a callable (state) -> action or an object with "
                f"act(state, observation) -> action, got {opponent!r}"
            )
        if colour not in ("black", "white", "random"):
            raise ValueError(f"colour must be one of black, white, random; got {colour!r}")
        check_int("history", history, min=1, allowed="a positive int")
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array'; got {render_mode!r}"
            )
        self.opponent = opponent
        self.colour_choice = colour
        self.rules = Rules(
            size=board_size,
            komi=komi,
            ko=ko,  # type: ignore[arg-type]
            suicide=suicide,
            max_moves=max_moves,
        )
        self.history = history
        self.render_mode = render_mode
        self.observation_format = check_format(observation_format)
        size = self.rules.size
        self._pass = size * size
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "observation": planes_space(size, num_planes(history), self.observation_format),
                "action_mask": spaces.Box(0, 1, (size * size + 1,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(size * size + 1)  # type: ignore[assignment]
        self._state = GoState(self.rules)
        self.colour = Color.BLACK

    # ----------------------------------------------------------------- the game
    @property
    def game_state(self) -> GoState:
        """The live game state (read only: ``clone()`` it before searching on it)."""
        return self._state

    def action_masks(self) -> np.ndarray:
        """``bool (N*N + 1,)``: the learner's legal actions now (all False once it is over)."""
        if self._state.is_over or self._state.to_play != self.colour:
            return np.zeros(self._pass + 1, dtype=np.bool_)
        return self._state.legal_mask().copy()

    def _observation(self) -> dict[str, np.ndarray]:
        return {
            "observation": convert(
                history_planes_hwc(self._state, self.history, self.colour),
                self.observation_format,
            ),
            "action_mask": self.action_masks().astype(np.int8),
        }

    def _info(self, **extra: Any) -> dict[str, Any]:
        state = self._state
        info = {
            "colour": self.colour.name.lower(),
            "move_number": state.move_number,
            "score": state.score(),
            "result": state.result() if state.is_over else None,
        }
        info.update(extra)
        return info

    def _reward(self) -> float:
        winner = self._state.winner
        if winner is None or winner == Color.EMPTY:
            return 0.0
        return 1.0 if winner == self.colour else -1.0

    def _opponent_plays(self) -> None:
        """The opponent's moves until the learner is to move or the game is over."""
        state = self._state
        while not state.is_over and state.to_play != self.colour:
            observation = {
                "observation": history_planes_hwc(state, self.history, state.to_play),
                "action_mask": state.legal_mask().astype(np.int8),
            }
            move = self._opponent_move(state, observation)
            try:
                state.play(operator.index(move))
            except (IllegalMoveError, TypeError) as exc:
                raise RuntimeError(
                    f"the opponent {self.opponent!r} chose {move!r}, not a legal move: {exc}"
                ) from exc

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a game; the opponent moves first when the learner is White."""
        super().reset(seed=seed)
        if seed is not None:
            reseed = getattr(self.opponent, "reseed", None)
            if callable(reseed):
                reseed(int(self.np_random.integers(2**63 - 1)))
            self.action_space.seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        opponent_reset = getattr(self.opponent, "reset", None)
        if callable(opponent_reset):
            opponent_reset()
        if self.colour_choice == "random":
            self.colour = Color.BLACK if self.np_random.integers(2) == 0 else Color.WHITE
        else:
            self.colour = _COLOURS[self.colour_choice]
        self._state = GoState(self.rules)
        self._opponent_plays()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponent's answer."""
        if isinstance(action, (bool, np.bool_)):
            raise TypeError(f"action must be an int from 0 to {self._pass}, got {action!r}")
        try:
            move = operator.index(action)
        except TypeError:
            raise TypeError(
                f"action must be an int from 0 to {self._pass} ({self._pass} = pass), "
                f"got {action!r}"
            ) from None
        state = self._state
        if state.is_over:
            raise RuntimeError("the game is over: call reset() before step()")
        if not 0 <= move <= self._pass or state.illegal_reason(move) is not None:
            reason = state.illegal_reason(move) if 0 <= move <= self._pass else "off-board"
            return self._observation(), -1.0, True, False, self._info(illegal=True, reason=reason)
        state.play(move)
        self._opponent_plays()
        terminated, truncated = state.is_terminal, state.is_truncated
        reward = self._reward() if state.is_over else 0.0
        return self._observation(), reward, terminated, truncated, self._info(illegal=False)

    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``) or an image (``"rgb_array"``)."""
        if self.render_mode == "ansi":
            return render_ansi(self._state)
        if self.render_mode == "rgb_array":
            return render_rgb(self._state)
        gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
        return None


def register_envs() -> None:
    """Register :data:`ENV_ID` and :data:`AGENT_ENV_ID` with Gymnasium, once.

    ``import go_env`` calls it. The agent id names its entry point as a string, so ``go_env``
    imports no agent code until the id is made.
    """
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="go_env.single_agent:GoVsOpponentEnv")
    if AGENT_ENV_ID not in gymnasium.registry:
        gymnasium.register(AGENT_ENV_ID, entry_point="agents.gym_env:make_env")


register_envs()
