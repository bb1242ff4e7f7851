"""Plots of arena matches (matplotlib, drawn off screen with the Agg canvas)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.figures import BAND_COLOURS, save_figure
from agents.matches.stats import Z95, wilson_interval

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_running_score", "running_score", "running_score_figure", "wrap_title"]

TITLE_WIDTH = 100
"""Characters per title line: what fits the 7-inch figure at 9 points."""


def running_score(scores: Sequence[float], z: float = Z95) -> np.ndarray:
    """Running score rate and its Wilson interval after each game.

    Args:
        scores: Game scores (1, 0.5, 0) in game order.
        z: Normal quantile of the interval (1.96 for 95%).

    Returns:
        ``float64 (len(scores), 3)``: rate, lower bound, upper bound after games 1..n.
    """
    out = np.empty((len(scores), 3), dtype=np.float64)
    points = 0.0
    for i, score in enumerate(scores):
        points += score
        low, high = wilson_interval(points, i + 1, z)
        out[i] = points / (i + 1), low, high
    return out


def wrap_title(text: str, width: int = TITLE_WIDTH) -> str:
    """Break ``text`` into lines of at most ``width`` characters.

    Lines break after white space or a comma, so agent specs
    (``mcts:sims=800,evaluator="net:lam=0.5"``), which have no spaces, wrap between their
    options; a single option longer than ``width`` is cut.

    Raises:
        ValueError: ``width`` is smaller than 1.
    """
    if width < 1:
        raise ValueError(f"width must be at least 1 character, got {width}")
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^\s,]+[\s,]*|[\s,]+", text):  # a word and what follows it
        if line and len(line.rstrip()) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        while len(piece.rstrip()) > width:
            lines.append(piece[:width])
            piece = piece[width:]
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def plot_running_score(
    scores: Sequence[float],
    path: str | PathLike[str],
    *,
    title: str = "",
    label: str = "agent A",
) -> Path:
    """Save a plot of the running score rate with its 95% Wilson band.

    Args:
        scores: Agent A's game scores in game order.
        path: The image file, written as a palette PNG (:func:`agents.figures.save_figure`).
        title: The plot title, wrapped to the figure's width (:func:`wrap_title`).
        label: Name of the agent whose score is plotted.

    Returns:
        The path written.
    """
    figure = running_score_figure(scores, title=title, label=label)
    return save_figure(figure, path, colours=BAND_COLOURS, quantizer="octree")


def running_score_figure(
    scores: Sequence[float], *, title: str = "", label: str = "agent A"
) -> Figure:
    """The figure that :func:`plot_running_score` saves (arguments as there)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 4.0), dpi=120)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    games = np.arange(1, len(scores) + 1)
    if len(scores):
        series = running_score(scores)
        axes.fill_between(
            games, series[:, 1], series[:, 2], alpha=0.25, linewidth=0, label="95% Wilson interval"
        )
        axes.plot(games, series[:, 0], linewidth=1.5, label=f"score rate of {label}")
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xlim(1, max(len(scores), 2))
    axes.set_ylim(0.0, 1.0)
    axes.set_xlabel("games")
    axes.set_ylabel("score rate (win = 1, draw = 1/2)")
    if title:
        axes.set_title(wrap_title(title), fontsize=9)
    axes.legend(loc="upper right", fontsize=8)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    return figure
