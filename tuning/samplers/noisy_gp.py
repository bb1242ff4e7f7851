"""A Gaussian-process sampler that knows the noise of every trial, and its recommendation.

A trial's winrate over ``n`` games has a known sampling variance (:mod:`tuning.samplers.noise`), of
the same order as the differences a study looks for (about 0.004 at 60 games, a standard
deviation of 6.5 points). Optuna's ``GPSampler`` learns one homoscedastic noise variance
under a prior that pulls it towards zero, so it interpolates the noise; its expected
improvement then chases the luckiest trial, and the best trial picked by raw winrate is
biased up (the winner's curse, ``docs/tuning.md``).

:class:`NoisyGPSampler` instead gives the GP each trial's own variance:

* **Model**: BoTorch's ``SingleTaskGP`` with ``train_Yvar`` (a fixed, heteroscedastic
  Gaussian noise per observation; Rasmussen & Williams, *Gaussian Processes for Machine
  Learning*, 2006, §2.2), a constant kernel for the overall level plus a learnt output scale
  times BoTorch's dimension-scaled RBF kernel (Hvarfner, Hellsten & Nardi, *Vanilla Bayesian
  optimization performs great in high dimensions*, ICML 2024), outcomes in units of the
  median noise sd (:func:`_fit`), inputs scaled to the unit cube (log scale for log
  parameters). The kernel hyperparameters are fitted by maximum a posteriori; the noise is
  not fitted.
* **Acquisition**: ``qLogNoisyExpectedImprovement`` (Letham, Karrer, Ottoni & Bakshy,
  *Constrained Bayesian optimization with noisy experiments*, Bayesian Analysis 2019, for
  noisy EI: the improvement is taken over the GP's joint posterior at the evaluated points,
  not over a noisy best value; Ament et al., *Unexpected improvements to expected
  improvement for Bayesian optimization*, NeurIPS 2023, for its log form). Trials still
  running (other workers) enter as pending points, so two workers do not propose the same
  point.
* **Recommendation** (:func:`recommend`): the evaluated point with the best posterior mean,
  reported with its posterior standard deviation beside its raw winrate. The posterior mean
  shrinks a lucky trial towards its neighbours, so it is far less biased up than the best
  raw value; what bias is left (the best of the means is still a little lucky, and a real
  winner is pulled down) is estimated by an iterated parametric bootstrap
  (:func:`selection_bias`) and taken off.

Seeding: the acquisition's quasi-Monte-Carlo samples and its optimiser's restarts are seeded
by ``(seed, trial number)``, like :class:`tuning.samplers.TrialSeededSampler`; a study run by one
worker from start to end is reproducible. The start-up trials come from ``independent_sampler``.

Only float parameters are modelled (the spaces of :mod:`tuning.search_spaces` have no
others); any other parameter is left to ``independent_sampler``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, FloatDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.search_space import IntersectionSearchSpace
from optuna.trial import FrozenTrial, TrialState

from go_env.validation import check_int
from tuning.samplers.noise import trial_variance

__all__ = [
    "PROPOSED_KEY",
    "NoisyGPSampler",
    "Posterior",
    "Recommendation",
    "posterior_at_trials",
    "recommend",
    "recommendation_of",
    "selection_bias",
]

NoiseOf = Callable[[FrozenTrial], float]


def _torch() -> Any:
    import torch

    return torch


def _seed(*key: int) -> int:
    return int(np.random.SeedSequence(list(key)).generate_state(1)[0] % (2**31 - 1))


class _UnitCube:
    """Float parameters to the unit cube and back (log parameters on a log scale)."""

    def __init__(self, space: dict[str, FloatDistribution]) -> None:
        self.names = sorted(space)
        self.space = space
        self.low = np.array([self._scale(space[n], space[n].low) for n in self.names])
        self.high = np.array([self._scale(space[n], space[n].high) for n in self.names])

    @staticmethod
    def _scale(dist: FloatDistribution, value: float) -> float:
        return math.log(value) if dist.log else float(value)

    def to_cube(self, params: dict[str, Any]) -> np.ndarray:
        raw = np.array([self._scale(self.space[n], params[n]) for n in self.names])
        return np.clip((raw - self.low) / (self.high - self.low), 0.0, 1.0)

    def from_cube(self, x: np.ndarray) -> dict[str, float]:
        raw = self.low + np.clip(x, 0.0, 1.0) * (self.high - self.low)
        out = {}
        for name, value in zip(self.names, raw, strict=True):
            dist = self.space[name]
            v = math.exp(value) if dist.log else float(value)
            out[name] = float(min(max(v, dist.low), dist.high))
        return out


def _float_space(space: dict[str, BaseDistribution]) -> dict[str, FloatDistribution]:
    return {
        name: dist
        for name, dist in space.items()
        if isinstance(dist, FloatDistribution) and not dist.single() and dist.step is None
    }


def _trials_space(trials: Sequence[FrozenTrial]) -> dict[str, FloatDistribution]:
    """Float parameters every one of ``trials`` has, with the same distribution."""
    if not trials:
        return {}
    common = dict(trials[0].distributions)
    for trial in trials[1:]:
        common = {
            n: d for n, d in common.items() if trial.distributions.get(n) == d and n in trial.params
        }
    return _float_space(common)


SIGNAL_PRIOR = (1.0, 0.5)
"""Gamma prior ``(concentration, rate)`` of the signal variance, in units of the trials'
median noise variance: an exponential with mean 2, its mode at no signal (the real studies
found trials that differed by noise alone; a large effect, such as a losing region, is still
learned from the data, which outweigh this prior). Chosen among rates 0.1, 0.5, 2 and 8 by
the calibration study (``docs/tuning.md``): 0.5 gave the smallest mean z-scores."""

LEVEL_VARIANCE = 25.0
"""Prior variance of the overall level (after centring), in units of the median noise
variance: broad, so that the level is estimated from the data and its uncertainty enters the
posterior (a constant kernel; Rasmussen & Williams 2006, §2.7)."""

SIGNAL_GRID = np.geomspace(1e-4, 1e3, 57)
"""Signal variances (median-noise units) over which :func:`posterior_at_trials` averages."""


@dataclass(frozen=True)
class _Fitted:
    """A GP fitted on ``(y - center) / scale`` with variances ``yvar / scale**2``."""

    model: Any
    center: float
    scale: float
    x: np.ndarray
    y: np.ndarray
    yvar: np.ndarray


def _fit(x: np.ndarray, y: np.ndarray, yvar: np.ndarray, *, input_warp: bool = False) -> _Fitted:
    """A fixed-noise GP with a learned signal variance, fitted by maximum a posteriori.

    The outcomes are centred on their mean and divided by the median noise sd: a fixed
    scale, not their spread. (BoTorch's default standardises the outcomes and has no output
    scale, so its prior signal variance is the observed spread: where trials differ by noise
    alone it takes the noise for signal.) The kernel is a constant (the overall level, prior
    variance :data:`LEVEL_VARIANCE`) plus an output scale (Gamma prior :data:`SIGNAL_PRIOR`)
    times BoTorch's dimension-scaled RBF kernel (Hvarfner, Hellsten & Nardi, ICML 2024);
    the mean function is zero.

    ``input_warp`` adds BoTorch's ``Warp`` input transform (a learnt Kumaraswamy CDF per
    input, LogNormal(0, 0.75) priors on its two concentrations; Snoek, Swersky, Zemel &
    Adams, *Input warping for Bayesian optimization of non-stationary functions*, ICML
    2014). Not used by the sampler or the report: the calibration study measured it and it
    made the cliff's report worse (``docs/tuning.md``); kept to reproduce that measurement.
    """
    torch = _torch()
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.utils.gpytorch_modules import get_covar_module_with_dim_scaled_prior
    from gpytorch.kernels import ConstantKernel, ScaleKernel
    from gpytorch.means import ZeroMean
    from gpytorch.mlls import ExactMarginalLogLikelihood
    from gpytorch.priors import GammaPrior

    center = float(np.mean(y))
    scale = float(np.sqrt(np.median(yvar)))
    train_x = torch.as_tensor(x, dtype=torch.float64)
    train_y = torch.as_tensor((y - center) / scale, dtype=torch.float64).reshape(-1, 1)
    train_yvar = torch.as_tensor(yvar / scale**2, dtype=torch.float64).reshape(-1, 1)
    level = ConstantKernel()
    level.constant = torch.tensor(LEVEL_VARIANCE, dtype=torch.float64)
    level.raw_constant.requires_grad_(False)
    signal = ScaleKernel(
        get_covar_module_with_dim_scaled_prior(ard_num_dims=x.shape[1]),
        outputscale_prior=GammaPrior(*SIGNAL_PRIOR),
    )
    signal.outputscale = torch.tensor(SIGNAL_PRIOR[0] / SIGNAL_PRIOR[1], dtype=torch.float64)
    with warnings.catch_warnings():
        # optimiser chatter; a failed fit keeps the priors' starting values
        warnings.simplefilter("ignore")
        model = SingleTaskGP(
            train_x,
            train_y,
            train_Yvar=train_yvar,
            covar_module=level + signal,
            mean_module=ZeroMean(),
            outcome_transform=None,
            input_transform=_warp(x.shape[1]) if input_warp else None,
        )
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        fit_gpytorch_mll(mll)
    model.eval()
    return _Fitted(model, center, scale, x, y, yvar)


def _warp(d: int) -> Any:
    """BoTorch's Kumaraswamy input warping of all ``d`` inputs (:func:`_fit`)."""
    from botorch.models.transforms.input import Warp
    from gpytorch.priors import LogNormalPrior

    return Warp(
        d=d,
        indices=list(range(d)),
        concentration1_prior=LogNormalPrior(0.0, 0.75),
        concentration0_prior=LogNormalPrior(0.0, 0.75),
    )


