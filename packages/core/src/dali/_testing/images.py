"""Deterministic test images: a small class tree, decoder edge cases, an ImageNet-like set.

Every function writes the same bytes on every run (on one machine: the encoders are Pillow's
libjpeg/libpng/libwebp), so tests can compare decoded pixels between runs and libraries. The
content looks like photographs to a codec: smooth gradients, shaded shapes, multi-scale texture
and sensor-like noise, so that JPEG files have realistic sizes and decode costs.

* `make_image_tree`: ``<root>/{0,1,2}/img_XX.jpg`` like the tutorials' ``images`` folder (image
  ``i`` in class ``i % 3``; its size is `tree_image_size`), plus ``<root>/list.txt`` mapping
  every file to the label ``i`` (the class-folder layout `readers.file` reads).
* `make_edge_cases`: PNG (RGB, RGBA, gray, palette), grayscale/progressive/CMYK/4:4:4/EXIF-rotated
  JPEG, 1×1 and 4×800 images, BMP, TIFF, WebP, PNM, and broken files (corrupt, truncated,
  empty, text).
* `make_imagenet_like`: many photo-like JPEGs (shorter side 300–500 px, quality 90) in class
  folders, for benchmarks; written by several processes and cached by a manifest.

Example:
    >>> import tempfile
    >>> paths = make_image_tree(tempfile.mkdtemp())
    >>> len(paths), paths[0].parent.name, paths[1].parent.name
    (21, '0', '1')
"""

from __future__ import annotations

import io
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "EDGE_CASES",
    "make_edge_cases",
    "make_image_tree",
    "make_imagenet_like",
    "photo",
    "tree_image_size",
]

#: Bump when the generated content changes, so cached ImageNet-like sets are rewritten.
_GENERATOR_VERSION = 1


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("dali._testing.images needs Pillow: pip install Pillow") from e
    return Image


# -- content ----------------------------------------------------------------------------------


