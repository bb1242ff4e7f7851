"""Training plots (matplotlib, drawn off screen): losses, gate scores, Elo by generation, pilots."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["plot_elo", "plot_gate", "plot_losses", "plot_pilot", "plot_winrates"]

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
    """Lay out, write (a palette PNG) and close ``fig``; the path written."""
    from agents.figures import save_figure

    fig.tight_layout()
    out = save_figure(fig, path, dpi=80)
    plt.close(fig)
    return out


def _plot_scores(
    rows: Sequence[dict[str, Any]],
    path: str | PathLike[str],
    *,
    x: str,
    keys: tuple[str, str, str, str],
    promoted_label: str,
) -> Path | None:
    """Plot a candidate's score against the best by ``x``, with its interval; promoted starred.

    ``keys`` names the score, low bound, high bound and promoted fields of the rows.
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    score, low, high, promoted_key = keys
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [r[x] for r in rows]
    ax.fill_between(xs, [r[low] for r in rows], [r[high] for r in rows], alpha=0.2)
    ax.plot(xs, [r[score] for r in rows], "o-", label="candidate vs best")
    promoted = [(r[x], r[score]) for r in rows if r.get(promoted_key)]
    if promoted:
        px, py = zip(*promoted, strict=True)
        ax.plot(px, py, "*", markersize=12, label=promoted_label)
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xlabel(x)
    ax.set_ylabel("score rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(plt, fig, path)


def plot_losses(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot policy and value losses against the step from metric rows.

    Rows hold ``step`` and any of ``train_policy``, ``train_value``, ``val_policy``,
    ``val_value``, ``train_ownership`` (a run with the ownership target: a third panel),
    ``val_arena_value`` (held-out arena games, ``gomcts train distill --arena-held-out``: a
    panel of its own, its scale being another) and ``val_policy_kl`` (``gomcts train teach``:
    the policy's drift from its teacher, a panel too). Returns the path written, or ``None`` without
    matplotlib or rows.
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    panels = [("policy", "policy loss"), ("value", "value loss")]
    if any(r.get("train_ownership") is not None for r in rows):
        panels.append(("ownership", "ownership loss"))
    if any(r.get("val_arena_value") is not None for r in rows):
        panels.append(("arena_value", "value loss on held-out arena games"))
    if any(r.get("val_policy_kl") is not None for r in rows):
        panels.append(("policy_kl", "policy's KL from the teacher"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4))
    for ax, (term, label) in zip(axes, panels, strict=True):
        for prefix, style in (("train", "-"), ("val", "--")):
            key = f"{prefix}_{term}"
            points = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, style, label=prefix)
        ax.set_xlabel("step")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
    return _save(plt, fig, path)


def plot_winrates(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot the candidate's score against the best network by iteration, with its interval.

    Rows hold ``iteration``, ``score``, ``low``, ``high`` (and ``promoted``).
    """
    return _plot_scores(
        rows,
        path,
        x="iteration",
        keys=("score", "low", "high", "promoted"),
        promoted_label="promoted",
    )


def plot_gate(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot each generation's gate: the candidate's score against the best, with its interval.

    Rows hold ``generation``, ``gate_score``, ``gate_low``, ``gate_high``, ``gate_games`` and
    ``gate_promoted``; promoted generations are starred.
    """
    return _plot_scores(
        [r for r in rows if r.get("gate_games")],
        path,
        x="generation",
        keys=("gate_score", "gate_low", "gate_high", "gate_promoted"),
        promoted_label="promoted (SPRT accepted)",
    )


def plot_elo(
    rows: Sequence[dict[str, Any]],
    path: str | PathLike[str],
    *,
    references: Sequence[tuple[str, float]] = (),
) -> Path | None:
    """Plot the Elo of the best network against each ladder anchor by generation.

    Rows hold ``generation``, ``anchor``, ``elo``, ``elo_low``, ``elo_high`` (``None`` for an
    infinite bound, drawn at the plot's edge). One curve per anchor, in the order the anchors
    first appear in the rows. A saturated score (every game won or lost: ``elo`` is ``None``)
    has no point on the curve; its finite bound is drawn as a triangle pointing the way the
    Elo lies (up: at least this much; down: at most). Saturated matches of 40 games share
    one bound, so each anchor's triangles are shifted a little sideways to stay apart.
    ``references`` are networks outside the lines, ``(label, elo)`` against the same anchor:
    each is a dashed horizontal line across the plot, in the legend.
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    names = list(dict.fromkeys(r["anchor"] for r in rows))
    for k, anchor in enumerate(names):
        shift = 0.12 * (k - (len(names) - 1) / 2)
        mine = sorted((r for r in rows if r["anchor"] == anchor), key=lambda r: r["generation"])
        xs = [r["generation"] for r in mine]
        ys = [r["elo"] if r["elo"] is not None else float("nan") for r in mine]
        lows = [r["elo_low"] if r["elo_low"] is not None else -800.0 for r in mine]
        highs = [r["elo_high"] if r["elo_high"] is not None else 800.0 for r in mine]
        (line,) = ax.plot(xs, ys, "o-", label=f"vs {anchor}")
        color = line.get_color()
        ax.fill_between(xs, lows, highs, alpha=0.15, color=color)
        for marker, bound, side in (("^", "elo_low", "elo_high"), ("v", "elo_high", "elo_low")):
            points = [
                (r["generation"], r[bound])
                for r in mine
                if r["elo"] is None and r[bound] is not None and r[side] is None
            ]
            if points:
                px, py = zip(*points, strict=True)
                px = tuple(x + shift for x in px)
                ax.plot(px, py, marker, color=color, markersize=8, linestyle="none")
    for k, (label, elo) in enumerate(references):
        color = f"C{len(names) + k}"
        ax.axhline(elo, color=color, lw=1.2, linestyle="--", label=f"{label} ({elo:+.0f})")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo of the best network vs the anchor (95%)")
    ax.set_ylim(-800, 800)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    return _save(plt, fig, path)


def plot_pilot(rows: Sequence[dict[str, Any]], path: str | PathLike[str]) -> Path | None:
    """Plot each pilot arm's Elo against the field with its 95% interval, one point an arm.

    Rows are :func:`agents.nets.training.pilot.run_pilot`'s ``arms``: ``arm``, ``elo_vs_field``,
    ``elo_low``, ``elo_high`` (``None`` for an infinite bound or a saturated score, drawn at the
    plot's edge), ``games`` and ``cpu_hours`` (written under the arm's name). The axis reaches
    past every finite bound (at least +-600).
    """
    plt = _pyplot()
    if plt is None or not rows:
        return None
    finite = [abs(r[k]) for r in rows for k in ("elo_low", "elo_high") if r[k] is not None]
    edge = max([600.0, *(100.0 * math.ceil(x / 100.0 + 0.5) for x in finite)])
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, r in enumerate(rows):
        low = r["elo_low"] if r["elo_low"] is not None else -edge
        high = r["elo_high"] if r["elo_high"] is not None else edge
        ax.plot([k, k], [low, high], color="tab:blue", lw=2)
        if r["elo_vs_field"] is not None:
            ax.plot([k], [r["elo_vs_field"]], "o", color="tab:blue", markersize=8)
    labels = [f"{r['arm']}\n{r['games']} games\n{r['cpu_hours']:g} CPU-h" for r in rows]
    ax.set_xticks(range(len(rows)), labels, fontsize="small")
    ax.set_xlim(-0.5, len(rows) - 0.5)
    ax.set_ylim(-edge, edge)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_ylabel("Elo vs the other arms (95%)")
    ax.set_title("Self-play pilot: strength at equal compute", fontsize="medium")
    ax.grid(alpha=0.3, axis="y")
    return _save(plt, fig, path)
