"""Choose self-play's defaults by measurement: Gumbel vs PUCT, playout cap on/off, equal compute.

See :mod:`agents.nets.training.pilot` and ``docs/nets.md`` ("Self-play"). Resumable: rerun the
same command. Example (the full pilot, about 4.5 hours on 2 cores)::

    python scripts/selfplay_pilot.py runs/pilot-selfplay --minutes 60 --eval-games 40 \
        --set workers=2 --set games=300 --set train_steps=300
"""

from __future__ import annotations

import sys

from agents.nets.training.pilot import main

if __name__ == "__main__":
    sys.exit(main())
