"""The project's samplers pass Optuna's own sampler test suite (``optuna.testing``).

Optuna runs :mod:`optuna.testing.pytest_samplers` against each of its samplers; a custom
sampler that passes it behaves like one of Optuna's: values inside their distributions, of the
right Python type, multiples of a step, conditional and dynamic search spaces, NaN values,
fixed parameters, relative sampling of every kind of distribution, and ``n_jobs=2``.

* :class:`tuning.samplers.TrialSeededSampler` (independent sampling only) runs the basic
  and the multi-objective cases.
* :class:`tuning.samplers.noisy_gp.NoisyGPSampler` runs the basic, relative and single-objective
  cases. Optuna tests its model samplers with no start-up trials; a GP proposal (a fit and an
  acquisition search) costs about a second on an idle 2-core machine, and the suite's
  optimisations run 10 trials each, so the GP takes over after 8 (``n_startup_trials=8``):
  it still proposes the last points of every 10-trial case (the float cases of the
  single-parameter, NaN, conditional, dynamic-range and ``n_jobs`` tests), with a small
  acquisition budget. The 3-trial cases and the relative cases (one finished trial) test its
  start-up path, which is the independent sampler's. Of the three dynamic-range cases one
  runs (the non-overlapping range): their first ten trials, the only ones the GP models (a
  parameter whose range changed leaves the intersection search space), are the same. The
  suite's objectives play no games, so the sampler is told a fixed noise variance per trial.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from optuna.samplers import BaseSampler
from optuna.testing.pytest_samplers import (
    BasicSamplerTestCase,
    MultiObjectiveSamplerTestCase,
    RelativeSamplerTestCase,
    SingleOnlySamplerTestCase,
)

from tuning.samplers import TrialSeededSampler


class TestTrialSeededSampler(BasicSamplerTestCase, MultiObjectiveSamplerTestCase):
    @pytest.fixture
    def sampler(self) -> Callable[[], BaseSampler]:
        return lambda: TrialSeededSampler(seed=0)


class TestNoisyGPSampler(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self) -> Callable[[], BaseSampler]:
        pytest.importorskip("botorch")
        from tuning.samplers.noisy_gp import NoisyGPSampler

        return lambda: NoisyGPSampler(
            seed=0,
            n_startup_trials=8,
            independent_sampler=TrialSeededSampler(seed=0),
            noise=lambda trial: 1e-4,
            num_restarts=1,
            raw_samples=16,
            mc_samples=16,
        )

    @pytest.mark.parametrize(("second_low", "second_high"), [(20, 30)])
    def test_dynamic_range_objective(
        self, sampler: Callable[[], BaseSampler], second_low: int, second_high: int
    ) -> None:
        super().test_dynamic_range_objective(sampler, second_low, second_high)
