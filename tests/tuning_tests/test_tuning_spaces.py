from __future__ import annotations

import math

import numpy as np
import optuna
import pytest

from agents.registry import agent_config
from tuning.search_spaces import SearchSpace, make_space, tunable_backups


def test_default_spaces_follow_the_spec() -> None:
    mono = make_space("monotone")
    soft = make_space("softmax")
    assert (mono.d, mono.box, mono.tune_c) == (5, (-10.0, 10.0), False)
    assert soft.box == (-12.0, 2.0)
    assert mono.param_names == ["g0", "g1", "g2", "g3", "g4", "g5"]
    assert {"monotone", "softmax"} <= set(tunable_backups())  # they declare it themselves


def test_plus_c_name_tunes_c_on_a_log_scale() -> None:
    space = make_space("Softmax+c", d=3, c_bounds=(0.2, 2.0))
    assert space.tune_c and space.name == "softmax+c"
    dists = space.distributions()
    assert list(dists) == ["g0", "g1", "g2", "g3", "c"]
    assert dists["c"].log and (dists["c"].low, dists["c"].high) == (0.2, 2.0)
    assert not dists["g0"].log


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "nonsense"}, "unknown search space 'nonsense'; allowed: monotone, softmax"),
        ({"name": "coulom"}, "backup 'coulom' declares nothing to tune"),
        ({"name": "monotone", "bounds": (3.0, -3.0)}, "reversed or empty"),
        ({"name": "monotone", "bounds": (1.0, 1.0)}, "reversed or empty"),
        ({"name": "softmax", "bounds": (-math.inf, 1.0)}, "finite"),
        ({"name": "monotone", "d": 0}, "d (segments of g) must be an int >= 1"),
        ({"name": "monotone+c", "c_bounds": (0.0, 1.0)}, "must be positive"),
        ({"name": "monotone+c", "c_bounds": (2.0, 1.0)}, "reversed"),
    ],
)
def test_bad_spaces_are_refused_with_a_clear_message(kwargs: dict, message: str) -> None:
    name = kwargs.pop("name")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_space(name, **kwargs)


def test_suggest_stays_in_the_box_and_builds_a_loadable_candidate() -> None:
    space = make_space("monotone+c", d=2, bounds=(-4.0, 1.0))
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    trial = study.ask()
    params = space.suggest(trial)
    assert set(params) == {"g0", "g1", "g2", "c"}
    assert all(-4.0 <= params[f"g{j}"] <= 1.0 for j in range(3))
    spec = space.candidate("mcts:sims=50,seed=4", params)
    config = agent_config(spec)
    assert config.sims == 50 and config.seed == 4 and config.c == params["c"]
    knots = tuple(params[f"g{j}"] for j in range(3))
    assert config.backup_strategy().g == knots  # exact floats survive the spec


def test_candidate_needs_an_agent_with_a_backup() -> None:
    with pytest.raises(ValueError, match="has no parameters 'backup'"):
        make_space("softmax").candidate("random", {f"g{j}": 0.0 for j in range(6)})


def test_profiles_use_the_backup_weight_functions() -> None:
    n = 40
    mono = make_space("monotone", d=2)
    f = mono.tunable.profile({"g0": -1.0, "g1": 0.5, "g2": 2.0}, n, d=2)
    assert f.shape == (n + 1,) and f[0] == pytest.approx(1.0)  # f(0) = 1 (Lemma 3.1, eq. 8)
    assert np.all(np.diff(f) > 0)
    # constant g = ln c gives f(x) = 1 + c x
    c = 0.3
    lin = mono.tunable.profile({"g0": math.log(c), "g1": math.log(c), "g2": math.log(c)}, n, d=2)
    assert lin == pytest.approx(1 + c * np.arange(n + 1))
    soft = make_space("softmax", d=2)
    tau = soft.tunable.profile({"g0": -3.0, "g1": -3.0, "g2": -3.0}, n, d=2)
    assert tau[0] == 0.0 and tau == pytest.approx(math.exp(-3.0) * np.arange(n + 1))


def test_identity_is_json_ready() -> None:
    space = SearchSpace(backup="softmax", d=3)
    assert space.identity() == {
        "backup": "softmax",
        "d": 3,
        "bounds": [-12.0, 2.0],
        "tune_c": False,
        "c_bounds": [0.1, 4.0],
    }
