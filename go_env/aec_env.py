"""The PettingZoo AEC environment of Go: ``env(...)`` (wrapped) and ``raw_env(...)``.

Two agents, ``black_0`` and ``white_0``, take turns; an action is a point ``row * N + col``
(row 0 at the top) or ``N * N`` for pass. Each agent observes the board from its own side:
its own stones first, then the opponent's, for the last ``history`` positions, and a plane
telling its colour (see :mod:`go_env.features` and ``docs/environment.md``).

The game ends after two consecutive passes (a *termination*) or when the move cap of the rules
is reached (a *truncation*); in both cases both agents are rewarded by the Tromp-Taylor area
score of the final position: +1 to the winner, -1 to the loser, 0 to both for a draw.

Planning agents read the live game through :attr:`GoEnv.game_state`
(``env.unwrapped.game_state``) and must ``clone()`` it before searching. ``env.state()`` is
PettingZoo's global state (:meth:`GoEnv.global_state`, in :attr:`GoEnv.state_space`); reading
``env.state`` as the game (``env.state.clone()``) still works in this release, with a
``DeprecationWarning``.
"""

from __future__ import annotations

import copy
import operator
import warnings
from typing import Any, NoReturn

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from go_env.coords import to_gtp
from go_env.errors import IllegalMoveError, IllegalReason
from go_env.features import PLANE_DTYPE, HistoryPlanesHWC, history_planes_hwc, num_planes
from go_env.observation_format import ObservationFormat, check_format, convert, planes_space
from go_env.render import render_ansi, render_rgb
from go_env.rules import MAX_SIZE, MIN_SIZE, KoRule, Rules
from go_env.state import Color, GoState
from go_env.validation import check_int

__all__ = ["AGENTS", "RENDER_MODES", "GoEnv", "StateAccess", "env", "raw_env"]

AGENTS = ("black_0", "white_0")
"""Agent names: ``black_0`` plays Black, ``white_0`` plays White."""

RENDER_MODES = ("ansi", "rgb_array", "human")
"""Accepted values of ``render_mode`` besides ``None``."""

_COLOUR_OF = {AGENTS[0]: int(Color.BLACK), AGENTS[1]: int(Color.WHITE)}
_AGENT_OF = {Color.BLACK: AGENTS[0], Color.WHITE: AGENTS[1]}
_OTHER = {AGENTS[0]: AGENTS[1], AGENTS[1]: AGENTS[0]}


def _check_board_size(board_size: object) -> int:
    board_size = check_int(
        "board_size", board_size, allowed=f"an int from {MIN_SIZE} to {MAX_SIZE}"
    )
    if not MIN_SIZE <= board_size <= MAX_SIZE:
        raise ValueError(f"board_size must be from {MIN_SIZE} to {MAX_SIZE}, got {board_size}")
    return board_size


def _check_history(history: object) -> int:
    return check_int(
        "history (positions in the observation)", history, min=1, allowed="a positive int"
    )


def _check_render_mode(render_mode: object) -> str | None:
    if render_mode is None:
        return None
    if not isinstance(render_mode, str) or render_mode not in RENDER_MODES:
        allowed = ", ".join(repr(mode) for mode in (None, *RENDER_MODES))
        raise ValueError(f"render_mode must be one of {allowed}; got {render_mode!r}")
    return render_mode


