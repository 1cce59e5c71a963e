"""The CPU image decoders' nvImageCodec path (`dali._ops.decoders.nvimgcodec.cpu`).

When nvImageCodec's wheel is installed, the CPU backend decodes JPEGs (only the window's region
for the crop variants) with nvImageCodec's libjpeg-turbo decoder; ``DALI_CPU_JPEG_DECODER=opencv``
sends every image through OpenCV/Pillow instead. Both ways must give the same arrays, errors and
skips for every operator, output type, dtype and window: each test here runs the same pipeline
both ways and compares. Skipped when nvImageCodec is not installed.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cv2")
Image = pytest.importorskip("PIL.Image")

from dali import _options as options
from dali import fn, pipeline_def, types
from dali._ops.decoders.nvimgcodec import binding as nvc
from dali._ops.decoders.nvimgcodec import cpu as host
from dali._testing.images import photo

if not nvc.available():
    pytest.skip("nvImageCodec's C library is not installed", allow_module_level=True)

DECODERS = ["image", "image_crop", "image_slice", "image_random_crop"]
OPENCV = "opencv"
NVIMGCODEC = "nvimgcodec"

# -- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory: pytest.TempPathFactory, edge_images: dict[str, Path]) -> list[Path]:
    """JPEGs of every kind nvImageCodec takes (and some it leaves to OpenCV), odd sizes."""
    root = tmp_path_factory.mktemp("jpegs")
    rng = np.random.default_rng(17)
    out = [
        edge_images[k]
        for k in (
            "jpeg_444",
            "jpeg_progressive",
            "jpeg_gray",
            "jpeg_exif6",
            "jpeg_exif3",
            "jpeg_cmyk",
            "tiny",
            "wide",
            "tall",
        )
    ]
    for i, (h, w) in enumerate([(123, 187), (301, 415), (64, 64), (97, 33), (260, 199)]):
        path = root / f"photo_{i}.jpg"
        Image.fromarray(photo(h, w, rng)).save(path, "JPEG", quality=85, progressive=i == 4)
        out.append(path)
    gray = root / "gray_photo.jpg"
    Image.fromarray(photo(150, 90, rng)).convert("L").save(gray, "JPEG", quality=90)
    out.append(gray)
    return out


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every `HostDecoders.decode` call: its sizes, regions and luma flag."""
    seen: list[dict[str, Any]] = []
    original = host.HostDecoders.decode

    def spy(self, datas, regions, outs, gray, orient):
        seen.append({"regions": list(regions), "shapes": [o.shape for o in outs], "gray": gray})
        return original(self, datas, regions, outs, gray, orient)

    monkeypatch.setattr(host.HostDecoders, "decode", spy)
    return seen


