"""The deterministic test images of `dali._testing.images`."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("PIL")
from dali._testing.images import (
    EDGE_CASES,
    make_edge_cases,
    make_image_tree,
    make_imagenet_like,
    photo,
    tree_image_size,
)
from PIL import Image


def test_image_tree_layout_sizes_and_list(image_tree):
    files = sorted(p.relative_to(image_tree).as_posix() for p in image_tree.rglob("*.jpg"))
    assert files == sorted(f"{i % 3}/img_{i:02d}.jpg" for i in range(21))
    for i in range(21):
        with Image.open(image_tree / f"{i % 3}/img_{i:02d}.jpg") as img:
            assert img.format == "JPEG" and img.mode == "RGB"
            h, w = tree_image_size(i)
            assert img.size == (w, h)
    assert tree_image_size(0) == (60, 40)  # Pillow size (40+i)x(60+2i)
    assert max(tree_image_size(i)[0] for i in range(21)) >= 300  # some larger ones
    lines = (image_tree / "list.txt").read_text().splitlines()
    assert lines == [f"{i % 3}/img_{i:02d}.jpg {i}" for i in range(21)]


def test_image_tree_is_deterministic(image_tree, tmp_path):
    paths = make_image_tree(tmp_path)
    assert len(paths) == 21
    for p in paths:
        assert p.read_bytes() == (image_tree / p.relative_to(tmp_path)).read_bytes()


def test_photo_content_is_not_flat():
    pixels = photo(120, 160, np.random.default_rng(3))
    assert pixels.dtype == np.uint8 and pixels.shape == (120, 160, 3)
    assert pixels.std() > 20  # shapes and gradients
    assert np.abs(np.diff(pixels.astype(int), axis=1)).mean() > 2  # fine texture, like photos
    assert np.array_equal(pixels, photo(120, 160, np.random.default_rng(3)))


def test_edge_cases_are_what_they_claim(edge_images):
    assert set(edge_images) == set(EDGE_CASES)

    def opened(name):
        return Image.open(edge_images[name])

    with opened("png_rgba") as img:
        assert (img.format, img.mode) == ("PNG", "RGBA")
        assert len(set(np.asarray(img)[..., 3].ravel().tolist())) > 10
    for name, fmt, mode in [
        ("png_rgb", "PNG", "RGB"),
        ("png_gray", "PNG", "L"),
        ("png_palette", "PNG", "P"),
        ("jpeg_gray", "JPEG", "L"),
        ("jpeg_cmyk", "JPEG", "CMYK"),
        ("jpeg_444", "JPEG", "RGB"),
        ("bmp", "BMP", "RGB"),
        ("tiff", "TIFF", "RGB"),
        ("webp", "WEBP", "RGB"),
        ("webp_lossless", "WEBP", "RGB"),
        ("ppm", "PPM", "RGB"),
        ("pgm", "PPM", "L"),
        ("pbm", "PPM", "1"),
    ]:
        with opened(name) as img:
            assert (img.format, img.mode) == (fmt, mode), name
            img.load()
    with opened("jpeg_progressive") as img:
        assert img.info.get("progressive") or img.info.get("progression")
    with opened("jpeg_444") as img:
        assert img.layer[0][1:3] == img.layer[1][1:3]  # same sampling for Y and Cb: 4:4:4
    for name, orientation in (("jpeg_exif6", 6), ("jpeg_exif3", 3)):
        with opened(name) as img:
            assert img.getexif()[0x0112] == orientation
    with opened("png_rgb") as img:  # the orientation marker: a red top-left block
        assert tuple(np.asarray(img)[0, 0]) == (255, 0, 0)
    for name, size in (
        ("tiny", (1, 1)),
        ("tiny_png", (1, 1)),
        ("wide", (800, 4)),
        ("tall", (4, 800)),
    ):
        with opened(name) as img:
            assert img.size == size, name
    for name in ("corrupt", "truncated", "text"):
        with pytest.raises((OSError, SyntaxError, ValueError)), opened(name) as img:
            img.load()
    assert edge_images["corrupt"].read_bytes()[:2] == b"\xff\xd8"
    assert edge_images["truncated"].read_bytes()[:2] == b"\xff\xd8"
    assert edge_images["empty"].stat().st_size == 0


def test_edge_cases_are_deterministic(edge_images, tmp_path):
    again = make_edge_cases(tmp_path)
    for name, path in again.items():
        assert path.read_bytes() == edge_images[name].read_bytes(), name


def test_imagenet_like_sizes_determinism_and_cache(tmp_path):
    one = make_imagenet_like(tmp_path / "a", n=6, seed=3, classes=2, processes=1)
    two = make_imagenet_like(tmp_path / "b", n=6, seed=3, classes=2, processes=2)
    assert [p.relative_to(tmp_path / "a") for p in one] == [
        p.relative_to(tmp_path / "b") for p in two
    ]
    assert one[1].relative_to(tmp_path / "a").as_posix() == "n00000001/n00000001_000001.JPEG"
    for a, b in zip(one, two):
        assert a.read_bytes() == b.read_bytes()
        with Image.open(io.BytesIO(a.read_bytes())) as img:
            assert img.format == "JPEG" and img.mode == "RGB"
            assert 300 <= min(img.size) <= 500
            # photo-like entropy: well above a flat synthetic image
            assert a.stat().st_size > 0.15 * img.size[0] * img.size[1]
    stamp = [p.stat().st_mtime_ns for p in one]
    assert make_imagenet_like(tmp_path / "a", n=6, seed=3, classes=2) == one
    assert [p.stat().st_mtime_ns for p in one] == stamp  # cached: nothing rewritten
    other = make_imagenet_like(tmp_path / "c", n=2, seed=4, classes=2, processes=1)
    assert other[0].read_bytes() != one[0].read_bytes()
