"""The shape and inputs of a policy/value network (:class:`NetConfig`) and its presets.

Apart from :mod:`agents.nets.model` so that what only reads a shape (a self-play run's
settings, the command line's defaults) needs no torch; :mod:`agents.nets.model` re-exports
both names. The presets are described there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from agents.nets.features import num_input_planes
from go_env.validation import check_int

__all__ = ["PRESETS", "NetConfig"]

PRESETS: dict[str, dict[str, int]] = {
    "b4c32": {"blocks": 4, "filters": 32, "history": 5, "value_hidden": 64},
    "b6c48": {"blocks": 6, "filters": 48, "history": 5, "value_hidden": 64},
    "b10c64": {"blocks": 10, "filters": 64, "history": 9, "value_hidden": 128},
    "b20c256": {"blocks": 20, "filters": 256, "history": 8, "value_hidden": 256},
    "paper-9x9": {"blocks": 4, "filters": 32, "history": 5, "value_hidden": 64},
}
"""Network shapes by name (the board size and the tactical planes are chosen separately)."""


@dataclass(frozen=True, kw_only=True)
class NetConfig:
    """Shape and inputs of a :class:`PolicyValueNet` (stored in every checkpoint).

    Args:
        size: Board size N (the fully connected layers are sized for it).
        blocks: Residual blocks.
        filters: Channels of the tower.
        history: Positions of stone history in the input (the current one included).
        tactical: Add the 24 Boke Go style planes (:mod:`go_env.tactical_features`).
        value_hidden: Units of the value head's hidden layer.
        policy_channels: Channels of the policy head's 1x1 convolution.
        value_channels: Channels of the value head's 1x1 convolution.
        ownership: Add the ownership head (a training target; play does not use it).
    """

    size: int = 9
    blocks: int = 4
    filters: int = 32
    history: int = 5
    tactical: bool = False
    value_hidden: int = 64
    policy_channels: int = 2
    value_channels: int = 1
    ownership: bool = False

    def __post_init__(self) -> None:
        for name, low, high in (
            ("size", 2, 25),
            ("blocks", 0, 80),
            ("filters", 1, 1024),
            ("history", 1, 64),
            ("value_hidden", 1, 4096),
            ("policy_channels", 1, 64),
            ("value_channels", 1, 64),
        ):
            check_int(name, getattr(self, name), min=low, max=high)
        for flag in ("tactical", "ownership"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")

    @classmethod
    def preset(cls, name: str, *, size: int = 9, **overrides: Any) -> NetConfig:
        """The config of preset ``name`` for an N x N board, with fields overridden.

        Raises:
            ValueError: For an unknown preset (the known ones are listed).
        """
        if name not in PRESETS:
            raise ValueError(f"unknown network preset {name!r}; known: {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], "size": size, **overrides})

    @property
    def shape_name(self) -> str:
        """``b{blocks}c{filters}``, e.g. ``"b4c32"``."""
        return f"b{self.blocks}c{self.filters}"

    @property
    def in_planes(self) -> int:
        """Number of input planes."""
        return num_input_planes(self.history, self.tactical)

    @property
    def actions(self) -> int:
        """Number of policy outputs, ``N*N + 1``."""
        return self.size * self.size + 1

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NetConfig:
        """The config of :meth:`to_dict`'s output.

        Raises:
            ValueError: For unknown keys.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        extra = sorted(set(data) - known)
        if extra:
            raise ValueError(f"unknown network config keys {extra}; known: {sorted(known)}")
        return cls(**data)
