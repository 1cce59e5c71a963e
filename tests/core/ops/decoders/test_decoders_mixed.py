"""`fn.decoders.image*` with ``device="mixed"`` (nvImageCodec) against the CPU backend.

Each GPU test runs the same pipeline body on the CPU and on the GPU and compares. JPEGs decoded
by nvJPEG differ from libjpeg-turbo by the IDCT and the chroma upsampling: the comparisons use
``jpeg_fancy_upsampling=True`` (libjpeg-turbo's upsampling) and the tolerance `FANCY_MAX_DIFF`;
DALI's default (``False``, nvJPEG's simple upsampling) is measured on its own with
`DEFAULT_MAX_DIFF`. Both were measured on an H200 with nvImageCodec 0.9 (test_jpeg_parity_numbers
prints them). Everything the conversion kernel computes (types, YCbCr, BGR, padding) and every
CPU-fallback format is compared exactly, and the crop variants must cut exactly the CPU
backend's windows (same shapes, same anchors).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")
pytest.importorskip("cv2")

from dali import _options as options
from dali import fn, pipeline_def, types
from dali._ops.decoders.headers import jpeg_header as _jpeg_header
from dali._ops.decoders.image import codecs as _codecs
from dali._ops.decoders.image import mixed_plan as _mixed_plan
from dali._ops.decoders.nvimgcodec import mixed as _nvimgcodec
from dali._testing.images import make_edge_cases, make_image_tree, make_imagenet_like, photo

#: Largest per-pixel difference between nvJPEG and libjpeg-turbo on the test JPEGs, and the
#: largest mean absolute difference of one image. Measured on an H200 with nvImageCodec 0.9:
#: with fancy upsampling max 3 (CUDA nvJPEG) and 1 (hardware decoder), mean < 0.05; with DALI's
#: default simple upsampling max 74, mean 2.74 (at sharp colour edges of small images).
FANCY_MAX_DIFF, FANCY_MEAN_DIFF = 4, 0.1
DEFAULT_MAX_DIFF, DEFAULT_MEAN_DIFF = 80, 3.0

DTYPES = [
    types.UINT8,
    types.INT8,
    types.UINT16,
    types.INT16,
    types.UINT32,
    types.INT32,
    types.FLOAT,
]


@pytest.fixture(scope="module")
def gpu() -> None:
    pytest.importorskip("cupy")
    pytest.importorskip("nvidia.nvimgcodec")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_image_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_edge_cases(tmp_path_factory.mktemp("edge"))


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_imagenet_like(tmp_path_factory.mktemp("photos"), 12, seed=5, processes=1)


@pytest.fixture(scope="module")
def extra(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """EXIF orientations 1..8, a 16-bit PNG and a corrupt-but-complete JPEG."""
    root = tmp_path_factory.mktemp("extra")
    rgb = Image.fromarray(photo(36, 52, np.random.default_rng(3)))
    out: dict[str, Path] = {}
    for o in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = o
        out[f"exif{o}.jpg"] = root / f"exif{o}.jpg"
        rgb.save(out[f"exif{o}.jpg"], "JPEG", quality=90, exif=exif.tobytes())
    a16 = (np.random.default_rng(4).integers(0, 65536, (20, 30, 3))).astype(np.uint16)
    import cv2

    out["rgb16.png"] = root / "rgb16.png"
    cv2.imwrite(str(out["rgb16.png"]), a16[:, :, ::-1])
    return out


def run(files, op="image", device="mixed", *, batch_size=None, num_threads=2, **kw):
    """Decode ``files`` in order with ``fn.decoders.<op>``; returns (host arrays, pipeline).

    Mixed decoders use libjpeg-turbo's chroma upsampling unless told otherwise.
    """
    files = [str(f) for f in files]
    bs = batch_size or len(files)
    if device == "mixed":
        kw.setdefault("jpeg_fancy_upsampling", True)

    @pipeline_def(batch_size=bs, num_threads=num_threads, device_id=0, seed=42)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        return getattr(fn.decoders, op)(jpegs, device=device, name="dec", **kw)

    p = pipe()
    p.build()
    out: list[np.ndarray] = []
    for _ in range(-(-len(files) // bs)):
        (tl,) = p.run()
        if device == "mixed":
            assert type(tl).__name__ == "TensorListGPU"
            tl = tl.as_cpu()
        out.extend(np.asarray(tl.at(i)) for i in range(len(tl)))
    return out[: len(files)], p


def both(files, op="image", **kw):
    """The CPU and the mixed results of the same pipeline, and the mixed pipeline."""
    fancy = kw.pop("jpeg_fancy_upsampling", True)
    cpu, _ = run(files, op, "cpu", **kw)
    mixed, p = run(files, op, "mixed", jpeg_fancy_upsampling=fancy, **kw)
    return cpu, mixed, p


def diff(a: np.ndarray, b: np.ndarray) -> tuple[int, float]:
    assert a.shape == b.shape and a.dtype == b.dtype
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return (int(d.max()) if d.size else 0), (float(d.mean()) if d.size else 0.0)


def assert_close(cpu, mixed, fancy: bool = True) -> tuple[int, float]:
    """Same shapes and types; JPEG pixels within the measured tolerance. Returns the worst."""
    worst, worst_mean = 0, 0.0
    for a, b in zip(cpu, mixed):
        m, mean = diff(a, b)
        worst, worst_mean = max(worst, m), max(worst_mean, mean)
    max_diff, mean_diff = (
        (FANCY_MAX_DIFF, FANCY_MEAN_DIFF) if fancy else (DEFAULT_MAX_DIFF, DEFAULT_MEAN_DIFF)
    )
    assert worst <= max_diff and worst_mean <= mean_diff, (worst, worst_mean)
    return worst, worst_mean


def stats(pipe) -> dict[str, float]:
    """The mixed decoder's counters (the pipeline must be alive: closing it drops them)."""
    return pipe._plan.by_name["dec"].impl.mixed.stats


def used_gpu(pipe, n: int) -> None:
    """At least ``n`` samples went through nvImageCodec (not the CPU fallback)."""
    assert stats(pipe)["gpu"] >= n, stats(pipe)


# -- host-side pieces (no GPU needed) ----------------------------------------------------------


def test_jpeg_info_agrees_with_the_cpu_parser(tree, edge, extra) -> None:
    keys = ["jpeg_gray", "jpeg_progressive", "jpeg_cmyk", "jpeg_444", "jpeg_exif6", "jpeg_exif3"]
    jpegs = [*tree, *(edge[k] for k in [*keys, "tiny", "wide", "tall", "truncated"])]
    jpegs += [p for k, p in extra.items() if k.endswith(".jpg")]
    for path in jpegs:
        data = np.fromfile(path, dtype=np.uint8)
        info = _nvimgcodec.jpeg_info(data)
        ncomp, orient, sos = _codecs._jpeg_frame(data)[:3]
        assert info is not None, path
        assert (info.ncomp, info.orientation, info.sos) == (ncomp, orient, sos), path
        with Image.open(path) as im:
            assert (info.width, info.height) == im.size
    # a big APP segment before the frame header: the walk reads past its first 4 KiB
    buf = io.BytesIO()
    Image.fromarray(photo(20, 30, np.random.default_rng(1))).save(buf, "JPEG", quality=90)
    raw = buf.getvalue()
    big = raw[:2] + b"\xff\xe2" + (9002).to_bytes(2, "big") + bytes(9000) + raw[2:]
    data = np.frombuffer(big, dtype=np.uint8)
    info = _nvimgcodec.jpeg_info(data)
    assert info is not None and (info.height, info.width) == (20, 30)
    assert info.sos == _codecs._jpeg_frame(data).sos
    # corrupt headers are left to the CPU backend
    assert _nvimgcodec.jpeg_info(np.fromfile(edge["corrupt"], dtype=np.uint8)) is None


