"""fn.dump_image: the PPM files DALI writes (bytes taken from NVIDIA DALI 2.4), the input passed
on, DALI's errors, and the GPU backend writing the same files."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def
from parity import cpu_gpu, device_id, to_device

# What NVIDIA DALI 2.4 wrote for these two images (fn.dump_image(x, suffix="s"))
RGB = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
FLAT = np.full((1, 2, 3), 200, np.uint8)
GRAY = np.arange(6, dtype=np.uint8).reshape(2, 3, 1)
DALI_FILES = {
    "0-s-0.ppm": "P3\n3 2\n255\n0 1 2 3 4 5 6 7 8 \n9 10 11 12 13 14 15 16 17 \n",
    "1-s-0.ppm": "P3\n2 1\n255\n200 200 200 200 200 200 \n",
}
DALI_GRAY = "P2\n3 2\n255\n0 1 2 \n3 4 5 \n"


def _pipe(samples, device="cpu", **kw):
    @pipeline_def(
        batch_size=len(samples),
        num_threads=1,
        device_id=device_id(device),
        exec_pipelined=False,  # one batch's files at a time (no batch written ahead)
    )
    def pipe():
        x = fn.external_source(lambda: samples, layout="HWC")
        return fn.dump_image(to_device(x, device), **kw)

    return pipe()


def test_files_are_dalis(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (out,) = _pipe([RGB, FLAT], suffix="s").run()
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == DALI_FILES
    for got, want in zip(out.samples(), [RGB, FLAT]):
        np.testing.assert_array_equal(np.asarray(got), want)  # the input, passed on


def test_gray_images_are_pgm(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _pipe([GRAY], suffix="g").run()
    assert (tmp_path / "0-g-0.ppm").read_text() == DALI_GRAY


def test_default_suffix_and_overwrite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = _pipe([RGB])
    p.run()
    p.run()  # the same names again, as in DALI
    assert sorted(x.name for x in tmp_path.iterdir()) == ["0--0.ppm"]


@pytest.mark.parametrize(
    ("sample", "kw", "message"),
    [
        (np.zeros((2, 2), np.uint8), {}, "must have three dimensions, got input with `2`"),
        (
            np.zeros((1, 1, 4), np.uint8),
            {},
            "Only 3-channel and gray images are supported, got input with `4`",
        ),
        (np.zeros((1, 1, 3), np.float32), {}, "must be uint8"),
        (RGB, {"input_layout": "CHW"}, "CHW not supported yet"),
    ],
)
def test_errors(tmp_path, monkeypatch, sample, kw, message):
    monkeypatch.chdir(tmp_path)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.dump_image(fn.external_source(lambda: [sample]), **kw)

    with pytest.raises(Exception, match=message) as info:
        pipe().run()
    assert "dump_image" in str(info.value)


@cpu_gpu()
def test_parity(device, tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp(device)
    monkeypatch.chdir(folder)
    out = _pipe([RGB, FLAT], device, suffix="s").run()
    assert {p.name: p.read_text() for p in folder.iterdir()} == DALI_FILES
    return out
