"""The temperature of a network's priors in the search (no torch import here).

``net:...,policy_temp=T`` makes the priors the softmax of ``logits / T`` over the legal moves
instead of the softmax of the logits. Above 1 the priors are flatter, and PUCT spends more of
its simulations on moves the network thinks unlikely; below 1 they are sharper. Leela Chess
Zero searches with such a temperature (its ``PolicyTemperature``, tuned well above 1 for
play); AlphaZero (Silver et al., *Science* 2018) and [LL20] use the network's policy as it is,
``T = 1``, the default here.
"""

from __future__ import annotations

import numpy as np

from go_env.validation import check_float

__all__ = ["MAX_POLICY_TEMP", "check_policy_temp", "temper"]

MAX_POLICY_TEMP = 10.0
"""The highest policy temperature allowed (at 10 the priors are nearly uniform)."""

_MIN_POLICY_TEMP = 0.1


def check_policy_temp(policy_temp: object) -> float:
    """``policy_temp`` as a float, if it is a number in ``[0.1, MAX_POLICY_TEMP]``.

    Raises:
        ValueError: Naming the value and the range allowed.
    """
    return check_float(
        "policy_temp",
        policy_temp,
        min=_MIN_POLICY_TEMP,
        max=MAX_POLICY_TEMP,
        allowed=(
            f"a number in [{_MIN_POLICY_TEMP:g}, {MAX_POLICY_TEMP:g}] (1: the network's own "
            f"priors; above 1 flatter, below 1 sharper)"
        ),
    )


def temper(priors: np.ndarray, policy_temp: float) -> np.ndarray:
    """Priors ``(B, A)`` at temperature ``T``: each row's ``p ** (1 / T)``, normalised.

    For priors that are a softmax of logits over the legal moves, this is the softmax of
    ``logits / T`` over them; zeros (illegal moves) stay zeros, and a row of zeros stays one.
    ``T = 1`` returns ``priors`` itself.
    """
    if policy_temp == 1.0:
        return priors
    top = priors.max(axis=1, keepdims=True)  # scaled to 1 first, so that no row underflows
    scaled = np.divide(priors, top, out=np.zeros_like(priors), where=top > 0)
    tempered = np.power(scaled, 1.0 / policy_temp)
    total = tempered.sum(axis=1, keepdims=True)
    return np.divide(tempered, total, out=np.zeros_like(tempered), where=total > 0)