def run(
    monkeypatch: pytest.MonkeyPatch,
    decoder: str,
    files: list[Path],
    op: str = "image",
    batch_size: int | None = None,
    **kw: Any,
) -> list[np.ndarray]:
    """Decode ``files`` with ``fn.decoders.<op>`` and the CPU JPEG decoder ``decoder``."""
    monkeypatch.setenv(host.ENV, decoder)
    names = [str(f) for f in files]
    bs = batch_size or len(names)

    # not pipelined: a run decodes its own batch only (a pipelined one decodes the next one
    # ahead, in the background, and the `calls` spy would count it or not by timing)
    @pipeline_def(batch_size=bs, num_threads=2, device_id=None, seed=7, exec_pipelined=False)
    def pipe():
        data, _ = fn.readers.file(files=names)
        return getattr(fn.decoders, op)(data, **kw)

    p = pipe()
    p.build()
    out: list[np.ndarray] = []
    try:
        for _ in range(-(-len(names) // bs)):
            (tl,) = p.run()
            out.extend(np.array(tl.at(i)) for i in range(len(tl)))
    finally:
        p.close()  # no batches prefetched after this one reach the spies of the next test
    return out[: len(names)]


def both(monkeypatch: pytest.MonkeyPatch, files: list[Path], op: str = "image", **kw: Any):
    """The outputs of the OpenCV path and of the nvImageCodec path, which must be equal."""
    want = run(monkeypatch, OPENCV, files, op, **kw)
    got = run(monkeypatch, NVIMGCODEC, files, op, **kw)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, (k, files[k % len(files)])
        assert g.shape == w.shape, (k, files[k % len(files)])
        np.testing.assert_array_equal(g, w, err_msg=str(files[k % len(files)]))
    return want, got


OP_ARGS = {
    "image": {},
    "image_crop": {
        "crop": (40, 30),
        "crop_pos_x": 0.3,
        "crop_pos_y": 0.8,
        "out_of_bounds_policy": "pad",  # the 1×1, 4×800 and 800×4 images are smaller
    },
    "image_slice": {"rel_start": (0.1, 0.25), "rel_shape": (0.5, 0.6)},
    "image_random_crop": {"random_area": (0.1, 1.0), "random_aspect_ratio": (0.5, 2.0)},
}

# -- parity ------------------------------------------------------------------------------------


def test_enabled_by_default_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(host.ENV, raising=False)
    assert host.enabled()
    monkeypatch.setenv(host.ENV, "OpenCV")
    assert not host.enabled()
    monkeypatch.setenv(host.ENV, "libjpeg")
    with pytest.raises(ValueError, match=host.ENV):
        host.enabled()


@pytest.mark.parametrize("op", DECODERS)
@pytest.mark.parametrize(
    "out_type", [types.RGB, types.BGR, types.GRAY, types.YCbCr, types.ANY_DATA], ids=str
)
def test_every_output_type_equals_the_opencv_path(monkeypatch, jpegs, calls, op, out_type) -> None:
    both(monkeypatch, jpegs, op, output_type=out_type, **OP_ARGS[op])
    assert calls, "nvImageCodec decoded nothing"
    if out_type == types.GRAY:
        assert all(c["gray"] for c in calls)
    elif out_type == types.ANY_DATA:  # the grayscale JPEGs as luma, the others as RGB
        assert {c["gray"] for c in calls} == {True, False}


@pytest.mark.parametrize("op", DECODERS)
@pytest.mark.parametrize("dtype", [types.FLOAT, types.UINT16, types.INT16], ids=str)
def test_output_dtypes_equal_the_opencv_path(monkeypatch, jpegs, op, dtype) -> None:
    both(monkeypatch, jpegs, op, dtype=dtype, **OP_ARGS[op])


@pytest.mark.parametrize("op", DECODERS)
def test_without_exif_orientation(monkeypatch, jpegs, op) -> None:
    both(monkeypatch, jpegs, op, adjust_orientation=False, **OP_ARGS[op])


def test_crops_decode_only_the_region(monkeypatch, jpegs, calls) -> None:
    crop = (40, 30)
    files = [f for f in jpegs if not f.name.startswith(("tiny", "wide", "tall"))]
    both(monkeypatch, files, "image_crop", crop=crop)
    regions = [r for c in calls for r in c["regions"]]
    shapes = [s for c in calls for s in c["shapes"]]
    assert len(regions) >= len(files) - 1  # all but the CMYK JPEG (and prefetched batches)
    assert all(r is not None for r in regions)
    assert {s[:2] for s in shapes} == {crop}
    assert all(r[2] - r[0] == crop[0] and r[3] - r[1] == crop[1] for r in regions)


def test_random_crop_regions_in_calls_of_a_few_samples(monkeypatch, jpegs, calls) -> None:
    files = jpegs * 3  # larger than CALL_SAMPLES
    both(monkeypatch, files, "image_random_crop", batch_size=len(files))
    assert len(calls) >= len(files) // options.CALL_SAMPLES
    assert max(len(c["regions"]) for c in calls) <= options.CALL_SAMPLES
    # guided call sizes, single samples last (2 threads); a prefetched batch may be in too
    sizes = sorted((len(c["regions"]) for c in calls), reverse=True)
    assert any(
        sizes == sorted(host.call_sizes(sum(sizes) // k, 2) * k, reverse=True) for k in (1, 2)
    )
    for c in calls:  # each call's regions, largest first
        sizes = [s[0] * s[1] for s in c["shapes"]]
        assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 64, 100, 256])
@pytest.mark.parametrize("threads", [1, 2, 3, 16])
def test_call_sizes_cover_the_batch_and_shrink(n, threads) -> None:
    sizes = host.call_sizes(n, threads)
    assert sum(sizes) == n and all(1 <= s <= options.CALL_SAMPLES for s in sizes)
    assert sizes == sorted(sizes, reverse=True)  # never a bigger call after a smaller one
    if threads == 1:
        assert sizes[:-1] == [options.CALL_SAMPLES] * (len(sizes) - 1)  # one thread: equal calls
    elif n >= 2 * threads:
        assert sizes[-threads:] == [1] * threads  # the threads finish on single samples


@pytest.mark.parametrize("policy", ["pad", "trim_to_shape"])
@pytest.mark.parametrize("op", ["image_crop", "image_slice"])
def test_out_of_bounds_windows(monkeypatch, jpegs, op, policy) -> None:
    args: dict[str, Any] = {"out_of_bounds_policy": policy}
    if op == "image_crop":
        args.update(crop=(140, 90), crop_pos_x=0.9, crop_pos_y=0.2)
    else:
        args.update(rel_start=(-0.2, 0.5), rel_shape=(0.9, 0.8))
    both(monkeypatch, jpegs, op, output_type=types.RGB, fill_values=(9, 80, 200), **args)
    both(monkeypatch, jpegs, op, output_type=types.GRAY, fill_values=(77,), **args)


def test_per_sample_arguments(monkeypatch, jpegs) -> None:
    names = [str(f) for f in jpegs]
    n = len(names)

    def run_with(decoder: str) -> list[np.ndarray]:
        monkeypatch.setenv(host.ENV, decoder)

        @pipeline_def(batch_size=n, num_threads=2, device_id=None, seed=3)
        def pipe():
            data, _ = fn.readers.file(files=names)
            return fn.decoders.image_crop(
                data,
                crop_h=fn.random.uniform(range=(5, 60)),
                crop_w=fn.random.uniform(range=(5, 60)),
                crop_pos_x=fn.random.uniform(range=(0, 1)),
                out_of_bounds_policy="trim_to_shape",
            )

        p = pipe()
        p.build()
        (tl,) = p.run()
        return [np.array(tl.at(i)) for i in range(n)]

    for g, w in zip(run_with(NVIMGCODEC), run_with(OPENCV)):
        np.testing.assert_array_equal(g, w)


def test_other_formats_and_broken_files_go_the_opencv_way(monkeypatch, edge_images, calls) -> None:
    files = [
        p
        for k, p in sorted(edge_images.items())
        if k not in ("corrupt", "truncated", "empty", "text")
    ]
    both(monkeypatch, files, "image")
    decoded = sum(len(c["regions"]) for c in calls)
    assert 0 < decoded < len(files)  # the JPEGs (not CMYK), not the PNGs, TIFFs, ...


@pytest.mark.parametrize("name", ["corrupt", "truncated", "empty", "text"])
def test_bad_files_raise_the_same_error(monkeypatch, edge_images, jpegs, name) -> None:
    files = [jpegs[0], edge_images[name], jpegs[1]]
    messages = []
    for decoder in (OPENCV, NVIMGCODEC):
        with pytest.raises(Exception) as info:
            run(monkeypatch, decoder, files, "image_random_crop")
        messages.append(str(info.value))
        assert str(edge_images[name]) in str(info.value)
    assert messages[0] == messages[1]


def test_skip_drops_the_same_samples(monkeypatch, edge_images, jpegs, caplog) -> None:
    bad = [edge_images[k] for k in ("corrupt", "truncated", "empty", "text")]
    files = [jpegs[0], *bad, jpegs[1], jpegs[2]]
    with caplog.at_level(logging.WARNING, logger="dali"):
        _, got = both(monkeypatch, files, "image_random_crop", on_error="skip")
    assert len(got) == 3


def test_corrupt_scan_data(monkeypatch, tmp_path) -> None:
    """Valid headers, damaged entropy-coded data: libjpeg-turbo warns and fills in, both ways."""
    rng = np.random.default_rng(5)
    buf = io.BytesIO()
    Image.fromarray(photo(96, 128, rng)).save(buf, "JPEG", quality=90)
    data = bytearray(buf.getvalue())
    sos = data.find(b"\xff\xda")
    for k in range(sos + 200, sos + 260):
        if data[k] != 0xFF and data[k - 1] != 0xFF:
            data[k] = (data[k] * 7 + 13) % 0xFF
    path = tmp_path / "damaged.jpg"
    path.write_bytes(bytes(data))
    for op in DECODERS:
        both(monkeypatch, [path], op, **OP_ARGS[op])


def test_a_failed_call_falls_back_to_opencv(monkeypatch, jpegs, caplog) -> None:
    want = run(monkeypatch, OPENCV, jpegs, "image_random_crop")

    def fail(self, *args, **kwargs):
        raise nvc.CodecError("nvimgcodecDecoderDecode", 6)

    monkeypatch.setattr(nvc.Decoder, "decode", fail)
    with caplog.at_level(logging.WARNING, logger="dali"):
        got = run(monkeypatch, NVIMGCODEC, jpegs, "image_random_crop")
    assert "nvImageCodec's CPU decode call failed" in caplog.text
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_decoders_are_reused_and_closed(monkeypatch, jpegs) -> None:
    monkeypatch.setenv(host.ENV, NVIMGCODEC)
    names = [str(f) for f in jpegs]

    @pipeline_def(batch_size=len(names), num_threads=2, device_id=None, seed=1)
    def pipe():
        data, _ = fn.readers.file(files=names)
        return fn.decoders.image_random_crop(data, name="dec")

    p = pipe()
    p.build()
    for _ in range(3):
        p.run()
    impl = next(s.impl for s in p._plan.steps if s.node.name == "dec")
    decoders = list(impl._host._all)
    assert 1 <= len(decoders) <= 2  # one per pool thread at most
    p.close()
    assert all(d.closed for d in decoders)
