"""The samplers of a study: by name (:mod:`.factory`), and the noise-aware GP.

* :mod:`tuning.samplers.factory`: the samplers a study can use, by name, all seeded alike;
* :mod:`tuning.samplers.noise`: the sampling variance of a winrate, which every trial records;
* :mod:`tuning.samplers.noisy_gp`: a GP sampler told each trial's noise, and its recommendation;
* :mod:`tuning.samplers.simulation`: the samplers compared where the true winrate is known.
"""

from tuning.samplers.factory import (
    DEFAULT_SAMPLER,
    SAMPLERS,
    TrialSeededSampler,
    make_sampler,
    proposed_by_model,
)

__all__ = [
    "DEFAULT_SAMPLER",
    "SAMPLERS",
    "TrialSeededSampler",
    "make_sampler",
    "proposed_by_model",
]
