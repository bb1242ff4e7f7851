"""The GNU Go game generator (needs the gnugo program)."""

from __future__ import annotations

import pytest

from agents.nets.training.data import load_sgf_dir, result_value
from agents.nets.training.gnugo_games import RANDOM_OPENING_TAG, GnuGoGames, generate_games
from go_env.rules import Rules
from go_env.sgf import load_sgf, state_from_record

pytestmark = pytest.mark.gnugo


def test_generated_games_are_legal_records_and_resume(gnugo_path, tmp_path):
    config = GnuGoGames(
        games=2,
        levels=(0,),
        rules=Rules(size=5, komi=0.5),
        random_moves=2,
        seed=4,
        program=gnugo_path,
    )
    summary = generate_games(config, tmp_path, workers=1)
    assert summary["written"] + summary["dropped"] == 2 and summary["skipped"] == 0
    files = sorted(tmp_path.glob("game-*.sgf"))
    assert len(files) == summary["written"] >= 1
    for path in files:
        record = load_sgf(path)
        assert record.size == 5 and record.komi == 0.5
        assert record.black == "GNU Go level 0" and result_value(record.result) is not None
        assert record.move_comments[0] == record.move_comments[1] == RANDOM_OPENING_TAG
        state = state_from_record(record)
        assert state.is_over or record.result.endswith("+R")
    examples, counts = load_sgf_dir(tmp_path, size=5, history=1)
    assert counts["games"] == len(files) and not examples.policy_weight[:2].any()
    again = generate_games(config, tmp_path, workers=1)
    assert again["skipped"] == len(files) and again["written"] == 0


def test_game_setup_is_seeded():
    config = GnuGoGames(games=10, levels=(1, 5, 9), seed=3)
    assert config.game_setup(4) == config.game_setup(4)
    setups = {config.game_setup(i) for i in range(10)}
    assert len(setups) == 10 and all(b in (1, 5, 9) and w in (1, 5, 9) for b, w, _ in setups)
    with pytest.raises(ValueError, match="levels must be GNU Go levels"):
        GnuGoGames(levels=(11,))
