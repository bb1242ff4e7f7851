"""Training plots (matplotlib, drawn off screen): losses by step, winrates by iteration."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["plot_losses", "plot_winrates"]

log = logging.getLogger(__name__)


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is optional
        log.warning("matplotlib is not installed; no plot written")
        return None
    return plt


def _save(plt: Any, fig: Any, path: str | PathLike[str]) -> Path:
    """Lay out, write and close ``fig``; the path written."""
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def plot_losses(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot policy and value losses against the step from metric rows.

    Rows hold ``step`` and any of ``train_policy``, ``train_value``, ``val_policy``,
    ``val_value``. Returns the path written, or ``None`` without matplotlib or rows.
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, term in zip(axes, ("policy", "value"), strict=True):
        for prefix, style in (("train", "-"), ("val", "--")):
            key = f"{prefix}_{term}"
            points = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, style, label=prefix)
        ax.set_xlabel("step")
        ax.set_ylabel(f"{term} loss")
        ax.grid(alpha=0.3)
        ax.legend()
    return _save(plt, fig, path)


def plot_winrates(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot the candidate's score against the best network by iteration, with its interval.

    Rows hold ``iteration``, ``score``, ``low``, ``high`` (and ``promoted``).
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [r["iteration"] for r in rows]
    ys = [r["score"] for r in rows]
    ax.fill_between(xs, [r["low"] for r in rows], [r["high"] for r in rows], alpha=0.2)
    ax.plot(xs, ys, "o-", label="candidate vs best")
    promoted = [(r["iteration"], r["score"]) for r in rows if r.get("promoted")]
    if promoted:
        px, py = zip(*promoted, strict=True)
        ax.plot(px, py, "*", markersize=12, label="promoted")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xlabel("iteration")
    ax.set_ylabel("score rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(plt, fig, path)
