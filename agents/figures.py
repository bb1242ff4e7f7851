"""Writing matplotlib figures as compact PNG files.

Every plot of the project (training curves, match scores, study profiles, trap-tree reports)
is a few lines on a white background, and many are committed with the run they record. Drawn
as RGBA PNGs they take about four times the bytes of the same image with a palette of 64
colours, which keeps every line and label as drawn; a heat map asks for 256.
"""

from __future__ import annotations

import io
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["LINE_COLOURS", "save_figure"]

LINE_COLOURS = 64
"""Palette size of a line plot."""


def save_figure(
    figure: Any, path: str | PathLike[str], *, dpi: float | None = None, colours: int = LINE_COLOURS
) -> Path:
    """Write a matplotlib ``figure`` to ``path`` as a palette PNG; the path written.

    Args:
        figure: The figure (laid out by the caller; not closed here).
        path: The file (its folder is made).
        dpi: Dots per inch (``None``: the figure's own).
        colours: Palette size, 2 to 256.

    Raises:
        ValueError: For a palette size outside 2..256.
    """
    if not isinstance(colours, int) or isinstance(colours, bool) or not 2 <= colours <= 256:
        raise ValueError(f"colours must be an int from 2 to 256, got {colours!r}")
    from PIL import Image  # matplotlib's own dependency

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi if dpi is None else dpi)
    buffer.seek(0)
    with Image.open(buffer) as image:
        palette = image.convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT)
        palette.save(out, format="PNG", optimize=True)
    return out
