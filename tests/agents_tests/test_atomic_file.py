"""Replacing a file whole: old or new content, never a mixture, no temporary left behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest

from agents.atomic_file import write_atomically


def test_bytes_text_and_a_writer_each_replace_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "file.bin"  # the folders are made
    assert write_atomically(path, b"\x00\x01") == path
    assert path.read_bytes() == b"\x00\x01"
    write_atomically(path, "é\n")
    assert path.read_bytes() == "é\n".encode()
    write_atomically(str(path), lambda handle: np.save(handle, np.arange(3)))
    assert np.load(path).tolist() == [0, 1, 2]
    assert [p.name for p in path.parent.iterdir()] == ["file.bin"]


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"generation": 3}))

    def half_then_fail(handle: BinaryIO) -> None:
        handle.write(b'{"generation": ')
        raise OSError("No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_atomically(path, half_then_fail)
    assert json.loads(path.read_text()) == {"generation": 3}
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