class GoEnv(AECEnv, EzPickle):
    """Go as a PettingZoo AEC environment (the unwrapped ``raw_env``).

    Args:
        board_size: N, the board has N x N points (2 to 25).
        komi: Points given to White; an integer komi allows draws.
        ko: ``"simple"``, ``"positional"`` (positional superko, the default) or
            ``"situational"``.
        suicide: Whether suicide is allowed (illegal by default).
        max_moves: Move cap (passes included) ending the game as a truncation; ``None`` means
            ``2 * N * N``.
        handicap: Fixed handicap stones for Black (0, or 2 up to the size's star points); White
            moves first when it is non-zero.
        history: Number of positions k in the observation (the current one included); the
            observation has ``2k + 1`` planes.
        render_mode: ``None``, ``"ansi"`` (:meth:`render` returns a text board),
            ``"rgb_array"`` (an ``(H, W, 3)`` ``uint8`` image) or ``"human"`` (prints the text
            board after every reset and step).
        observation_format: Layout of the observation planes: ``"hwc"`` (``int8 (N, N, C)``,
            the default), ``"chw"`` (``float32 (C, N, N)``) or ``"flat"`` (``float32
            (C * N * N,)``); see :mod:`go_env.observation_format`.

    Raises:
        ValueError: When an argument is out of range; the message names it and what is allowed.

    Attributes:
        possible_agents: ``["black_0", "white_0"]``.
        render_mode: The render mode given to the constructor.
    """

    agents: list[str]
    possible_agents: list[str]
    agent_selection: str
    rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    _cumulative_rewards: dict[str, float]

    metadata = {  # noqa: RUF012 (PettingZoo's class attribute)
        "render_modes": list(RENDER_MODES),
        "name": "go_env_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        *,
        board_size: int = 9,
        komi: float = 7.5,
        ko: KoRule | str = KoRule.POSITIONAL,
        suicide: bool = False,
        max_moves: int | None = None,
        handicap: int = 0,
        history: int = 8,
        render_mode: str | None = None,
        observation_format: ObservationFormat = "hwc",
    ) -> None:
        EzPickle.__init__(
            self,
            board_size=board_size,
            komi=komi,
            ko=ko,
            suicide=suicide,
            max_moves=max_moves,
            handicap=handicap,
            history=history,
            render_mode=render_mode,
            observation_format=observation_format,
        )
        super().__init__()
        self.observation_format = check_format(observation_format)
        size = _check_board_size(board_size)
        self._history = _check_history(history)
        self.render_mode = _check_render_mode(render_mode)
        self._rules = Rules(
            size=size,
            komi=komi,
            ko=ko,  # type: ignore[arg-type]
            suicide=suicide,
            max_moves=max_moves,
            handicap=handicap,
        )
        self._size = size
        self._pass = size * size
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = {
            agent: spaces.Dict(
                {
                    "observation": planes_space(
                        size, num_planes(self._history), self.observation_format
                    ),
                    "action_mask": spaces.Box(0, 1, (size * size + 1,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.observation_spaces = obs_space
        self.state_space = spaces.Box(
            0, 1, (size, size, num_planes(self._history)), dtype=PLANE_DTYPE
        )
        self.action_spaces = {agent: spaces.Discrete(size * size + 1) for agent in AGENTS}
        self._planes = {  # each agent's planes, updated from the ones it saw last
            agent: HistoryPlanesHWC(size, self._history, _COLOUR_OF[agent]) for agent in AGENTS
        }
        self._state = GoState(self._rules)
        # The legal moves of the position at ``_mask_at`` (``GoState.board_rows()``), written
        # by ``GoState.advance`` and copied into each observation of the agent to move.
        self._mask = np.zeros(size * size + 1, dtype=np.int8)
        self._mask_at: tuple[np.ndarray, int] | None = None
        self._start()

    @classmethod
    def from_rules(
        cls,
        rules: Rules,
        *,
        history: int = 8,
        render_mode: str | None = None,
        observation_format: ObservationFormat = "hwc",
    ) -> GoEnv:
        """An environment playing under ``rules`` (size, komi, ko, suicide, cap, handicap).

        Args:
            rules: The rules of the games.
            history: Number of positions k in the observation.
            render_mode: As for the constructor.
            observation_format: As for the constructor.
        """
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a go_env.rules.Rules, got {type(rules).__name__}")
        return cls(
            board_size=rules.size,
            komi=rules.komi,
            ko=rules.ko,
            suicide=rules.suicide,
            max_moves=rules.max_moves,
            handicap=rules.handicap,
            history=history,
            render_mode=render_mode,
            observation_format=observation_format,
        )

    # -- PettingZoo API ---------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(N * N + 1)`` (the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (with the handicap stones, if any).

        Args:
            seed: The game itself has no randomness, so every reset gives the same starting
                position; a seed seeds each agent's action space (with seeds drawn from it),
                so that a loop sampling ``env.action_space(agent).sample(mask)`` after
                ``reset(seed=s)`` repeats exactly.
            options: Accepted for the PettingZoo API and ignored.
        """
        if seed is not None:
            streams = np.random.SeedSequence(seed).generate_state(len(AGENTS))
            for agent, stream in zip(AGENTS, streams, strict=True):
                self.action_spaces[agent].seed(int(stream))
        self._state = GoState(self._rules)
        self._start()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent``: its own view of the board and its legal moves.

        Returns:
            ``{"observation": int8 (N, N, 2k + 1), "action_mask": int8 (N * N + 1,)}``, both new
            arrays (the planes in the ``observation_format`` layout). The mask is all zeros
            unless it is ``agent``'s turn in a running game.
        """
        planes_of = self._planes.get(agent)
        if planes_of is None:
            raise ValueError(f"agent must be one of {', '.join(AGENTS)}; got {agent!r}")
        state = self._state
        boards, n_pos = state.board_rows()
        planes = planes_of.from_rows(boards, n_pos)
        if (
            agent == self.agent_selection
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        ):
            at = self._mask_at
            if at is None or boards is not at[0] or n_pos != at[1]:
                self._update_mask()  # the state changed outside step() and reset()
            mask = self._mask.copy()
        else:
            mask = np.zeros(self._pass + 1, dtype=np.int8)
        return {"observation": convert(planes, self.observation_format), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` for the agent to move (``None`` for an agent whose game has ended).

        Raises:
            IllegalMoveError: When the move is off the board, occupied, suicide or repeats a
                position (ko/superko); the message names the agent, the move and the reason.
                The game is left unchanged. (``env()`` instead ends the game, the mover losing.)
            TypeError: When ``action`` is not an int (or numpy integer).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action <= self._pass:
            move = action
        else:
            move = self._check_action(action, agent)
        state = self._state
        result = state.advance(move, self._mask)  # checks the move, writes the next mask
        if result is None:
            self._refuse(move, agent, state.illegal_reason(move))
        self._mask_at = state.board_rows()
        score, number, status = result
        self._cumulative_rewards[agent] = 0.0
        if status:
            self._finish()
        else:
            self.infos = {
                "black_0": {"move_number": number, "score": score, "result": None},
                "white_0": {"move_number": number, "score": score, "result": None},
            }
        self.agent_selection = _OTHER[agent]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """Render the game as chosen by ``render_mode``.

        Returns:
            ``"ansi"``: the board as text with GTP coordinates; ``"rgb_array"``: an
            ``(H, W, 3)`` ``uint8`` image; ``"human"``: ``None`` after printing the text board;
            ``None`` (with a warning) when the environment has no render mode.
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                f"Pass render_mode= one of {', '.join(RENDER_MODES)} to the constructor."
            )
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self._state)
        text = render_ansi(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Release resources; the environment holds none (no window, no files)."""

    # -- game-state access for planning agents --------------------------------------------

    @property
    def game_state(self) -> GoState:
        """The live game state (read only: ``clone()`` it before searching or playing on it).

        The wrappers of :func:`env` forward it (``env.game_state``);
        ``env.unwrapped.game_state`` works through any wrapper.
        """
        return self._state

    @property
    def state(self) -> StateAccess:
        """PettingZoo's global state when called (``env.state()``, see :meth:`global_state`).

        Read as the game (``env.state.clone()``, ``env.state.to_play``), it forwards to
        :attr:`game_state` with a ``DeprecationWarning``: that use of the name goes in the
        next release.
        """
        return StateAccess(self)

    def global_state(self) -> np.ndarray:
        """PettingZoo's global state: the board seen by neither player, in :attr:`state_space`.

        Returns:
            A new ``int8`` array of shape ``(N, N, 2k + 1)`` (``k`` = ``history``): plane ``i``
            holds Black's stones ``i`` moves ago, plane ``k + i`` White's, and plane ``2k`` is
            all ones when Black is to move, all zeros when White is (the planes of
            :func:`go_env.features.history_planes_hwc` from Black's side, with the colour plane
            telling the player to move instead).
        """
        planes = history_planes_hwc(self._state, self._history, Color.BLACK)
        planes[:, :, -1] = 1 if self._state.to_play == Color.BLACK else 0
        return planes

    @property
    def rules(self) -> Rules:
        """The rules of the games of this environment."""
        return self._rules

    # -- internals ----------------------------------------------------------------------

    def _start(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        state = self._state
        info: dict[str, Any] = {
            "move_number": state.move_number,
            "score": state.score(),
            "result": None,
        }
        self.infos = {AGENTS[0]: info, AGENTS[1]: dict(info)}
        self.agent_selection = _AGENT_OF[state.to_play]
        self._skip_agent_selection = None
        self._update_mask()

    def _update_mask(self) -> None:
        """Copy the legal moves of the current position into ``_mask``."""
        state = self._state
        self._mask[:] = state.legal_mask()
        self._mask_at = state.board_rows()

    def _check_action(self, action: object, agent: str) -> int:
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            move = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(
                f"action of {agent} must be an int from 0 to {self._pass} "
                f"({self._pass} = pass), got {action!r}"
            ) from None
        if not 0 <= move <= self._pass:
            raise IllegalMoveError(
                move,
                IllegalReason.OFF_BOARD,
                f"{move} by {agent} (actions are 0..{self._pass}, {self._pass} = pass)",
            )
        return move

    def _refuse(self, move: int, agent: str, reason: IllegalReason | None) -> NoReturn:
        if reason is None:  # the cached mask and the state disagree: should never happen
            raise RuntimeError(f"move {move} is masked out but the state finds it legal")
        detail = f"{to_gtp(move, self._size)} (action {move}) by {agent}"
        raise IllegalMoveError(move, reason, detail)

    def _finish(self) -> None:
        state = self._state
        winner = state.winner
        if winner == Color.BLACK:
            self.rewards = {AGENTS[0]: 1.0, AGENTS[1]: -1.0}
        elif winner == Color.WHITE:
            self.rewards = {AGENTS[0]: -1.0, AGENTS[1]: 1.0}
        else:
            self.rewards = dict.fromkeys(AGENTS, 0.0)
        terminal = state.is_terminal
        self.terminations = dict.fromkeys(AGENTS, terminal)
        self.truncations = dict.fromkeys(AGENTS, not terminal)
        info: dict[str, Any] = {
            "move_number": state.move_number,
            "score": state.score(),
            "result": state.result(),
        }
        self.infos = {AGENTS[0]: info, AGENTS[1]: dict(info)}
        self._accumulate_rewards()


raw_env = GoEnv
"""``raw_env(**kwargs)``: the unwrapped environment (raises on illegal moves)."""


_TURN_ATTRIBUTES = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos")


def _direct(name: str, guarded: bool) -> property:
    """A read-only property returning attribute ``name`` of the unwrapped environment.

    With ``guarded``, reading it before ``reset()`` raises ``AttributeError`` (and Python then
    falls back to ``OrderEnforcingWrapper.__getattr__``, which raises its own message).
    """
    if guarded:

        def read(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

    else:

        def read(self: Any) -> Any:
            return getattr(self._raw, name)

    return property(read, doc=f"``{name}`` of the unwrapped environment (read only).")


class _DirectReads:
    """Mixin for PettingZoo's AEC wrappers: read the turn bookkeeping in one hop.

    PettingZoo's wrappers forward each attribute read through a chain of ``__getattr__`` calls,
    one per layer, which costs more than a whole move of the game. These properties read the
    same objects from the unwrapped environment directly (no wrapper keeps a copy of them), so
    the wrappers behave exactly as PettingZoo's, only faster. ``game_state``, ``state`` and
    ``state_space`` are forwarded the same way (``env.game_state`` is the live
    :class:`GoState` through the wrappers, ``env.state()`` the global state).
    """

    _raw: GoEnv
    _guarded = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _TURN_ATTRIBUTES:
            setattr(cls, name, _direct(name, cls._guarded))
        # These exist from construction on.
        for name in ("_cumulative_rewards", "state", "game_state", "state_space"):
            setattr(cls, name, _direct(name, False))

    def __str__(self) -> str:
        return str(self._raw)


class _TerminateIllegal(_DirectReads, wrappers.TerminateIllegalWrapper):
    def __init__(self, wrapped: AECEnv, illegal_reward: float) -> None:
        super().__init__(wrapped, illegal_reward)
        self._raw = wrapped.unwrapped


class _AssertOutOfBounds(_DirectReads, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, wrapped: AECEnv) -> None:
        super().__init__(wrapped)
        self._raw = wrapped.unwrapped


class _OrderEnforcing(_DirectReads, wrappers.OrderEnforcingWrapper):
    """The outer wrapper of :func:`env`, with the common case of all three layers inlined.

    A ``step`` with an ``int`` action inside the action space and inside the action mask of
    the observation the mover was last given, in a running game after ``reset``, is what all
    three wrappers pass through unchanged to the raw environment: this class does exactly
    that in one call, with the same bookkeeping (``_has_updated`` here, the remembered
    observation of the ``TerminateIllegalWrapper`` layer). Every other call (dead steps,
    illegal or out-of-bounds actions, calls before ``reset``) goes down the wrapper chain as
    usual. ``observe`` and ``last`` likewise do what the chain does, in one call.
    """

    _guarded = True

    def __init__(self, wrapped: _AssertOutOfBounds) -> None:
        super().__init__(wrapped)
        self._raw = wrapped.unwrapped
        self._illegal: _TerminateIllegal = wrapped.env

    def step(self, action: Any) -> None:
        raw = self._raw
        illegal = self._illegal
        shown = illegal._prev_obs
        if (
            type(action) is int
            and self._has_reset
            and type(shown) is dict
            and raw.agents
            and 0 <= action <= raw._pass
        ):
            agent = raw.agent_selection
            mask = shown.get("action_mask")
            if (
                mask is not None
                and not raw.terminations[agent]
                and not raw.truncations[agent]
                and mask[action]
            ):
                self._has_updated = True
                illegal._prev_obs = None
                illegal._prev_info = None
                raw.step(action)
                return
        if action is not None and not _is_index(action):
            # The wrappers below index the action mask with the action: a bool (or a float,
            # an array) would fail there with numpy's "truth value ... is ambiguous".
            raise TypeError(
                f"action of {raw.agent_selection} must be an int from 0 to {raw._pass} "
                f"({raw._pass} = pass) or None, got {action!r}"
            )
        super().step(action)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            return super().observe(agent)
        raw = self._raw
        observation = raw.observe(agent)
        if agent == raw.agent_selection:  # TerminateIllegalWrapper remembers the mover's view
            illegal = self._illegal
            illegal._prev_obs = observation
            infos = raw.infos
            illegal._prev_info = infos.get(agent, {})
        return observation

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        observation = self.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )


class StateAccess:
    """``env.state``: callable for PettingZoo's global state, and (deprecated) the GoState.

    PettingZoo defines ``env.state()`` as the global state; earlier releases of this package
    used ``env.state`` for the live :class:`GoState`. This object serves both for one release:
    calling it returns :meth:`GoEnv.global_state`, and any other attribute is read from
    :attr:`GoEnv.game_state` with a ``DeprecationWarning``.
    """

    __slots__ = ("_env",)

    def __init__(self, env: GoEnv) -> None:
        self._env = env

    def __call__(self) -> np.ndarray:
        """The global state (:meth:`GoEnv.global_state`)."""
        return self._env.global_state()

    def _game(self) -> GoState:
        warnings.warn(
            "env.state as the GoState is deprecated and goes in the next release: use "
            "env.unwrapped.game_state (env.state() is PettingZoo's global state)",
            DeprecationWarning,
            stacklevel=3,
        )
        return self._env.game_state

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game(), name)

    # What the old name did as the GoState itself: print it, copy it (a copy is the GoState's).
    def __str__(self) -> str:
        return str(self._game())

    def __copy__(self) -> GoState:
        return copy.copy(self._game())

    def __deepcopy__(self, memo: dict[int, Any]) -> GoState:
        return copy.deepcopy(self._game(), memo)

    def __repr__(self) -> str:
        return f"<state of {self._env}: call it for the global state; .game_state is the game>"


def _is_index(action: object) -> bool:
    """Whether ``action`` is an integer (a Python or numpy int, not a bool)."""
    if isinstance(action, (bool, np.bool_)):
        return False
    try:
        operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def env(
    *,
    board_size: int = 9,
    komi: float = 7.5,
    ko: KoRule | str = KoRule.POSITIONAL,
    suicide: bool = False,
    max_moves: int | None = None,
    handicap: int = 0,
    history: int = 8,
    render_mode: str | None = None,
    observation_format: ObservationFormat = "hwc",
) -> AECEnv:
    """Go with PettingZoo's standard wrappers, as for its classic environments.

    The wrappers are, from the inside out: ``TerminateIllegalWrapper(illegal_reward=-1)`` (a
    move outside the action mask ends the game: -1 to the mover, 0 to the other agent),
    ``AssertOutOfBoundsWrapper`` (an action outside ``Discrete(N * N + 1)`` fails an
    assertion) and ``OrderEnforcingWrapper`` (step, observe or render before reset are errors).
    Each is a subclass of PettingZoo's class that reads the turn bookkeeping (agents,
    agent_selection, rewards, terminations, truncations, infos) from the unwrapped environment
    in one hop instead of through every layer; the outer one also does the common ``step``,
    ``observe`` and ``last`` of all three layers in one call (see ``_OrderEnforcing``), with
    the same behaviour. The arguments are those of :class:`GoEnv`.

    Returns:
        The wrapped environment; ``.unwrapped`` is the :class:`GoEnv`.
    """
    raw = GoEnv(
        board_size=board_size,
        komi=komi,
        ko=ko,
        suicide=suicide,
        max_moves=max_moves,
        handicap=handicap,
        history=history,
        render_mode=render_mode,
        observation_format=observation_format,
    )
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(raw, illegal_reward=-1)))