def test_the_planner_predicts_the_cpu_backends_sizes(tree, edge, extra) -> None:
    """Both backends compute the random windows from the same size hints (so, the same windows)."""
    from dali._ops.decoders.image.decoder import ImageDecoderBase, header_shapes

    class Op:
        check_encoded = ImageDecoderBase.check_encoded

    files = [*tree, *edge.values(), *extra.values()]
    samples = [np.fromfile(f, dtype=np.uint8) for f in files]
    for orient in (True, False):
        Op.orientation = orient
        hd = _mixed_plan._headers(Op(), samples)
        heads, shapes = hd.heads, hd.shapes
        np.testing.assert_array_equal(shapes, header_shapes(samples, orient))
        assert [h[0] is s for h, s in zip(heads, samples)] == [True] * len(samples)
        # the GPU takes the complete 8-bit JPEGs with 1 or 3 components only
        gpu = {f for f, h in zip(files, heads) if h[1] is not None}
        bad = {edge[k] for k in ("jpeg_cmyk", "corrupt", "truncated", "empty", "text")}
        jpegs = {f for f in files if f.suffix == ".jpg"} - bad
        assert gpu == jpegs


@pytest.mark.parametrize("orient", [True, False])
def test_the_planner_asks_for_the_cpu_backends_windows(tree, edge, extra, orient, monkeypatch):
    """The regions `_plan` asks nvImageCodec for are the CPU backend's windows."""
    from dali._exec.rng import SampleRNG, combine

    files = [*tree[:8], extra["exif6.jpg"], extra["exif8.jpg"], edge["png_rgb"], edge["wide"]]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=1)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(files[0])])
        return fn.decoders.image_random_crop(jpegs, adjust_orientation=orient, name="dec")

    p = pipe()
    p.build()
    op = p._plan.by_name["dec"].impl
    samples = [np.fromfile(f, dtype=np.uint8) for f in files]

    class Ws:
        rng = SampleRNG(combine(3, np.arange(len(files))))

    hd = _mixed_plan._headers(op, samples)
    gpu, cpu = _mixed_plan._plan(op, hd, op.windows(Ws, len(files), hd.shapes))
    assert cpu == [files.index(edge["png_rgb"])]
    cpu_windows = op.windows(Ws, len(files), None)  # every window from the decoded size
    for g in gpu:
        img = _codecs.decode(samples[g.sample], "rgb", orientation=orient)
        want = cpu_windows[g.sample](*img.shape[:2])
        y0, x0, y1, x1 = g.region or (0, 0, *img.shape[:2])
        got = (y0, x0, y1 - y0, x1 - x0)
        assert got == tuple(want), files[g.sample]
        assert (g.oh, g.ow) == (want.h, want.w)
    p.close()


def reference_jpeg_info(data: np.ndarray) -> tuple[int, ...] | None:
    """The header walk `jpeg_info` replaced (byte by byte, 4 KiB first), as a tuple."""

    def walk(b: bytes) -> tuple[int, ...] | bool | None:
        i, n = 2, len(b)
        info, orient = None, 1
        while i + 4 <= n:
            if b[i] != 0xFF:
                return None
            m = b[i + 1]
            if m == 0xFF:
                i += 1
                continue
            if m == 0x01 or 0xD0 <= m <= 0xD8:
                i += 2
                continue
            if m == 0xD9:
                return None
            if m == 0xDA:
                return None if info is None else (*info, orient, i)
            seglen = (b[i + 2] << 8) | b[i + 3]
            if i + 2 + seglen > n:
                return False
            if m in _codecs._SOF_MARKERS:
                if info is not None or seglen < 8:
                    return None
                h, w = (b[i + 5] << 8) | b[i + 6], (b[i + 7] << 8) | b[i + 8]
                info = (m, b[i + 4], h, w, b[i + 9])
            elif m == 0xE1 and b[i + 4 : i + 10] == b"Exif\x00\x00":
                orient = _codecs._tiff_orientation(b[i + 10 : i + 2 + seglen])
            i += 2 + seglen
        return False

    limit = 4096
    while True:
        got = walk(data[:limit].tobytes())
        if got is not False:
            return got  # type: ignore[return-value]
        if limit >= data.size:
            return None
        limit = min(data.size, limit * 16)


