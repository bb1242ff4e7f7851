r"""Were an arena match's losing moves chance or conviction? Replays of the deciding position.

    python scripts/blunder_check.py RESULTS ... --agent SPEC [--net NETWORK] \
        [--seeds 8] [--deep 8] [--won --limit N] [--book PREFIX]

For each game agent A lost, A's value is read at every position where A is to move, and the
**deciding position** is the one before the largest fall of that value from one of A's moves
to the next (A's move and the opponent's reply), the opening's moves aside. A's move there
is the suspect. The value is A's own search's (``--agent``, one seeded search a position on
a fresh tree, the value of the move it plays): where the search that played the game was
surprised. With ``--net`` it is that network's instead (``scripts/lost_leads.py``: 8
symmetries averaged, fp32), which can fall where the search had long seen the loss. The
deciding position is searched again:

* ``--seeds`` times by A's own spec (a fresh tree each, seeds 0, 1, ...): how often does A
  play the suspect again? Rarely means the loss was the search's chance; nearly always, its
  conviction.
* once with ``--deep`` times the simulations: does a much larger search still play it, and
  by how much does it prefer its own choice (the mean values of the two moves at its root)?

A conviction that the deep search shares is a misjudgement more search does not mend (the
network's and the playouts' reading); one that the deep search drops may be one it mends
(the script does not play the deep search's move out). ``--won`` asks the same of the games
A won (the first ``--limit`` of each file): the control, for how often the searches differ
at such a position anyway. ``--book PREFIX`` writes, for every deciding position where the
deep search plays another move, the game to it and the suspect (``PREFIX-suspect.txt``) or
the deep search's move (``PREFIX-deep.txt``), one GTP line each (``gomcts arena --book``: pair
``p`` plays line ``p``, A as Black first; A's colour in the game is Black when the line's
length is odd). ``docs/strength.md`` ("Chance or conviction") reads the heavy
setting's matches so.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.matches.results import GameOutcome, ResultsError, read_results
from go_env.coords import to_gtp
from go_env.rules import Rules
from go_env.state import GoState

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lost_leads import a_values, positions_to_move


@dataclass(frozen=True)
class Verdict:
    """The replays of one deciding position.

    Attributes:
        ply: The ply of A's suspect move in the game.
        fall: The value's fall from that position to A's next one.
        played: The suspect move.
        again: How many of the seeded searches played it again.
        seeds: How many seeded searches ran.
        deep_move: The deep search's move.
        deep_gap: The deep search's mean value of its move minus that of the suspect
            (``nan`` when the suspect was not searched there).
    """

    ply: int
    fall: float
    played: int
    again: int
    seeds: int
    deep_move: int
    deep_gap: float


def deciding_move(values: np.ndarray, first: int = 0) -> int | None:
    """Index (among A's moves) of the move before the largest fall of A's value.

    Only A's moves from index ``first`` on are suspects (the ones before are the match's
    opening, not A's choice); ``None`` when there is no fall to measure.
    """
    if values.size < first + 2:
        return None
    return first + int(np.argmax(values[first:-1] - values[first + 1 :]))


def search_values(game: GameOutcome, rules: Rules, config: Any) -> np.ndarray:
    """A's own search's value of its move at every position of ``game`` where A is to move.

    One search a position, on a fresh tree, seeded by the ply (``10_000 + ply``, apart from
    the replays' seeds).
    """
    values = []
    for ply, state in zip(*positions_to_move(game, rules), strict=True):
        agent = replace(config, seed=10_000 + ply, reuse_tree=False).build()
        chosen = agent.act(state)
        assert agent.last_stats is not None
        values.append(agent.last_stats.value_of(chosen))
    return np.asarray(values, dtype=np.float64)


def a_plies(game: GameOutcome) -> list[int]:
    """The plies of ``game`` where A is to move."""
    first = 0 if game.a_black else 1
    return list(range(first, len(game.moves), 2))


def seeded_moves(state: GoState, config: Any, seeds: int) -> list[int]:
    """The moves of ``seeds`` searches of ``config`` at ``state``, seeded 0, 1, ...

    Every search is a fresh agent (its own tree, its own evaluator and cache), so that no
    search reuses another's network evaluations.
    """
    agents = (replace(config, seed=seed, reuse_tree=False).build() for seed in range(seeds))
    return [agent.act(state) for agent in agents]


def replay(
    state: GoState, played: int, config: Any, seeds: int, deep: int
) -> tuple[int, int, float]:
    """``(again, deep_move, deep_gap)`` of :class:`Verdict` for A's ``config`` at ``state``.

    The seeded searches are :func:`seeded_moves`; the deep one is a fresh agent too.
    """
    again = seeded_moves(state, config, seeds).count(played)
    agent = replace(config, seed=seeds, reuse_tree=False, sims=config.sims * deep).build()
    move = agent.act(state)
    stats = agent.last_stats
    assert stats is not None
    hit = np.flatnonzero((stats.moves == played) & (stats.visits > 0))
    gap = float(stats.value_of(move) - stats.values[hit[0]]) if hit.size else float("nan")
    return again, move, gap


def check_game(
    game: GameOutcome,
    rules: Rules,
    values: np.ndarray,
    config: Any,
    seeds: int,
    deep: int,
) -> Verdict | None:
    """The :class:`Verdict` of a lost game whose A values are ``values`` (``None``: no fall)."""
    plies = a_plies(game)
    index = deciding_move(values, sum(ply < len(game.opening) for ply in plies))
    if index is None:
        return None
    ply = plies[index]
    state = GoState(rules)
    for move in game.moves[:ply]:
        state.play(move)
    played = game.moves[ply]
    again, deep_move, gap = replay(state, played, config, seeds, deep)
    fall = float(values[index] - values[index + 1])
    return Verdict(ply, fall, played, again, seeds, deep_move, gap)


def report(verdicts: list[Verdict]) -> list[str]:
    """The summary lines over all deciding positions."""
    if not verdicts:
        return ["no lost game with a fall to replay"]
    again = np.array([v.again / v.seeds for v in verdicts])
    kept = [v for v in verdicts if v.deep_move == v.played]
    dropped = [v for v in verdicts if v.deep_move != v.played]
    gaps = [v.deep_gap for v in dropped if not np.isnan(v.deep_gap)]
    lines = [
        f"deciding positions: {len(verdicts)}, median fall of the value "
        f"{np.median([v.fall for v in verdicts]):.2f}",
        f"the suspect played again by A's own search: {again.mean():.1%} of the searches "
        f"(in {np.sum(again >= 0.5)} positions by half or more, in {np.sum(again == 0)} by none)",
        f"the deep search plays the suspect in {len(kept)}, another move in {len(dropped)}",
    ]
    if gaps:
        lines.append(
            f"where it plays another, it prefers it by a median {np.median(gaps):.3f} "
            f"of mean value ({len(gaps)} with the suspect searched)"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Replay every lost game's deciding position; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results files of arena matches")
    parser.add_argument("--agent", required=True, help="A's mcts spec, as in the match")
    parser.add_argument(
        "--net", default=None, help="a network whose value finds the fall (default: A's search)"
    )
    parser.add_argument("--seeds", type=int, default=8, help="searches by A's spec (8)")
    parser.add_argument("--deep", type=int, default=8, help="the deep search's factor (8)")
    parser.add_argument("--won", action="store_true", help="the games A won instead (control)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many games a file")
    parser.add_argument("--book", default=None, help="write the two books under this prefix")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.deep < 1:
        parser.error(f"--seeds and --deep must be >= 1, got {args.seeds} and {args.deep}")
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit must be >= 1, got {args.limit}")
    from agents.mcts.config import MCTSConfig
    from agents.nets.evaluator import NetEvaluator
    from agents.registry import agent_config

    try:
        matches = [read_results(path) for path in args.results]
        config = agent_config(args.agent)
        if not isinstance(config, MCTSConfig):
            raise ValueError(f"--agent must be an mcts spec, got {args.agent!r}")
        judge = (
            None if args.net is None else NetEvaluator(args.net, symmetry="average", cache_size=0)
        )
    except (OSError, ResultsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    verdicts, books = [], {"suspect": [], "deep": []}
    for path, (match, games) in zip(args.results, matches, strict=True):
        rules = Rules(**match["rules"])
        wanted = [
            (index, game)
            for index, game in sorted(games.items())
            if game.score_a == (1.0 if args.won else 0.0)
        ]
        for index, game in wanted[: args.limit]:
            if judge is None:
                values = search_values(game, rules, config)
            else:
                values = a_values(judge, game, rules)
            verdict = check_game(game, rules, values, config, args.seeds, args.deep)
            if verdict is None:
                continue
            verdicts.append(verdict)
            if verdict.deep_move != verdict.played:
                line = [to_gtp(move, rules.size) for move in game.moves[: verdict.ply]]
                for name, move in (("suspect", verdict.played), ("deep", verdict.deep_move)):
                    books[name].append(" ".join([*line, to_gtp(move, rules.size)]) + "\n")
            where = f"{path} " if len(args.results) > 1 else ""
            print(
                f"{where}{'won' if args.won else 'lost'} game {index:3d} ply {verdict.ply:3d}: "
                f"fall {verdict.fall:.2f}, "
                f"played again {verdict.again}/{verdict.seeds}, deep "
                f"{'the same' if verdict.deep_move == verdict.played else 'another'}"
                f" (gap {verdict.deep_gap:+.3f})",
                flush=True,
            )
    for line in report(verdicts):
        print(line)
    if args.book is not None:
        for name, lines in books.items():
            Path(f"{args.book}-{name}.txt").write_text("".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