def _smooth(h: int, w: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """A smooth random field in [0, 1): a coarse grid of ``cells`` along the long side, upsampled."""
    image = _pil()
    long_side = max(h, w)
    gh = max(2, round(cells * h / long_side) + 1)
    gw = max(2, round(cells * w / long_side) + 1)
    grid = rng.random((gh, gw), dtype=np.float32)
    field = image.fromarray(grid).resize((w, h), image.Resampling.BICUBIC)
    return np.asarray(field, dtype=np.float32)


def photo(h: int, w: int, rng: np.random.Generator, *, detail: float = 1.0) -> np.ndarray:
    """A photo-like ``(h, w, 3)`` uint8 image.

    A sky-to-ground gradient, shaded ellipses, rectangles and polygons, multi-octave texture
    whose strength varies over the image, and fine noise. ``detail`` scales the texture (and so
    the JPEG file size).

    Args:
        h: Height in pixels.
        w: Width in pixels.
        rng: The source of randomness (the result is a pure function of its state).
        detail: Texture strength; 1.0 gives ImageNet-like JPEG sizes at quality 90.

    Example:
        >>> photo(4, 6, np.random.default_rng(0)).shape
        (4, 6, 3)
    """
    image = _pil()
    from PIL import ImageDraw, ImageFilter

    top, bottom = rng.uniform(30, 230, size=(2, 3)).astype(np.float32)
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
    tilt = np.linspace(-0.15, 0.15, w, dtype=np.float32)[None, :, None] * rng.uniform(-1, 1)
    base = top * (1 - t) + bottom * t + 40.0 * tilt
    # large, soft colour variations (lighting, vignetting)
    for c in range(3):
        base[..., c] += 50.0 * (_smooth(h, w, 3, rng) - 0.5)
    canvas = image.fromarray(np.clip(base, 0, 255).astype(np.uint8))

    # shapes, drawn at 2x and downsampled so that their edges are anti-aliased like a lens:
    # a few large ones (the "objects"), more middle-sized and many small ones (clutter)
    scale = 2
    layer = canvas.resize((w * scale, h * scale), image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(layer)
    area = h * w
    # a scene has a palette: a few moderately saturated colours, varied in brightness
    palette = rng.uniform(20, 235, size=(4, 3))
    palette = 0.55 * palette + 0.45 * palette.mean(axis=1, keepdims=True)
    for size_lo, size_hi, count in (
        (0.08, 0.35, int(rng.integers(3, 7))),
        (0.02, 0.08, int(rng.integers(6, 16)) * area // 150_000 + 1),
        (0.004, 0.02, int(rng.integers(10, 40)) * area // 150_000 + 1),
    ):
        for _ in range(count):
            base_colour = palette[int(rng.integers(0, len(palette)))] * rng.uniform(0.6, 1.25)
            colour = tuple(int(v) for v in np.clip(base_colour, 0, 255))
            cx, cy = rng.uniform(0, w * scale), rng.uniform(0, h * scale)
            rx = rng.uniform(size_lo, size_hi) * max(w, h) * scale
            ry = rx * rng.uniform(0.3, 1.5)
            kind = int(rng.integers(0, 4))
            if kind == 0:
                draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=colour)
            elif kind == 1:
                draw.rectangle((cx - rx, cy - ry, cx + rx, cy + ry), fill=colour)
            elif kind == 2:
                k = int(rng.integers(3, 7))
                ang = np.sort(rng.uniform(0, 2 * np.pi, size=k))
                pts = [(float(cx + rx * np.cos(a)), float(cy + ry * np.sin(a))) for a in ang]
                draw.polygon(pts, fill=colour)
            else:
                x2, y2 = cx + rng.uniform(-3, 3) * rx, cy + rng.uniform(-3, 3) * ry
                draw.line((cx, cy, x2, y2), fill=colour, width=max(1, int(rx / 6)))
    canvas = layer.resize((w, h), image.Resampling.BOX)
    canvas = canvas.filter(ImageFilter.GaussianBlur(radius=0.5))
    out: np.ndarray = np.asarray(canvas, dtype=np.float32)  # float64 once shaded

    # shading across shapes, then texture: octaves of a nearly flat spectrum (as in foliage,
    # fur, gravel), strong in some regions and faint in others
    shade = 0.75 + 0.5 * _smooth(h, w, 4, rng)
    out = out * shade[..., None]
    where = _smooth(h, w, 3, rng)
    texture = np.zeros((h, w), dtype=np.float32)
    long_side = max(h, w)
    for octave in range(8):
        cells = 4 * 2**octave
        if cells > long_side:
            break
        texture += (_smooth(h, w, cells, rng) - 0.5) / 1.1**octave
    # the finest grain: pixel-level variation that JPEG must spend bits on
    texture += 0.9 * (rng.random((h, w), dtype=np.float32) - 0.5)
    tint = rng.uniform(0.7, 1.3, size=3).astype(np.float32)
    out += (detail * 45.0 * (0.1 + where))[..., None] * texture[..., None] * tint
    # sensor noise, mostly in luma
    out += detail * rng.normal(0.0, 2.5, size=(h, w, 1)).astype(np.float32)
    out += detail * rng.normal(0.0, 1.0, size=(h, w, 3)).astype(np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


# -- the class tree ---------------------------------------------------------------------------


def tree_image_size(i: int) -> tuple[int, int]:
    """``(height, width)`` of image ``i`` of `make_image_tree`.

    ``(60+2i, 40+i)`` (Pillow size ``(40+i)×(60+2i)``), except every
    seventh image (``i % 7 == 6``), which is larger: ``(240+4i, 320+6i)``.
    """
    if i % 7 == 6:
        return 240 + 4 * i, 320 + 6 * i
    return 60 + 2 * i, 40 + i


def make_image_tree(root: str | os.PathLike[str], n: int = 21, *, classes: int = 3) -> list[Path]:
    """Write ``n`` JPEGs in class folders, like the tutorials' ``images`` folder.

    Image ``i`` is ``<root>/<i % classes>/img_<i:02d>.jpg`` (quality 90) of size
    `tree_image_size` ``(i)``. ``<root>/list.txt`` lists every file with the label ``i``, in
    the order of ``i``, for ``file_list`` tests (a reader over it yields image ``k`` at index
    ``k``).

    Args:
        root: The folder to fill (created if needed).
        n: Number of images.
        classes: Number of class folders.

    Returns:
        The paths of the images, indexed by ``i``.
    """
    image = _pil()
    root = Path(root)
    paths = []
    for i in range(n):
        h, w = tree_image_size(i)
        folder = root / str(i % classes)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"img_{i:02d}.jpg"
        pixels = photo(h, w, np.random.default_rng([20240601, i]))
        image.fromarray(pixels).save(path, "JPEG", quality=90)
        paths.append(path)
    lines = [f"{p.relative_to(root).as_posix()} {i}\n" for i, p in enumerate(paths)]
    (root / "list.txt").write_text("".join(lines))
    return paths


# -- edge cases -------------------------------------------------------------------------------

#: The keys of `make_edge_cases`, with what each file is.
EDGE_CASES = {
    "png_rgb": "RGB PNG",
    "png_rgba": "RGBA PNG (alpha varies)",
    "png_gray": "8-bit grayscale PNG",
    "png_palette": "palette (P mode) PNG",
    "jpeg_gray": "grayscale (1 component) JPEG",
    "jpeg_progressive": "progressive JPEG",
    "jpeg_cmyk": "CMYK JPEG (Adobe marker)",
    "jpeg_444": "baseline JPEG without chroma subsampling",
    "jpeg_exif6": "JPEG with EXIF orientation 6 (display rotated 90° clockwise)",
    "jpeg_exif3": "JPEG with EXIF orientation 3 (display rotated 180°)",
    "tiny": "1×1 JPEG",
    "tiny_png": "1×1 PNG",
    "wide": "4×800 (h×w) JPEG",
    "tall": "800×4 (h×w) JPEG",
    "bmp": "24-bit BMP",
    "tiff": "uncompressed RGB TIFF",
    "webp": "lossy WebP",
    "webp_lossless": "lossless WebP",
    "ppm": "binary RGB PNM (P6)",
    "pgm": "binary grayscale PNM (P5)",
    "pbm": "binary bitmap PNM (P4)",
    "corrupt": "JPEG start-of-image marker followed by garbage",
    "truncated": "the first half of a valid JPEG",
    "empty": "an empty file named .jpg",
    "text": "a text file named .jpg",
}


def make_edge_cases(root: str | os.PathLike[str]) -> dict[str, Path]:
    """Write one file per entry of `EDGE_CASES` into ``root``.

    The images (except 1×1) carry a pure red block in their top-left corner, so a decoder's
    orientation handling can be checked.

    Returns:
        ``{name: path}`` for every key of `EDGE_CASES`.
    """
    image = _pil()
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)

    def marked(h: int, w: int) -> np.ndarray:
        pixels = photo(h, w, rng)
        pixels[: max(1, h // 4), : max(1, w // 4)] = (255, 0, 0)
        return pixels

    rgb = image.fromarray(marked(48, 64))
    out: dict[str, Path] = {}

    def save(name: str, filename: str, img: Any, fmt: str, **kw: Any) -> None:
        path = root / filename
        img.save(path, fmt, **kw)
        out[name] = path

    save("png_rgb", "rgb.png", rgb, "PNG")
    rgba = rgb.copy()
    alpha = np.tile(np.linspace(0, 255, 64, dtype=np.uint8), (48, 1))
    rgba.putalpha(image.fromarray(alpha))
    save("png_rgba", "rgba.png", rgba, "PNG")
    save("png_gray", "gray.png", rgb.convert("L"), "PNG")
    save("png_palette", "palette.png", rgb.convert("P", palette=image.Palette.ADAPTIVE), "PNG")
    save("jpeg_gray", "gray.jpg", rgb.convert("L"), "JPEG", quality=90)
    save("jpeg_progressive", "progressive.jpg", rgb, "JPEG", quality=90, progressive=True)
    save("jpeg_cmyk", "cmyk.jpg", rgb.convert("CMYK"), "JPEG", quality=90)
    save("jpeg_444", "yuv444.jpg", rgb, "JPEG", quality=90, subsampling=0)
    for orientation in (6, 3):
        exif = image.Exif()
        exif[0x0112] = orientation
        save(
            f"jpeg_exif{orientation}",
            f"exif_orientation_{orientation}.jpg",
            rgb,
            "JPEG",
            quality=90,
            exif=exif.tobytes(),
        )
    tiny = image.fromarray(np.array([[[200, 100, 50]]], dtype=np.uint8))
    save("tiny", "tiny_1x1.jpg", tiny, "JPEG", quality=90)
    save("tiny_png", "tiny_1x1.png", tiny, "PNG")
    save("wide", "wide_4x800.jpg", image.fromarray(marked(4, 800)), "JPEG", quality=90)
    save("tall", "tall_800x4.jpg", image.fromarray(marked(800, 4)), "JPEG", quality=90)
    save("bmp", "rgb.bmp", rgb, "BMP")
    save("tiff", "rgb.tiff", rgb, "TIFF")
    save("webp", "rgb.webp", rgb, "WEBP", quality=90, method=4)
    save("webp_lossless", "lossless.webp", rgb, "WEBP", lossless=True)
    save("ppm", "rgb.ppm", rgb, "PPM")
    save("pgm", "gray.pgm", rgb.convert("L"), "PPM")
    save("pbm", "bits.pbm", rgb.convert("1"), "PPM")

    # broken files
    corrupt = root / "corrupt.jpg"
    garbage = np.random.default_rng(11).integers(0, 256, size=2048, dtype=np.uint8).tobytes()
    corrupt.write_bytes(b"\xff\xd8" + garbage.replace(b"\xff", b"\x00"))
    out["corrupt"] = corrupt
    encoded = io.BytesIO()
    image.fromarray(marked(120, 160)).save(encoded, "JPEG", quality=90)
    full = encoded.getvalue()
    truncated = root / "truncated.jpg"
    truncated.write_bytes(full[: len(full) // 2])
    out["truncated"] = truncated
    empty = root / "empty.jpg"
    empty.write_bytes(b"")
    out["empty"] = empty
    text = root / "not_an_image.jpg"
    text.write_text("This is a text file, not an image.\n")
    out["text"] = text
    assert set(out) == set(EDGE_CASES)
    return out


# -- the ImageNet-like set --------------------------------------------------------------------


def _imagenet_size(rng: np.random.Generator) -> tuple[int, int]:
    short = int(rng.integers(300, 501))
    # mostly landscape 4:3, some 3:2, square, portrait (ImageNet's mix)
    aspect = float(rng.choice([4 / 3, 4 / 3, 4 / 3, 3 / 2, 1.0, 3 / 4, 2 / 3, 16 / 9]))
    if aspect >= 1:
        return short, round(short * aspect)
    return round(short / aspect), short


def _imagenet_name(i: int, classes: int) -> str:
    k = i % classes
    return f"n{k:08d}/n{k:08d}_{i:06d}.JPEG"


def _write_imagenet_chunk(args: tuple[str, list[int], int, int, int, float]) -> None:
    root, indices, seed, classes, quality, detail = args
    image = _pil()
    for i in indices:
        rng = np.random.default_rng([seed, i])
        h, w = _imagenet_size(rng)
        pixels = photo(h, w, rng, detail=detail * float(rng.uniform(0.6, 1.4)))
        path = Path(root) / _imagenet_name(i, classes)
        tmp = path.with_suffix(".tmp")
        image.fromarray(pixels).save(tmp, "JPEG", quality=quality)
        os.replace(tmp, path)  # never leave a half-written file behind


def make_imagenet_like(
    root: str | os.PathLike[str],
    n: int = 1000,
    seed: int = 0,
    *,
    classes: int = 10,
    quality: int = 90,
    processes: int | None = None,
    detail: float = 1.0,
) -> list[Path]:
    """Write ``n`` photo-like JPEGs (shorter side 300–500 px) for benchmarks.

    Files are ``<root>/n<k:08d>/n<k:08d>_<i:06d>.JPEG`` with ``k = i % classes`` (upper-case
    extension, as in ImageNet: the default ``file_filters`` are case-insensitive). A manifest
    records the parameters; calling again with the same ones returns at once.

    Args:
        root: The folder to fill.
        n: Number of images.
        seed: Seed of the content (image ``i`` depends only on ``seed`` and ``i``).
        classes: Number of class folders.
        quality: JPEG quality.
        processes: Worker processes (default: the CPU count, at most 8; 1 writes inline).
        detail: Texture strength (`photo`): 1.0 gives ImageNet's mean size (~84 KB); 0.2
            gives smooth photos of ~36 KB, like ImageNet's smaller files.

    Returns:
        The paths of the images, indexed by ``i``.
    """
    root = Path(root)
    paths = [root / _imagenet_name(i, classes) for i in range(n)]
    manifest = root / "manifest.json"
    params = {
        "n": n,
        "seed": seed,
        "classes": classes,
        "quality": quality,
        "detail": detail,
        "version": _GENERATOR_VERSION,
    }
    cached = manifest.exists() and json.loads(manifest.read_text()) == params
    if cached and all(p.exists() for p in paths):
        return paths
    for k in range(min(classes, n)):
        (root / f"n{k:08d}").mkdir(parents=True, exist_ok=True)
    if processes is None:
        processes = min(os.cpu_count() or 1, 8)
    per = max(1, min(64, n // max(1, processes * 4)))
    chunks = [list(range(s, min(s + per, n))) for s in range(0, n, per)]
    jobs = [(str(root), c, seed, classes, quality, detail) for c in chunks]
    if processes <= 1 or len(jobs) <= 1:
        for job in jobs:
            _write_imagenet_chunk(job)
    else:
        with ProcessPoolExecutor(processes) as pool:
            list(pool.map(_write_imagenet_chunk, jobs))
    manifest.write_text(json.dumps(params))
    return paths