def unusual_jpegs(jpeg: bytes) -> dict[str, bytes]:
    """Variants of a baseline JPEG's header that take every branch of the header walks."""

    def seg(marker: int, body: bytes) -> bytes:
        return bytes((0xFF, marker)) + (len(body) + 2).to_bytes(2, "big") + body

    segs, i = [], 2
    while jpeg[i + 1] != 0xDA:
        n = int.from_bytes(jpeg[i + 2 : i + 4], "big")
        segs.append(jpeg[i : i + 2 + n])
        i += 2 + n
    scan = jpeg[i:]
    (sof,) = [s for s in segs if s[1] == 0xC0]
    k = segs.index(sof)

    def build(*parts: bytes) -> bytes:
        return b"\xff\xd8" + b"".join(parts)

    exif = Image.Exif()
    exif[0x0112] = 6
    tiff = exif.tobytes()[6:] if exif.tobytes().startswith(b"Exif") else exif.tobytes()
    head = b"".join(segs)
    out = {
        "plain": jpeg,
        "long APP2": build(seg(0xE2, bytes(5000)), head, scan),
        "APP2 across the prefix": build(seg(0xE2, bytes(_jpeg_header.PREFIX - 40)), head, scan),
        "huge APP2": build(seg(0xE2, bytes(65000)), seg(0xE2, bytes(65000)), head, scan),
        "XMP": build(seg(0xE1, b"http://ns.adobe.com/xap/1.0/\x00<x/>"), head, scan),
        "EXIF 6": build(seg(0xE1, b"Exif\x00\x00" + tiff), head, scan),
        "EXIF after the frame": build(head, seg(0xE1, b"Exif\x00\x00" + tiff), scan),
        "two EXIF": build(
            seg(0xE1, b"Exif\x00\x00" + tiff), seg(0xE1, b"Exif\x00\x00II"), head, scan
        ),
        "short APP1": build(seg(0xE1, b"Exi"), head, scan),
        "fill bytes": build(b"\xff\xff\xff", head, scan),
        "RST and TEM": build(b"\xff\xd0\xff\x01", head, scan),
        "garbage": build(b"\x00", head, scan),
        "EOI first": build(b"\xff\xd9", head, scan),
        "scan first": build(scan[: scan.index(b"\xff", 2)], head, scan),
        "two frames": build(head, sof, scan),
        "short frame": build(*segs[:k], seg(0xC0, sof[4:9]), *segs[k + 1 :], scan),
        "lossless": build(*segs[:k], b"\xff\xc3" + sof[2:], *segs[k + 1 :], scan),
        "12-bit": build(*segs[:k], sof[:4] + b"\x0c" + sof[5:], *segs[k + 1 :], scan),
        "zero height": build(*segs[:k], sof[:5] + b"\x00\x00" + sof[7:], *segs[k + 1 :], scan),
        "trailing bytes": jpeg + bytes(7),
        "no EOI": jpeg[:-2],
        "EOI in the middle only": jpeg[:-2] + b"\x00\xff\xd9\x00",
    }
    sos = len(jpeg) - len(scan)
    for cut in (3, 4, 5, 6, 8, 21, 100, sos - 2, sos, sos + 3, len(jpeg) // 2):
        out[f"cut at {cut}"] = jpeg[:cut]
    return out


def fuzzed_jpegs(jpeg: bytes, n: int, seed: int) -> list[bytes]:
    """``jpeg`` with a few random header bytes changed, or cut short."""
    rng = np.random.default_rng(seed)
    sos = jpeg.index(b"\xff\xda")
    out = []
    for _ in range(n):
        b = bytearray(jpeg)
        for at in rng.integers(2, sos + 4, rng.integers(1, 4)):
            b[at] = rng.choice([0x00, 0x01, 0xD0, 0xD9, 0xDA, 0xE1, 0xFF, int(rng.integers(256))])
        if rng.random() < 0.3:
            b = b[: rng.integers(2, sos + 20)]
        out.append(bytes(b))
    return out


def header_corpus(tree, edge, extra, fuzzed: int, seeds: tuple[int, int]) -> list[bytes]:
    """Every branch of the header walks: the images, unusual JPEGs, ``fuzzed`` damaged copies of
    two of them (random ``seeds``), and tiny files."""
    files = [*tree, *edge.values(), *extra.values()]
    raw = [Path(f).read_bytes() for f in files]
    raw += list(unusual_jpegs(Path(tree[0]).read_bytes()).values())
    raw += fuzzed_jpegs(Path(extra["exif6.jpg"]).read_bytes(), fuzzed, seed=seeds[0])
    raw += fuzzed_jpegs(Path(tree[1]).read_bytes(), fuzzed, seed=seeds[1])
    raw += [b"", b"\xff", b"\xff\xd8", b"\xff\xd8\xff\xd9", b"\xff\xd8\xff\xe0\x00", b"GIF89a"]
    return raw


def cpu_decoder(op: str, kw: dict, file: Path, batch_size: int):
    """A built pipeline of ``batch_size`` running ``fn.decoders.<op>(**kw)`` on the CPU, and that
    operator's plan step (its ``impl`` plans batches of any samples); close the pipeline."""

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=3)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(file)])
        return getattr(fn.decoders, op)(jpegs, name="dec", **kw)

    p = pipe()
    p.build()
    return p, p._plan.by_name["dec"]


def test_jpeg_headers_give_jpeg_infos_answers(tree, edge, extra) -> None:
    """The batch walk answers what `jpeg_info` answers, and that what the walk it replaced
    answered, on every branch, on random damage and on other formats."""
    raw = header_corpus(tree, edge, extra, 300, (1, 2))
    datas = [np.frombuffer(b, dtype=np.uint8) for b in raw]
    for ends in (True, False):
        hd = _jpeg_header.jpeg_headers(datas, ends=ends)
        for i, (b, d) in enumerate(zip(raw, datas)):
            assert hd.jpeg[i] == (len(b) > 4 and b[:2] == b"\xff\xd8"), i
            if ends:
                assert hd.ends[i] == b.endswith(b"\xff\xd9"), i
            if not hd.jpeg[i]:
                assert not hd.found[i]
                continue
            info = _jpeg_header.jpeg_info(d)
            assert hd.info(i) == info, i
            assert (None if info is None else tuple(info)) == reference_jpeg_info(d), i
    assert _jpeg_header.jpeg_headers([], ends=True).jpeg.shape == (0,)


def reference_plan(op, samples, windows_for):
    """The per-sample planner `_mixed_plan` replaced: (the infos of ``heads``, the display
    sizes, the `GpuSample` rows as tuples, the CPU samples)."""
    from dali._exec.workspace import SampleFailure
    from dali._ops.decoders.image.decoder import size_hint

    heads, shapes = [], np.full((len(samples), 2), -1, dtype=np.int64)
    for i, sample in enumerate(samples):
        try:
            data = op.check_encoded(sample)
        except Exception as e:
            raise SampleFailure(i, e) from e
        info = None
        if data.size > 4 and data[0] == 0xFF and data[1] == 0xD8:
            info = reference_jpeg_info(data)
        elif data.size > 4:
            size = size_hint(data)
            if size is not None:
                shapes[i] = size
        if info is not None:
            sof, precision, height, width, ncomp, orientation, _ = info
            if height > 0 and width > 0:
                swap = op.orientation and orientation >= 5
                shapes[i] = (width, height) if swap else (height, width)
            usable = sof in (0xC0, 0xC1, 0xC2) and ncomp in (1, 3) and precision == 8
            if not usable or height == 0 or width == 0:
                info = None
        if info is not None:
            try:
                _codecs.check_jpeg_complete(data, info[6])
            except _codecs.DecodeError:
                info = None
        heads.append(info)
    windows = windows_for(shapes)
    gpu, cpu = [], []
    for i, info in enumerate(heads):
        if info is None:
            cpu.append(i)
            continue
        try:
            H, W = info[2], info[3]
            if op.orientation and info[5] >= 5:
                H, W = W, H
            oc = 3
            if op.out_name == "GRAY" or (op.out_name == "ANY_DATA" and info[4] == 1):
                oc = 1
            if windows is None:
                inner, pad = (0, 0, H, W), None
            else:
                inner, pad = op.clip(H, W, windows[i](H, W))
            y, x, h, w = inner
            if h <= 0 or w <= 0:
                cpu.append(i)
                continue
            region = None if (y, x, h, w) == (0, 0, H, W) else (y, x, y + h, x + w)
            oy, ox, ph, pw = pad or (0, 0, h, w)
            gpu.append((i, region, ph, pw, oc, h, w, oy, ox))
        except Exception as e:
            raise SampleFailure(i, e) from e
    return heads, shapes, gpu, cpu


PLAN_CASES = [
    ("image", {}),
    ("image", {"output_type": types.GRAY}),
    ("image", {"output_type": types.ANY_DATA, "adjust_orientation": False}),
    ("image_random_crop", {}),
    ("image_random_crop", {"adjust_orientation": False, "random_area": (0.5, 1.0)}),
    ("image_crop", {"crop": (40, 70), "crop_pos_x": 0.3, "out_of_bounds_policy": "pad"}),
    ("image_crop", {"crop": (300, 30), "out_of_bounds_policy": "trim_to_shape"}),
    ("image_crop", {"crop": (20, 30), "crop_pos_y": 0.7, "rounding": "truncate"}),
    ("image_crop", {"crop": (300, 30), "out_of_bounds_policy": "error"}),
    (
        "image_slice",
        {"rel_start": (-0.2, 0.5), "rel_shape": (0.7, 0.8), "out_of_bounds_policy": "pad"},
    ),
    ("image_slice", {"start": (3, 0), "shape": (0, 10)}),
]


