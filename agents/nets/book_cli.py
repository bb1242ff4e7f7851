"""The ``gomcts book`` command: write a balanced opening book (:mod:`agents.matches.balanced`).

The book drawer takes any value function; this command gives it the network's
(:func:`agents.nets.evaluator.net_value_fn`), which is why it lives with the networks: the
arena package never imports them (``tests/test_import_layers.py``).

The book is a text file of GTP vertices, one opening per line, read by
``gomcts arena --book FILE`` (:mod:`agents.matches.openings`). Its ``#`` header records every
parameter, the network's SHA-256 and the acceptance statistics, so the book can be drawn
again.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _moves(text: str) -> tuple[int, int]:
    try:
        if "-" in text:
            low, high = (int(part) for part in text.split("-", 1))
        else:
            low = high = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--moves takes K or MIN-MAX (e.g. 2-4), got {text!r}"
        ) from None
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError(f"--moves needs 0 <= MIN <= MAX, got {text!r}")
    return low, high


def register(subparsers: Any) -> None:
    """Add the ``book`` subcommand to the ``gomcts`` parser."""
    from agents.cli import add_rules_arguments

    parser = subparsers.add_parser(
        "book",
        help="write a balanced opening book (seeded short openings the network rates as even)",
        description="Draw seeded short random openings, keep those whose final position the "
        "value network rates |v| < THRESHOLD for the player to move, and write them as an "
        "opening book for `gomcts arena --book` (see docs/reproduction.md).",
    )
    parser.add_argument("--out", required=True, help="the book file to write")
    parser.add_argument("--count", type=int, default=1000, help="openings (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="book seed (default 0)")
    parser.add_argument(
        "--moves", type=_moves, default=(2, 4), help="opening length K or MIN-MAX (default 2-4)"
    )
    parser.add_argument(
        "--threshold", type=float, default=0.15, help="keep |v| < THRESHOLD (default 0.15)"
    )
    parser.add_argument(
        "--model", default="", help="network checkpoint (default: the shipped model)"
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="BOOK",
        help="an opening book whose positions may not be used (repeatable): draws a disjoint book",
    )
    parser.add_argument(
        "--precision",
        default="fp32",
        help="precision of the network's values: fp32 (default: a book is a record, drawn "
        "alike on every machine), bf16, int8 or auto (docs/nets.md)",
    )
    add_rules_arguments(parser)
    parser.set_defaults(func=_cmd_book)


def _cmd_book(args: argparse.Namespace) -> int:
    from agents.cli import rules_from_args
    from agents.matches.balanced import draw_balanced_book, write_book
    from agents.matches.openings import load_book
    from agents.nets.checkpoint import model_digest
    from agents.nets.evaluator import net_value_fn

    rules = rules_from_args(args)
    low, high = args.moves
    try:
        exclude = [opening for path in args.exclude for opening in load_book(path, rules)]
        model_path, digest = model_digest(args.model)
        value_fn = net_value_fn(args.model, precision=args.precision)
        start = time.perf_counter()

        def progress(book: Any) -> None:
            print(
                f"\rbook: {len(book.entries)}/{args.count} accepted of {book.tried} drawn "
                f"({100 * book.acceptance:.1f}%)",
                end="",
                file=sys.stderr,
                flush=True,
            )

        book = draw_balanced_book(
            rules,
            value_fn,
            count=args.count,
            seed=args.seed,
            min_moves=low,
            max_moves=high,
            threshold=args.threshold,
            exclude=exclude,
            progress=progress,
        )
    except (ValueError, OSError) as exc:
        print(f"\ngomcts book: error: {exc}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    seconds = time.perf_counter() - start
    header = [
        "Balanced opening book (gomcts book; agents/matches/balanced.py, docs/reproduction.md).",
        f"board {rules.size}x{rules.size}, komi {rules.komi}, ko {rules.ko.value}; "
        f"openings of {low}-{high} random moves, seed {args.seed}",
        f"kept when |v| < {args.threshold} for the player to move, v = the value network "
        "averaged over 8 symmetries; distinct positions up to symmetry",
        f"network {model_path.name} sha256 {digest}"
        + (f", precision {args.precision}" if args.precision != "fp32" else ""),
        f"excluded books: {', '.join(args.exclude) if args.exclude else 'none'}",
        f"{len(book.entries)} accepted of {book.tried} drawn ({100 * book.acceptance:.1f}%): "
        f"{book.rejected_value} rejected by value, {book.rejected_duplicate} duplicates",
        "command: gomcts book "
        + " ".join(
            [
                f"--out {args.out}",
                f"--count {args.count}",
                f"--seed {args.seed}",
                f"--moves {low}-{high}",
                f"--threshold {args.threshold}",
                f"--size {rules.size}",
                f"--komi {rules.komi}",
            ]
            + (["--model " + args.model] if args.model else [])
            + ([f"--precision {args.precision}"] if args.precision != "fp32" else [])
            + [f"--exclude {path}" for path in args.exclude]
        ),
        "",
    ]
    write_book(args.out, book, rules, header=header)
    print(
        f"wrote {len(book.entries)} openings to {Path(args.out)} "
        f"({len(book.entries)} of {book.tried} accepted, {100 * book.acceptance:.1f}%, "
        f"{seconds:.0f} s)"
    )
    return 0 if len(book.entries) == args.count else 1
