"""Progress bars: drawn on a terminal with tqdm, nothing otherwise."""

from __future__ import annotations

import io
import sys

import pytest
from dali import _progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_off_a_terminal(capsys):
    with _progress.bar(1 << 30, "indexing x") as update:
        update(1 << 29)
    assert capsys.readouterr().err == ""


def test_a_bar_is_drawn_on_a_terminal(monkeypatch):
    pytest.importorskip("tqdm")
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with _progress.bar(1 << 30, "indexing big.tfrecord") as update:
        update(1 << 29)
        update(1 << 29)
    assert "indexing big.tfrecord" in term.getvalue() and "1.00G" in term.getvalue()


def test_small_steps_draw_nothing_even_on_a_terminal(monkeypatch):
    pytest.importorskip("tqdm")
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with _progress.bar(1000, "tiny") as update:
        update(1000)
    assert term.getvalue() == ""


def test_without_tqdm_nothing_is_drawn(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert not _progress.enabled()


def test_counted_reads_advance_the_bar():
    seen = []
    read = _progress.counted(lambda offset, n: b"x" * n, seen.append)
    assert read(5, 3) == b"xxx" and read(0, 2) == b"xx"
    assert seen == [3, 2]


def test_tfrecord2idx_shows_its_progress_on_a_terminal(tmp_path, monkeypatch):
    pytest.importorskip("tqdm")
    from dali._testing.tfrecords import write_tfrecord
    from dali.tools import tfrecord2idx

    path = tmp_path / "data.tfrecord"
    write_tfrecord(path, [{"x": b"a" * 1000} for _ in range(20)])
    monkeypatch.setattr(_progress, "MIN_TOTAL", 0)
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert tfrecord2idx.write_index(str(path), str(tmp_path / "data.idx")) == 20
    assert f"indexing {path}" in term.getvalue()