@pytest.mark.parametrize(("op", "kw"), PLAN_CASES, ids=lambda v: str(v))
def test_the_vectorised_plan_is_the_per_sample_plan(tree, edge, extra, op, kw) -> None:
    """Headers, sizes, windows, regions, padding, the GPU/CPU split and errors are those of the
    per-sample planner, on a batch of every kind of sample."""
    from dali._exec.workspace import BatchMeta, SampleFailure, Workspace
    from dali._ops.decoders.image.decoder import BatchWindows
    from dali._tensors import TensorListCPU

    files = [*tree[:6], *(edge[k] for k in ("jpeg_cmyk", "truncated", "png_rgb", "jpeg_gray"))]
    files += [edge[k] for k in ("jpeg_progressive", "tiny", "wide", "tall", "corrupt", "empty")]
    files += [edge["text"], edge["bmp"], *(extra[f"exif{o}.jpg"] for o in (3, 6, 8))]
    files += [extra["rgb16.png"]]
    samples = [np.fromfile(f, dtype=np.uint8) for f in files]
    raw = unusual_jpegs(Path(tree[2]).read_bytes())
    samples += [np.frombuffer(raw[k], dtype=np.uint8) for k in ("trailing bytes", "no EOI")]
    samples += [np.frombuffer(raw[k], dtype=np.uint8) for k in ("EXIF 6", "fill bytes")]
    samples.append(np.repeat(samples[0], 2)[::2])  # not contiguous

    p, node = cpu_decoder(op, kw, files[0], len(samples))
    impl = node.impl
    n = len(samples)
    ws = Workspace(
        impl, [TensorListCPU.wrap(samples)], {}, BatchMeta.stream(0, n, 0), 0, 0, None,
        node.key, None, None,
    )  # fmt: skip

    def windows_for(shapes):
        return impl.windows(ws, n, shapes if impl.needs_shapes else None)

    def outcome(plan):
        try:
            heads, shapes, gpu, cpu = plan()
        except SampleFailure as e:
            return ("error", e.index, type(e.error), str(e.error))
        return heads, shapes.tolist(), [tuple(g) for g in gpu], cpu

    def vectorised(windows=None):
        hd = _mixed_plan._headers(impl, samples)
        if windows is None:  # the whole planning of the batch, as the decoder runs it
            prep = _mixed_plan.plan_batch(impl, ws)
            heads, gpu, cpu = prep.heads, prep.gpu, prep.cpu
            assert all(isinstance(g, _mixed_plan.GpuSample) for g in gpu)
            assert all(type(v) is int for g in gpu for v in (*g[:1], *g[2:], *(g[1] or ())))
        else:
            heads, (gpu, cpu) = hd.heads, _mixed_plan._plan(impl, hd, windows)
        assert all(np.array_equal(h[0], s.reshape(-1)) for h, s in zip(heads, samples))
        return [None if i is None else tuple(i) for _, i in heads], hd.shapes, gpu, cpu

    want = outcome(lambda: reference_plan(impl, samples, windows_for))
    assert outcome(vectorised) == want
    hd = _mixed_plan._headers(impl, samples)
    if op == "image_random_crop":  # windows for other sizes than the header's, one by one
        hints = hd.shapes.copy()
        hints[::3] += 1
        for shapes in (None, hints):
            wins = impl.windows(ws, n, shapes)
            got = outcome(lambda: vectorised(wins))  # noqa: B023
            assert got == outcome(lambda: reference_plan(impl, samples, lambda _: wins))  # noqa: B023
    elif op != "image":  # the same windows as arrays, those reaching outside clipped one by one
        wins = windows_for(None)
        boxes = np.zeros((n, 4), dtype=np.int64)
        for i in np.flatnonzero(hd.gpu):
            boxes[i] = wins[i](*hd.shapes[i].tolist())
        batch = BatchWindows(boxes[:, :2], boxes[:, 2:], hd.shapes, None)
        assert outcome(lambda: vectorised(batch)) == want
    p.close()


