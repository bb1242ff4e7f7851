"""The policy/value network: an AlphaGo Zero style residual tower with two heads.

Architecture (David Silver et al., *Mastering the game of Go without human knowledge*, Nature
2017, Methods "Neural network architecture"; [LL20] uses the same form,
``docs/protocol.md#setting``): a 3x3 convolution with batch normalisation and ReLU, then
``blocks`` residual blocks (two 3x3 convolutions of ``filters`` channels with batch
normalisation, a skip connection, ReLU), then

* a **policy head**: 1x1 convolution to ``policy_channels`` channels, batch norm, ReLU, and a
  fully connected layer to ``N*N + 1`` logits (pass last);
* a **value head**: 1x1 convolution to ``value_channels`` channels, batch norm, ReLU, a fully
  connected layer to ``value_hidden`` units, ReLU, a fully connected layer to one output and
  ``tanh``: the value in ``[-1, 1]`` for the player to move;
* with ``ownership``, an **ownership head** for training only: a 1x1 convolution to one
  channel and ``tanh``, each point's predicted final owner in ``[-1, 1]`` (+1: the player to
  move's). An auxiliary target of KataGo (David J. Wu, *Accelerating self-play learning in
  Go*, 2019, §4.1), where it made self-play learning markedly faster: the value is one number
  per game, the ownership one per point, so a game tells the tower where its groups lived or
  died. Play never computes it (:meth:`PolicyValueNet.forward`).

Presets are named by shape (:data:`PRESETS`): ``b4c32`` is [LL20]'s 9x9 network (4 blocks,
32 filters, current + previous 4 positions), ``b10c64`` their 19x19 network (10 blocks, 64
filters, current + previous 8 positions), ``b20c256`` AlphaGo Zero's 20-block network,
``b6c48`` between the first two with ``b4c32``'s inputs (the larger 9x9 network distilled from
the strong line's games, ``docs/nets.md``, "Distillation").
``paper-9x9`` is the network of the self-play reproduction (issue 29): ``b4c32``'s shape and
history without the tactical planes (``NetConfig.tactical`` is off unless asked for), its
values learnt from self-play outcomes (``docs/nets.md``). Our input
adds a colour plane to the stone planes (``2k + 1`` planes, :mod:`agents.nets.features`).
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn
from torch.nn import functional as F

from agents.nets.net_config import PRESETS, NetConfig

__all__ = ["OWNERSHIP_PREFIX", "PRESETS", "NetConfig", "PolicyValueNet", "ResidualBlock"]

OWNERSHIP_PREFIX = "ownership_"
"""The names of the ownership head's parameters start with it (``ownership_conv.weight``)."""


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with batch norm, a skip connection and ReLU."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, F, N, N) -> (B, F, N, N)``."""
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    """Policy logits and value of positions (see the module docstring).

    Args:
        config: The shape (:class:`NetConfig`).
    """

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        n2 = config.size * config.size
        f = config.filters
        self.stem = nn.Sequential(
            nn.Conv2d(config.in_planes, f, 3, padding=1, bias=False),
            nn.BatchNorm2d(f),
            nn.ReLU(),
        )
        self.tower = nn.Sequential(*(ResidualBlock(f) for _ in range(config.blocks)))
        self.policy_conv = nn.Sequential(
            nn.Conv2d(f, config.policy_channels, 1, bias=False),
            nn.BatchNorm2d(config.policy_channels),
            nn.ReLU(),
        )
        self.policy_fc = nn.Linear(config.policy_channels * n2, config.actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(f, config.value_channels, 1, bias=False),
            nn.BatchNorm2d(config.value_channels),
            nn.ReLU(),
        )
        self.value_fc1 = nn.Linear(config.value_channels * n2, config.value_hidden)
        self.value_fc2 = nn.Linear(config.value_hidden, 1)
        if config.ownership:
            self.ownership_conv = nn.Conv2d(f, 1, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits and values.

        Args:
            x: ``float (B, C, N, N)`` input planes (:mod:`agents.nets.features`).

        Returns:
            ``(logits (B, N*N + 1), values (B,))``; values in ``[-1, 1]`` for the player to
            move, logits unnormalised and unmasked.
        """
        return self._heads(self._tower(x))

    def forward_with_ownership(
        self, x: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`forward`'s logits and values, and the ownership ``(B, N*N)`` in ``[-1, 1]``.

        Each point's predicted final owner for the player to move (+1: theirs), in the
        points' order (row-major, as the moves).

        Raises:
            ValueError: When the network has no ownership head (``NetConfig.ownership``).
        """
        if not self.config.ownership:
            raise ValueError("this network has no ownership head (NetConfig.ownership is off)")
        h = self._tower(x)
        logits, values = self._heads(h)
        return logits, values, torch.tanh(self.ownership_conv(h)).flatten(1)

    def _tower(self, x: torch.Tensor) -> torch.Tensor:
        c = self.config
        if x.dim() != 4 or x.shape[1:] != (c.in_planes, c.size, c.size):
            raise ValueError(
                f"expected input of shape (B, {c.in_planes}, {c.size}, {c.size}), "
                f"got {tuple(x.shape)}"
            )
        return self.tower(self.stem(x))

    def _heads(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.policy_fc(self.policy_conv(h).flatten(1))
        v = F.relu(self.value_fc1(self.value_conv(h).flatten(1)))
        return logits, torch.tanh(self.value_fc2(v)).squeeze(1)

    def without_ownership(self) -> PolicyValueNet:
        """This network for play: a copy without the ownership head (itself when it has none)."""
        if not self.config.ownership:
            return self
        plain = PolicyValueNet(dataclasses.replace(self.config, ownership=False))
        plain.load_weights(self.state_dict())
        return plain.to(next(self.parameters()).device).train(self.training)

    def load_weights(self, weights: dict[str, torch.Tensor]) -> None:
        """Load a state dict of this shape, with or without the ownership head.

        A head the weights lack keeps this network's fresh initialisation (a run that starts
        training ownership from a network that had none); one this network lacks is dropped
        (the head is for training only). Everything else must match, as in
        :meth:`~torch.nn.Module.load_state_dict`.
        """
        own = {k: v for k, v in weights.items() if not k.startswith(OWNERSHIP_PREFIX)}
        if self.config.ownership:
            own.update(
                {k: v for k, v in weights.items() if k.startswith(OWNERSHIP_PREFIX)}
                or {k: v for k, v in self.state_dict().items() if k.startswith(OWNERSHIP_PREFIX)}
            )
        self.load_state_dict(own)

    def parameter_count(self) -> int:
        """Number of trainable parameters."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)
