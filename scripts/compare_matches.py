r"""Compare two arena matches game by game: same openings, same opponent, two agents.

    python scripts/compare_matches.py FIRST/results.jsonl SECOND/results.jsonl

Both matches must have been played with the same ``--seed`` and rules against the same agent B
(``agents.matches.paired``). Prints how many games both agents won, each won alone and both
lost, and the two-sided sign test on the games they scored differently. Example, the second
and third networks of ``docs/strength.md``::

    python scripts/compare_matches.py docs/results/strength/net3-3200-reuse/results.jsonl \
        docs/results/strength/net2-3200-reuse/results.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.matches.paired import compare_matches
from agents.matches.results import ResultsError


def main(argv: list[str] | None = None) -> int:
    """Print the paired comparison of two results files; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="results.jsonl of the first match")
    parser.add_argument("second", type=Path, help="results.jsonl of the second match")
    args = parser.parse_args(argv)
    try:
        comparison = compare_matches(args.first, args.second)
    except (OSError, ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"files:    {args.first}  against  {args.second}")
    print(comparison.format())
    return 0


if __name__ == "__main__":
    sys.exit(main())
