"""`dali._ops.decoders.nvimgcodec.binding`: the ctypes binding to nvImageCodec's C API.

The CPU tests decode with nvImageCodec's CPU backend (libjpeg-turbo) into host numpy buffers and
need no CUDA: their pixels must equal those of nvImageCodec's own Python binding with the same
backend, and (measured: identical on every test image) those of our CPU decoder `_codecs`. The
GPU tests (``gpu`` marker) decode into CuPy buffers with the nvJPEG backends and compare with
the Python binding's GPU decode of the same batch. Every test runs on both ways of making the
per-sample C calls: compiled without the GIL (`_calls_jit`, with Numba) and through ctypes. The
whole module is skipped when nvImageCodec is not installed (CI).
"""

from __future__ import annotations

import ctypes
import io
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dali import _options as options
from dali._ops.decoders.nvimgcodec import binding as nvc
from dali._ops.decoders.nvimgcodec import capi

if not nvc.available():
    pytest.skip("nvImageCodec's C library is not installed", allow_module_level=True)

Image = pytest.importorskip("PIL.Image")
pytest.importorskip("cv2")
nv = pytest.importorskip("nvidia.nvimgcodec")

from dali._ops.decoders.image import codecs as _codecs
from dali._testing.images import photo

CPU = [("cpu", 1.0)]
GPU_BACKENDS = [("hw_gpu", 0.9), ("gpu", 1.0), ("hybrid", 1.0)]
SENTINEL = 7

# -- helpers -----------------------------------------------------------------------------------


@pytest.fixture(params=["compiled", "ctypes"], autouse=True)
def calls(request, monkeypatch) -> str:
    """Each test on both call paths of `binding.Decoder.decode`."""
    if request.param == "ctypes":
        monkeypatch.setattr(nvc, "compiled_calls", lambda: None)
    elif nvc.compiled_calls() is None:
        pytest.skip("the compiled calls need Numba")
    return request.param


#: ctypes callbacks handed to the compiled calls, alive until the end of the session
_CALLBACKS: list[Any] = []


def intercept(monkeypatch, lib: Any, name: str, fn: Any) -> None:
    """Route the library's function ``name`` through ``fn(*args)`` on both call paths: the
    ctypes function, and the address the compiled calls use (a ctypes callback, which takes
    the GIL to run ``fn``)."""
    monkeypatch.setattr(lib, name, fn)
    count = len(capi._SIGNATURES[f"nvimgcodec{name}"][0])
    callback = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_uint64] * count)(fn)
    _CALLBACKS.append(callback)
    monkeypatch.setitem(lib.address, name, np.uint64(ctypes.cast(callback, ctypes.c_void_p).value))


def jpeg(pixels: np.ndarray, **kw: Any) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "JPEG", quality=90, **kw)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


@pytest.fixture(scope="module")
def files(edge_images: dict[str, Path]) -> dict[str, np.ndarray]:
    """Encoded test JPEGs: baseline 4:2:0/4:4:4, progressive, grayscale, EXIF 6 and 3, odd sizes."""
    rng = np.random.default_rng(5)
    out = {
        name: np.fromfile(edge_images[name], dtype=np.uint8)
        for name in (
            "jpeg_444",
            "jpeg_progressive",
            "jpeg_gray",
            "jpeg_exif6",
            "jpeg_exif3",
            "tiny",
            "wide",
            "tall",
        )
    }
    out["baseline"] = jpeg(photo(123, 187, rng))
    out["baseline_big"] = jpeg(photo(301, 415, rng))
    out["progressive_big"] = jpeg(photo(260, 199, rng), progressive=True)
    return out


@pytest.fixture(scope="module")
def dec():
    with nvc.Decoder(nvc.CPU_ONLY_DEVICE, CPU, num_threads=2) as d:
        yield d


@pytest.fixture(scope="module")
def binding():
    """nvImageCodec's Python binding with the same CPU backend."""
    return nv.Decoder(device_id=nvc.CPU_ONLY_DEVICE, backends=[nv.Backend(nv.BackendKind.CPU_ONLY)])


def host_outputs(shapes: list[tuple[int, int, int]], pad: int = 0) -> tuple[list, list]:
    """Sentinel-filled host buffers with ``pad`` spare bytes per row: (images, (ptr, pitch))."""
    images, outputs = [], []
    for h, w, c in shapes:
        rows = np.full((h, w * c + pad), SENTINEL, dtype=np.uint8)
        images.append(rows)
        outputs.append((rows.ctypes.data, rows.strides[0]))
    return images, outputs


