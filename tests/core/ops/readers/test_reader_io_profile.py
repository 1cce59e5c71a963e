"""How `fn.readers.file` reads (read vs map, reading threads) and the ``DALI_PROFILE`` profile.

Issue 4: mapped small files made the GPU stage unmap them (16 ms per batch of 256), and a pool of
reading threads made the GPU stage queue for the GIL; see `dali._ops.readers.file`.
"""

from __future__ import annotations

import os

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn
from dali._exec import profile as dali_profile
from dali._exec.executor import PipelineError


def _write(root, sizes):
    (root / "c").mkdir()
    paths = []
    for i, size in enumerate(sizes):
        p = root / "c" / f"{i:02d}.bin"
        p.write_bytes(bytes([i]) * size)
        paths.append(p)
    return paths


def _pipe(root, batch, **kw):
    pipe = dali.Pipeline(batch_size=batch, num_threads=3, device_id=None, seed=1)
    with pipe:
        data, label = fn.readers.file(file_root=str(root), file_filters=["*.bin"], **kw)
        pipe.set_outputs(data, label)
    return pipe


def _mappings(path):
    with open("/proc/self/maps") as f:
        return sum(str(path) in line for line in f)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_small_files_are_read_and_large_files_mapped(tmp_path):
    small, large = _write(tmp_path, [1000, options.MMAP_MIN_BYTES])
    pipe = _pipe(tmp_path, 2)
    data, _ = pipe.run()
    assert data.at(0).tobytes() == small.read_bytes()
    assert data.at(1).tobytes() == large.read_bytes()
    assert _mappings(small) == 0  # read: the GPU stage never unmaps it
    assert _mappings(large) >= 1
    assert data.at(1).flags.writeable  # a private mapping, as before
    pipe.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_dont_use_mmap_reads_large_files_too(tmp_path):
    (large,) = _write(tmp_path, [options.MMAP_MIN_BYTES])
    pipe = _pipe(tmp_path, 1, dont_use_mmap=True)
    data, _ = pipe.run()
    assert data.at(0).tobytes() == large.read_bytes()
    assert _mappings(large) == 0
    pipe.close()


def test_read_file_threshold():
    assert options.MMAP_MIN_BYTES == 1 << 20
    assert options.READ_THREADS == 1


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_reading_threads_do_not_change_the_batches(tmp_path, monkeypatch, threads):
    _write(tmp_path, [10 + 7 * i for i in range(11)])

    def batches():
        pipe = _pipe(tmp_path, 4, random_shuffle=True)
        out = [[d.at(i).tobytes() for i in range(4)] for d, _ in (pipe.run() for _ in range(5))]
        pipe.close()
        return out

    base = batches()
    monkeypatch.setattr(options, "READ_THREADS", threads)
    assert batches() == base


@pytest.mark.parametrize("threads", [1, 3])
def test_unreadable_file_names_the_first_failing_sample(tmp_path, monkeypatch, threads):
    paths = _write(tmp_path, [10] * 6)
    monkeypatch.setattr(options, "READ_THREADS", threads)
    pipe = _pipe(tmp_path, 6)
    pipe.build()
    for k in (2, 4):
        paths[k].unlink()
    with pytest.raises(PipelineError, match=r"(?s)sample 2,.*cannot read file '.*02\.bin'") as e:
        pipe.run()
    assert isinstance(e.value.__cause__.__cause__, FileNotFoundError)
    pipe.close()


# -- DALI_PROFILE -------------------------------------------------------------------------------


def test_profile_is_off_unless_asked(monkeypatch):
    monkeypatch.delenv("DALI_PROFILE", raising=False)
    assert dali_profile.from_env() is None
    monkeypatch.setenv("DALI_PROFILE", "0")
    assert dali_profile.from_env() is None
    monkeypatch.setenv("DALI_PROFILE", "1")
    prof = dali_profile.from_env()
    assert prof is not None and prof._probe is None
    monkeypatch.setenv("DALI_PROFILE", "gil")
    prof = dali_profile.from_env()
    assert prof._probe is not None
    prof.close()


def test_profile_reports_steps_and_stage_overlap():
    prof = dali_profile.Profile()
    prof.spans += [
        ("cpu", 0, "<stage>", 0.0, 1.0, 0.5, 1),
        ("gpu", 0, "<stage>", 0.5, 2.0, 1.5, 2),
        ("gpu", 0, "dec", 0.5, 1.5, 1.0, 2),
        ("gpu", 1, "dec", 2.0, 2.002, 0.001, 2),
        ("gpu", 2, "dec", 3.0, 3.004, 0.003, 2),
    ]
    prof.gil_waits += [0.001, 0.003]
    text = prof.report()
    # the median is the steady run; the mean carries the long first one
    assert "[gpu] dec" in text and "    4.00 /     3.00   mean   335.33   N=3" in text
    # the GPU stage was busy 1.5 s, 0.5 s of it while the CPU stage was busy too
    assert "overlap (CPU stage busy while the GPU stage is) 33%" in text
    assert "GIL probe: 2 waits, mean 2.000 ms" in text


def test_pipeline_prints_a_profile_when_asked(tmp_path, monkeypatch, capsys):
    _write(tmp_path, [100] * 4)
    monkeypatch.setenv("DALI_PROFILE", "1")
    pipe = _pipe(tmp_path, 2, name="reader")
    for _ in range(3):
        pipe.run()
    pipe.close()
    err = capsys.readouterr().err
    assert "dali profile" in err
    assert "[cpu] reader" in err and "[cpu] <stage>" in err


def test_intersection_of_interval_lists():
    a = [(0.0, 1.0), (2.0, 3.0)]
    b = [(0.5, 2.5)]
    assert np.isclose(dali_profile._intersection(a, b), 1.0)
