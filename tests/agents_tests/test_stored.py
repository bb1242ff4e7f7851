"""Results files stored compressed (agents.stored) and read by the trap grid and the noise
simulation as well as by the arena; a file that is not a grid's is left untouched."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from agents.stored import StoredFileError, compress, expand, read_stored, stored_file
from agents.traps import GridConfig, GridError, TrapTreeConfig, run_grid
from agents.traps.grid import read_grid


def test_compress_and_expand_round_trip_by_either_name(tmp_path: Path) -> None:
    plain = tmp_path / "results.jsonl"
    plain.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    packed = compress(plain)
    assert packed == tmp_path / "results.jsonl.gz" and not plain.exists()
    assert gzip.decompress(packed.read_bytes()) == b'{"a": 1}\n{"b": 2}\n'
    assert compress(packed) == packed  # already compressed: nothing to do
    first = packed.read_bytes()
    assert stored_file(plain) == stored_file(packed) == packed
    assert read_stored(packed) == b'{"a": 1}\n{"b": 2}\n'
    assert expand(packed) == plain and not packed.exists()
    assert plain.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert compress(plain).read_bytes() == first  # the same bytes every time (no time stamp)
    assert stored_file(tmp_path / "other.jsonl") is None
    with pytest.raises(StoredFileError, match="no file"):
        compress(tmp_path / "other.jsonl")


def test_two_forms_at_once_and_corrupt_gzip_are_refused(tmp_path: Path) -> None:
    plain = tmp_path / "results.jsonl"
    plain.write_bytes(b"x\n")
    (tmp_path / "results.jsonl.gz").write_bytes(b"\0" * 30)
    with pytest.raises(StoredFileError, match="keep one"):
        stored_file(plain)
    plain.write_bytes(b"")  # an empty plain file beside the compressed one counts as absent
    assert stored_file(plain) == tmp_path / "results.jsonl.gz"
    with pytest.raises(StoredFileError, match=r"results\.jsonl\.gz is not a readable gzip"):
        read_stored(tmp_path / "results.jsonl.gz")


def small() -> GridConfig:
    trees = TrapTreeConfig(b=4, depth=6, rho=0.2)
    return GridConfig(trees=trees, backups=("mean",), budgets=(30,), n_trees=4, chunk=2)


def test_a_recorded_grid_reads_compressed_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    first = run_grid(small(), results=path, workers=1)
    compress(path)
    packed = tmp_path / "results.jsonl.gz"
    assert read_grid(path, small()).cell("mean", 30) == first.cell("mean", 30)
    again = run_grid(small(), results=path, workers=1)
    assert again.simulations == 0 and packed.exists() and not path.exists()  # nothing written
    more = GridConfig(trees=small().trees, backups=("mean",), budgets=(30,), n_trees=6, chunk=2)
    extended = run_grid(more, results=packed, workers=1)
    assert extended.simulations == 2 * 30 and path.exists() and not packed.exists()
    assert [t.tree for t in read_grid(path, more).cell("mean", 30)] == list(range(6))


@pytest.mark.parametrize("content", [b"\0" * 512, b"[1, 2]\n" + b"\0" * 10, b"\xff\xfe\n"])
def test_a_file_that_is_not_a_grid_is_refused_and_left_untouched(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(content)
    with pytest.raises(GridError, match="not a trap-grid results file"):
        run_grid(small(), results=path, workers=1)
    assert path.read_bytes() == content


def test_a_grid_header_cut_short_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"kind": "head')
    run_grid(small(), results=path, workers=1)
    assert json.loads(path.read_text().splitlines()[0])["kind"] == "header"


def test_the_noise_simulation_reads_its_recorded_file() -> None:
    pytest.importorskip("optuna")
    from tuning.samplers.simulation import _read

    folder = Path(__file__).resolve().parents[2] / "docs/results/tuning/noise-simulation"
    header = json.loads(read_stored(folder / "results.jsonl.gz").splitlines()[0])
    records = _read(folder / "results.jsonl", header["settings"])
    assert len(records) == len(read_stored(folder / "results.jsonl.gz").splitlines()) - 1
    assert not (folder / "results.jsonl").exists()  # reading wrote nothing
