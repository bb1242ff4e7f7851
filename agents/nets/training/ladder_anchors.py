"""Extra anchors of the Elo ladder (``ladder_anchors``): what may be named and how.

The built-in anchors (``supervised``, ``initial``, ``gnugo``; :mod:`agents.nets.training.ladder`)
can saturate: once every game is won (or lost) against an anchor, its Elo is only a bound and the
curve stops measuring progress. Extra anchors fill the gap between them:

* ``gen-NNNN``: the run's own frozen checkpoint ``nets/gen-NNNN.pt``, in the ladder's search;
* ``gen-NNNN@SIMS``: the same network at another fixed N;
* ``supervised@SIMS``: the shipped supervised network (9x9 only) at another fixed N (a weaker
  anchor below the full-N ``supervised``).

Each anchor has a file-safe name (``gen-0002``, ``gen-0002-n8``, ``supervised-n8``) that names
its results files ``ladder/gen-NNNN-NAME.jsonl`` and its rows in ``ladder.jsonl``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ALLOWED", "LadderAnchor", "parse_ladder_anchors"]

ALLOWED = (
    "a comma-separated list of gen-NNNN (the run's checkpoint nets/gen-NNNN.pt, four or more "
    "digits), gen-NNNN@SIMS (that network at SIMS simulations per move) or supervised@SIMS "
    "(the shipped supervised network at SIMS simulations per move), SIMS an integer >= 1, "
    "e.g. gen-0002,supervised@8"
)
"""What ``ladder_anchors`` may hold (quoted by every error)."""

_ANCHOR = re.compile(
    r"^(?:gen-(?P<generation>\d{4,})|(?P<supervised>supervised))(?:@(?P<sims>.*))?$"
)


@dataclass(frozen=True)
class LadderAnchor:
    """One extra anchor of the ladder.

    Attributes:
        generation: The run's checkpoint ``nets/gen-NNNN.pt``; ``None``: the shipped supervised
            network.
        sims: Simulations per move (``None``: the ladder's fixed N, ``gate_sims``).
    """

    generation: int | None
    sims: int | None = None

    @property
    def name(self) -> str:
        """The file-safe name: ``gen-0002``, ``gen-0002-n8``, ``supervised-n8``."""
        base = "supervised" if self.generation is None else f"gen-{self.generation:04d}"
        return base if self.sims is None else f"{base}-n{self.sims}"

    @property
    def text(self) -> str:
        """The anchor as written in ``ladder_anchors``."""
        base = "supervised" if self.generation is None else f"gen-{self.generation:04d}"
        return base if self.sims is None else f"{base}@{self.sims}"


def _error(item: str, why: str) -> ValueError:
    return ValueError(f"ladder_anchors: {item!r} {why}; allowed: {ALLOWED}")


def parse_ladder_anchors(text: str, *, gate_sims: int) -> tuple[LadderAnchor, ...]:
    """The anchors of ``text``, in the order given.

    Args:
        text: ``ladder_anchors`` (``""``: none).
        gate_sims: The ladder's fixed N: an anchor at this N is the built-in one, refused.

    Raises:
        ValueError: For an item that is not one of :data:`ALLOWED`, a duplicate, or a built-in
            anchor named again (``gen-0000`` is ``initial``; ``supervised`` at ``gate_sims``
            is ``supervised``).
    """
    if not isinstance(text, str):
        raise ValueError(f"ladder_anchors must be a string, got {text!r}; allowed: {ALLOWED}")
    if not text.strip():
        return ()
    found: list[LadderAnchor] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise _error(text, "has an empty item (two commas, or one at an end)")
        match = _ANCHOR.match(item)
        if match is None:
            raise _error(item, "is not an anchor")
        generation = match["generation"]
        if generation is not None and len(generation) > 4 and generation.startswith("0"):
            raise _error(item, "has a leading zero beyond four digits")
        sims: int | None = None
        if match["sims"] is not None:
            if not re.fullmatch(r"[1-9]\d*", match["sims"]):
                raise _error(item, "has SIMS that is not an integer >= 1")
            sims = int(match["sims"])
        if match["supervised"] is not None and sims is None:
            raise _error(item, "is the built-in supervised anchor; give another N: supervised@SIMS")
        if sims == gate_sims:
            sims = None  # the ladder's N: the same agent as without @SIMS
            if match["supervised"] is not None:
                raise _error(
                    item, f"is the built-in supervised anchor (the ladder's N is {gate_sims})"
                )
        anchor = LadderAnchor(None if generation is None else int(generation), sims)
        if anchor.generation == 0 and anchor.sims is None:
            raise _error(
                item, "is the built-in initial anchor (nets/gen-0000.pt at the ladder's N)"
            )
        if anchor in found:
            raise _error(item, f"names the anchor {anchor.text} a second time")
        found.append(anchor)
    return tuple(found)
