"""The samplers a study can use, by name, all seeded the same way.

* ``botorch`` (the default): :class:`tuning.samplers.noisy_gp.NoisyGPSampler`, a GP told each
  trial's sampling variance, with noisy expected improvement; the study recommends the evaluated
  point with the best posterior mean (``docs/decisions/016-noise-aware-gp.md``).
* ``gp``: Optuna's ``GPSampler`` (Matérn-5/2, log EI, one noise variance it learns).
* ``tpe``: Optuna's ``TPESampler`` (Bergstra et al., *Algorithms for hyper-parameter
  optimization*, NeurIPS 2011).
* ``random``: uniform (log-uniform) points, :class:`TrialSeededSampler` for every trial.

The start-up points of ``botorch`` and ``gp`` come from :class:`TrialSeededSampler`, seeded
by ``(seed, trial number)``; TPE draws its own from its seeded stream.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, GPSampler, RandomSampler, TPESampler
from optuna.trial import FrozenTrial

from tuning.samplers.noisy_gp import PROPOSED_KEY

__all__ = [
    "DEFAULT_SAMPLER",
    "SAMPLERS",
    "TrialSeededSampler",
    "make_sampler",
    "proposed_by_model",
]

SAMPLERS = ("botorch", "gp", "tpe", "random")
"""The names :func:`make_sampler` accepts."""

DEFAULT_SAMPLER = "botorch"
"""The noise-aware GP."""


class TrialSeededSampler(BaseSampler):
    """Uniform (log-uniform) sampling seeded by ``(seed, trial number, parameter)``.

    Used for the GP's start-up trials: unlike a sampler with one random stream, it gives
    trial ``k`` the same point whether the study ran in one go, was resumed, or is shared by
    several workers, and two trials never get the stream of each other.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """No relative sampling."""
        return {}

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """No relative sampling."""
        return {}

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        """Draw ``param_name`` from a stream seeded by the trial number and the name."""
        key = [self.seed, trial.number, *param_name.encode()]
        seed = int(np.random.SeedSequence(key).generate_state(1)[0])
        return RandomSampler(seed=seed).sample_independent(
            study, trial, param_name, param_distribution
        )


def proposed_by_model(trial: FrozenTrial) -> bool:
    """Whether a GP (``botorch`` or ``gp``) proposed ``trial``'s point, not a start-up draw.

    Both samplers leave a system attribute on the trials they propose: ``noisy_gp:proposed``
    (:data:`tuning.samplers.noisy_gp.PROPOSED_KEY`) and Optuna's ``gp:relative_params:0``.
    """
    attrs = trial.system_attrs
    return bool(attrs.get(PROPOSED_KEY)) or "gp:relative_params:0" in attrs


def make_sampler(name: str, *, seed: int, startup_trials: int) -> BaseSampler:
    """The sampler called ``name`` (one of :data:`SAMPLERS`), seeded with ``seed``.

    Args:
        name: ``botorch``, ``gp``, ``tpe`` or ``random``.
        seed: The study seed.
        startup_trials: Trials drawn uniformly before the model takes over (not used by
            ``random``).

    Raises:
        ValueError: For an unknown name (the message lists the allowed ones).
        ImportError: For ``botorch`` without BoTorch, ``gp`` without PyTorch (the message names
            the extra to install).
    """
    if name == "botorch":
        try:
            import botorch  # noqa: F401 - a clear message now, not at the first GP trial
        except ImportError as exc:
            raise ImportError(
                "the default sampler 'botorch' needs BoTorch, from the extra 'botorch': "
                "pip install 'gomcts[botorch]' (or choose --sampler tpe)"
            ) from exc
        from tuning.samplers.noisy_gp import NoisyGPSampler

        return NoisyGPSampler(
            seed=seed,
            n_startup_trials=startup_trials,
            independent_sampler=TrialSeededSampler(seed),
        )
    if name == "gp":
        if importlib.util.find_spec("torch") is None:  # Optuna's GPSampler is built on it
            raise ImportError(
                "the sampler 'gp' (Optuna's GPSampler) needs PyTorch, from the extra 'gp': "
                "pip install 'gomcts[gp]' (or choose --sampler tpe)"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return GPSampler(
                seed=seed,
                n_startup_trials=startup_trials,
                independent_sampler=TrialSeededSampler(seed),
                deterministic_objective=False,
                warn_independent_sampling=False,
            )
    if name == "tpe":
        return TPESampler(seed=seed, n_startup_trials=startup_trials)
    if name == "random":
        return TrialSeededSampler(seed)
    raise ValueError(f"unknown sampler {name!r}; allowed: {', '.join(SAMPLERS)}")
