"""Figures are written as palette PNGs of the figure's size, their colours kept."""

from __future__ import annotations

import pytest

from agents.figures import save_figure


@pytest.fixture
def figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [0, 1, 0], color="tab:red", linewidth=6)
    ax.plot([0, 1, 2], [1, 0, 1], color="tab:blue", linewidth=6)
    yield fig
    plt.close(fig)


def test_a_figure_is_a_palette_png_with_its_lines(tmp_path, figure) -> None:
    from PIL import Image

    path = save_figure(figure, tmp_path / "deep" / "plot.png", dpi=50)
    with Image.open(path) as image:
        assert (image.format, image.mode, image.size) == ("PNG", "P", (200, 150))
        colours = {rgb for _, rgb in image.convert("RGB").getcolors()}
    red, blue = (214, 39, 40), (31, 119, 180)  # tab:red, tab:blue

    def near(target: tuple[int, int, int]) -> bool:
        return any(sum(abs(a - b) for a, b in zip(c, target, strict=True)) < 30 for c in colours)

    assert near(red) and near(blue) and near((255, 255, 255))  # octree: white is 254, 254, 254


def test_the_same_figure_gives_the_same_bytes(tmp_path, figure) -> None:
    a = save_figure(figure, tmp_path / "a.png").read_bytes()
    assert save_figure(figure, tmp_path / "b.png").read_bytes() == a


@pytest.mark.parametrize("colours", [1, 257, 2.5, True])
def test_a_palette_size_outside_2_to_256_is_refused(tmp_path, figure, colours) -> None:
    with pytest.raises(ValueError, match="colours must be an int from 2 to 256"):
        save_figure(figure, tmp_path / "x.png", colours=colours)


def test_an_unknown_quantizer_is_refused(tmp_path, figure) -> None:
    with pytest.raises(ValueError, match="quantizer must be one of mediancut, octree"):
        save_figure(figure, tmp_path / "x.png", quantizer="kmeans")