def _correlation(fitted: _Fitted) -> np.ndarray:
    """The fitted RBF kernel's correlation matrix at the (warped) training points."""
    torch = _torch()
    base = fitted.model.covar_module.kernels[1].base_kernel
    warp = getattr(fitted.model, "input_transform", None)
    with torch.no_grad():
        xs = torch.as_tensor(fitted.x, dtype=torch.float64)
        if warp is not None:
            xs = warp(xs)
        return np.asarray(base(xs, xs).to_dense().numpy(), dtype=float)


class _Smoother:
    """The posterior at the training points as a function of their outcomes.

    The lengthscales stay at their fitted values; the signal variance ``s`` is integrated
    out on :data:`SIGNAL_GRID` under its Gamma prior, each value weighed by its marginal
    likelihood (Bayesian model averaging; Rasmussen & Williams 2006, §5.2). The average's
    variance adds the spread of the means between values of ``s``: a study that cannot tell
    "no signal" from "some signal" reports both, where a single fitted ``s`` would report
    whichever it picked with false confidence. With the hyperparameters fixed, the posterior
    of other outcomes at the same points costs a few matrix products: what the selection
    correction of :func:`recommend` needs.
    """

    def __init__(self, fitted: _Fitted) -> None:
        from scipy.stats import gamma

        self.center = fitted.center
        self.scale = fitted.scale
        corr = _correlation(fitted)
        n = len(fitted.y)
        noise = np.diag(fitted.yvar / fitted.scale**2)
        level = np.full((n, n), LEVEL_VARIANCE)
        inverse, logdet, gain, variance = [], [], [], []
        for s in SIGNAL_GRID:
            prior = level + s * corr
            inv = np.linalg.inv(prior + noise)
            inverse.append(inv)
            logdet.append(np.linalg.slogdet(prior + noise)[1])
            gain.append(prior @ inv)
            variance.append(np.clip(np.diag(prior - prior @ inv @ prior), 0.0, None))
        self.inverse = np.array(inverse)
        self.logdet = np.array(logdet)
        self.gain = np.array(gain)
        self.variance = np.array(variance)
        shape, rate = SIGNAL_PRIOR
        # the grid is uniform in log s: the prior density in s times s
        self.log_prior = gamma.logpdf(SIGNAL_GRID, shape, scale=1.0 / rate) + np.log(SIGNAL_GRID)

    CHUNK = 2_000
    """Outcome vectors per block of :meth:`__call__` (bounds its memory: ``CHUNK`` times the
    grid's 57 values times the number of trials)."""

    def __call__(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means and sds (each ``(B, n)``) for outcomes ``values`` (``(B, n)``)."""
        rows = np.atleast_2d(values)
        if len(rows) > self.CHUNK:
            blocks = [self(rows[k : k + self.CHUNK]) for k in range(0, len(rows), self.CHUNK)]
            return np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
        y = (rows - self.center) / self.scale
        quad = np.einsum("bi,sij,bj->bs", y, self.inverse, y)
        log_w = -0.5 * quad - 0.5 * self.logdet[None, :] + self.log_prior[None, :]
        w = np.exp(log_w - log_w.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        means = np.einsum("sij,bj->bsi", self.gain, y)
        mean = np.einsum("bs,bsi->bi", w, means)
        second = np.einsum("bs,bsi->bi", w, self.variance[None, :, :] + means**2)
        sd = np.sqrt(np.clip(second - mean**2, 0.0, None))
        return self.center + self.scale * mean, self.scale * sd


@dataclass(frozen=True)
class Posterior:
    """The GP posterior of the latent winrate at the evaluated points.

    Attributes:
        trials: The COMPLETE trials, in study order.
        mean: Posterior mean of each trial's latent winrate.
        sd: Posterior standard deviation (without the observation noise).
        value: Each trial's raw value.
        noise_sd: Each trial's sampling standard deviation (what the GP was told).
        resample: The posterior means at the same points for other outcomes (``(B, n)`` to
            ``(B, n)``, hyperparameters fixed); ``None`` when no GP was fitted.
    """

    trials: list[FrozenTrial]
    mean: np.ndarray
    sd: np.ndarray
    value: np.ndarray
    noise_sd: np.ndarray
    resample: Callable[[np.ndarray], np.ndarray] | None = None


@dataclass(frozen=True)
class Recommendation:
    """The evaluated point with the best posterior mean, and an honest estimate of its value.

    Attributes:
        trial: Its trial.
        mean: The estimate of its winrate: the posterior mean less ``selection_bias``.
        sd: The posterior standard deviation.
        value: Its raw winrate (biased up when it was selected by that value).
        noise_sd: Its sampling standard deviation.
        posterior_mean: The GP's posterior mean at the point, before the correction.
        selection_bias: The bias of the best posterior mean as an estimate of its point's
            value, estimated by :func:`selection_bias` (subtracted in ``mean``): what
            choosing the best of the means adds, less what the smoother takes from a real
            winner; negative where the second is larger.
    """

    trial: FrozenTrial
    mean: float
    sd: float
    value: float
    noise_sd: float
    posterior_mean: float | None = None
    selection_bias: float = 0.0

    def describe(self) -> str:
        """One line: the trial, its estimate and sd, the correction, its raw value.

        ``"trial 7: estimate 0.531 (sd 0.021; posterior mean 0.541 less 0.010 for the
        selection and the smoothing), raw 0.600 over 60 games"`` (``plus`` where the
        correction raises the mean).

        A trial of the trap-tree objective counts trees (its user attribute ``unit``).
        """
        attrs = self.trial.user_attrs
        before = self.mean if self.posterior_mean is None else self.posterior_mean
        return (
            f"trial {self.trial.number}: estimate {self.mean:.3f} (sd {self.sd:.3f}; "
            f"posterior mean {before:.3f} {'less' if self.selection_bias >= 0 else 'plus'} "
            f"{abs(self.selection_bias):.3f} for the selection and the smoothing), "
            f"raw {self.value:.3f} over {attrs.get('games', '?')} {attrs.get('unit', 'games')}"
        )


def _check_single_objective(study: optuna.Study) -> None:
    if len(study.directions) > 1:
        raise ValueError(
            f"NoisyGPSampler optimises one objective; study {study.study_name!r} has "
            f"{len(study.directions)}"
        )


def _sign(study_or_direction: Any) -> float:
    direction = getattr(study_or_direction, "direction", study_or_direction)
    return -1.0 if direction == optuna.study.StudyDirection.MINIMIZE else 1.0


def posterior_at_trials(
    trials: Sequence[FrozenTrial], *, noise: NoiseOf = trial_variance, input_warp: bool = False
) -> Posterior:
    """Fit the fixed-noise GP to ``trials`` and return its posterior at their points.

    Args:
        trials: COMPLETE trials of one study (their values as the study stores them).
        noise: The sampling variance of a trial's value (default :func:`trial_variance`).
        input_warp: Fit with learnt input warping (:func:`_fit`; measured, not shipped).

    Raises:
        ValueError: With no trial, or a trial without a recorded noise.
    """
    trials = [t for t in trials if t.state == TrialState.COMPLETE and t.value is not None]
    if not trials:
        raise ValueError("no COMPLETE trial: nothing to fit a posterior to")
    value = np.array([float(t.value) for t in trials])  # type: ignore[arg-type]
    yvar = np.array([noise(t) for t in trials])
    noise_sd = np.sqrt(yvar)
    space = _trials_space(trials)
    if len(trials) < 2 or not space:
        return Posterior(trials, value.copy(), noise_sd.copy(), value, noise_sd)
    cube = _UnitCube(space)
    x = np.stack([cube.to_cube(t.params) for t in trials])
    smoother = _Smoother(_fit(x, value, yvar, input_warp=input_warp))
    mean, sd = smoother(value[None, :])
    return Posterior(trials, mean[0], sd[0], value, noise_sd, resample=lambda v: smoother(v)[0])


SELECTION_DRAWS = 500
"""Simulated studies of the first level of :func:`selection_bias`."""

SECOND_LEVEL = (200, 100)
"""Simulated studies of its second level: worlds (the first level's first draws) and draws
in each."""


def _bootstrap_rng(post: Posterior) -> np.random.Generator:
    """The generator of :func:`selection_bias`'s draws, seeded by the number of trials.

    The same study gives the same draws, and a calibration script that compares widths or
    corrections draws the same worlds with it.
    """
    return np.random.default_rng([len(post.trials), 20])


def _total_error(
    resample: Callable[[np.ndarray], np.ndarray],
    truth: np.ndarray,
    noise_sd: np.ndarray,
    sign: float,
    rng: np.random.Generator,
    draws: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Simulated studies of the world ``truth`` (``(W, n)``: one world a row).

    Each draws every trial's value again with its own noise, recomputes the posterior means
    and chooses the best. Returns the chosen mean less that point's true value, in the
    direction of ``sign`` (``(W, draws)``), and the posterior means (``(W, draws, n)``).
    """
    worlds, n = truth.shape
    values = truth[:, None, :] + noise_sd * rng.standard_normal((worlds, draws, n))
    means = resample(values.reshape(-1, n)).reshape(worlds, draws, n)
    picks = np.argmax(sign * means, axis=2)
    chosen = np.take_along_axis(means, picks[..., None], axis=2)[..., 0]
    return sign * (chosen - np.take_along_axis(truth, picks, axis=1)), means


def selection_bias(
    post: Posterior,
    sign: float = 1.0,
    *,
    draws: int = SELECTION_DRAWS,
    second_level: tuple[int, int] | None = SECOND_LEVEL,
) -> float:
    """How much the best of the posterior means overstates the value of its point.

    The reported point is the one with the best posterior mean, and that mean errs two ways:
    choosing the best of noisy means favours a lucky point (up: the winner's curse), and the
    smoother pulls a point that is truly better than the rest towards the common level
    (down). This estimates their sum, the bias of the best posterior mean as an estimate of
    its own point's value, by a parametric bootstrap (Efron & Tibshirani, *An Introduction
    to the Bootstrap*, 1993, ch. 10, for the bias ``E*[T*] - θ(F̂)``): take the posterior
    means as the true values, draw each trial's value again with its own noise, recompute
    the posterior means (hyperparameters fixed), choose the best, and average the chosen
    mean less that point's assumed true value. Where the trials differ by noise alone this
    is about the luck of the chosen point; where one region is clearly better, the two
    effects nearly cancel.

    The bootstrap's world is the posterior means, which are smoother than the truth: a
    better region in it is lower than in fact, the smoother pulls it down less, and choosing
    in it looks more like choosing among ties. So the single bootstrap over-corrects where a
    winner is real. The second level measures this error of the bootstrap and removes it
    (the iterated bootstrap's bias correction ``t - 2b + E*[b*]``; Hall & Martin, *On
    bootstrap resampling and iteration*, Biometrika 75, 1988; Davison & Hinkley, *Bootstrap
    Methods and their Application*, 1997, §3.9): in each of the first level's worlds, the
    same bootstrap around that world's own posterior means estimates the bias ``b*``, and
    the correction is ``2 b - mean(b*)``.

    Seeded by the number of trials: the same study gives the same estimate.

    Args:
        post: The posterior (:func:`posterior_at_trials`).
        sign: ``1`` when larger values are better, ``-1`` when smaller.
        draws: Simulated studies of the first level.
        second_level: Worlds and draws in each of the second level; ``None``: the single
            bootstrap (``b``).

    Returns:
        The bias in the direction of ``sign`` (positive: the report is too good; it may be
        negative where a real winner's mean was pulled down more than its luck lifted it);
        0 without a fitted GP.
    """
    check_int("draws", draws, min=1)
    if second_level is not None and (
        len(second_level) != 2
        or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in second_level)
    ):
        raise ValueError(
            f"second_level must be (worlds, draws), two ints >= 1, or None; got {second_level!r}"
        )
    if post.resample is None:
        return 0.0
    rng = _bootstrap_rng(post)
    errors, means = _total_error(post.resample, post.mean[None, :], post.noise_sd, sign, rng, draws)
    first = float(np.mean(errors))
    if second_level is None:
        return first
    worlds, inner = second_level
    worlds = min(worlds, draws)
    again, _ = _total_error(post.resample, means[0, :worlds], post.noise_sd, sign, rng, inner)
    return 2.0 * first - float(np.mean(again))


