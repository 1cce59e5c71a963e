"""`fn.decoders.image`, `image_crop`, `image_slice`, `image_random_crop` on the CPU.

The oracle is Pillow (DALI's CPU decode was observed to be bit-identical to
``PIL.Image.open(f).convert("RGB")``), OpenCV's own gray decode for GRAY, and numpy slicing of
the full decode for the crop variants.
"""

from __future__ import annotations

import io
import logging
import warnings
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
Image = pytest.importorskip("PIL.Image")
ImageOps = pytest.importorskip("PIL.ImageOps")

from dali import fn, ops, pipeline_def, types
from dali._exec.rng import SampleRNG, combine
from dali._graph.schema import get_schema
from dali._ops.decoders.image import codecs as _codecs
from dali._ops.decoders.image.decoder import header_shapes, size_hint
from dali._ops.window.random_crop import RandomCropParams, random_crop_windows
from dali._testing.images import (
    make_edge_cases,
    make_image_tree,
    photo,
    tree_image_size,
)
from dali.pipeline import Pipeline

DECODERS = ["image", "image_crop", "image_slice", "image_random_crop"]


# -- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_edge_cases(tmp_path_factory.mktemp("edge"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_image_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture(scope="module")
def extra(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Files the shared edge cases do not have."""
    root = tmp_path_factory.mktemp("extra")
    rng = np.random.default_rng(3)
    rgb = Image.fromarray(photo(36, 52, rng))
    out: dict[str, Path] = {}

    def save(name: str, img: Image.Image, fmt: str, **kw: object) -> None:
        out[name] = root / name
        img.save(out[name], fmt, **kw)

    save("la.png", rgb.convert("LA"), "PNG")
    rgba = rgb.copy()
    rgba.putalpha(Image.fromarray(rng.integers(0, 256, (36, 52), dtype=np.uint8)))
    save("rgba.tiff", rgba, "TIFF")
    save("gray.tiff", rgb.convert("L"), "TIFF")
    save("lzw.tiff", rgb, "TIFF", compression="tiff_lzw")
    save("rgba.webp", rgba, "WEBP", lossless=True)
    save("image.jp2", rgb, "JPEG2000")
    save("gray.jp2", rgb.convert("L"), "JPEG2000")
    save("solid.png", Image.new("RGB", (5, 4), (0, 255, 3)), "PNG")
    save("solid.tiff", Image.new("RGB", (5, 4), (0, 255, 3)), "TIFF")
    save("white.png", Image.new("RGB", (3, 2), (255, 255, 255)), "PNG")
    save("q95.jpg", rgb, "JPEG", quality=95)
    for o in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = o
        save(f"exif{o}.jpg", rgb, "JPEG", quality=90, exif=exif.tobytes())
    exif = Image.Exif()
    exif[0x0112] = 6
    save("exif6.png", rgb, "PNG", exif=exif.tobytes())
    save("exif6.webp", rgb, "WEBP", lossless=True, exif=exif.tobytes())
    save("exif8.tiff", rgb, "TIFF", tiffinfo={274: 8})
    a16 = rng.integers(0, 65536, size=(20, 30, 3), dtype=np.uint16)
    a16[0, 0] = (65535, 0, 128)
    out["rgb16.png"] = root / "rgb16.png"
    cv2.imwrite(str(out["rgb16.png"]), a16[:, :, ::-1])
    out["gray16.png"] = root / "gray16.png"
    cv2.imwrite(str(out["gray16.png"]), a16[:, :, 0])
    np.save(root / "rgb16.npy", a16)
    out["gif"] = root / "anim.gif"
    rgb.convert("P").save(out["gif"], "GIF")
    # a JPEG whose EXIF thumbnail ends with an end-of-image marker, truncated after that
    big = Image.fromarray(photo(120, 160, rng))
    thumb = io.BytesIO()
    big.resize((16, 12)).save(thumb, "JPEG")
    exif = Image.Exif()
    exif[0x0112] = 1
    data = io.BytesIO()
    big.save(data, "JPEG", quality=90, exif=exif.tobytes() + thumb.getvalue())
    out["thumb_truncated.jpg"] = root / "thumb_truncated.jpg"
    out["thumb_truncated.jpg"].write_bytes(data.getvalue()[: len(data.getvalue()) * 2 // 3])
    return out


def pil_rgb(path: Path, orient: bool = True) -> np.ndarray:
    im = Image.open(path)
    if orient:
        im = ImageOps.exif_transpose(im)
    return np.asarray(im.convert("RGB"))


def run_files(files, op="image", *, num_threads=2, batch_size=None, seed=42, outputs=None, **kw):
    """Decode ``files`` (in order, one batch) with ``fn.decoders.<op>``; returns the arrays."""
    files = [str(f) for f in files]
    bs = batch_size or len(files)

    @pipeline_def(batch_size=bs, num_threads=num_threads, device_id=None, seed=seed)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        return getattr(fn.decoders, op)(jpegs, **kw)

    p = pipe()
    p.build()
    out = []
    for _ in range(-(-len(files) // bs)):
        (tl,) = p.run()
        out.extend(tl.at(i) for i in range(len(tl)))
    return out[: len(files)]


def decode1(path, op="image", **kw) -> np.ndarray:
    return run_files([path], op, **kw)[0]


# -- schema ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DECODERS)
def test_schema_devices_and_layout(name: str) -> None:
    schema = get_schema(f"decoders.{name}")
    assert schema.devices == ("cpu", "mixed")
    for arg in ("output_type", "dtype", "adjust_orientation", "hw_decoder_load", "on_error"):
        assert arg in schema.args
    assert ("seed" in schema.args) == (name == "image_random_crop")


def test_mixed_only_arguments_accepted_on_cpu(tree: list[Path]) -> None:
    img = decode1(
        tree[0],
        hw_decoder_load=0.9,
        device_memory_padding=1,
        host_memory_padding=2,
        preallocate_width_hint=10,
        preallocate_height_hint=10,
        hybrid_huffman_threshold=5,
        use_fast_idct=False,
        jpeg_fancy_upsampling=True,
        affine=False,
        cache_size=10,
        cache_type="largest",
        cache_threshold=1,
        cache_debug=False,
        split_stages=True,
        memory_stats=True,
    )
    assert np.array_equal(img, pil_rgb(tree[0]))


def test_mixed_device_needs_a_gpu(tree: list[Path]) -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(tree[0])])
        return fn.decoders.image(jpegs, device="mixed")

    with pytest.raises(RuntimeError, match="GPU"):
        pipe().build()


def test_legacy_ops_aliases(tree: list[Path]) -> None:
    files = [str(tree[0])]

    class P(Pipeline):
        def __init__(self, decoder_cls):
            super().__init__(batch_size=1, num_threads=1, device_id=None)
            self.input = ops.readers.File(files=files)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                self.decode = decoder_cls(device="cpu", output_type=types.RGB)
            self.deprecated = any(issubclass(x.category, DeprecationWarning) for x in w)

        def define_graph(self):
            jpegs, _ = self.input()
            return self.decode(jpegs)

    for cls in (ops.nvJPEGDecoder, ops.ImageDecoder, ops.decoders.Image):
        p = P(cls)
        (out,) = p.run()
        assert np.array_equal(out.at(0), pil_rgb(tree[0]))
        assert p.deprecated == (cls is not ops.decoders.Image)
    for name in ("ImageDecoderCrop", "ImageDecoderRandomCrop", "ImageDecoderSlice", "HostDecoder"):
        assert hasattr(ops, name)


def test_output_metadata_static() -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=["x.jpg"])
        a = fn.decoders.image(jpegs)
        b = fn.decoders.image(jpegs, dtype=types.FLOAT)
        assert (a.ndim, a.layout, a.dtype) == (3, "HWC", types.UINT8)
        assert (b.ndim, b.dtype) == (3, types.FLOAT)
        return a

    pipe()  # tracing only


# -- formats -----------------------------------------------------------------------------------

RGB_EDGE = [
    "png_rgb",
    "png_rgba",
    "png_gray",
    "png_palette",
    "jpeg_gray",
    "jpeg_progressive",
    "jpeg_cmyk",
    "jpeg_444",
    "jpeg_exif6",
    "jpeg_exif3",
    "tiny",
    "tiny_png",
    "wide",
    "tall",
    "bmp",
    "tiff",
    "webp",
    "webp_lossless",
    "ppm",
    "pgm",
    "pbm",
]


def test_rgb_equals_pillow_for_every_format(edge: dict[str, Path]) -> None:
    files = [edge[k] for k in RGB_EDGE]
    outs = run_files(files)
    for key, f, out in zip(RGB_EDGE, files, outs):
        ref = pil_rgb(f)
        assert out.dtype == np.uint8 and out.shape == ref.shape, key
        assert np.array_equal(out, ref), key


def test_rgb_equals_pillow_more_formats(extra: dict[str, Path]) -> None:
    keys = ["rgba.tiff", "gray.tiff", "lzw.tiff", "rgba.webp", "image.jp2", "gray.jp2", "q95.jpg"]
    outs = run_files([extra[k] for k in keys])
    for key, out in zip(keys, outs):
        assert np.array_equal(out, pil_rgb(extra[key])), key


def test_baseline_jpeg_tree_is_bit_identical_to_pillow(tree: list[Path]) -> None:
    outs = run_files(tree, batch_size=8, num_threads=3)
    assert len(outs) == 21
    for f, out in zip(tree, outs):
        assert np.array_equal(out, pil_rgb(f))


def test_bgr_is_reversed_rgb(edge: dict[str, Path]) -> None:
    keys = ["jpeg_444", "png_rgba", "tiff", "jpeg_cmyk", "webp"]
    rgb = run_files([edge[k] for k in keys])
    bgr = run_files([edge[k] for k in keys], output_type=types.BGR)
    for a, b in zip(rgb, bgr):
        assert np.array_equal(b, a[:, :, ::-1])


def test_gray_jpeg_is_the_decoders_luma(edge: dict[str, Path], tree: list[Path]) -> None:
    # (CMYK JPEGs are the exception: see test_gray_of_cmyk_jpeg_truncates_like_dali)
    files = [tree[0], tree[6], edge["jpeg_progressive"], edge["jpeg_gray"]]
    outs = run_files(files, output_type=types.GRAY)
    for f, out in zip(files, outs):
        ref = cv2.imread(str(f), cv2.IMREAD_GRAYSCALE)
        assert out.shape == (*ref.shape, 1)
        assert np.array_equal(out[:, :, 0], ref)
    # ... which is not the luma formula applied to the RGB decode
    rgb = pil_rgb(tree[0]).astype(np.float32)
    formula = np.floor(rgb @ np.float32([0.299, 0.587, 0.114]) + 0.5)
    assert not np.array_equal(outs[0][:, :, 0], formula)


def test_gray_other_formats(edge: dict[str, Path], extra: dict[str, Path]) -> None:
    keys = ["png_rgb", "bmp", "webp", "ppm", "pgm", "png_gray"]
    outs = run_files([edge[k] for k in keys], output_type=types.GRAY)
    for k, out in zip(keys, outs):
        ref = cv2.imread(str(edge[k]), cv2.IMREAD_GRAYSCALE)  # what nvImageCodec's OpenCV does
        assert np.array_equal(out[:, :, 0], ref), k
    # RGB(0, 255, 3) -> 150, PNG and TIFF
    for key in ("solid.png", "solid.tiff"):
        out = decode1(extra[key], output_type=types.GRAY)
        assert out.shape == (4, 5, 1) and np.all(out == 150)
    # TIFF: DALI's libtiff path, round(0.299 R + 0.587 G + 0.114 B) in float32
    rgb = pil_rgb(extra["lzw.tiff"]).astype(np.float32)
    y = np.float32(0.299) * rgb[..., 0] + np.float32(0.587) * rgb[..., 1]
    y = y + np.float32(0.114) * rgb[..., 2]
    gray = decode1(extra["lzw.tiff"], output_type=types.GRAY)
    assert np.array_equal(gray[:, :, 0], np.floor(y.astype(np.float64) + 0.5))


def test_ycbcr(extra: dict[str, Path], tree: list[Path]) -> None:
    out = decode1(extra["solid.png"], output_type=types.YCbCr)
    assert out.shape == (4, 5, 3) and np.all(out == (145, 55, 34))
    rgb = pil_rgb(tree[2]).astype(np.float32)
    ycc = decode1(tree[2], output_type=types.YCbCr)
    c = np.float32
    # the exact BT.601 coefficients, as DALI 2.4 computes them (found by the conformance run)
    y = (c(0.25678823529) * rgb[..., 0] + c(0.50412941176) * rgb[..., 1]) + c(0.09790588235) * rgb[
        ..., 2
    ]
    y = y + c(16)
    assert np.array_equal(ycc[..., 0], np.floor(y.astype(np.float64) + 0.5))
    assert ycc[..., 0].min() >= 16 and ycc[..., 0].max() <= 235
    f = decode1(extra["solid.png"], output_type=types.YCbCr, dtype=types.FLOAT)
    assert f.dtype == np.float32
    np.testing.assert_allclose(f[0, 0], np.array([145, 55, 34]) / 255, atol=0.003)


def test_any_data_keeps_native_channels(edge: dict[str, Path], extra: dict[str, Path]) -> None:
    cases = {
        edge["png_gray"]: 1,
        edge["png_rgba"]: 4,
        edge["png_rgb"]: 3,
        edge["jpeg_gray"]: 1,
        edge["jpeg_444"]: 3,
        edge["pgm"]: 1,
        edge["tiff"]: 3,
        extra["la.png"]: 2,
        extra["rgba.tiff"]: 4,
        extra["rgba.webp"]: 4,
    }
    outs = run_files(list(cases), output_type=types.ANY_DATA)
    for (f, c), out in zip(cases.items(), outs):
        assert out.ndim == 3 and out.shape[2] == c, f.name
    rgba = np.asarray(Image.open(edge["png_rgba"]))
    assert np.array_equal(outs[1], rgba)
    la = np.asarray(Image.open(extra["la.png"]))
    assert np.array_equal(outs[7], la)
    assert np.array_equal(outs[8], np.asarray(Image.open(extra["rgba.tiff"])))


def test_gray_output_is_always_3d(edge: dict[str, Path]) -> None:
    for key in ("png_rgb", "jpeg_gray", "tiny"):
        out = decode1(edge[key], output_type=types.GRAY)
        assert out.ndim == 3 and out.shape[2] == 1
    assert decode1(edge["png_gray"]).shape[2] == 3  # a gray image decoded as RGB


@pytest.mark.parametrize(
    ("dtype", "np_type", "scale"),
    [
        (types.FLOAT, np.float32, None),
        (types.UINT16, np.uint16, 257),
        (types.UINT8, np.uint8, 1),
    ],
)
def test_dtype_rescales(tree: list[Path], dtype, np_type, scale) -> None:
    ref = pil_rgb(tree[1])
    out = decode1(tree[1], dtype=dtype)
    assert out.dtype == np_type
    if scale is None:
        assert np.array_equal(out, ref.astype(np.float32) * (np.float32(1) / np.float32(255)))
        assert out.max() <= 1.0
    else:
        assert np.array_equal(out, ref.astype(np_type) * scale)


def test_float_white_is_one(extra: dict[str, Path]) -> None:
    assert np.all(decode1(extra["white.png"], dtype=types.FLOAT) == 1.0)
    assert np.all(decode1(extra["white.png"], dtype=types.UINT16) == 65535)
    assert np.all(decode1(extra["white.png"], dtype=types.INT16) == 32767)


def test_unsupported_dtype_is_a_build_error(tree: list[Path]) -> None:
    with pytest.raises(RuntimeError, match="dtype"):
        decode1(tree[0], dtype=types.FLOAT16)


def test_16bit_png(extra: dict[str, Path]) -> None:
    a16 = np.load(extra["rgb16.png"].with_name("rgb16.npy"))
    u8 = decode1(extra["rgb16.png"])
    assert np.array_equal(u8, np.floor(a16 / 257 + 0.5).astype(np.uint8))
    assert tuple(u8[0, 0]) == (255, 0, 0)
    assert np.array_equal(decode1(extra["rgb16.png"], dtype=types.UINT16), a16)
    f = decode1(extra["rgb16.png"], dtype=types.FLOAT)
    assert np.array_equal(f, a16.astype(np.float32) * (np.float32(1) / np.float32(65535)))
    g = decode1(extra["gray16.png"], output_type=types.GRAY, dtype=types.UINT16)
    assert np.array_equal(g[:, :, 0], a16[:, :, 0])
    anyd = decode1(extra["gray16.png"], output_type=types.ANY_DATA)
    assert anyd.shape == (20, 30, 1)
    assert np.array_equal(anyd[:, :, 0], np.floor(a16[:, :, 0] / 257 + 0.5).astype(np.uint8))


# -- orientation -------------------------------------------------------------------------------


def test_exif_orientation_all_eight(extra: dict[str, Path]) -> None:
    files = [extra[f"exif{o}.jpg"] for o in range(1, 9)]
    outs = run_files(files)
    stored = pil_rgb(files[0], orient=False)
    for o, (f, out) in enumerate(zip(files, outs), start=1):
        assert np.array_equal(out, pil_rgb(f)), o
        assert out.shape[:2] == (stored.shape[:2] if o < 5 else stored.shape[1::-1])
    raw = run_files(files, adjust_orientation=False)
    for out in raw:
        assert np.array_equal(out, stored)


def test_exif_orientation_other_formats(extra: dict[str, Path], edge: dict[str, Path]) -> None:
    keys = ["exif6.png", "exif6.webp", "exif8.tiff"]
    outs = run_files([extra[k] for k in keys])
    anys = run_files([extra[k] for k in keys], output_type=types.ANY_DATA)
    for k, out, any_data in zip(keys, outs, anys):
        assert np.array_equal(out, pil_rgb(extra[k])), k
        assert out.shape[:2] == (52, 36)
        assert np.array_equal(any_data, out), k
        assert out.flags.writeable and any_data.flags.writeable
    raw = run_files([extra[k] for k in keys], adjust_orientation=False)
    for k, out in zip(keys, raw):
        assert out.shape[:2] == (36, 52), k
    assert np.array_equal(raw[2], raw[0])  # the stored pixels (Pillow's TIFF orientation undone)
    # the shared edge case: a red block in the stored top-left ends up top-right (rotate CW)
    out = decode1(edge["jpeg_exif6"])
    h, w = out.shape[:2]
    assert (h, w) == (64, 48)
    r, g, b = out[2, w - 3].astype(int)
    assert r > 200 and g < 60 and b < 60


def test_orientation_gray_and_crop(extra: dict[str, Path]) -> None:
    f = extra["exif6.jpg"]
    full = decode1(f, output_type=types.GRAY)
    stored = cv2.imread(str(f), cv2.IMREAD_GRAYSCALE | cv2.IMREAD_IGNORE_ORIENTATION)
    assert np.array_equal(full[:, :, 0], np.rot90(stored, -1))
    crop = decode1(f, "image_crop", crop=(10, 20), crop_pos_x=0.0, crop_pos_y=1.0)
    rgb = pil_rgb(f)
    assert np.array_equal(crop, rgb[-10:, :20])


# -- image_crop --------------------------------------------------------------------------------


def expected_anchor(pos: float, spare: int) -> int:
    v = float(np.float32(pos)) * spare
    return int(np.trunc(v + np.copysign(0.5, v)))


@pytest.mark.parametrize(
    ("crop", "pos"),
    [((20, 30), (0.5, 0.5)), ((21, 31), (0.5, 0.5)), ((20, 30), (0.0, 1.0)), ((7, 9), (0.3, 0.8))],
)
def test_image_crop_equals_decode_then_slice(tree: list[Path], crop, pos) -> None:
    files = tree[:7]
    fulls = run_files(files)
    px, py = pos
    outs = run_files(files, "image_crop", crop=crop, crop_pos_x=px, crop_pos_y=py)
    for full, out in zip(fulls, outs):
        H, W = full.shape[:2]
        y0, x0 = expected_anchor(py, H - crop[0]), expected_anchor(px, W - crop[1])
        assert np.array_equal(out, full[y0 : y0 + crop[0], x0 : x0 + crop[1]])


def test_image_crop_anchor_uses_float32_position(tmp_path: Path) -> None:
    # crop_pos_y=0.7 with 75 spare rows starts at row 52 (DALI computes in float32; float64 gives 53)
    path = tmp_path / "tall.png"
    img = np.arange(85 * 4 * 3, dtype=np.uint32).reshape(85, 4, 3).astype(np.uint8)
    Image.fromarray(img).save(path)
    out = decode1(path, "image_crop", crop_h=10, crop_w=4, crop_pos_y=0.7)
    assert np.array_equal(out, img[52:62])
    trunc = decode1(path, "image_crop", crop=(10, 4), crop_pos_y=0.99, rounding="truncate")
    assert np.array_equal(trunc, img[74:84])


def test_image_crop_variants_match_full_decode(edge: dict[str, Path]) -> None:
    f = edge["png_rgba"]
    for kw in ({"output_type": types.GRAY}, {"dtype": types.FLOAT}, {"output_type": types.YCbCr}):
        full = decode1(f, **kw)
        out = decode1(f, "image_crop", crop=(10, 12), crop_pos_x=0.25, crop_pos_y=0.75, **kw)
        y0, x0 = (
            expected_anchor(0.75, full.shape[0] - 10),
            expected_anchor(0.25, full.shape[1] - 12),
        )
        assert np.array_equal(out, full[y0 : y0 + 10, x0 : x0 + 12])


def test_image_crop_per_sample_positions(tree: list[Path]) -> None:
    files = [str(f) for f in tree[:5]]

    @pipeline_def(batch_size=5, num_threads=2, device_id=None, seed=5)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        px = fn.random.uniform(range=(0.0, 1.0))
        py = fn.random.uniform(range=(0.0, 1.0))
        full = fn.decoders.image(jpegs)
        crop = fn.decoders.image_crop(jpegs, crop_w=15, crop_h=25, crop_pos_x=px, crop_pos_y=py)
        return full, crop, px, py

    full, crop, px, py = pipe().run()
    for i in range(5):
        f = full.at(i)
        y0 = expected_anchor(float(py.at(i)), f.shape[0] - 25)
        x0 = expected_anchor(float(px.at(i)), f.shape[1] - 15)
        assert np.array_equal(crop.at(i), f[y0 : y0 + 25, x0 : x0 + 15])


def test_image_crop_out_of_bounds(tree: list[Path]) -> None:
    f = tree[0]  # 60 x 40
    full = decode1(f)
    with pytest.raises(RuntimeError, match="out of bounds") as e:
        decode1(f, "image_crop", crop=(70, 30))
    assert "sample 0" in str(e.value)
    padded = decode1(f, "image_crop", crop=(70, 30), out_of_bounds_policy="pad", fill_values=7)
    assert padded.shape == (70, 30, 3)
    assert np.all(padded[:5] == 7) and np.all(padded[-5:] == 7)
    assert np.array_equal(padded[5:65], full[:, 5:35])
    trimmed = decode1(f, "image_crop", crop=(70, 30), out_of_bounds_policy="trim_to_shape")
    assert np.array_equal(trimmed, full[:, 5:35])
    per_channel = decode1(
        f, "image_crop", crop=(62, 40), out_of_bounds_policy="pad", fill_values=(1, 2, 3)
    )
    assert tuple(per_channel[0, 0]) == (1, 2, 3)


def test_image_crop_argument_errors(tree: list[Path]) -> None:
    with pytest.raises(RuntimeError, match="crop_h"):
        decode1(tree[0], "image_crop", crop_w=10)
    with pytest.raises(RuntimeError, match="crop"):
        decode1(tree[0], "image_crop", crop=(1, 2), crop_w=3, crop_h=3)
    with pytest.raises(RuntimeError, match="crop_pos_x"):
        decode1(tree[0], "image_crop", crop=(5, 5), crop_pos_x=1.5)
    with pytest.raises(RuntimeError, match="rounding"):
        decode1(tree[0], "image_crop", crop=(5, 5), rounding="floor")
    # no crop arguments: the whole image
    assert np.array_equal(decode1(tree[0], "image_crop"), pil_rgb(tree[0]))


# -- image_slice -------------------------------------------------------------------------------


def llround(v: float) -> int:
    return int(np.trunc(v + np.copysign(0.5, v)))


def run_slice(files, anchor, shape, **kw):
    files = [str(f) for f in files]

    @pipeline_def(batch_size=len(files), num_threads=2, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        return fn.decoders.image(jpegs), fn.decoders.image_slice(jpegs, anchor, shape, **kw)

    full, out = pipe().run()
    return [full.at(i) for i in range(len(files))], [out.at(i) for i in range(len(files))]


def test_image_slice_normalized_wh(tree: list[Path]) -> None:
    anchor = np.array([0.1, 0.25], dtype=np.float32)  # x, y
    shape = np.array([0.5, 0.35], dtype=np.float32)  # w, h
    fulls, outs = run_slice(tree[:7], anchor, shape)
    a64, s64 = anchor.astype(np.float64), shape.astype(np.float64)
    for full, out in zip(fulls, outs):
        H, W = full.shape[:2]
        x0, y0 = llround(a64[0] * W), llround(a64[1] * H)
        x1, y1 = llround((a64[0] + s64[0]) * W), llround((a64[1] + s64[1]) * H)
        assert np.array_equal(out, full[y0:y1, x0:x1])


def test_image_slice_absolute_and_axes(tree: list[Path]) -> None:
    fulls, outs = run_slice(tree[:3], np.array([3, 5], np.int32), np.array([10, 20], np.int32))
    for full, out in zip(fulls, outs):
        assert np.array_equal(out, full[5:25, 3:13])
    f = tree[:2]
    _, hw = run_slice(
        f,
        np.array([3.0, 5.0], np.float32),
        np.array([10.0, 20.0], np.float32),
        normalized_anchor=False,
        normalized_shape=False,
        axis_names="HW",
    )
    fulls, _ = run_slice(f, np.array([0, 0], np.int32), np.array([1, 1], np.int32))
    for full, out in zip(fulls, hw):
        assert np.array_equal(out, full[3:13, 5:25])
    _, ax = run_slice(f, np.array([3, 5], np.int32), np.array([10, 20], np.int32), axes=(0, 1))
    for full, out in zip(fulls, ax):
        assert np.array_equal(out, full[3:13, 5:25])
    _, one = run_slice(f, np.array([0.5], np.float32), np.array([0.5], np.float32), axis_names="H")
    for full, out in zip(fulls, one):
        H = full.shape[0]
        assert np.array_equal(out, full[llround(0.5 * H) : llround(1.0 * H)])


def test_image_slice_named_arguments(tree: list[Path]) -> None:
    files = tree[:3]
    fulls = run_files(files)
    outs = run_files(files, "image_slice", start=(2, 4), shape=(11, 13))
    for full, out in zip(fulls, outs):
        assert np.array_equal(out, full[4:17, 2:13])
    outs = run_files(files, "image_slice", start=(2, 4), end=(12, 30))
    for full, out in zip(fulls, outs):
        assert np.array_equal(out, full[4:30, 2:12])
    outs = run_files(files, "image_slice", rel_start=(0.25, 0.5), rel_shape=(0.5, 0.25))
    for full, out in zip(fulls, outs):
        H, W = full.shape[:2]
        x0, y0 = llround(float(np.float32(0.25)) * W), llround(float(np.float32(0.5)) * H)
        x1 = llround((float(np.float32(0.25)) + float(np.float32(0.5))) * W)
        y1 = llround((float(np.float32(0.5)) + float(np.float32(0.25))) * H)
        assert np.array_equal(out, full[y0:y1, x0:x1])


def test_image_slice_out_of_bounds(tree: list[Path]) -> None:
    f = tree[:1]
    with pytest.raises(RuntimeError, match="out of bounds"):
        run_files(f, "image_slice", start=(30, 50), shape=(20, 20))
    full = run_files(f)[0]  # 60 x 40
    pad = run_files(f, "image_slice", start=(30, 50), shape=(20, 20), out_of_bounds_policy="pad")[0]
    assert pad.shape == (20, 20, 3)
    assert np.array_equal(pad[:10, :10], full[50:60, 30:40]) and np.all(pad[10:] == 0)
    trim = run_files(
        f, "image_slice", start=(30, 50), shape=(20, 20), out_of_bounds_policy="trim_to_shape"
    )[0]
    assert np.array_equal(trim, full[50:60, 30:40])


def test_image_slice_argument_errors(tree: list[Path]) -> None:
    with pytest.raises(RuntimeError, match="positional"):
        run_files(tree[:1], "image_slice")
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        run_files(tree[:1], "image_slice", start=(1, 1), rel_start=(0.1, 0.1))
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        run_files(tree[:1], "image_slice", end=(1, 1), shape=(2, 2))
    with pytest.raises(RuntimeError, match="axis_names"):
        run_files(tree[:1], "image_slice", start=(1, 1), axis_names="WC")
    with pytest.raises(RuntimeError, match="2 values"):
        run_files(tree[:1], "image_slice", start=(1, 1, 1))
    with pytest.raises(RuntimeError, match="not compatible"):
        run_slice(tree[:1], np.array([0, 0], np.int32), np.array([1, 1], np.int32), start=(0, 0))
    with pytest.raises(RuntimeError, match="same type"):
        run_slice(tree[:1], np.array([0, 0], np.int32), np.array([1.0, 1.0], np.float32))


def _build_error(files, op, **kw) -> str:
    files = [str(f) for f in files]

    @pipeline_def(batch_size=len(files), num_threads=1, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        return getattr(fn.decoders, op)(jpegs, **kw)

    p = pipe()
    with pytest.raises(RuntimeError) as e:
        p.build()  # before any data
    return str(e.value)


@pytest.mark.parametrize(
    ("op", "kw", "arg", "shown"),
    [
        ("image_crop", {"crop": (-10, 10)}, "crop", "[-10.0, 10.0]"),
        ("image_crop", {"crop_h": -1, "crop_w": 5}, "crop_h", "-1.0"),
        ("image_slice", {"start": (0, 0), "shape": (-1, 5)}, "shape", "[-1.0, 5.0]"),
        ("image_slice", {"rel_start": (0, 0), "rel_shape": (0.5, -0.1)}, "rel_shape", "-0.1"),
    ],
)
def test_negative_decoder_windows_are_build_errors(tree, op, kw, arg, shown) -> None:
    # DALI takes a negative crop size as the whole extent, silently; here it is an error
    msg = _build_error(tree[:1], op, **kw)
    assert f"dali.fn.decoders.{op}" in msg and f"argument `{arg}`" in msg and shown in msg


def test_negative_per_sample_decoder_windows_name_the_sample(tree) -> None:
    files = [str(f) for f in tree[:2]]
    crops = [np.array([5, 5], np.float32), np.array([5, -5], np.float32)]
    shapes = [np.array([4, 4], np.int32), np.array([-4, 4], np.int32)]
    anchors = [np.array([0, 0], np.int32)] * 2

    def run(make):
        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe():
            jpegs, _ = fn.readers.file(files=files)
            return make(jpegs)

        with pytest.raises(RuntimeError) as e:
            pipe().run()
        return str(e.value)

    msg = run(lambda j: fn.decoders.image_crop(j, crop=fn.external_source(lambda: crops)))
    assert "dali.fn.decoders.image_crop" in msg and "argument `crop`" in msg
    assert "sample 1" in msg and "[5.0, -5.0]" in msg
    msg = run(
        lambda j: fn.decoders.image_slice(j, start=(0, 0), shape=fn.external_source(lambda: shapes))
    )
    assert "dali.fn.decoders.image_slice" in msg and "argument `shape`" in msg
    assert "sample 1" in msg and "[-4.0, 4.0]" in msg
    msg = run(
        lambda j: fn.decoders.image_slice(
            j, fn.external_source(lambda: anchors), fn.external_source(lambda: shapes)
        )
    )
    assert "dali.fn.decoders.image_slice" in msg and "the `shape` input" in msg
    assert "sample 1" in msg


# -- image_random_crop -------------------------------------------------------------------------


def find_window(full: np.ndarray, crop: np.ndarray) -> tuple[int, int] | None:
    h, w = crop.shape[:2]
    for y in range(full.shape[0] - h + 1):
        for x in range(full.shape[1] - w + 1):
            if np.array_equal(full[y : y + h, x : x + w], crop):
                return y, x
    return None


def test_random_crop_is_a_window_of_the_full_decode(tree: list[Path]) -> None:
    files = tree[:6]
    fulls = run_files(files)
    crops = run_files(files, "image_random_crop", seed=7)
    areas = []
    for full, crop in zip(fulls, crops):
        assert crop.ndim == 3 and crop.shape[2] == 3
        assert find_window(full, crop) is not None
        areas.append(crop.shape[0] * crop.shape[1] / (full.shape[0] * full.shape[1]))
    assert min(areas) >= 0.08 * 0.9 and max(areas) <= 1.0
    assert len({c.shape for c in crops}) > 1  # not resized: sizes differ


def test_random_crop_same_sample_same_window(tree: list[Path]) -> None:
    files = tree[:9]
    a = run_files(files, "image_random_crop", seed=3, num_threads=1, batch_size=9)
    b = run_files(files, "image_random_crop", seed=3, num_threads=3, batch_size=4)
    c = run_files(files, "image_random_crop", seed=3, num_threads=2, batch_size=2)
    for x, y, z in zip(a, b, c):
        assert np.array_equal(x, y) and np.array_equal(x, z)
    d = run_files(files, "image_random_crop", seed=4)
    assert any(x.shape != w.shape or not np.array_equal(x, w) for x, w in zip(a, d))


def test_random_crop_gray_float_matches_its_rgb_window(tree: list[Path]) -> None:
    # the same operator name and seed give the same window (the op's identity is its name)
    f = [tree[6]]
    rgb = run_files(f, "image_random_crop", seed=11, name="rc")[0]
    flt = run_files(f, "image_random_crop", seed=11, name="rc", dtype=types.FLOAT)[0]
    assert np.array_equal(flt, rgb.astype(np.float32) * (np.float32(1) / np.float32(255)))
    gray = run_files(f, "image_random_crop", seed=11, name="rc", output_type=types.GRAY)[0]
    full_gray = decode1(f[0], output_type=types.GRAY)
    y, x = find_window(pil_rgb(f[0]), rgb)
    assert np.array_equal(gray, full_gray[y : y + rgb.shape[0], x : x + rgb.shape[1]])


def test_random_crop_arguments(tree: list[Path]) -> None:
    f = tree[6:7]  # 264 x 356
    crop = run_files(f, "image_random_crop", random_area=(1.0, 1.0), random_aspect_ratio=1.0)[0]
    assert crop.shape[0] == crop.shape[1]
    full = run_files(f, "image_random_crop", random_area=1.0, random_aspect_ratio=(0.1, 10.0))[0]
    assert full.shape[0] * full.shape[1] >= 0.95 * 264 * 356
    with pytest.raises(RuntimeError, match="random_area"):
        run_files(f, "image_random_crop", random_area=(0.9, 0.1))
    with pytest.raises(RuntimeError, match="num_attempts"):
        run_files(f, "image_random_crop", num_attempts=0)


def test_header_shapes_predict_the_decoded_sizes(tree, edge, extra) -> None:
    files = [*tree, *edge.values(), *extra.values()]
    samples = [np.fromfile(f, dtype=np.uint8) for f in files]
    for orient in (True, False):
        shapes = header_shapes(samples, orient).tolist()  # broken files do not raise here
        broken = (edge["corrupt"], edge["truncated"], extra["thumb_truncated.jpg"])
        for path, data, shape in zip(files, samples, shapes):
            try:
                fmt = _codecs.sniff(data)
            except _codecs.DecodeError:  # empty, text, GIF
                fmt = None
            if fmt not in ("jpeg", "png", "bmp"):
                assert shape == [-1, -1], path
                continue
            if path in broken:
                continue
            assert shape != [-1, -1], path
            decoded = list(_codecs.decode(data, "rgb", orientation=orient).shape[:2])
            if orient and path == extra["exif6.png"]:
                # a PNG's hint is its stored size: the window is computed for the decoded one
                assert shape == decoded[::-1]
            else:
                assert shape == decoded, path


def test_size_hint_reads_png_and_bmp_headers() -> None:
    def u8(b: bytes) -> np.ndarray:
        return np.frombuffer(b, dtype=np.uint8)

    img = np.zeros((7, 11, 3), dtype=np.uint8)
    bmp = bytearray(cv2.imencode(".bmp", img)[1].tobytes())
    assert size_hint(u8(bytes(bmp))) == (7, 11)
    bmp[22:26] = (-7).to_bytes(4, "little", signed=True)  # rows stored top-down
    assert size_hint(u8(bytes(bmp))) == (7, 11)
    core = b"BM" + bytes(12) + (12).to_bytes(4, "little") + (11).to_bytes(2, "little")
    assert size_hint(u8(core + (7).to_bytes(2, "little") + bytes(8))) == (7, 11)  # OS/2
    assert size_hint(u8(cv2.imencode(".png", img)[1].tobytes())) == (7, 11)
    assert size_hint(u8(b"GIF89a" + bytes(30))) is None
    assert size_hint(u8(b"BM")) is None


def test_random_windows_do_not_depend_on_the_size_hint(tree) -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=1)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(tree[0])])
        return fn.decoders.image_random_crop(jpegs, name="dec")

    p = pipe()
    p.build()
    impl = p._plan.by_name["dec"].impl

    class Ws:
        rng = SampleRNG(combine(5, np.arange(4)))

    hints = np.array([(60, 40), (36, 52), (-1, -1), (100, 100)])
    hinted = impl.windows(Ws, 4, hints)
    unhinted = impl.windows(Ws, 4, None)
    # the last hint is wrong (the decoded size wins)
    for i, (H, W) in enumerate([(60, 40), (36, 52), (70, 30), (90, 120)]):
        a, s = random_crop_windows(Ws.rng.subset([i]), [(H, W)])
        want = (*a[0].tolist(), *s[0].tolist())
        assert hinted[i](H, W) == unhinted[i](H, W) == want


def test_random_crop_of_every_format_is_independent_of_batching(edge, extra) -> None:
    # JPEG, PNG and BMP windows come from the header sizes, the others' from the decoded size
    files = [extra["exif6.jpg"], extra["exif6.png"], extra["q95.jpg"], edge["png_rgb"]]
    files += [extra["lzw.tiff"], edge["bmp"], extra["rgba.webp"], extra["exif3.jpg"]]
    a = run_files(files, "image_random_crop", seed=5, batch_size=8)
    b = run_files(files, "image_random_crop", seed=5, batch_size=3, num_threads=1)
    for path, x, y in zip(files, a, b):
        assert np.array_equal(x, y), path
        assert find_window(decode1(path), x) is not None, path


class _Op:
    """A stand-in operator for `RandomCropParams.from_op`."""

    def __init__(self, **args):
        self.args = {
            "random_area": (0.08, 1.0),
            "random_aspect_ratio": (0.75, 4 / 3),
            "num_attempts": 10,
            **args,
        }

    def arg(self, name):
        return self.args[name]

    def arg_error(self, name, msg):
        return ValueError(f"{name}: {msg}")


def _windows(shapes, params: RandomCropParams, seed: int = 0) -> np.ndarray:
    """``(n, 4)`` windows ``y, x, h, w`` of ``shapes`` for samples 0..n-1 of ``seed``."""
    rng = SampleRNG(combine(seed, np.arange(len(shapes))))
    a, s = random_crop_windows(rng, shapes, params.area, params.aspect_ratio, params.num_attempts)
    return np.concatenate([a, s], axis=1)


def test_crop_window_generator_properties() -> None:
    params = RandomCropParams.from_op(_Op())
    # the sizes of the reference's 21 test images, 2000 samples each
    shapes = np.repeat([tree_image_size(i) for i in range(21)], 2000, axis=0)
    win = _windows(shapes, params)
    H, W = shapes.T
    y, x, h, w = win.T
    assert np.all((0 <= y) & (y <= H - h) & (0 <= x) & (x <= W - w))
    r = w.astype(np.float32) / h.astype(np.float32)
    assert np.all((np.float32(0.75) <= r) & (r <= np.float32(4 / 3)))
    areas = h * w / (H * W)
    # the mean DALI was observed to give on them is about 0.385
    assert 0.375 < areas.mean() < 0.395
    assert areas.min() >= 0.07
    # the same sample identity gives the same window
    np.testing.assert_array_equal(_windows(shapes[:50], params), win[:50])


def test_crop_window_degenerate_images() -> None:
    params = RandomCropParams.from_op(_Op())
    # too wide for any allowed aspect ratio: full height, width int(4 * 4/3) = 5
    y, x, h, w = _windows([(4, 800)] * 20, params, seed=1).T
    assert np.all((y == 0) & (h == 4) & (w == 5) & (x <= 795)) and len(set(x)) > 1
    y, x, h, w = _windows([(800, 4)] * 20, params, seed=1).T  # too tall: height int(4 / 0.75)
    assert np.all((x == 0) & (h == 5) & (w == 4))
    assert _windows([(1, 1), (0, 5), (5, 0)], params).tolist() == [
        [0, 0, 1, 1],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ]
    # no attempt can succeed (area 1.0 with a 2:1 image and ratio 1): the fallback window
    p = RandomCropParams.from_op(_Op(random_area=(1.0, 1.0), random_aspect_ratio=(1.0, 1.0)))
    assert _windows([(50, 100)], p)[0, 2:].tolist() == [50, 50]


def test_crop_window_params_validation() -> None:
    with pytest.raises(ValueError, match="random_area"):
        RandomCropParams.from_op(_Op(random_area=(0.5, 0.1)))
    with pytest.raises(ValueError, match="random_aspect_ratio"):
        RandomCropParams.from_op(_Op(random_aspect_ratio=(0.0, 1.0)))
    with pytest.raises(ValueError, match="random_area"):
        RandomCropParams.from_op(_Op(random_area=(0.1, 0.2, 0.3)))
    p = RandomCropParams.from_op(_Op(random_area=(0.5,)))
    assert p.area == (0.5, 0.5)


# -- bad input ---------------------------------------------------------------------------------

BAD = ["corrupt", "truncated", "empty", "text"]


@pytest.mark.parametrize("op", DECODERS)
@pytest.mark.parametrize("bad", BAD)
def test_bad_input_names_the_file(edge: dict[str, Path], op: str, bad: str) -> None:
    kw = {"start": (0, 0), "shape": (1, 1)} if op == "image_slice" else {}
    with pytest.raises(RuntimeError) as e:
        run_files([edge["tiff"], edge[bad]], op, **kw)
    msg = str(e.value)
    assert str(edge[bad]) in msg and "sample 1" in msg and "Failed to decode" in msg


def test_bad_input_reasons(edge: dict[str, Path], extra: dict[str, Path]) -> None:
    def reason(path: Path) -> str:
        with pytest.raises(_codecs.DecodeError) as e:
            _codecs.decode(np.fromfile(path, dtype=np.uint8), "rgb")
        return str(e.value)

    assert "empty" in reason(edge["empty"])
    assert "not an image" in reason(edge["text"])
    assert "truncated" in reason(edge["truncated"])
    assert "corrupt" in reason(edge["corrupt"])
    assert "GIF" in reason(extra["gif"])
    # an end-of-image marker inside the EXIF thumbnail does not hide the truncation
    assert "truncated" in reason(extra["thumb_truncated.jpg"])
    data = np.fromfile(edge["png_rgb"], dtype=np.uint8)
    for cut in (len(data) // 2, len(data) - 12):
        with pytest.raises(_codecs.DecodeError):
            _codecs.decode(data[:cut].copy(), "rgb")


def test_trailing_bytes_after_jpeg_are_fine(tree: list[Path], tmp_path: Path) -> None:
    path = tmp_path / "trailer.jpg"
    path.write_bytes(tree[0].read_bytes() + b"\x00" * 100 + b"trailer")
    assert np.array_equal(decode1(path), pil_rgb(tree[0]))


def skip_pipeline(files, on_error):
    @pipeline_def(
        batch_size=5, num_threads=2, device_id=None, seed=1, exec_async=False, exec_pipelined=False
    )
    def pipe():
        jpegs, labels = fn.readers.file(files=[str(f) for f in files])
        crop = fn.decoders.image_random_crop(jpegs, on_error=on_error, name="dec")
        return crop, fn.decoders.image(jpegs, on_error=on_error), labels

    p = pipe()
    p.build()
    return p


def test_skip_drops_and_counts(edge: dict[str, Path], tree: list[Path], caplog) -> None:
    files = [tree[0], edge["corrupt"], tree[1], edge["empty"], tree[2]]
    p = skip_pipeline(files, "skip")
    firsts = []
    with caplog.at_level(logging.WARNING, logger="dali"):
        for _ in range(2):
            crop, full, labels = p.run()
            firsts.append(crop)
            assert len(full) == 3 and len(crop) == 3
            # sibling outputs lose the same samples, so labels stay aligned with images
            assert labels.as_array().ravel().tolist() == [0, 2, 4]
            assert [labels[i].source_info() for i in range(3)] == [str(f) for f in files[::2]]
            kept = [str(files[0]), str(files[2]), str(files[4])]
            assert [full[i].source_info() for i in range(3)] == kept
            assert [crop[i].source_info() for i in range(3)] == kept
            for i in range(3):
                assert np.array_equal(full.at(i), pil_rgb(tree[i]))
    impl = p._plan.by_name["dec"].impl
    assert impl.skipped == 4  # two per iteration
    assert p.skipped_samples("dec") == 4
    assert sorted(p.skipped_samples().values()) == [4, 4]
    warned = [r for r in caplog.records if "skipping undecodable" in r.getMessage()]
    assert len(warned) == 4  # once per file and operator, not once per iteration
    assert any(str(edge["corrupt"]) in r.getMessage() for r in warned)
    # the kept samples keep their identity: their random crops are those they get in a run
    # where the bad files are replaced by good ones (in the same pass over the files)
    other = skip_pipeline([tree[0], tree[3], tree[1], tree[4], tree[2]], "raise")
    crop2, _, _ = other.run()
    for i, k in enumerate((0, 2, 4)):
        assert np.array_equal(firsts[0].at(i), crop2.at(k))
    assert any(not np.array_equal(firsts[0].at(i), firsts[1].at(i)) for i in range(3))


def test_skip_everything_gives_an_empty_batch(edge: dict[str, Path]) -> None:
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(edge["empty"]), str(edge["text"])])
        return fn.decoders.image(jpegs, on_error="skip")

    (out,) = pipe().run()
    assert len(out) == 0


def test_on_error_is_checked(tree: list[Path]) -> None:
    with pytest.raises(RuntimeError, match="on_error"):
        decode1(tree[0], on_error="ignore")


def test_non_uint8_input_is_rejected() -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.decoders.image(fn.external_source(lambda: [np.zeros(10, np.float32)], batch=True))

    with pytest.raises(RuntimeError, match="uint8"):
        pipe().run()


def test_bytes_from_external_source(tree: list[Path]) -> None:
    data = [np.fromfile(f, dtype=np.uint8) for f in tree[:3]]

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        return fn.decoders.image(fn.external_source(lambda: data, batch=True))

    (out,) = pipe().run()
    for i in range(3):
        assert np.array_equal(out.at(i), pil_rgb(tree[i]))


def test_bad_bytes_without_a_file_name() -> None:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.decoders.image(
            fn.external_source(lambda: [np.frombuffer(b"nope", np.uint8)], batch=True)
        )

    with pytest.raises(RuntimeError, match="encoded data of sample 0"):
        pipe().run()


# -- images whose header declares a huge size (issue 16) ---------------------------------------
# A header is two 16-bit numbers: a JPEG of a few hundred bytes can declare 65000 x 65000 pixels.
# It failed with numpy's "Unable to allocate 11.8 GiB" (no file name, not skipped). Now the size
# is checked from the header, against `_codecs.MAX_DECODED_BYTES`, before any allocation.


def declare_size(src: Path, dst: Path, height: int, width: int) -> Path:
    """``src`` (a JPEG, PNG or BMP) with its header's size replaced, written to ``dst``."""
    data = bytearray(src.read_bytes())
    if data[:2] == b"\xff\xd8":
        i = data.index(b"\xff\xc0")  # the baseline frame header
        data[i + 5 : i + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    elif data[:4] == b"\x89PNG":
        data[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    else:  # BMP, BITMAPINFOHEADER
        data[18:26] = width.to_bytes(4, "little") + height.to_bytes(4, "little", signed=True)
    dst.write_bytes(bytes(data))
    return dst


@pytest.fixture(params=["nvimgcodec", "opencv"])
def cpu_jpeg_decoder(request, monkeypatch) -> str:
    """Both CPU JPEG paths: nvImageCodec's (where installed) and OpenCV's."""
    from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec

    if request.param == "nvimgcodec" and not _cpu_nvimgcodec.enabled():
        pytest.skip("nvImageCodec's CPU decoder is not installed")
    monkeypatch.setenv(_cpu_nvimgcodec.ENV, request.param)
    return request.param


@pytest.mark.parametrize("op", DECODERS)
def test_huge_declared_jpeg_is_refused_naming_the_file(
    tree, tmp_path, op, cpu_jpeg_decoder, monkeypatch
) -> None:
    huge = declare_size(tree[0], tmp_path / "huge.jpg", 65000, 65000)
    decoded_sizes = []
    real = _codecs._cv_decode

    def spy(data, mode, what):  # nothing of the huge image may reach OpenCV
        decoded_sizes.append(data.size)
        return real(data, mode, what)

    monkeypatch.setattr(_codecs, "_cv_decode", spy)
    kw = {"start": (0, 0), "shape": (8, 8)} if op == "image_slice" else {}
    with pytest.raises(RuntimeError) as e:
        run_files([tree[1], huge], op, **kw)
    msg = str(e.value)
    assert f"dali.fn.decoders.{op}" in msg and "sample 1" in msg
    assert f"Failed to decode '{huge}'" in msg
    assert "65000x65000 pixels" in msg and "11.8 GiB" in msg and "MAX_DECODED_BYTES" in msg
    assert huge.stat().st_size not in decoded_sizes


def test_huge_declared_jpeg_is_skipped_and_counted(tree, tmp_path, cpu_jpeg_decoder, caplog):
    huge = declare_size(tree[0], tmp_path / "huge.jpg", 65000, 65000)
    files = [tree[1], huge, tree[2], tree[3], tree[4]]  # (skip_pipeline's batch: 5)
    p = skip_pipeline(files, "skip")
    with caplog.at_level(logging.WARNING, logger="dali"):
        crop, full, labels = p.run()
    assert len(crop) == len(full) == 4 and labels.as_array().ravel().tolist() == [0, 2, 3, 4]
    assert np.array_equal(full.at(1), pil_rgb(tree[2]))
    assert p.skipped_samples("dec") == 1 and sum(p.skipped_samples().values()) == 2
    assert any(
        str(huge) in r.getMessage() and "MAX_DECODED_BYTES" in r.getMessage()
        for r in caplog.records
    )


def test_the_limit_is_configurable_and_counts_the_decoded_channels(
    tree, cpu_jpeg_decoder, monkeypatch
) -> None:
    h, w = pil_rgb(tree[0]).shape[:2]
    monkeypatch.setattr(_codecs, "MAX_DECODED_BYTES", h * w * 2)  # room for 1 channel, not 3
    with pytest.raises(RuntimeError, match=f"declares {h}x{w} pixels.*MAX_DECODED_BYTES"):
        decode1(tree[0])
    gray = decode1(tree[0], output_type=types.GRAY)
    assert gray.shape == (h, w, 1)
    monkeypatch.setattr(_codecs, "MAX_DECODED_BYTES", h * w * 3)
    assert np.array_equal(decode1(tree[0]), pil_rgb(tree[0]))


@pytest.mark.parametrize("fmt", ["png_rgb", "bmp"])
def test_huge_declared_png_and_bmp_are_refused(edge, tmp_path, fmt) -> None:
    src = edge[fmt]
    huge = declare_size(src, tmp_path / f"huge{src.suffix}", 50000, 60000)
    with pytest.raises(RuntimeError) as e:
        decode1(huge)
    msg = str(e.value)
    assert f"Failed to decode '{huge}'" in msg and "50000x60000 pixels" in msg
    assert "MAX_DECODED_BYTES" in msg
    assert len(run_files([huge, src], on_error="skip")) == 1


def test_out_of_memory_is_a_decode_error_naming_the_file(tree, monkeypatch) -> None:
    from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec

    monkeypatch.setenv(_cpu_nvimgcodec.ENV, "opencv")

    def no_memory(data, mode, what):
        raise MemoryError(
            "Unable to allocate 11.8 GiB for an array with shape (65000, 65000, 3) and data type "
            "uint8"
        )

    monkeypatch.setattr(_codecs, "_cv_decode", no_memory)
    with pytest.raises(RuntimeError) as e:
        decode1(tree[0])
    msg = str(e.value)
    assert f"Failed to decode '{tree[0]}'" in msg and "out of memory" in msg
    assert "Unable to allocate 11.8 GiB" in msg
    assert run_files([tree[0], tree[1]], on_error="skip") == []


def test_nvimgcodec_buffer_out_of_memory_falls_back_to_opencv(tree, monkeypatch) -> None:
    from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec

    if not _cpu_nvimgcodec.enabled():
        pytest.skip("nvImageCodec's CPU decoder is not installed")

    class NoEmpty:  # numpy, but its `empty` fails as for a huge image
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def empty(*args, **kwargs):
            raise MemoryError("Unable to allocate 11.8 GiB")

    monkeypatch.setattr(_cpu_nvimgcodec, "np", NoEmpty())
    outs = run_files(tree[:3])
    for f, out in zip(tree[:3], outs):
        assert np.array_equal(out, pil_rgb(f))


# -- parity with fn.crop / fn.slice on the full decode ------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"crop": (20, 30)},
        {"crop": (21, 31), "crop_pos_x": 0.3, "crop_pos_y": 0.7},
        {"crop_w": 12.0, "crop_h": 17.0, "crop_pos_x": 0.0, "crop_pos_y": 1.0},
        {"crop": (70, 30), "out_of_bounds_policy": "pad", "fill_values": 9},
        {"crop": (70, 30), "out_of_bounds_policy": "trim_to_shape"},
    ],
)
def test_image_crop_equals_fn_crop(tree: list[Path], kw: dict) -> None:
    files = [str(f) for f in tree[:7]]

    @pipeline_def(batch_size=7, num_threads=2, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        return fn.decoders.image_crop(jpegs, **kw), fn.crop(fn.decoders.image(jpegs), **kw)

    fused, ref = pipe().run()
    for i in range(7):
        assert np.array_equal(fused.at(i), ref.at(i))


@pytest.mark.parametrize(
    ("args", "kw"),
    [
        ((np.array([0.1, 0.25], np.float32), np.array([0.5, 0.35], np.float32)), {}),
        ((np.array([3, 5], np.int32), np.array([10, 20], np.int32)), {}),
        (
            (np.array([2.0, 4.0], np.float32), np.array([9.0, 6.0], np.float32)),
            {"normalized_anchor": False, "normalized_shape": False, "axis_names": "HW"},
        ),
        ((), {"rel_start": (0.2, 0.1), "rel_shape": (0.5, 0.6)}),
        ((), {"start": (30, 50), "shape": (20, 20), "out_of_bounds_policy": "pad"}),
    ],
)
def test_image_slice_equals_fn_slice(tree: list[Path], args: tuple, kw: dict) -> None:
    files = [str(f) for f in tree[:5]]

    @pipeline_def(batch_size=5, num_threads=2, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(files=files)
        fused = fn.decoders.image_slice(jpegs, *args, **kw)
        return fused, fn.slice(fn.decoders.image(jpegs), *args, **kw)

    fused, ref = pipe().run()
    for i in range(5):
        assert np.array_equal(fused.at(i), ref.at(i))


def test_gray_of_cmyk_jpeg_truncates_like_dali(edge: dict[str, Path]) -> None:
    rgb = decode1(edge["jpeg_cmyk"]).astype(np.float32)
    gray = decode1(edge["jpeg_cmyk"], output_type=types.GRAY)
    c = np.float32
    y = (c(0.299) * rgb[..., 0] + c(0.587) * rgb[..., 1]) + c(0.114) * rgb[..., 2]
    assert np.array_equal(gray[..., 0], np.trunc(y).astype(np.uint8))
