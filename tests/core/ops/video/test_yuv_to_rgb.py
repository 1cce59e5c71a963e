"""Decoded 4:2:0 frames to RGB on the CPU: the compiled kernel gives the numpy reference's bytes
(the arithmetic the GPU kernel shares), for every conversion, odd and tiny frame sizes, and the
values where rounding half to even and the clamps decide."""

from __future__ import annotations

import numpy as np
import pytest
from dali._ops.video import _color


@pytest.mark.skipif(_color._jit_kernel() is None, reason="needs Numba")
@pytest.mark.parametrize("conversion", ["rgb", "rgb_full", "ycbcr"])
@pytest.mark.parametrize(("height", "width"), [(720, 1280), (33, 47), (2, 3), (1, 1), (5, 2)])
def test_compiled_conversion_gives_the_numpy_bytes(conversion, height, width):
    rng = np.random.default_rng(height * 7919 + width)
    y = rng.integers(0, 256, (height, width), dtype=np.uint8)
    ch, cw = (height + 1) // 2, (width + 1) // 2
    u = rng.integers(0, 256, (ch, cw), dtype=np.uint8)
    v = rng.integers(0, 256, (ch, cw), dtype=np.uint8)
    y.flat[0], y.flat[-1] = 0, 255  # the clamps at both ends
    u[0, 0], v[0, 0] = 0, 255
    kw = {"full_range": conversion == "rgb_full", "ycbcr": conversion == "ycbcr"}
    got = _color.i420_to_rgb(y, u, v, **kw)
    want = _color.i420_to_rgb_numpy(y, u, v, **kw)
    assert got.dtype == np.uint8 and got.shape == (height, width, 3)
    np.testing.assert_array_equal(got, want)


@pytest.mark.skipif(_color._jit_kernel() is None, reason="needs Numba")
@pytest.mark.parametrize("conversion", ["rgb", "rgb_full", "ycbcr"])
@pytest.mark.parametrize("chroma", [0, 1, 127, 128, 254, 255])
def test_uniform_chroma_at_the_ends_of_the_range(conversion, chroma):
    # a uniform chroma plane gives the largest (255) and smallest interpolation sums the
    # kernel's integer chroma rows must hold; Cb and Cr at opposite ends
    y = np.arange(16 * 18, dtype=np.int64).reshape(16, 18).astype(np.uint8)
    u = np.full((8, 9), chroma, np.uint8)
    v = np.full((8, 9), 255 - chroma, np.uint8)
    kw = {"full_range": conversion == "rgb_full", "ycbcr": conversion == "ycbcr"}
    got = _color.i420_to_rgb(y, u, v, **kw)
    np.testing.assert_array_equal(got, _color.i420_to_rgb_numpy(y, u, v, **kw))
    if conversion == "ycbcr":  # the upsampled chroma is the plane's value everywhere
        assert (got[..., 1] == chroma).all() and (got[..., 2] == 255 - chroma).all()
