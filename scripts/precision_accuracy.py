r"""Accuracy of the reduced precisions against fp32: positions, searches, a paired match.

Stages (each resumable: it keeps what it has done in ``--out`` and goes on from there):

1. ``positions``: ``--positions`` positions drawn (seeded) from recorded games (the
   ``results.jsonl`` files of ``--games-from``), each evaluated by the shipped network in
   fp32 and in each precision, one board symmetry (none). Per precision: the largest and the
   99th-percentile ``|value - value_fp32|``, and the policy's total variation distance
   ``TV(p, q) = 1/2 sum |p_a - q_a|`` (mean, 99th percentile, largest).
2. ``search``: the first ``--search-positions`` of them searched by the reproduction's agent
   (``experiments/li-lim-9x9.toml``: PUCT c = 0.5 over the priors, the value network alone at
   the leaves, move by most visits, N = ``--sims``) in fp32 and in each precision with the
   same seed: the share of positions where the moves agree. The same search in fp32 with
   another seed measures how often fp32 itself changes its move (the noise floor: its
   random board symmetries differ).
3. ``match``: per precision, a paired match of ``--games`` games through the arena
   (``gomcts arena``, the reproduction's balanced book): the precision's agent against the
   fp32 agent; its score rate and 95% Wilson interval.
4. ``record``: the verdicts, where ``precision=auto`` reads them (``--record``), and a short
   Markdown summary (``--summary``). A precision **passes** when the run is full-size
   (>= 10,000 positions, >= 400 games) and the match's interval contains 50%.

Usage::

    python scripts/precision_accuracy.py --out runs/precision            # everything
    python scripts/precision_accuracy.py --out runs/precision --stage search
    python scripts/precision_accuracy.py --out /tmp/p --positions 300 --search-positions 20 \\
        --games 4 --sims 20                                                # a smoke run
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.nets.precision import (  # noqa: E402
    PRECISIONS,
    RECORD,
    read_record,
    unsupported_reason,
)
from go_env.rules import KoRule, Rules  # noqa: E402
from go_env.state import GoState  # noqa: E402

FULL_POSITIONS = 10_000
FULL_GAMES = 400
GAMES_FROM = "docs/results/reproduction/li-lim-9x9/*/results.jsonl*"
BOOK = "docs/results/reproduction/li-lim-9x9/openings-balanced.txt"
AGENT = (
    'mcts:sims={sims},policy=puct,c=0.5,evaluator="net:precision={precision}",'
    "choice=visits,batch=1,seed={seed}"
)
"""The reproduction's agent (experiments/li-lim-9x9.toml) with a precision and a seed."""
CHUNK = 500
REFERENCE = "fp32-reseed"


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- positions
def draw_positions(pattern: str, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` positions (file, game, moves played) drawn from the games of ``pattern``.

    Each position: a game drawn uniformly among all the games, then a move number uniformly
    in ``[0, len(moves))``, so every position is one a game reached and not over.
    """
    from agents.matches.results import read_results

    files = sorted(glob.glob(str(ROOT / pattern) if not Path(pattern).is_absolute() else pattern))
    games: list[tuple[str, int, dict[str, Any], tuple[int, ...]]] = []
    for name in files:
        match, outcomes = read_results(name)
        rules = match.get("rules", {})
        rel = str(Path(name).resolve().relative_to(ROOT)) if name.startswith(str(ROOT)) else name
        for index in sorted(outcomes):
            moves = outcomes[index].moves
            if moves:
                games.append((rel, index, rules, moves))
    if not games:
        raise SystemExit(f"no recorded games in {pattern!r}")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        path, index, rules, moves = games[int(rng.integers(len(games)))]
        out.append(
            {
                "file": path,
                "game": index,
                "rules": rules,
                "moves": list(moves[: rng.integers(len(moves))]),
            }
        )
    return out


def position_state(entry: dict[str, Any]) -> GoState:
    """The position of a :func:`draw_positions` entry."""
    rules = dict(entry["rules"])
    rules["ko"] = KoRule(rules.get("ko", "positional"))
    state = GoState(Rules(**rules))
    for move in entry["moves"]:
        state.play(int(move))
    return state


def stage_positions(args: argparse.Namespace, precisions: list[str]) -> None:
    """Evaluate the positions in fp32 and each precision, a chunk file per ``CHUNK``."""
    from agents.nets.evaluator import NetEvaluator

    entries = _positions(args)
    evaluators = {
        p: NetEvaluator("", symmetry="none", cache_size=0, precision=p)
        for p in ["fp32", *precisions]
    }
    folder = args.out / "positions"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    chunks = range(0, len(entries), CHUNK)
    for number, first in enumerate(chunks):
        path = folder / f"chunk-{first:06d}.npz"
        if path.exists():
            continue
        states = [position_state(e) for e in entries[first : first + CHUNK]]
        priors, values = evaluators["fp32"].evaluate_states(states)
        arrays: dict[str, np.ndarray] = {"fp32_values": values}
        for p in precisions:
            q, v = evaluators[p].evaluate_states(states)
            arrays[f"{p}_dv"] = np.abs(v - values)
            arrays[f"{p}_tv"] = 0.5 * np.abs(q - priors).sum(axis=1)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub: allow_pickle
        tmp.replace(path)
        _log(
            f"positions: chunk {number + 1}/{len(chunks)} "
            f"({min(first + CHUNK, len(entries))}/{len(entries)} positions, "
            f"{time.perf_counter() - start:.0f} s)"
        )


def _positions(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The positions of this run, drawn once and kept in ``OUT/positions.json``."""
    path = args.out / "positions.json"
    if path.exists():
        data = json.loads(path.read_text())
        if (data["count"], data["seed"], data["games_from"]) != (
            args.positions,
            args.seed,
            args.games_from,
        ):
            raise SystemExit(
                f"{path} holds {data['count']} positions of seed {data['seed']} from "
                f"{data['games_from']!r}; use the same --positions/--seed/--games-from or "
                "another --out"
            )
        return list(data["positions"])
    entries = draw_positions(args.games_from, args.positions, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    payload = {
        "count": args.positions,
        "seed": args.seed,
        "games_from": args.games_from,
        "positions": entries,
    }
    path.write_text(json.dumps(payload) + "\n")
    return entries


def positions_summary(args: argparse.Namespace, precisions: list[str]) -> dict[str, Any]:
    """Per precision: the value and policy differences over the evaluated chunks."""
    files = sorted((args.out / "positions").glob("chunk-*.npz"))
    out: dict[str, Any] = {}
    if not files:
        return out
    data = [np.load(f) for f in files]
    for p in precisions:
        if f"{p}_dv" not in data[0]:
            continue
        dv = np.concatenate([d[f"{p}_dv"] for d in data])
        tv = np.concatenate([d[f"{p}_tv"] for d in data])
        out[p] = {
            "positions": int(dv.size),
            "value_max": float(dv.max()),
            "value_p99": float(np.quantile(dv, 0.99)),
            "value_mean": float(dv.mean()),
            "tv_mean": float(tv.mean()),
            "tv_p99": float(np.quantile(tv, 0.99)),
            "tv_max": float(tv.max()),
        }
    return out


# ---------------------------------------------------------------------- search
def stage_search(args: argparse.Namespace, precisions: list[str]) -> None:
    """Search positions in fp32, in fp32 with another seed, and in each precision.

    ``--search-width`` searches run at once and share one network call per round
    (:func:`agents.mcts.multi.round_robin`), each still exactly the sequential search it is
    alone but for the rounding of a batch of another size (``docs/decisions/019``): every case,
    fp32 included, is searched that way.
    """
    from agents.mcts.multi import round_robin
    from agents.registry import make_agent

    entries = _positions(args)[: args.search_positions]
    path = args.out / "search.jsonl"
    done = _read_search(path)
    cases = {"fp32": ("fp32", 0), REFERENCE: ("fp32", 1), **{p: (p, 0) for p in precisions}}
    tasks = [
        (i, name) for i in range(len(entries)) for name in cases if name not in done.get(i, {})
    ]
    total = len(entries) * len(cases)

    def search(i: int, name: str) -> Any:
        precision, shift = cases[name]
        agent = make_agent(AGENT.format(sims=args.sims, precision=precision, seed=2 * i + shift))
        try:
            move = yield from agent.act_steps(position_state(entries[i]))
        finally:
            agent.close()
        return int(move)

    start = time.perf_counter()
    starts = ((key, lambda key=key: search(*key)) for key in tasks)
    with path.open("a", encoding="utf-8") as out:
        for n, ((i, name), move) in enumerate(round_robin(starts, args.search_width)):
            out.write(json.dumps({"i": i, name: move}) + "\n")
            out.flush()
            if (n + 1) % 100 == 0 or n + 1 == len(tasks):
                rate = (n + 1) / (time.perf_counter() - start)
                _log(
                    f"search: {total - len(tasks) + n + 1}/{total} searches "
                    f"({rate:.2f}/s, {(len(tasks) - n - 1) / rate / 60:.0f} min left)"
                )


def _read_search(path: Path) -> dict[int, dict[str, int]]:
    rows: dict[int, dict[str, int]] = {}
    if not path.exists():
        return rows
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interruption
        i = row.pop("i")
        rows.setdefault(i, {}).update(row)
    return rows


def search_summary(args: argparse.Namespace, precisions: list[str]) -> dict[str, Any]:
    """Per precision (and the fp32 reference): the share of searches that agree with fp32."""
    rows = _read_search(args.out / "search.jsonl")
    out: dict[str, Any] = {}
    for name in [REFERENCE, *precisions]:
        pairs = [(r["fp32"], r[name]) for r in rows.values() if "fp32" in r and name in r]
        if pairs:
            same = sum(a == b for a, b in pairs)
            out[name] = {"positions": len(pairs), "same": same, "share": same / len(pairs)}
    return out


# ---------------------------------------------------------------------- match
def match_command(args: argparse.Namespace, precision: str) -> list[str]:
    """The ``gomcts arena`` arguments of the paired match of ``precision`` against fp32."""
    return [
        "arena",
        AGENT.format(sims=args.sims, precision=precision, seed=0).replace(",seed=0", ""),
        AGENT.format(sims=args.sims, precision="fp32", seed=0).replace(",seed=0", ""),
        "--games",
        str(args.games),
        "--size",
        "9",
        "--komi",
        "7.5",
        "--book",
        str(ROOT / BOOK),
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers),
        "--games-per-worker",
        str(args.games_per_worker),
        "--out",
        str(args.out / f"match-{precision}"),
        "--no-sgf",
        "--no-plot",
    ]


def stage_match(args: argparse.Namespace, precisions: list[str]) -> None:
    """Play (or resume) each precision's paired match through the arena."""
    from agents.cli import main as gomcts

    for p in precisions:
        command = match_command(args, p)
        _log("match: gomcts " + " ".join(_quote(a) for a in command))
        status = gomcts(command)
        if status:
            raise SystemExit(f"the arena match of {p} ended with status {status}")


def _quote(arg: str) -> str:
    return f"'{arg}'" if any(c in arg for c in ' ",') else arg


def match_summary(args: argparse.Namespace, precisions: list[str]) -> dict[str, Any]:
    """Per precision: games, score rate of the precision and its 95% Wilson interval."""
    from agents.matches.results import read_results
    from agents.matches.stats import wilson_interval

    out: dict[str, Any] = {}
    for p in precisions:
        path = args.out / f"match-{p}" / "results.jsonl"
        if not path.exists():
            continue
        _, games = read_results(path)
        if not games:
            continue
        points = sum(g.score_a for g in games.values())
        low, high = wilson_interval(points, len(games))
        out[p] = {
            "games": len(games),
            "score": points / len(games),
            "low": low,
            "high": high,
            "contains_half": low <= 0.5 <= high,
        }
    return out


# ---------------------------------------------------------------------- record
def stage_record(args: argparse.Namespace, precisions: list[str]) -> None:
    """Write the verdicts (``--record``) and the Markdown summary (``--summary``)."""
    from agents.nets.checkpoint import model_digest

    positions = positions_summary(args, precisions)
    search = search_summary(args, precisions)
    match = match_summary(args, precisions)
    full = args.positions >= FULL_POSITIONS and args.games >= FULL_GAMES
    record_path = args.record or (ROOT / "agents" / "nets" / RECORD if full else args.out / RECORD)
    record = read_record(record_path)
    model_path, digest = model_digest("")
    entries = record.get("precisions", {})
    for p in precisions:
        pos, m = positions.get(p), match.get(p)
        complete = (
            pos is not None
            and pos["positions"] >= FULL_POSITIONS
            and m is not None
            and m["games"] >= FULL_GAMES
        )
        entries[p] = {
            "passed": bool(complete and m is not None and m["contains_half"]),
            "complete": complete,
            "positions": pos,
            "search": search.get(p),
            "search_reference": search.get(REFERENCE),
            "match": m,
            "sims": args.sims,
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
        }
    payload = {
        "format": 1,
        "model": model_path.name,
        "digest": digest,
        "criterion": (
            f">= {FULL_POSITIONS} positions and a paired match of >= {FULL_GAMES} games "
            "against fp32 whose 95% Wilson interval contains 50%"
        ),
        "precisions": entries,
    }
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record_path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    print(f"wrote {record_path}")
    summary = summary_markdown(payload, args)
    summary_path = args.summary or args.out / "summary.md"
    summary_path.parent.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(summary)
    print(f"wrote {summary_path}")
    print(summary)


def summary_markdown(record: dict[str, Any], args: argparse.Namespace) -> str:
    """The record as a short Markdown table."""
    lines = [
        f"Reduced precision against fp32, shipped network ({record['digest'][:12]}), "
        f"value-only PUCT search N = {args.sims}; criterion: {record['criterion']}.",
        "",
        "| precision | positions | max abs dv | p99 abs dv | TV mean | TV p99 | TV max "
        "| same move (fp32 reseeded) | match games | score [95% CI] | passed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, e in record["precisions"].items():
        pos, s, ref, m = e["positions"], e["search"], e["search_reference"], e["match"]
        cells = [name]
        cells += (
            [
                str(pos["positions"]),
                f"{pos['value_max']:.4f}",
                f"{pos['value_p99']:.4f}",
                f"{pos['tv_mean']:.4f}",
                f"{pos['tv_p99']:.4f}",
                f"{pos['tv_max']:.4f}",
            ]
            if pos
            else ["-"] * 6
        )
        cells.append(
            f"{s['share']:.1%} of {s['positions']}" + (f" ({ref['share']:.1%})" if ref else "")
            if s
            else "-"
        )
        cells += (
            [str(m["games"]), f"{m['score']:.3f} [{m['low']:.3f}, {m['high']:.3f}]"]
            if m
            else ["-", "-"]
        )
        cells.append("yes" if e["passed"] else ("no" if e["complete"] else "not yet (partial run)"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- main
STAGES = ("positions", "search", "match", "record")


def main(argv: list[str] | None = None) -> int:
    """Run the stages asked for (see the module docstring); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of the run (resumed)")
    parser.add_argument(
        "--stage",
        choices=[*STAGES, "all"],
        default="all",
        help="run one stage (default: all, in order)",
    )
    parser.add_argument(
        "--precisions",
        nargs="+",
        choices=[p for p in PRECISIONS if p != "fp32"],
        default=None,
        help="reduced precisions to check (default: those this machine runs)",
    )
    parser.add_argument("--positions", type=int, default=FULL_POSITIONS)
    parser.add_argument(
        "--search-positions",
        type=int,
        default=None,
        help="positions searched in the search stage (default: all of --positions)",
    )
    parser.add_argument(
        "--search-width",
        type=int,
        default=32,
        help="searches run at once in the search stage, sharing one network call (32)",
    )
    parser.add_argument("--sims", type=int, default=200, help="simulations per search (200)")
    parser.add_argument("--games", type=int, default=FULL_GAMES, help="games per match (400)")
    parser.add_argument("--workers", type=int, default=2, help="arena worker processes (2)")
    parser.add_argument(
        "--games-per-worker", type=int, default=1, help="games each worker plays at once (1)"
    )
    parser.add_argument("--seed", type=int, default=27, help="seed of the draw and the match")
    parser.add_argument("--games-from", default=GAMES_FROM, help="results.jsonl files (glob)")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help=f"where the verdicts go (default: agents/nets/{RECORD} for a full-size run, "
        f"else OUT/{RECORD})",
    )
    parser.add_argument(
        "--summary", type=Path, default=None, help="Markdown summary (default OUT/summary.md)"
    )
    args = parser.parse_args(argv)
    for name in ("positions", "sims", "games", "workers", "games_per_worker"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.search_positions is None:
        args.search_positions = args.positions
    if not 0 <= args.search_positions <= args.positions:
        parser.error(f"--search-positions must be in [0, {args.positions}]")
    from agents.nets.threads import use_threads

    use_threads(1)
    precisions = args.precisions or [
        p for p in PRECISIONS if p != "fp32" and unsupported_reason(p) is None
    ]
    for p in precisions:
        reason = unsupported_reason(p)
        if reason is not None:
            parser.error(f"precision {p} cannot run here: {reason}")
    if not precisions:
        parser.error("this machine runs no reduced precision (see agents/nets/precision.py)")
    _log(f"precisions: {', '.join(precisions)}")
    stages = STAGES if args.stage == "all" else (args.stage,)
    for stage in stages:
        {
            "positions": stage_positions,
            "search": stage_search,
            "match": stage_match,
            "record": stage_record,
        }[stage](args, precisions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
