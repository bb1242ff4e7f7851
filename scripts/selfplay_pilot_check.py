"""Check a self-play pilot's verdict at other N: two arms' best networks, paired games at each N.

The pilot's round robin (``scripts/selfplay_pilot.py``) plays every arm with the gate's PUCT
agent at the gate's N. This plays two arms again at other fixed N (N = 1 is the network's
policy alone, no search), on the same book and seed, with the results under
``PILOT/check/A--B-nN.jsonl`` (resumable) and one JSON line per N on standard output::

    python scripts/selfplay_pilot_check.py runs/pilot-selfplay gumbel-cap puct-cap \
        --sims 1 256 --games 40

The arms are any two self-play runs in one folder: a run and its fork
(``gomcts train fork``) meet the same way, on the first run's book and agent settings::

    python scripts/selfplay_pilot_check.py /work/selfplay-runs paper-9x9 paper-9x9-puct \
        --sims 64 --games 200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.matches.stats import estimate
from agents.nets.training.gating import load_or_draw_book
from agents.nets.training.manifest import Manifest
from agents.nets.training.pilot import play_pair
from agents.nets.training.selfplay_config import SelfPlayConfig


def main(argv: list[str] | None = None) -> int:
    """Play the two arms at each ``--sims``; print one JSON line per N."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pilot", type=Path, help="the pilot's folder")
    parser.add_argument("a", help="first arm, e.g. gumbel-cap")
    parser.add_argument("b", help="second arm, e.g. puct-cap")
    parser.add_argument("--sims", type=int, nargs="+", required=True, help="fixed N to play at")
    parser.add_argument("--games", type=int, default=40, help="paired games per N (default 40)")
    args = parser.parse_args(argv)
    for arm in (args.a, args.b):
        if not (args.pilot / arm / "best.pt").exists():
            parser.error(f"{args.pilot / arm} holds no pilot arm (no best.pt)")
    if any(n < 1 for n in args.sims):
        parser.error(f"--sims must be at least 1, got {args.sims}")
    manifest = Manifest.load(args.pilot / args.a / "manifest.json")
    base = SelfPlayConfig.from_dict(manifest.data["config"])
    book = load_or_draw_book(args.pilot / args.a, base)
    for sims in args.sims:
        tally = play_pair(args.pilot, base, args.a, args.b, games=args.games, book=book, sims=sims)
        est = estimate(tally)
        row = {"sims": sims, "a": args.a, "b": args.b, "wins_a": tally.wins}
        row |= {"draws": tally.draws, "losses_a": tally.losses, "score_a": round(est.rate, 4)}
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