def test_batch_windows_are_window_functions() -> None:
    from dali._ops.decoders.image.decoder import BatchWindows, Window

    calls = []

    def fallback(i: int, H: int, W: int) -> Window:
        calls.append((i, H, W))
        return Window(i, 0, H // 2, W // 2)

    anchors, sizes = np.array([[1, 2], [5, 6], [0, 0]]), np.array([[3, 4], [7, 8], [1, 1]])
    wins = BatchWindows(anchors, sizes, np.array([[10, 10], [20, 30], [-1, -1]]), fallback)
    assert len(wins) == 3 and len(list(wins)) == 3
    assert wins[1](20, 30) == Window(5, 6, 7, 8)
    assert wins[-3](10, 10) == (1, 2, 3, 4)
    assert wins[2](8, 6) == Window(2, 0, 4, 3)
    assert calls == [(2, 8, 6)]
    with pytest.raises(IndexError):
        wins[3]
    got = wins.boxes_for(np.array([2, 0, 1]), np.array([8, 10, 21]), np.array([6, 10, 30]))
    assert np.stack(got, axis=1).tolist() == [[2, 0, 4, 3], [1, 2, 3, 4], [1, 0, 10, 15]]
    assert (anchors.tolist(), sizes.tolist()) == (
        [[1, 2], [5, 6], [0, 0]],
        [[3, 4], [7, 8], [1, 1]],
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_conversion_constants_reproduce_convert_dtype(dtype) -> None:
    """The kernel's (kind, factor) applied in numpy gives `_codecs.convert_dtype` exactly."""
    from dali._dtypes import np_dtype

    dt = np_dtype(dtype)
    v = np.arange(256, dtype=np.uint8)
    kind, factor = _nvimgcodec.conversion(dt)
    if kind == 0:
        got = v.astype(dt)
    elif kind == 1:
        got = (v.astype(np.float32) * factor).astype(dt)
    elif kind == 2:
        got = (v.astype(np.uint32) * np.uint32(factor)).astype(dt)
    else:
        got = _codecs.round_sat((v.astype(np.float32) * factor).astype(np.float64), dt)
    assert np.array_equal(got, _codecs.convert_dtype(v, dt))
    coeffs = _nvimgcodec.ycc_coefficients(dt).reshape(3, 4)
    rgb = np.stack([v, v[::-1], np.roll(v, 7)], axis=-1)[None]
    conv = _codecs.convert_dtype(rgb, dt)
    f = conv.astype(np.float32)
    for k in range(3):
        y = f[..., 0] * coeffs[k, 0] + f[..., 1] * coeffs[k, 1]
        y = (y + f[..., 2] * coeffs[k, 2]) + coeffs[k, 3]
        ref = _codecs.rgb_to_ycbcr(conv)[..., k]
        assert np.array_equal(y.astype(dt) if dt.kind == "f" else _codecs.round_sat(y, dt), ref)


@pytest.mark.parametrize(("out_name", "sc"), [("RGB", 3), ("GRAY", 1)])
def test_the_gpu_samples_decode_back_to_back_into_one_buffer(monkeypatch, out_name, sc):
    """Each GPU sample's output is the batch buffer's address plus the bytes of the images
    before it, its row pitch one row's bytes (no GPU needed: CuPy's allocation and stream
    are stand-ins here; the pixels are the GPU tests')."""
    import sys

    base = 1 << 30
    allocated = []

    def empty(n, dtype):
        allocated.append((n, np.dtype(dtype)))
        return SimpleNamespace(data=SimpleNamespace(ptr=base))

    stream = SimpleNamespace(ptr=77)
    cuda = SimpleNamespace(get_current_stream=lambda: stream)
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(empty=empty, cuda=cuda))
    sizes = [(2, 3), (4, 5), (1, 1)]
    gpu = [_mixed_plan.GpuSample(i, None, h, w, sc, h, w, 0, 0) for i, (h, w) in enumerate(sizes)]
    heads = [(np.full(4, i, np.uint8), None) for i in range(3)]
    seen = {}

    def decode(datas, regions, outputs, shapes, **kw):
        seen.update(datas=datas, outputs=list(outputs), shapes=list(shapes), kw=kw)
        return np.ones(len(datas), bool)

    op = SimpleNamespace(out_name=out_name, orientation=True, name="dec")
    buf, ok, ptrs, got_sc = _nvimgcodec._decode_gpu(op, heads, gpu, decode)
    assert allocated == [(sc * (6 + 20 + 1), np.dtype(np.uint8))] and got_sc == sc
    assert ptrs == [base, base + 6 * sc, base + 26 * sc] and ok.all() and buf.data.ptr == base
    assert seen["outputs"] == [(p, w * sc) for p, (_, w) in zip(ptrs, sizes)]
    assert seen["shapes"] == [(h, w, sc) for h, w in sizes]
    assert [d[0] for d in seen["datas"]] == [0, 1, 2]
    assert seen["kw"]["cuda_stream"] == 77 and seen["kw"]["gray"] == (sc == 1)
    # a batch of 256 is addressed with the GIL held (in the thread that is about to decode)
    from dali._testing.gil import gil_enabled, gives_gil_up

    if gil_enabled():
        many = gpu * 86
        heads = heads * 86
        _nvimgcodec._decode_gpu(op, heads, many, decode)
        assert not gives_gil_up(lambda: _nvimgcodec._decode_gpu(op, heads, many, decode), 5)


@pytest.mark.parametrize("fails", [False, True])
def test_a_decoder_stream_joins_the_pipeline_stream_before_and_waits_after(monkeypatch, fails):
    """With `options.DECODER_STREAMS` a decode runs on its decoder's own stream: that stream
    first waits (on the device) for an event recorded on the pipeline's stream after the
    buffer was allocated, and the decode's work is finished on the host before the call
    returns, also when the decode raised (stand-ins for CuPy and the driver calls)."""
    import sys

    from dali._exec import held

    order = []

    def empty(n, dtype):
        order.append("alloc")
        return SimpleNamespace(data=SimpleNamespace(ptr=1 << 30))

    pipeline = SimpleNamespace(ptr=77)
    cuda = SimpleNamespace(get_current_stream=lambda: pipeline)
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(empty=empty, cuda=cuda))
    monkeypatch.setattr(
        held, "record", lambda event, stream: order.append(("record", event, stream))
    )
    monkeypatch.setattr(
        held, "wait_event", lambda stream, event: order.append(("wait", stream, event))
    )
    side = (
        SimpleNamespace(ptr=88, synchronize=lambda: order.append(("sync", 88))),
        SimpleNamespace(ptr=5),
    )
    gpu = [_mixed_plan.GpuSample(0, None, 2, 3, 3, 2, 3, 0, 0)]
    heads = [(np.zeros(4, np.uint8), None)]

    def decode(datas, regions, outputs, shapes, **kw):
        order.append(("decode", kw["cuda_stream"]))
        if fails:
            raise RuntimeError("the decoder failed")
        return np.ones(len(datas), bool)

    op = SimpleNamespace(out_name="RGB", orientation=True, name="dec")
    _, ok, _, _ = _nvimgcodec._decode_gpu(op, heads, gpu, decode, side)
    assert order == ["alloc", ("record", 5, 77), ("wait", 88, 5), ("decode", 88), ("sync", 88)]
    assert (ok is None) == fails
    order.clear()  # without a side stream: the pipeline's stream, no event and no wait
    _nvimgcodec._decode_gpu(op, heads, gpu, decode)
    assert order == ["alloc", ("decode", 77)]


def test_hw_decoder_load_is_checked(tree) -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(tree[0])])
        return fn.decoders.image(jpegs, device="mixed", hw_decoder_load=1.5)

    with pytest.raises(RuntimeError, match="hw_decoder_load"):
        pipe().build()


# -- the GPU backend ---------------------------------------------------------------------------


@pytest.mark.gpu
def test_output_is_a_gpu_batch_of_views(gpu, photos) -> None:
    import cupy as cp

    # one iteration in flight: the counters then hold exactly the returned batch
    @pipeline_def(batch_size=6, num_threads=2, device_id=0, seed=1, prefetch_queue_depth=1)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(f) for f in photos[:6]])
        return fn.decoders.image_random_crop(jpegs, device="mixed", name="dec")

    p = pipe()
    (tl,) = p.run()
    assert type(tl).__name__ == "TensorListGPU"
    assert tl.layout() == "HWC" and tl.dtype == types.UINT8 and len(tl) == 6
    samples = tl.samples()
    assert all(isinstance(s, cp.ndarray) for s in samples)
    flat = tl._flat_buf
    assert flat is not None and flat.size == sum(s.size for s in samples)
    assert samples[1].data.ptr == flat.data.ptr + samples[0].size  # one buffer, back to back
    impl = p._plan.by_name["dec"].impl
    used_gpu(p, 6)
    # planned and decoded ahead, whole, by one of the operator's decoders
    assert impl.mixed.stats["ahead"] == 1
    assert len(impl.mixed._decoders) == options.PARALLEL_DECODES
    p.close()
    assert impl.mixed is None


@pytest.mark.gpu
@pytest.mark.parametrize("fancy", [False, True])
def test_jpeg_parity_numbers(gpu, photos, tree, fancy, record_property) -> None:
    """The measured JPEG difference (printed with -s, recorded in the junit XML)."""
    files = [*photos, *tree]
    stats = []
    for load in (0.0, 1.0):  # CUDA nvJPEG alone, then the hardware decoder alone
        cpu, mixed, pipe = both(files, jpeg_fancy_upsampling=fancy, hw_decoder_load=load)
        used_gpu(pipe, len(files))
        worst, mean = assert_close(cpu, mixed, fancy)
        stats.append((load, worst, mean))
    print(f"\nJPEG mixed vs CPU, fancy_upsampling={fancy}: (hw load, max, mean) {stats}")
    record_property(f"jpeg_diff_fancy_{fancy}", stats)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["image", "image_random_crop"])
@pytest.mark.parametrize("output_type", ["RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"])
def test_output_types(gpu, photos, edge, op, output_type) -> None:
    files = [*photos[:4], edge["jpeg_gray"], edge["jpeg_444"], edge["jpeg_progressive"]]
    kw = {"output_type": getattr(types, output_type)}
    if op == "image_random_crop":
        kw["seed"] = 3
    cpu, mixed, pipe = both(files, op, **kw)
    assert [a.shape for a in cpu] == [b.shape for b in mixed]
    assert_close(cpu, mixed)
    used_gpu(pipe, 5)


