"""The data file: written whole by real fio with progress, kept, reused while it fits,
rewritten when it does not, and a file bench-gui did not write is never touched."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from bench_gui.wire.fio_sizes import MIB
from bench_gui.workloads.random_read.agent.dataset import (
    DatasetError,
    can_drop_caches,
    drop_caches,
    file_size_for,
    marker_path,
    prepare,
    reusable,
)
from tests.workloads.random_read.agent.helpers import need_fio


class Progress:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **fields: Any) -> None:
        self.calls.append(fields)


def test_the_file_is_written_whole_then_reused(tmp_path: Path) -> None:
    fio = need_fio()
    path = str(tmp_path / "data")
    progress = Progress()
    first = prepare(path, 20 * MIB + 5, fio, progress, threading.Event(), "fio-x")
    assert not first.reused
    assert first.size_bytes == 21 * MIB == file_size_for(20 * MIB + 5)
    st = os.stat(path)
    assert st.st_size == 21 * MIB
    assert st.st_blocks * 512 >= st.st_size
    assert progress.calls
    assert progress.calls[-1]["total"] == 21 * MIB
    assert all(0 <= c["done"] <= c["total"] for c in progress.calls)
    marker = json.loads(Path(marker_path(path)).read_text())
    assert marker["size"] == st.st_size
    assert marker["fio_version"] == "fio-x"
    with open(path, "rb") as fh:  # fio's data, not zeros
        assert fh.read(4096).count(0) < 1024
    # A smaller need reuses it as it is.
    again = prepare(path, 8 * MIB, fio, Progress(), threading.Event())
    assert again.reused
    assert again.size_bytes == 21 * MIB
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns
    # A larger need writes it again.
    bigger = prepare(path, 24 * MIB, fio, Progress(), threading.Event())
    assert not bigger.reused
    assert os.stat(path).st_size == 24 * MIB
    assert reusable(path, 24 * MIB)


def test_a_changed_file_is_written_again(tmp_path: Path) -> None:
    fio = need_fio()
    path = str(tmp_path / "data")
    prepare(path, 4 * MIB, fio, Progress(), threading.Event())
    with open(path, "r+b") as fh:  # someone touched it: the marker no longer matches
        fh.write(b"x")
    assert not reusable(path, 4 * MIB)
    assert not prepare(path, 4 * MIB, fio, Progress(), threading.Event()).reused


def test_a_file_bench_gui_did_not_write_is_never_overwritten(tmp_path: Path) -> None:
    fio = need_fio()
    path = tmp_path / "precious"
    path.write_bytes(b"mine")
    with pytest.raises(DatasetError, match="was not written by bench-gui"):
        prepare(str(path), 4 * MIB, fio, Progress(), threading.Event())
    assert path.read_bytes() == b"mine"


def test_a_missing_folder_says_to_prepare_the_storage(tmp_path: Path) -> None:
    fio = need_fio()
    with pytest.raises(DatasetError, match="does not exist on this host"):
        prepare(str(tmp_path / "no" / "data"), 4 * MIB, fio, Progress(), threading.Event())


def test_not_enough_room_is_said_before_writing(tmp_path: Path) -> None:
    fio = need_fio()
    huge = 1 << 50  # a PiB
    with pytest.raises(DatasetError, match="free, the data file needs 1 PiB"):
        prepare(str(tmp_path / "data"), huge, fio, Progress(), threading.Event())
    assert not (tmp_path / "data").exists()


def test_a_stop_while_writing_leaves_no_marker(tmp_path: Path) -> None:
    fio = need_fio()
    stop = threading.Event()
    stop.set()
    path = str(tmp_path / "data")
    with pytest.raises(DatasetError, match="stopped while writing"):
        prepare(path, 64 * MIB, fio, Progress(), stop)
    assert not os.path.exists(marker_path(path))
    assert not reusable(path, MIB)


def test_dropping_the_page_cache() -> None:
    if os.geteuid() != 0:
        assert "needs root" in can_drop_caches()
        pytest.skip("dropping caches needs root")
    if can_drop_caches():
        pytest.skip(can_drop_caches())
    drop_caches()