def recommendation_of(post: Posterior, sign: float = 1.0) -> Recommendation:
    """The trial of ``post`` with the best posterior mean, its value corrected for the choice.

    Args:
        post: The posterior at the COMPLETE trials (:func:`posterior_at_trials`).
        sign: ``1`` when larger values are better, ``-1`` when smaller.
    """
    i = int(np.argmax(sign * post.mean))
    bias = selection_bias(post, sign)
    return Recommendation(
        trial=post.trials[i],
        mean=float(post.mean[i] - sign * bias),
        sd=float(post.sd[i]),
        value=float(post.value[i]),
        noise_sd=float(post.noise_sd[i]),
        posterior_mean=float(post.mean[i]),
        selection_bias=bias,
    )


def recommend(study: optuna.Study, *, noise: NoiseOf = trial_variance) -> Recommendation | None:
    """The COMPLETE trial of ``study`` with the best posterior mean (``None``: no trial).

    The study's direction decides "best"; the posterior comes from
    :func:`posterior_at_trials`, and the reported value is corrected for the choice
    (:func:`recommendation_of`).
    """
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not done:
        return None
    return recommendation_of(posterior_at_trials(done, noise=noise), _sign(study))


PROPOSED_KEY = "noisy_gp:proposed"
"""System attribute set to ``True`` on a trial whose point the GP proposed."""