@pytest.mark.gpu
def test_channel_orders_and_ycbcr_are_exact_on_the_gpu(gpu, photos) -> None:
    """BGR/YCbCr/ANY_DATA computed by the kernel equal the CPU formulas on the same pixels."""
    files = photos[:5]
    rgb, _ = run(files, hw_decoder_load=1.0)
    bgr, _ = run(files, hw_decoder_load=1.0, output_type=types.BGR)
    ycc, _ = run(files, hw_decoder_load=1.0, output_type=types.YCbCr)
    anyd, _ = run(files, hw_decoder_load=1.0, output_type=types.ANY_DATA)
    for a, b, c, d in zip(rgb, bgr, ycc, anyd):
        assert np.array_equal(b, a[:, :, ::-1])
        assert np.array_equal(c, _codecs.rgb_to_ycbcr(a))
        assert np.array_equal(d, a)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_are_exact_conversions(gpu, photos, dtype) -> None:
    from dali._dtypes import np_dtype

    files = photos[:4]
    u8, _ = run(files, "image_random_crop", seed=9, hw_decoder_load=1.0)
    out, _ = run(files, "image_random_crop", seed=9, hw_decoder_load=1.0, dtype=dtype)
    ycc8, _ = run(files, hw_decoder_load=1.0, output_type=types.YCbCr, dtype=dtype)
    full8, _ = run(files, hw_decoder_load=1.0)
    dt = np_dtype(dtype)
    for a, b in zip(u8, out):
        assert b.dtype == dt
        assert np.array_equal(b, _codecs.convert_dtype(a, dt))
    for a, b in zip(full8, ycc8):
        assert np.array_equal(b, _codecs.to_output(a, "YCbCr", dt))
    cpu, _ = run(files, "image_random_crop", "cpu", seed=9, dtype=dtype)
    assert [a.shape for a in cpu] == [b.shape for b in out]


@pytest.mark.gpu
def test_exif_orientation(gpu, extra, edge) -> None:
    files = [extra[f"exif{o}.jpg"] for o in range(1, 9)] + [edge["jpeg_exif6"]]
    cpu, mixed, pipe = both(files)
    assert [a.shape for a in cpu] == [b.shape for b in mixed]
    assert_close(cpu, mixed)
    used_gpu(pipe, len(files))
    cpu, mixed, _ = both(files, adjust_orientation=False)
    assert all(m.shape[:2] == (36, 52) for m in mixed[:8])
    assert_close(cpu, mixed)
    # the red block of the stored top-left ends up top-right (rotate 90° clockwise)
    out = run([edge["jpeg_exif6"]])[0][0]
    assert out.shape[:2] == (64, 48)
    r, g, b = out[2, 45].astype(int)
    assert r > 200 and g < 60 and b < 60


@pytest.mark.gpu
@pytest.mark.parametrize("orient", [True, False])
def test_crop_variants_cut_the_cpu_windows(gpu, photos, extra, orient) -> None:
    files = [*photos[:6], extra["exif6.jpg"], extra["exif8.jpg"], extra["exif3.jpg"]]
    cases = [
        ("image_random_crop", {"seed": 5}),
        ("image_random_crop", {"seed": 6, "random_area": (0.5, 1.0)}),
        ("image_crop", {"crop": (31, 17), "crop_pos_x": 0.3, "crop_pos_y": 0.9}),
        ("image_slice", {"start": (3, 5), "end": (20, 33)}),
        ("image_slice", {"rel_start": (0.1, 0.2), "rel_shape": (0.5, 0.6)}),
    ]
    for op, kw in cases:
        cpu, mixed, pipe = both(files, op, adjust_orientation=orient, **kw)
        assert [a.shape for a in cpu] == [b.shape for b in mixed], (op, kw)
        assert_close(cpu, mixed)
        used_gpu(pipe, len(files))


@pytest.mark.gpu
def test_random_crop_is_independent_of_batching(gpu, photos) -> None:
    a, _ = run(photos[:8], "image_random_crop", seed=3, batch_size=8)
    b, _ = run(photos[:8], "image_random_crop", seed=3, batch_size=3, num_threads=1)
    assert [x.shape for x in a] == [y.shape for y in b]
    cpu, _ = run(photos[:8], "image_random_crop", "cpu", seed=3, batch_size=5)
    assert [x.shape for x in a] == [y.shape for y in cpu]


@pytest.mark.gpu
@pytest.mark.parametrize("policy", ["pad", "trim_to_shape"])
def test_crop_out_of_bounds(gpu, tree, policy) -> None:
    files = tree[:7]
    for op, kw in [
        ("image_crop", {"crop": (200, 150), "crop_pos_x": 0.2, "crop_pos_y": 0.7}),
        ("image_slice", {"start": (-5, -7), "shape": (90, 70)}),
    ]:
        fill = (255, 10, 128) if policy == "pad" else (0,)
        cpu, mixed, pipe = both(files, op, out_of_bounds_policy=policy, fill_values=fill, **kw)
        assert [a.shape for a in cpu] == [b.shape for b in mixed]
        assert_close(cpu, mixed)
        used_gpu(pipe, len(files))
        if policy == "pad" and op == "image_crop":
            assert all(b.shape[:2] == (200, 150) for b in mixed)
            assert tuple(mixed[0][0, 0]) == (255, 10, 128)  # the tree's images are smaller
    cpu, mixed, _ = both(
        files[:2], "image_crop", crop=(200, 150), out_of_bounds_policy="pad", dtype=types.FLOAT
    )
    assert_close(cpu, mixed)
    with pytest.raises(RuntimeError, match="out of bounds"):
        run(files[:1], "image_crop", crop=(500, 500))


@pytest.mark.gpu
def test_other_formats_fall_back_to_the_cpu_exactly(gpu, edge, extra) -> None:
    keys = [
        "png_rgb",
        "png_rgba",
        "png_gray",
        "png_palette",
        "jpeg_cmyk",
        "bmp",
        "tiff",
        "webp",
        "webp_lossless",
        "ppm",
        "pgm",
        "pbm",
        "tiny_png",
    ]
    files = [edge[k] for k in keys]
    for output_type in (types.RGB, types.GRAY, types.ANY_DATA, types.YCbCr):
        cpu, mixed, pipe = both(files, output_type=output_type)
        for k, a, b in zip(keys, cpu, mixed):
            assert np.array_equal(a, b), k
        assert stats(pipe)["cpu_samples"] >= len(files)
    cpu, mixed, _ = both(files, "image_random_crop", seed=2, dtype=types.FLOAT)
    for k, a, b in zip(keys, cpu, mixed):
        assert np.array_equal(a, b), k
    cpu, mixed, _ = both([extra["rgb16.png"]], dtype=types.UINT16)
    assert np.array_equal(cpu[0], mixed[0])


@pytest.mark.gpu
def test_mixed_batch_keeps_order_and_small_images(gpu, edge, photos) -> None:
    keys = ["png_rgb", "tiny", "wide", "tall", "jpeg_444", "webp", "jpeg_progressive", "jpeg_gray"]
    files = [photos[0], *(edge[k] for k in keys), photos[1]]
    for op, kw in (("image", {}), ("image_random_crop", {"seed": 4})):
        cpu, mixed, _ = both(files, op, **kw)
        assert [a.shape for a in cpu] == [b.shape for b in mixed]
        # images a few pixels wide or high are decoded by nvJPEG's CUDA backend, whose chroma
        # upsampling differs from libjpeg-turbo's at the borders: the default tolerance
        print(
            f"\n{op}: (file, max, mean) {[(k, *diff(a, b)) for k, a, b in zip(keys, cpu[1:], mixed[1:])]}"
        )
        assert_close([cpu[0], cpu[-1]], [mixed[0], mixed[-1]])
        assert_close(cpu[1:-1], mixed[1:-1], fancy=False)


