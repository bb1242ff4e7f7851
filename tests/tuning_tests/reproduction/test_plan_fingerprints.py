"""The committed plans' rows keep their fingerprints (tuning/reproduction/plan.py, runner.py).

A row's fingerprint is the hash of everything that decides its games
(:func:`tuning.reproduction.runner.row_definition`); a row folder that holds games under
another fingerprint is refused when the plan is resumed. So a change in how a plan is read
must leave the fingerprint of every committed row as it is: the values below were computed
when the plans were recorded (those of recorded rows are in their ``row.json``), and each
plan's rows must still give them. A row that plays a study's recommendation
(``@study:ID``) has no fingerprint until the study has finished: ``None`` here until then.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from agents.mcts.backups.params_io import write_params
from tuning.reproduction.plan import PlanError, load_plan
from tuning.reproduction.runner import fingerprint, params_digest, row_definition

ROOT = Path(__file__).resolve().parents[3]

FROZEN: dict[str, dict[str, str | None]] = {
    # changed once before its first game (its network in int8; docs/dose-response.md)
    "dose-response-n.toml": {
        "softmax-tau27-n3200": "4575d8d50af77bd68260f7eef4f4eb43ff765664925b3a7e6d09744df897a52d",
        "softmax-tau10-n3200": "5f3a67d9213b3632892ce624da0f249a6f7ae3781cb986fab2f37539ae8f1186",
        "softmax-g-2-fresh": "04a2a21f626e37399c7ad9fd305e21d15fe09abc9e90e6e4d1f38f330e56306a",
        "coulom-2-16-n3200": "3d85843ee24284a40eb555163d0a06eb5d4ab3e7e83f1fb5efaad599f8bccd8d",
    },
    "paper-net-9x9.toml": {
        "aa-mean": "c836dab46ad90c51a621b0f149e84a49ecd89960cacae05da8c8636fe78a331d",
        "coulom-2-16": "107a47f59dfa9a2636c36f9189e5839a61888ad57854e75a51e200b972ba4890",
        "softmax-g-2": "e5f5659d885811f1cc705b3b31593e3524d9c0aa7fe3e6ede2c011b48d35c1dc",
        "bo-softmax": "b19007f2f42de0ba9352453ad8d4ab929c11f56da407f44a64d8cb41dddac316",
        "bo-monotone": "0585a2073cb1c5039968528d0f2e21f1fa7af2d9371c940ed2ad6ae30827adf6",
        "confirm-softmax": None,  # plays bo-softmax's recommendation
        "confirm-monotone": None,  # plays bo-monotone's recommendation
        "recheck-n800-tau27": "9e68c777450e1d277fa1125b667a23e159667e01abdb1290c0177e969550ed48",
        "coulom-2-16-n800": "951a6cd9a5d5bf6f318ab5832b8314862c80c66e7dc9509991491ed0e81b7aa4",
    },
    # the replication with generation 70 (docs/network-effect.md): as its rows' row.json
    "paper-net-g70-9x9.toml": {
        "recheck-n800-tau27": "949fe3bc01a9dedd4d32ac72a938e83674b5414349c1d249404f9a422005ff97",
        "softmax-g-2": "9afd78199378a14d14738e21f4b230fb52aa3706e918fb26f867087c3e69345d",
        "aa-mean": "274d824378182140f55956aaed9785dd0f25bf748d2a7099fc4d27b99815db54",
        "coulom-2-16": "713f5e0dfcf3e9ffb5294720a7c62df57919e74c56ceed384b402b503ff123c1",
        "coulom-2-16-n800": "6a6c090757fda217d7999c72a38ecd5576bd9223974829e64c5cf53af3275bd9",
    },
    "li-lim-9x9.toml": {
        "aa-mean": "f88df003f4851b5c1aea15ce127b9f584040fd656c4b9684f8fd12650671445d",
        "coulom-2-16": "e148bb4a422aa114a5e2b95d0efc8a26c6ef62d83ef428754122f81408c1a167",
        "coulom-4-32": "f170abf609c466b5b2d024b5fc27063f8d64b0484fba9fa9cd13ebd890f27545",
        "coulom-8-64": "d6ffc6d08832fcccd300f23b35406fc63612b4193d26a53f954cc339a1ecd4f0",
        "erwa-unbiased-a001": "2c2699351bfe1365fce5f3d1ac06bdcb3a324522e6e6a82def5f3905b62da403",
        "xie-liu-exp-1": "5e95d071ea90549d858a9622656b7e32ebb74e3f579e2c224aef63d6d7b692cb",
        "softmax-g-6": "65c15be1ed7028c5db73008fc47f060b309aa036655c5e2f6c0222bb1ac9613a",
        "softmax-g-4": "6cff6bf9fe05048084ff222ba94edc5db0da0d9aeb51e89b331a33ca3d0acee3",
        "softmax-g-3": "0301ee9019cc8366353a8cc285fb3564603ae639346278b0b3a33f0fd2309b15",
        "softmax-g-2": "6928cfdf39dd4ba665c7d604f5da1c91423a806054c4c0e6f932bc19618a0894",
        "softmax-g-3-flat": "8844118e1e99fe764682527d72600cb5f811b193a19b7b6c1033a314a3115b41",
        "bo-softmax": "fc22f46ba4997c79d8bb501c2e82e997e5bfeab2450c600b062fe8b2b3f8030b",
        "bo-monotone": "8036fbd2ef1266ae22cd259413a7a62b78f5b3a2692c35fe96c6584831ba0991",
        "confirm-softmax": "9bc821e94bbdf05186417b1063d9d17c9df7edd17ff66ae2495cd70ec46cbbb5",
        "confirm-monotone": "1a2c3989aca88548f7b3df42ce4370fe3af26d6991186caebcc215de1a645b7b",
        "confirm-softmax-vs-coulom": (
            "19c257be05bf4bd561e5fdc180ab6900f007813b8fe8553afcaaa65e03a857cb"
        ),
        "recheck-n800": "0422800c6612a9813a0bfd0c10b33d660529b106a11791c978e1ad901d6b6f9c",
        "recheck-n800-tau27": "0d017c41a48e11ac4706e7b2e01371b7be046c5155a27af2a7f85eb2fdb70e16",
    },
}


def test_every_committed_plan_has_frozen_fingerprints() -> None:
    committed = sorted(path.name for path in (ROOT / "experiments").glob("*.toml"))
    assert committed == sorted(FROZEN), "add the new plan's fingerprints to FROZEN"


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_each_row_of_a_committed_plan_keeps_its_fingerprint(name: str) -> None:
    plan = load_plan(ROOT / "experiments" / name)
    assert plan.ids == list(FROZEN[name])
    found = {
        row.id: fingerprint(row_definition(plan, row))
        for row in plan.rows
        if FROZEN[name][row.id] is not None
    }
    changed = sorted(row_id for row_id, digest in found.items() if digest != FROZEN[name][row_id])
    assert not changed, f"{name}: rows whose fingerprint changed: {changed}"


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_each_recorded_row_keeps_the_fingerprint_of_its_record(name: str) -> None:
    plan = load_plan(ROOT / "experiments" / name)
    recorded = 0
    for row in plan.rows:
        record = plan.folder(row) / "row.json"
        if record.exists() and FROZEN[name][row.id] is not None:
            recorded += 1
            stored = json.loads(record.read_text(encoding="utf-8"))["fingerprint"]
            assert stored == FROZEN[name][row.id], row.id
    if name == "li-lim-9x9.toml":  # recorded whole; another plan's rows may be on disk, playing
        assert recorded == len(plan.rows)


def test_a_parameter_file_laid_out_anew_keeps_its_digest(tmp_path: Path) -> None:
    path = write_params(tmp_path / "best.json", "softmax", {"g": [-7.5, -5.25]}, meta={"n": 1})
    digest = params_digest(path)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()  # as the study wrote it
    values = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(values, separators=(",", ":")), encoding="utf-8")
    assert params_digest(path) == digest
    values["params"]["g"][1] = -5.0
    path.write_text(json.dumps(values, indent=2) + "\n", encoding="utf-8")
    assert params_digest(path) != digest
    path.write_text("{", encoding="utf-8")
    with pytest.raises(PlanError, match=r"best\.json is not JSON"):
        params_digest(path)


TERSE_STUDY = """
[plan]
name = "terse"
out = "out"

[setting]
size = 5
komi = 2.5
sims = 4
agent = "mcts:sims={sims}"

[[row]]
id = "bo"
kind = "study"
space = "softmax"
trials = 2
games = 4
seed = 0
"""


def test_a_study_row_that_leaves_out_every_optional_key_keeps_its_fingerprint(
    tmp_path: Path,
) -> None:
    # the plan's defaults: d = 3, startup_trials = 8, batch = min(20, games), botorch,
    # pruning on, 2 random opening moves
    path = tmp_path / "plan.toml"
    path.write_text(TERSE_STUDY, encoding="utf-8")
    plan = load_plan(path)
    digest = fingerprint(row_definition(plan, plan.row("bo")))
    assert digest == "e1906247edc0a69c70794bbcdc23d9939e6f15c581cc3b1f53bdd9c294e7ab61"