class NoisyGPSampler(BaseSampler):
    """Fixed-noise GP with noisy expected improvement (see the module docstring).

    Args:
        seed: Seeds the acquisition (with the trial number).
        n_startup_trials: COMPLETE trials drawn by ``independent_sampler`` before the GP.
        independent_sampler: Start-up points and parameters the GP does not model
            (default: Optuna's ``RandomSampler(seed)``).
        noise: The sampling variance of a trial's value (default
            :func:`tuning.samplers.noise.trial_variance`, which reads the trial's user attributes).
        num_restarts: Starting points of the acquisition's gradient optimiser.
        raw_samples: Random points scored to choose those starting points.
        mc_samples: Quasi-Monte-Carlo samples of the acquisition.

    Raises:
        ValueError: For a count below 1.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        noise: NoiseOf = trial_variance,
        num_restarts: int = 8,
        raw_samples: int = 256,
        mc_samples: int = 128,
    ) -> None:
        for name, value in (
            ("n_startup_trials", n_startup_trials),
            ("num_restarts", num_restarts),
            ("raw_samples", raw_samples),
            ("mc_samples", mc_samples),
        ):
            check_int(name, value, min=1)
        self.seed = seed
        self.n_startup_trials = n_startup_trials
        self.independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self.noise = noise
        self.num_restarts = num_restarts
        self.raw_samples = raw_samples
        self.mc_samples = mc_samples
        self._space = IntersectionSearchSpace()

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The float parameters every finished trial has."""
        _check_single_objective(study)
        return dict(_float_space(self._space.calculate(study)))

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """Maximise ``qLogNoisyExpectedImprovement`` of the fixed-noise GP.

        Like Optuna's samplers, it returns a value for every parameter of ``search_space``:
        the GP's proposal for the continuous floats once ``n_startup_trials`` trials have
        finished, ``independent_sampler``'s value for the rest (and for all of them before).
        """
        _check_single_objective(study)
        params = self._gp_params(study, trial, _float_space(search_space))
        for name, dist in search_space.items():
            if name not in params:
                params[name] = self.independent_sampler.sample_independent(study, trial, name, dist)
        return params

    def _gp_params(
        self, study: optuna.Study, trial: FrozenTrial, space: dict[str, FloatDistribution]
    ) -> dict[str, Any]:
        """The GP's proposal for ``space`` (``{}`` before enough trials have finished)."""
        if not space:
            return {}
        done = [
            t
            for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if t.value is not None and all(n in t.params for n in space)
        ]
        if len(done) < max(self.n_startup_trials, 2):
            return {}
        cube = _UnitCube(space)
        x = np.stack([cube.to_cube(t.params) for t in done])
        y = _sign(study) * np.array([float(t.value) for t in done])  # type: ignore[arg-type]
        yvar = np.array([self.noise(t) for t in done])
        running = [
            t
            for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
            if t.number != trial.number and all(n in t.params for n in space)
        ]
        pending = np.stack([cube.to_cube(t.params) for t in running]) if running else None
        params = cube.from_cube(self._propose(x, y, yvar, pending, _seed(self.seed, trial.number)))
        # mark the trial so that users (and other workers) can tell model points from start-up
        study._storage.set_trial_system_attr(trial._trial_id, PROPOSED_KEY, True)
        return params

    def _propose(
        self, x: np.ndarray, y: np.ndarray, yvar: np.ndarray, pending: np.ndarray | None, seed: int
    ) -> np.ndarray:
        torch = _torch()
        from botorch.acquisition.logei import qLogNoisyExpectedImprovement
        from botorch.optim import optimize_acqf
        from botorch.sampling import SobolQMCNormalSampler

        with torch.random.fork_rng():
            torch.manual_seed(seed)
            model = _fit(x, y, yvar).model
            acqf = qLogNoisyExpectedImprovement(
                model=model,
                X_baseline=torch.as_tensor(x, dtype=torch.float64),
                X_pending=None
                if pending is None
                else torch.as_tensor(pending, dtype=torch.float64),
                sampler=SobolQMCNormalSampler(torch.Size([self.mc_samples]), seed=seed),
            )
            d = x.shape[1]
            bounds = torch.stack([torch.zeros(d), torch.ones(d)]).to(torch.float64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # optimiser chatter (retries are built in)
                candidate, _ = optimize_acqf(
                    acqf,
                    bounds=bounds,
                    q=1,
                    num_restarts=self.num_restarts,
                    raw_samples=self.raw_samples,
                    options={"batch_limit": self.num_restarts, "maxiter": 100},
                )
        return candidate.detach().squeeze(0).numpy()

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        """Start-up points and unmodelled parameters: from ``independent_sampler``."""
        _check_single_objective(study)
        return self.independent_sampler.sample_independent(
            study, trial, param_name, param_distribution
        )

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        """Pass on to ``independent_sampler``."""
        self.independent_sampler.before_trial(study, trial)

    def after_trial(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        """Pass on to ``independent_sampler``."""
        self.independent_sampler.after_trial(study, trial, state, values)

    def reseed_rng(self) -> None:
        """Pass on to ``independent_sampler`` (the GP's streams derive from trial numbers)."""
        self.independent_sampler.reseed_rng()