@pytest.mark.gpu
@pytest.mark.parametrize("bad", ["corrupt", "truncated", "empty", "text"])
@pytest.mark.parametrize("op", ["image", "image_random_crop"])
def test_bad_input_names_the_file(gpu, edge, photos, op, bad) -> None:
    with pytest.raises(RuntimeError, match=str(edge[bad]).replace("\\", "\\\\")) as err:
        run([photos[0], edge[bad]], op)
    cpu_msg = None
    try:
        run([photos[0], edge[bad]], op, "cpu")
    except RuntimeError as e:
        cpu_msg = str(e)
    assert cpu_msg is not None
    assert str(err.value).splitlines()[-1] == cpu_msg.splitlines()[-1]


def skip_pipeline(files, device):
    # one iteration in flight: the skip counters then count exactly the batches returned (with
    # two, the prefetched batch may be decoded, and its skips counted, by the time they are read)
    @pipeline_def(batch_size=len(files), num_threads=2, device_id=0, seed=1, prefetch_queue_depth=1)
    def pipe():
        jpegs, labels = fn.readers.file(files=[str(f) for f in files])
        kw = {"jpeg_fancy_upsampling": True} if device == "mixed" else {}
        crop = fn.decoders.image_random_crop(
            jpegs, device=device, on_error="skip", name="dec", **kw
        )
        return crop, labels

    p = pipe()
    p.build()
    return p


def _traceback_values(error: BaseException) -> list[object]:
    """Every local variable (and list item) of every frame of ``error`` and its causes."""
    seen: list[object] = []
    todo, done = [error], set()
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in done:
            continue
        done.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            for value in tb.tb_frame.f_locals.values():
                seen.append(value)
                if isinstance(value, (list, tuple)):
                    seen.extend(value)
            tb = tb.tb_next
        todo += [exc.__cause__, exc.__context__]
    return seen


@pytest.mark.gpu
def test_errors_keep_no_decoded_image_alive(gpu, edge, photos) -> None:
    """nvImageCodec frees an image on the stream it was decoded on: an image kept alive by a
    traceback and collected after the pipeline's stream is gone crashes the process."""
    with pytest.raises(RuntimeError) as err:
        run([photos[0], edge["corrupt"], photos[1]], "image_random_crop", seed=1)
    leaked = [
        v
        for v in _traceback_values(err.value)
        if type(v).__name__.endswith("Image") and not type(v).__module__.startswith("dali")
    ]
    assert not leaked


@pytest.mark.gpu
def test_skip_drops_and_counts(gpu, edge, photos, caplog) -> None:
    files = [photos[0], edge["corrupt"], photos[1], edge["empty"], edge["truncated"], photos[2]]
    p = skip_pipeline(files, "mixed")
    with caplog.at_level(logging.WARNING, logger="dali"):
        crop, labels = p.run()
    assert type(crop).__name__ == "TensorListGPU" and len(crop) == 3
    assert labels.as_array().ravel().tolist() == [0, 2, 5]
    assert [crop[i].source_info() for i in range(3)] == [str(files[i]) for i in (0, 2, 5)]
    assert p.skipped_samples("dec") == 3
    assert any(str(edge["corrupt"]) in r.getMessage() for r in caplog.records)
    # the kept samples get the windows the CPU backend gives them
    ref_crop, _ = skip_pipeline(files, "cpu").run()
    got = crop.as_cpu()
    assert [got.at(i).shape for i in range(3)] == [ref_crop.at(i).shape for i in range(3)]
    assert_close([ref_crop.at(i) for i in range(3)], [got.at(i) for i in range(3)])


def _huge_jpeg(src: Path, dst: Path, height: int = 65000, width: int = 65000) -> Path:
    """``src`` with its baseline frame header declaring ``height`` x ``width`` pixels."""
    data = bytearray(src.read_bytes())
    i = data.index(b"\xff\xc0")
    data[i + 5 : i + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    dst.write_bytes(bytes(data))
    return dst


def test_the_planner_leaves_huge_declared_jpegs_to_the_cpu_backend(tree, tmp_path) -> None:
    """Over `_codecs.MAX_DECODED_BYTES` as RGB: never allocated by the GPU (or nvImageCodec
    CPU) path; the CPU backend refuses (or skips) it, naming the file."""
    from dali._ops.decoders.image.decoder import ImageDecoderBase

    class Op:
        check_encoded = ImageDecoderBase.check_encoded
        orientation = True

    huge = _huge_jpeg(tree[0], tmp_path / "huge.jpg")
    # 26754 x 26754 x 3 bytes fit in 2 GiB, 26755 x 26755 x 3 do not
    fits = _huge_jpeg(tree[0], tmp_path / "fits.jpg", 26754, 26754)
    over = _huge_jpeg(tree[0], tmp_path / "over.jpg", 26755, 26755)
    samples = [np.fromfile(f, dtype=np.uint8) for f in (tree[1], huge, fits, over)]
    hd = _mixed_plan._headers(Op(), samples)
    assert hd.gpu.tolist() == [True, False, True, False]
    assert hd.shapes[1].tolist() == [65000, 65000]  # the windows still see the declared size
    with pytest.raises(_codecs.DecodeError, match=r"65000x65000 pixels.*MAX_DECODED_BYTES"):
        _codecs.decode(samples[1], "rgb")


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["image", "image_random_crop"])
def test_huge_declared_jpeg_names_the_file_and_is_skipped(gpu, photos, tmp_path, op) -> None:
    huge = _huge_jpeg(photos[0], tmp_path / "huge.jpg")
    with pytest.raises(RuntimeError) as err:
        run([photos[1], huge], op)
    msg = str(err.value)
    assert f"dali.fn.decoders.{op}" in msg and f"Failed to decode '{huge}'" in msg
    assert "65000x65000 pixels" in msg and "MAX_DECODED_BYTES" in msg
    with pytest.raises(RuntimeError) as cpu_err:
        run([photos[1], huge], op, "cpu")
    assert msg.splitlines()[-1] == str(cpu_err.value).splitlines()[-1]
    files = [photos[1], huge, photos[2]]
    p = skip_pipeline(files, "mixed")
    crop, labels = p.run()
    assert type(crop).__name__ == "TensorListGPU" and len(crop) == 2
    assert labels.as_array().ravel().tolist() == [0, 2]
    assert p.skipped_samples("dec") == 1


@pytest.mark.gpu
def test_everything_skipped_gives_an_empty_gpu_batch(gpu, edge) -> None:
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(edge["empty"]), str(edge["text"])])
        return fn.decoders.image(jpegs, device="mixed", on_error="skip")

    (out,) = pipe().run()
    assert type(out).__name__ == "TensorListGPU" and len(out) == 0


@pytest.mark.gpu
def test_stream_of_the_workspace_is_used(gpu) -> None:
    import cupy as cp

    class Ws:
        pass

    ws = Ws()
    assert _nvimgcodec._stream_of(ws).ptr == cp.cuda.get_current_stream().ptr
    s = cp.cuda.Stream(non_blocking=True)
    ws.stream = s
    assert _nvimgcodec._stream_of(ws) is s
    ws.stream = s.ptr
    assert _nvimgcodec._stream_of(ws).ptr == s.ptr