def pixels(rows: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    h, w, c = shape
    return rows[:, : w * c].reshape(h, w, c)


def decode_host(
    d: nvc.Decoder,
    datas: list[np.ndarray],
    regions: list[tuple[int, int, int, int] | None],
    shapes: list[tuple[int, int, int]],
    *,
    gray: bool,
    orient: bool = True,
    pad: int = 0,
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    rows, outputs = host_outputs(shapes, pad)
    ok = d.decode(
        datas, regions, outputs, shapes, gray=gray, apply_orientation=orient, device=False
    )
    return ok, [pixels(r, s) for r, s in zip(rows, shapes)], rows


def binding_params(gray: bool, orient: bool) -> Any:
    return nv.DecodeParams(
        apply_exif_orientation=orient,
        color_spec=nv.ColorSpec.GRAY if gray else nv.ColorSpec.SRGB,
        allow_any_depth=False,
    )


def code_stream(data: np.ndarray, region: tuple[int, int, int, int] | None) -> Any:
    cs = nv.CodeStream(data)
    return cs if region is None else cs.get_sub_code_stream(region=nv.Region(*region))


def display_shape(data: np.ndarray, gray: bool, orient: bool) -> tuple[int, int, int]:
    h, w = _codecs.decode(data, "gray", orientation=orient).shape[:2]
    return (h, w, 1 if gray else 3)


# -- layout ------------------------------------------------------------------------------------

C_NAMES = {
    capi._InstanceCreateInfo: "nvimgcodecInstanceCreateInfo_t",
    nvc.BackendParams: "nvimgcodecBackendParams_t",
    nvc.Backend: "nvimgcodecBackend_t",
    nvc.ExecutionParams: "nvimgcodecExecutionParams_t",
    nvc.DecodeParams: "nvimgcodecDecodeParams_t",
    capi._OutOfBoundsSample: "nvimgcodecOutOfBoundsSample_t",
    capi._Region: "nvimgcodecRegion_t",
    capi._CodeStreamView: "nvimgcodecCodeStreamView_t",
    capi._Orientation: "nvimgcodecOrientation_t",
    nvc.ImagePlaneInfo: "nvimgcodecImagePlaneInfo_t",
    capi._ImageInfo: "nvimgcodecImageInfo_t",
}

#: constants the module uses: C expression -> the module's value
C_CONSTANTS = {
    **{f"NVIMGCODEC_STRUCTURE_TYPE_{n}": v for n, v in nvc.ST.items()},
    **{f"NVIMGCODEC_STATUS_{n}": v for v, n in capi._STATUS_NAMES.items()},
    "NVIMGCODEC_BACKEND_KIND_CPU_ONLY": nvc.BACKEND_KINDS["cpu"],
    "NVIMGCODEC_BACKEND_KIND_GPU_ONLY": nvc.BACKEND_KINDS["gpu"],
    "NVIMGCODEC_BACKEND_KIND_HYBRID_CPU_GPU": nvc.BACKEND_KINDS["hybrid"],
    "NVIMGCODEC_BACKEND_KIND_HW_GPU_ONLY": nvc.BACKEND_KINDS["hw_gpu"],
    "NVIMGCODEC_LOAD_HINT_POLICY_FIXED": nvc.LOAD_HINT_POLICY_FIXED,
    "NVIMGCODEC_PROCESSING_STATUS_SUCCESS": nvc.PROCESSING_STATUS_SUCCESS,
    "NVIMGCODEC_SAMPLE_DATA_TYPE_UINT8": nvc.SAMPLE_TYPE_UINT8,
    "NVIMGCODEC_SAMPLING_NONE": nvc.SAMPLING_NONE,
    "NVIMGCODEC_COLORSPEC_SRGB": nvc.COLORSPEC_SRGB,
    "NVIMGCODEC_COLORSPEC_GRAY": nvc.COLORSPEC_GRAY,
    "NVIMGCODEC_SAMPLEFORMAT_P_Y": nvc.SAMPLEFORMAT_P_Y,
    "NVIMGCODEC_SAMPLEFORMAT_I_RGB": nvc.SAMPLEFORMAT_I_RGB,
    "NVIMGCODEC_IMAGE_BUFFER_KIND_STRIDED_DEVICE": nvc.BUFFER_KIND_STRIDED_DEVICE,
    "NVIMGCODEC_IMAGE_BUFFER_KIND_STRIDED_HOST": nvc.BUFFER_KIND_STRIDED_HOST,
    "NVIMGCODEC_DEBUG_MESSAGE_SEVERITY_DEFAULT": capi._DEBUG_SEVERITY_DEFAULT,
    "NVIMGCODEC_DEBUG_MESSAGE_SEVERITY_ALL": capi._DEBUG_SEVERITY_ALL,
    "NVIMGCODEC_DEBUG_MESSAGE_CATEGORY_ALL": capi._DEBUG_CATEGORY_ALL,
    "NVIMGCODEC_DEVICE_CPU_ONLY": nvc.CPU_ONLY_DEVICE,
    "NVIMGCODEC_DEVICE_CURRENT": nvc.CURRENT_DEVICE,
    "NVIMGCODEC_MAX_NUM_DIM": capi._MAX_NUM_DIM,
    "NVIMGCODEC_MAX_ROI_FILL_CHANNELS": capi._MAX_ROI_FILL_CHANNELS,
    "NVIMGCODEC_MAX_NUM_PLANES": capi._MAX_NUM_PLANES,
    "NVIMGCODEC_MAX_CODEC_NAME_SIZE": capi._MAX_CODEC_NAME_SIZE,
}


def test_layout_matches_the_recorded_header_layout():
    assert capi._layout_errors() == []
    assert nvc.INFO_DTYPE.itemsize == ctypes.sizeof(capi._ImageInfo) == 2160
    assert nvc.VIEW_DTYPE.itemsize == ctypes.sizeof(capi._CodeStreamView) == 152
    # the numpy record puts every field where the C structure has it
    for name in ("color_spec", "orientation", "num_planes", "plane_info", "buffer", "cuda_stream"):
        assert nvc.INFO_DTYPE.fields[name][1] == getattr(capi._ImageInfo, name).offset


def test_layout_and_constants_match_the_compiled_header(tmp_path: Path):
    """Every field offset, every size and every constant, from the header compiled with gcc."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    header = nvc.library_dir() / "include" / "nvimgcodec.h"
    if gcc is None or not header.is_file():
        pytest.skip("needs a C compiler and the nvImageCodec header")
    (tmp_path / "cuda_runtime_api.h").write_text("typedef void* cudaStream_t;\n")
    lines = [
        "#include <stdio.h>",
        "#include <stddef.h>",
        '#include "nvimgcodec.h"',
        "int main(void) {",
    ]
    expected = []
    for cls, c_name in C_NAMES.items():
        lines.append(f'printf("%zu\\n", sizeof({c_name}));')
        expected.append((f"sizeof {c_name}", ctypes.sizeof(cls)))
        for field, *_ in cls._fields_:
            lines.append(f'printf("%zu\\n", offsetof({c_name}, {field}));')
            expected.append((f"offsetof {c_name}.{field}", getattr(cls, field).offset))
    for expr, value in C_CONSTANTS.items():
        lines.append(f'printf("%lld\\n", (long long)({expr}));')
        expected.append((expr, value))
    lines.append("return 0; }")
    (tmp_path / "layout.c").write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run(
        [
            gcc,
            "-I",
            str(tmp_path),
            "-I",
            str(header.parent),
            str(tmp_path / "layout.c"),
            "-o",
            str(exe),
        ],
        check=True,
    )
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == len(expected)
    mismatches = [(what, int(g), v) for (what, v), g in zip(expected, got) if int(g) != v]
    assert mismatches == []


def test_available_and_library_dir():
    assert nvc.available()
    assert (nvc.library_dir() / "libnvimgcodec.so.0").is_file()
    assert (nvc.library_dir() / "extensions").is_dir()


def test_installed_version_is_the_supported_one():
    assert capi.installed_version().startswith(capi.SUPPORTED_VERSION + ".")


def test_another_minor_version_is_refused_with_what_to_install(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda dist: "0.10.1")
    monkeypatch.setattr(capi, "_lib", None)
    monkeypatch.setattr(capi, "_lib_error", None)
    with pytest.raises(ImportError, match=r"nvImageCodec 0\.10\.1 is installed.*0\.9 C API"):
        capi.library()
    assert not capi.available()  # the error is kept: every later call says the same


# -- decoding on the CPU backend ---------------------------------------------------------------

NAMES = [
    "baseline",
    "baseline_big",
    "jpeg_444",
    "jpeg_progressive",
    "progressive_big",
    "jpeg_gray",
    "jpeg_exif6",
    "jpeg_exif3",
    "tiny",
    "wide",
    "tall",
]


@pytest.mark.parametrize("gray", [False, True], ids=["rgb", "gray"])
@pytest.mark.parametrize("orient", [True, False], ids=["oriented", "raw"])
def test_whole_images_match_binding_and_cpu_decoder(files, dec, binding, gray, orient):
    datas = [files[n] for n in NAMES]
    shapes = [display_shape(d, gray, orient) for d in datas]
    ok, got, _ = decode_host(dec, datas, [None] * len(datas), shapes, gray=gray, orient=orient)
    assert ok.all(), dec.last_status
    assert (dec.last_status == 1).all()
    refs = binding.decode(
        [code_stream(d, None) for d in datas], params=binding_params(gray, orient)
    )
    for name, data, img, ref in zip(NAMES, datas, got, refs):
        ref = np.asarray(ref.cpu())
        assert ref.shape[:2] == img.shape[:2], name
        np.testing.assert_array_equal(img, ref.reshape(img.shape), err_msg=name)
        # our CPU decoder (OpenCV's libjpeg-turbo) gives the same pixels
        ours = _codecs.decode(data, "gray" if gray else "rgb", orientation=orient)
        np.testing.assert_array_equal(img, ours, err_msg=name)


def test_exif_orientation(files, dec):
    """EXIF 6 (90° clockwise): the raw top-left red block is at the top right when applied."""
    data = files["jpeg_exif6"]  # 48 x 64 stored
    ok_on, (on,), _ = decode_host(dec, [data], [None], [(64, 48, 3)], gray=False, orient=True)
    ok_off, (off,), _ = decode_host(dec, [data], [None], [(48, 64, 3)], gray=False, orient=False)
    assert ok_on[0] and ok_off[0]

    def red(img: np.ndarray) -> np.ndarray:
        return (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] < 60)

    assert red(off[:12, :16]).mean() > 0.9 and red(off[:12, -16:]).mean() < 0.1
    assert red(on[:16, -12:]).mean() > 0.9 and red(on[:16, :12]).mean() < 0.1
    np.testing.assert_array_equal(on, np.rot90(off, k=-1))
    # the display size is what must match: the raw size with orientation on is refused
    ok, _, rows = decode_host(dec, [data], [None], [(48, 64, 3)], gray=False, orient=True)
    assert not ok[0] and (rows[0] == SENTINEL).all()


REGIONS = {
    # name: regions as fractions of the display size (y0, x0, y1, x1)
    "baseline_big": [(0.1, 0.2, 0.9, 0.7), (0.0, 0.0, 1.0, 1.0), (0.5, 0.5, 0.53, 0.61)],
    "progressive_big": [(0.3, 0.1, 0.8, 0.95)],
    "jpeg_exif6": [(0.05, 0.1, 0.9, 0.96), (0.5, 0.33, 0.65, 0.7)],
    "jpeg_gray": [(0.2, 0.2, 0.7, 0.9)],
    "wide": [(0.0, 0.3, 1.0, 0.6)],
}


def region_batch(files, gray: bool, orient: bool) -> tuple[list, list, list, list]:
    names, datas, regions, shapes = [], [], [], []
    for name, fracs in REGIONS.items():
        h, w, c = display_shape(files[name], gray, orient)
        for fy0, fx0, fy1, fx1 in fracs:
            y0, x0 = int(fy0 * h), int(fx0 * w)
            y1, x1 = max(y0 + 1, int(fy1 * h)), max(x0 + 1, int(fx1 * w))
            names.append(name)
            datas.append(files[name])
            regions.append((y0, x0, y1, x1))
            shapes.append((y1 - y0, x1 - x0, c))
    return names, datas, regions, shapes


@pytest.mark.parametrize("gray", [False, True], ids=["rgb", "gray"])
@pytest.mark.parametrize("orient", [True, False], ids=["oriented", "raw"])
def test_regions_match_binding_and_crops(files, dec, binding, gray, orient):
    names, datas, regions, shapes = region_batch(files, gray, orient)
    # a whole image in the same batch as the regions
    names += ["baseline"]
    datas += [files["baseline"]]
    regions += [None]
    shapes += [display_shape(files["baseline"], gray, orient)]
    ok, got, _ = decode_host(dec, datas, regions, shapes, gray=gray, orient=orient)
    assert ok.all(), dec.last_status
    refs = binding.decode(
        [code_stream(d, r) for d, r in zip(datas, regions)], params=binding_params(gray, orient)
    )
    for name, data, region, img, ref in zip(names, datas, regions, got, refs):
        np.testing.assert_array_equal(img, np.asarray(ref.cpu()).reshape(img.shape), name)
        full = _codecs.decode(data, "gray" if gray else "rgb", orientation=orient)
        if region is not None:
            y0, x0, y1, x1 = region
            full = full[y0:y1, x0:x1]
        np.testing.assert_array_equal(img, full, err_msg=f"{name} {region}")


def test_broken_samples_fail_alone(files, dec, edge_images):
    """Corrupt, truncated, empty and non-image data give False; the rest of the batch decodes."""
    good = files["baseline"]
    broken = {
        n: np.fromfile(edge_images[n], dtype=np.uint8)
        for n in ("corrupt", "truncated", "empty", "text")
    }
    datas = [
        good,
        broken["corrupt"],
        broken["truncated"],
        good,
        broken["empty"],
        broken["text"],
        good,
    ]
    shape = display_shape(good, False, True)
    # the truncated file is the first half of a 120x160 JPEG
    shapes = [shape, (10, 10, 3), (120, 160, 3), shape, (10, 10, 3), (10, 10, 3), shape]
    regions = [None, None, None, (5, 6, 50, 70), None, None, None]
    shapes[3] = (45, 64, 3)
    ok, got, rows = decode_host(dec, datas, regions, shapes, gray=False)
    assert ok.tolist() == [True, False, False, True, False, False, True]
    assert dec.last_status[~ok].tolist() != [1] * 4
    ref = _codecs.decode(good, "rgb")
    for i in (0, 6):
        np.testing.assert_array_equal(got[i], ref)
    np.testing.assert_array_equal(got[3], ref[5:50, 6:70])
    for i in (1, 4, 5):  # never submitted: untouched
        assert (rows[i] == SENTINEL).all()


def test_a_large_batch_is_decoded_in_calls_of_max_call(files, dec, edge_images, monkeypatch):
    """Beyond `MAX_CALL` samples the batch goes in several calls: the same pixels, ok flags
    and statuses as one call, in sample order."""
    good = files["baseline"]
    corrupt = np.fromfile(edge_images["corrupt"], dtype=np.uint8)
    shape = display_shape(good, False, True)
    datas = [good, corrupt, good, good, corrupt, good, good]
    regions = [None, None, (5, 6, 50, 70), None, None, (0, 0, 8, 8), None]
    shapes = [shape, (10, 10, 3), (45, 64, 3), shape, (10, 10, 3), (8, 8, 3), shape]
    ok1, got1, _ = decode_host(dec, datas, regions, shapes, gray=False)
    status1 = dec.last_status.copy()
    monkeypatch.setattr(options, "MAX_CALL", 3)
    calls = []
    one_call = dec._decode

    def counted(handle, part, *rest):
        calls.append(len(part))
        return one_call(handle, part, *rest)

    monkeypatch.setattr(dec, "_decode", counted)
    ok3, got3, _ = decode_host(dec, datas, regions, shapes, gray=False)
    assert calls == [3, 3, 1]
    assert ok1.tolist() == ok3.tolist() == [True, False, True, True, False, True, True]
    assert dec.last_status.tolist() == status1.tolist()
    for i in np.flatnonzero(ok1):
        np.testing.assert_array_equal(got1[i], got3[i])


def test_mismatched_shapes_and_regions_are_refused(files, dec):
    """A shape or region that does not fit the image is False and its buffer is untouched."""
    good = files["baseline"]  # 123 x 187
    datas = [good] * 5
    regions = [None, None, (0, 0, 124, 10), (100, 180, 110, 188), (10, 10, 20, 30)]
    shapes = [(123, 187, 3), (122, 187, 3), (124, 10, 3), (10, 8, 3), (10, 21, 3)]
    ok, _, rows = decode_host(dec, datas, regions, shapes, gray=False)
    assert ok.tolist() == [True, False, False, False, False]
    assert dec.last_status.tolist() == [1, 0, 0, 0, 0]
    for r in rows[1:]:
        assert (r == SENTINEL).all()


def test_a_failing_code_stream_fails_alone(files, dec, monkeypatch):
    """A code stream nvImageCodec refuses to create shifts neither the regions nor the outputs."""
    lib = nvc.library()
    create = lib.CodeStreamCreateFromHostMem
    calls = []

    def first_fails(*args: Any) -> int:
        calls.append(args)
        return 3 if len(calls) == 1 else create(*args)  # NVIMGCODEC_STATUS_BAD_CODESTREAM

    intercept(monkeypatch, lib, "CodeStreamCreateFromHostMem", first_fails)
    data = files["baseline_big"]
    regions = [(0, 0, 10, 10), (20, 30, 50, 90), None]
    shapes = [(10, 10, 3), (30, 60, 3), display_shape(data, False, True)]
    ok, got, rows = decode_host(dec, [data] * 3, regions, shapes, gray=False)
    assert ok.tolist() == [False, True, True]
    assert (rows[0] == SENTINEL).all()
    full = _codecs.decode(data, "rgb")
    np.testing.assert_array_equal(got[1], full[20:50, 30:90])
    np.testing.assert_array_equal(got[2], full)


def test_code_streams_get_the_arrays_addresses(files, dec, monkeypatch):
    """Writable, read-only, offset and empty arrays: each code stream gets the array's address
    and size (read through the buffer protocol where it can be), and the same pixels."""
    lib = nvc.library()
    create = lib.CodeStreamCreateFromHostMem
    seen = []

    def recorded(*args: Any) -> int:
        seen.append(args[2:4])
        return create(*args)

    intercept(monkeypatch, lib, "CodeStreamCreateFromHostMem", recorded)
    good = files["baseline"]
    readonly = np.frombuffer(good.tobytes(), dtype=np.uint8)
    offset = np.concatenate([np.zeros(3, dtype=np.uint8), good])[3:]
    datas = [good, readonly, offset, np.zeros(0, dtype=np.uint8), good[:1]]
    shape = display_shape(good, False, True)
    regions = [None, (1, 2, 30, 40), None, None, None]
    shapes = [shape, (29, 38, 3), shape, (10, 10, 3), (10, 10, 3)]
    ok, got, _ = decode_host(dec, datas, regions, shapes, gray=False)
    assert ok.tolist() == [True, True, True, False, False]
    assert seen == [(d.ctypes.data, d.nbytes) for d in datas]
    np.testing.assert_array_equal(got[1], got[0][1:30, 2:40])
    np.testing.assert_array_equal(got[2], got[0])


@pytest.mark.parametrize("gray", [False, True], ids=["rgb", "gray"])
def test_row_pitch_larger_than_the_row(files, dec, gray):
    datas = [files["baseline"], files["jpeg_exif6"], files["baseline_big"]]
    regions = [None, (3, 4, 40, 30), (10, 20, 200, 333)]
    shapes = [
        display_shape(datas[0], gray, True),
        (37, 26, 1 if gray else 3),
        (190, 313, 1 if gray else 3),
    ]
    ok, got, rows = decode_host(dec, datas, regions, shapes, gray=gray, pad=13)
    assert ok.all()
    _, tight, _ = decode_host(dec, datas, regions, shapes, gray=gray)
    for img, ref, r, s in zip(got, tight, rows, shapes):
        np.testing.assert_array_equal(img, ref)
        assert (r[:, s[1] * s[2] :] == SENTINEL).all()  # the padding is untouched


def test_decode_twice_into_the_same_buffers(files, dec):
    datas = [files[n] for n in NAMES]
    shapes = [display_shape(d, False, True) for d in datas]
    rows, outputs = host_outputs(shapes)
    kw = {"gray": False, "apply_orientation": True, "device": False}
    assert dec.decode(datas, [None] * len(datas), outputs, shapes, **kw).all()
    first = [r.copy() for r in rows]
    for r in rows:
        r[...] = SENTINEL
    assert dec.decode(datas, [None] * len(datas), outputs, shapes, **kw).all()
    for a, b in zip(first, rows):
        np.testing.assert_array_equal(a, b)


def test_close_and_reuse(files):
    data = files["baseline"]
    shape = display_shape(data, False, True)
    d = nvc.Decoder(nvc.CPU_ONLY_DEVICE, CPU, num_threads=1)
    assert not d.closed
    ok, first, _ = decode_host(d, [data], [None], [shape], gray=False)
    assert ok[0]
    d.close()
    d.close()  # idempotent
    assert d.closed
    with pytest.raises(ValueError, match="closed"):
        decode_host(d, [data], [None], [shape], gray=False)
    with nvc.Decoder(nvc.CPU_ONLY_DEVICE, CPU, num_threads=1) as d2:
        ok, again, _ = decode_host(d2, [data], [None], [shape], gray=False)
    assert d2.closed
    assert ok[0]
    np.testing.assert_array_equal(first[0], again[0])
    # garbage collection closes too
    nvc.Decoder(nvc.CPU_ONLY_DEVICE, [], num_threads=1).__del__()


def test_threads_share_a_decoder(files, dec):
    datas = [files[n] for n in NAMES]
    shapes = [display_shape(d, False, True) for d in datas]
    want = [_codecs.decode(d, "rgb") for d in datas]
    errors = []

    def work() -> None:
        try:
            for _ in range(3):
                ok, got, _ = decode_host(dec, datas, [None] * len(datas), shapes, gray=False)
                assert ok.all()
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g, w)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_argument_errors(files, dec):
    data = files["baseline"]
    shape = (123, 187, 3)
    _, outputs = host_outputs([shape])
    kw = {"gray": False, "apply_orientation": True, "device": False}
    assert dec.decode([], [], [], [], **kw).shape == (0,)
    with pytest.raises(ValueError, match="differ in length"):
        dec.decode([data], [], outputs, [shape], **kw)
    with pytest.raises(ValueError, match="channels"):
        dec.decode([data], [None], outputs, [(123, 187, 1)], **kw)
    with pytest.raises(ValueError, match="pitch"):
        dec.decode([data], [None], [(outputs[0][0], 100)], [shape], **kw)
    with pytest.raises(ValueError, match="null"):
        dec.decode([data], [None], [(0, 561)], [shape], **kw)
    with pytest.raises(ValueError, match="positive"):
        dec.decode([data], [None], outputs, [(0, 187, 3)], **kw)
    with pytest.raises(ValueError, match="region"):
        dec.decode([data], [(-1, 0, 122, 187)], outputs, [shape], **kw)
    with pytest.raises(ValueError, match="contiguous"):
        dec.decode([np.repeat(data, 2)[::2]], [None], outputs, [shape], **kw)
    with pytest.raises(ValueError, match="unknown backend"):
        nvc.Decoder(nvc.CPU_ONLY_DEVICE, [("cuda", 1.0)], 1)


def test_codec_error_names_function_and_status():
    with pytest.raises(
        nvc.CodecError, match=r"nvimgcodecDecoderCreate failed with NVIMGCODEC_STATUS_"
    ) as e:
        nvc.Decoder(12345, [("gpu", 1.0)], 1)  # a device that does not exist
    assert e.value.function == "nvimgcodecDecoderCreate"
    assert e.value.status != 0
    assert "INVALID_PARAMETER (2)" in str(nvc.CodecError("f", 2))


# -- the GIL -----------------------------------------------------------------------------------


#: the decode's long calls: nvImageCodec decodes and waits for the batch inside them
LONG_CALLS = ("DecoderDecode", "FutureWaitForAll")


def test_the_long_calls_release_the_gil():
    """They are functions of the library's ``CDLL`` view, which ctypes calls without the GIL;
    the short per-sample ones are of its ``PyDLL`` view, which keeps it."""
    lib = capi.library()
    for name in LONG_CALLS:
        assert capi._SIGNATURES[f"nvimgcodec{name}"][1] is True
        assert not getattr(lib, name)._flags_ & ctypes._FUNCFLAG_PYTHONAPI, name
    assert lib.ImageCreate._flags_ & ctypes._FUNCFLAG_PYTHONAPI


def check_gil_free(monkeypatch, lib: Any, run: Any) -> None:
    """Another Python thread runs while ``run()`` decodes a batch: the GIL is free in the
    long calls.

    The interpreter's switch interval is made so long that no thread is ever made to drop
    the GIL: another thread then runs only when the decoding thread gives the GIL up itself.
    A watcher thread notes whether it ran while one of the long calls was in progress (they
    are wrapped to say so): it can only if the call released the GIL; kept, the watcher
    could not run before the call returned and the flag was cleared. (The watcher gives the
    GIL back every millisecond, so that the call can return.)
    """
    inside = [False]
    seen = [0]
    stop = threading.Event()

    def wrapped(real: Any) -> Any:
        def call(*args: Any) -> Any:
            inside[0] = True
            try:
                return real(*args)
            finally:
                inside[0] = False

        return call

    def watch() -> None:
        while not stop.is_set():
            if inside[0]:
                seen[0] += 1
            time.sleep(0.001)  # (gives the GIL back)

    for name in LONG_CALLS:
        intercept(monkeypatch, lib, name, wrapped(getattr(lib, name)))
    interval = sys.getswitchinterval()
    watcher = threading.Thread(target=watch, daemon=True)
    try:
        sys.setswitchinterval(1000.0)
        watcher.start()
        run()
    finally:
        sys.setswitchinterval(interval)
        stop.set()
    watcher.join()
    assert seen[0] > 0, "no other thread ran while the batch decoded: the GIL was held"


def test_gil_is_free_while_a_batch_decodes(files, monkeypatch):
    # one decoder thread and one spinning thread fit the two cores of the smallest machine
    data = files["baseline_big"]
    shape = display_shape(data, False, True)
    with nvc.Decoder(nvc.CPU_ONLY_DEVICE, CPU, num_threads=1) as d:

        def run(n: int = 64) -> None:  # (a batch of ~0.1 s or more: the watcher wakes in it)
            rows, outputs = host_outputs([shape] * n)
            ok = d.decode(
                [data] * n,
                [None] * n,
                outputs,
                [shape] * n,
                gray=False,
                apply_orientation=True,
                device=False,
            )
            assert ok.all() and len(rows) == n

        check_gil_free(monkeypatch, d._lib, run)


def test_compiled_per_sample_calls_free_the_gil(files, dec, calls):
    """The code streams, regions and image infos of a batch: compiled, made without the GIL;
    through ctypes, with it (no sample fits its output here, so no decode call is made)."""
    from dali._testing.gil import gives_gil_up

    data = files["baseline_big"]
    h, w, _ = display_shape(data, False, True)
    n = 256
    regions = [(1, 2, h - 3, w - 4)] * n
    wrong = [(h - 3, w - 5, 3)] * n  # one column short of each region

    rows, outputs = host_outputs(wrong)  # (numpy fills large arrays without the GIL)

    def run() -> None:
        ok = dec.decode(
            [data] * n, regions, outputs, wrong, gray=False, apply_orientation=True, device=False
        )
        assert not ok.any() and len(rows) == n

    run()
    assert gives_gil_up(run, repeat=5) == (calls == "compiled")


# -- GPU ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


def binding_backends(backends: list[tuple[str, float]]) -> list[Any]:
    kinds = {
        "hw_gpu": nv.BackendKind.HW_GPU_ONLY,
        "gpu": nv.BackendKind.GPU_ONLY,
        "hybrid": nv.BackendKind.HYBRID_CPU_GPU,
        "cpu": nv.BackendKind.CPU_ONLY,
    }
    return [
        nv.Backend(kinds[k], load_hint=load, load_hint_policy=nv.LoadHintPolicy.FIXED)
        for k, load in backends
    ]


def gpu_batch(files, gray: bool) -> tuple[list, list, list]:
    """Whole images and regions (EXIF 6 in display coordinates included), oriented."""
    _, datas, regions, shapes = region_batch(files, gray, True)
    for name in NAMES:
        datas.append(files[name])
        regions.append(None)
        shapes.append(display_shape(files[name], gray, True))
    return datas, regions, shapes


def decode_device(cp, d, datas, regions, shapes, gray: bool, stream, pad: int = 0):
    with stream:
        rows = [cp.full((h, w * c + pad), SENTINEL, dtype=cp.uint8) for h, w, c in shapes]
    outputs = [(r.data.ptr, r.strides[0]) for r in rows]
    ok = d.decode(
        datas,
        regions,
        outputs,
        shapes,
        gray=gray,
        apply_orientation=True,
        device=True,
        cuda_stream=stream.ptr,
    )
    stream.synchronize()
    return (
        ok,
        [pixels(cp.asnumpy(r), s) for r, s in zip(rows, shapes)],
        [cp.asnumpy(r) for r in rows],
    )


@pytest.mark.gpu
@pytest.mark.parametrize("gray", [False, True], ids=["rgb", "gray"])
@pytest.mark.parametrize(
    "backends",
    [GPU_BACKENDS, [("gpu", 1.0)], [("hybrid", 1.0)]],
    ids=["hw+gpu+hybrid", "gpu", "hybrid"],
)
def test_gpu_matches_binding(cp, files, backends, gray):
    datas, regions, shapes = gpu_batch(files, gray)
    stream = cp.cuda.Stream(non_blocking=True)
    if backends == [("gpu", 1.0)]:
        # Seen on an H200 with nvImageCodec 0.9: a C-API decoder with the CUDA backend alone
        # fails to create (ARCH_MISMATCH) where the binding's works; the decoders we make
        # (hardware, CUDA, hybrid) and the hybrid alone pass. Not investigated yet.
        try:
            nvc.Decoder(0, backends, num_threads=4).close()
        except nvc.CodecError as e:
            pytest.xfail(f"CUDA-only C-API decoder: {e}")
    with nvc.Decoder(0, backends, num_threads=4) as d:
        ok, got, _ = decode_device(cp, d, datas, regions, shapes, gray, stream)
    assert ok.all(), d.last_status
    b = nv.Decoder(device_id=0, max_num_cpu_threads=4, backends=binding_backends(backends))
    refs = b.decode(
        [code_stream(x, r) for x, r in zip(datas, regions)],
        params=binding_params(gray, True),
        cuda_stream=stream.ptr,
    )
    refs = [cp.asnumpy(cp.asarray(r)) for r in refs]
    stream.synchronize()
    for i, (img, ref) in enumerate(zip(got, refs)):
        np.testing.assert_array_equal(
            img, ref.reshape(img.shape), err_msg=f"sample {i} {regions[i]}"
        )


@pytest.mark.gpu
def test_gpu_regions_are_crops_in_display_coordinates(cp, files):
    """A region decode is the same part of the whole decode (EXIF 6: display coordinates)."""
    names, datas, regions, shapes = region_batch(files, False, True)
    stream = cp.cuda.Stream(non_blocking=True)
    with nvc.Decoder(0, GPU_BACKENDS, num_threads=4) as d:
        ok, got, _ = decode_device(cp, d, datas, regions, shapes, False, stream)
        assert ok.all(), d.last_status
        whole_shapes = [display_shape(x, False, True) for x in datas]
        ok, whole, _ = decode_device(cp, d, datas, [None] * len(datas), whole_shapes, False, stream)
        assert ok.all(), d.last_status
    for name, (y0, x0, y1, x1), img, full in zip(names, regions, got, whole):
        diff = np.abs(img.astype(np.int16) - full[y0:y1, x0:x1])
        # decoders may differ by a level or two at the region's edges (chroma upsampling); a
        # region in raw instead of display coordinates differs everywhere
        assert diff.mean() < 0.5 and diff.max() <= 16, (name, diff.mean(), diff.max())


@pytest.mark.gpu
@pytest.mark.parametrize("gray", [False, True], ids=["rgb", "gray"])
def test_gpu_row_pitch_and_cpu_backend_into_device_memory(cp, files, dec, gray):
    datas, regions, shapes = gpu_batch(files, gray)
    stream = cp.cuda.Stream(non_blocking=True)
    with nvc.Decoder(0, GPU_BACKENDS, num_threads=4) as d:
        ok, tight, _ = decode_device(cp, d, datas, regions, shapes, gray, stream)
        ok2, padded, rows = decode_device(cp, d, datas, regions, shapes, gray, stream, pad=29)
    assert ok.all() and ok2.all()
    for a, b, r, s in zip(tight, padded, rows, shapes):
        np.testing.assert_array_equal(a, b)
        assert (r[:, s[1] * s[2] :] == SENTINEL).all()
    # the CPU backend decoding into device memory (nvImageCodec copies through pinned memory)
    # gives the host decode's pixels
    with nvc.Decoder(0, CPU, num_threads=2) as d:
        ok, on_device, _ = decode_device(cp, d, datas, regions, shapes, gray, stream)
    assert ok.all()
    ok, on_host, _ = decode_host(dec, datas, regions, shapes, gray=gray)
    assert ok.all()
    for a, b in zip(on_device, on_host):
        np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_gpu_broken_samples_fail_alone(cp, files, edge_images):
    good = files["baseline"]
    broken = [np.fromfile(edge_images[n], dtype=np.uint8) for n in ("corrupt", "truncated", "text")]
    datas = [good, *broken, good]
    shape = display_shape(good, False, True)
    shapes = [shape, (10, 10, 3), (120, 160, 3), (10, 10, 3), shape]
    stream = cp.cuda.Stream(non_blocking=True)
    with nvc.Decoder(0, GPU_BACKENDS, num_threads=4) as d:
        ok, got, _ = decode_device(cp, d, datas, [None] * 5, shapes, False, stream)
    # nvJPEG may decode the truncated file's first half without an error: not asserted
    assert ok[[0, 1, 3, 4]].tolist() == [True, False, False, True], d.last_status
    np.testing.assert_array_equal(got[0], got[4])


@pytest.mark.gpu
def test_gpu_gil_is_free_while_a_batch_decodes(cp, files, monkeypatch):
    data = files["baseline_big"]
    shape = display_shape(data, False, True)
    stream = cp.cuda.Stream(non_blocking=True)
    with nvc.Decoder(0, GPU_BACKENDS, num_threads=4) as d:

        def run(n: int = 256) -> None:
            with stream:
                out = cp.empty((n, *shape), dtype=cp.uint8)
            outputs = [(out.data.ptr + i * out.strides[0], out.strides[1]) for i in range(n)]
            stream.synchronize()
            ok = d.decode(
                [data] * n,
                [None] * n,
                outputs,
                [shape] * n,
                gray=False,
                apply_orientation=True,
                device=True,
                cuda_stream=stream.ptr,
            )
            stream.synchronize()
            assert ok.all(), d.last_status

        check_gil_free(monkeypatch, d._lib, run)