@pytest.mark.gpu
def test_decodes_on_a_non_default_stream(gpu, photos) -> None:
    """Work is ordered on the given stream: results read on that stream are complete."""
    import cupy as cp
    from dali._exec.workspace import BatchMeta
    from dali._tensors import TensorListCPU

    cpu, _ = run(photos[:4], hw_decoder_load=1.0)

    @pipeline_def(batch_size=4, num_threads=1, device_id=0)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(f) for f in photos[:4]])
        return fn.decoders.image(
            jpegs, device="mixed", hw_decoder_load=1.0, jpeg_fancy_upsampling=True, name="dec"
        )

    p = pipe()
    p.build()
    impl = p._plan.by_name["dec"].impl

    class Ws:
        def __init__(self) -> None:
            self.inputs = [TensorListCPU.wrap([np.fromfile(f, dtype=np.uint8) for f in photos[:4]])]
            self.meta = BatchMeta.stream(0, 4, 0)
            self.batch_size = 4
            self.stream = cp.cuda.Stream(non_blocking=True)

        def source_info(self, i: int) -> str:
            return ""

    ws = Ws()
    out = impl.run_mixed(ws)
    with ws.stream:
        host = [cp.asnumpy(s, stream=ws.stream) for s in out.samples()]
    ws.stream.synchronize()
    for a, b in zip(cpu, host):
        assert np.array_equal(a, b)


@pytest.mark.gpu
def test_a_batch_decoded_in_parallel_parts_equals_one_call(tmp_path, monkeypatch):
    pytest.importorskip("cupy")
    from dali._testing.images import make_imagenet_like

    files = make_imagenet_like(tmp_path, 48, seed=0)

    def pipe(**kw):
        @pipeline_def(batch_size=48, num_threads=4, device_id=0, seed=5, **kw)
        def graph():
            jpegs, _ = fn.readers.file(files=[str(f) for f in files])
            # every JPEG to the hardware decoder: the load split is per call, and the hardware
            # and CUDA decoders differ by a few levels, so a partial load would differ by parts
            return fn.decoders.image_random_crop(
                jpegs, device="mixed", name="dec", hw_decoder_load=1.0
            )

        return graph()

    outs = {}
    # not pipelined: the mixed stage cuts each batch into parts; pipelined: the CPU stage
    # starts each whole batch's decode on the next free decoder, on the pipeline's stream or
    # on each decoder's own (`options.DECODER_STREAMS`)
    runs = ((1, {"exec_pipelined": False}, False), (3, {"exec_pipelined": False}, False))
    for parts, kw, streams in (*runs, (3, {}, False), (3, {}, True)):
        monkeypatch.setattr(options, "PARALLEL_DECODES", parts)
        monkeypatch.setattr(options, "DECODER_STREAMS", streams)
        p = pipe(**kw)
        for _ in range(3):
            (tl,) = p.run()
        # as_cpu waits for the batch's ready event: the samples' CuPy views alone do not
        outs[parts, bool(kw), streams] = [np.asarray(s) for s in tl.as_cpu().samples()]
        mixed = p._plan.by_name["dec"].impl.mixed
        assert len(mixed._decoders) == parts
        # pipelined, the next iteration may already be decoded too
        assert (mixed.stats["ahead"] >= 3) if not kw else (mixed.stats["ahead"] == 0)
        # the pipeline's 4 threads shared by the decoders, not 4 each
        assert mixed.threads_per_decoder() == max(1, 4 // parts)
        assert bool(mixed._sides) == streams  # the decoders' own streams, when asked for
        used_gpu(p, 3 * 48)
        p.close()
    reference = outs[1, True, False]  # one decoder, not pipelined
    assert len(reference) == 48
    for key in ((3, True, False), (3, False, False), (3, False, True)):
        for a, b in zip(reference, outs[key]):
            np.testing.assert_array_equal(a, b)


def test_the_decoders_take_whole_batches_at_once(monkeypatch):
    """`MixedDecoder.submit`: up to `PARALLEL_DECODES` jobs run at the same time, each with a
    decoder no other job holds, in the pipeline's CUDA context; results come back per job."""
    import contextlib
    import threading

    monkeypatch.setattr(options, "PARALLEL_DECODES", 3)
    made = []

    class _Dec:
        def __init__(self, *a):
            made.append(self)

        def close(self):
            pass

    from dali._ops.decoders.nvimgcodec import binding as _nvimgcodec_c

    monkeypatch.setattr(_nvimgcodec_c, "Decoder", _Dec)
    mixed = _nvimgcodec.MixedDecoder(_FakeOp())
    active: list[int] = []

    class _Cuda:
        @contextlib.contextmanager
        def activate(self):
            active.append(threading.get_ident())
            yield self

    lock = threading.Lock()
    running = {"now": 0, "max": 0}
    held: set[int] = set()
    gate = threading.Barrier(3, timeout=10)

    def job(k, dec):
        with lock:
            assert id(dec) not in held  # a decoder serves one job at a time
            held.add(id(dec))
            running["now"] += 1
            running["max"] = max(running["max"], running["now"])
        if k < 3:
            gate.wait()  # the first three jobs can only pass together: they run at once
        with lock:
            running["now"] -= 1
            held.discard(id(dec))
        return k * 10

    futures = [mixed.submit(_Cuda(), lambda dec, k=k: job(k, dec)) for k in range(7)]
    assert [f.result(timeout=10) for f in futures] == [k * 10 for k in range(7)]
    assert running["max"] == 3 and len(made) == 3 and len(active) == 7
    mixed.close()
    assert mixed._decoders == [] and mixed._ahead is None


class _FakeOp:
    """What `MixedDecoder` reads of its operator."""

    pipeline = SimpleNamespace(device_id=0, num_threads=12, max_batch_size=256)
    args: ClassVar[dict[str, object]] = {
        "jpeg_fancy_upsampling": False,
        "hybrid_huffman_threshold": 1000 * 1000,
        "preallocate_width_hint": 0,
        "preallocate_height_hint": 0,
    }

    def has_arg(self, name):
        return False

    def arg(self, name):
        return self.args[name]


def test_the_parallel_decoders_share_the_pipelines_threads(monkeypatch):
    for parts, threads in ((1, 12), (2, 6), (3, 4), (5, 2), (24, 1)):
        monkeypatch.setattr(options, "PARALLEL_DECODES", parts)
        assert _nvimgcodec.MixedDecoder(_FakeOp()).threads_per_decoder() == threads


@pytest.mark.gpu
def test_the_mixed_decoder_needs_only_the_c_library(gpu, photos):
    """nvImageCodec's Python binding is never imported (it would start a second instance):
    the C library finds nvJPEG on its own, for the hardware and the CUDA decoders."""
    import subprocess
    import sys

    # one iteration in flight: the counters then hold exactly the returned batch
    script = f"""
import sys
from dali import fn, pipeline_def
from dali._ops.decoders.nvimgcodec import mixed as _nvimgcodec

@pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=1, prefetch_queue_depth=1)
def pipe():
    jpegs, _ = fn.readers.file(files={[str(f) for f in photos[:8]]!r})
    return fn.decoders.image(jpegs, device="mixed", name="dec", hw_decoder_load=0.5)

p = pipe()
(out,) = p.run()
stats = p._plan.by_name["dec"].impl.mixed.stats
print(len(out), int(stats["gpu"]), int(stats["cpu_samples"]), "nvidia.nvimgcodec" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-4:] == ["8", "8", "0", "False"], done.stdout + done.stderr[-2000:]
