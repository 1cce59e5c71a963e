"""The window kernels' descriptions compiled (`extract_gpu_jit`) equal the numpy ones.

`extract_gpu.window_descs` fills the records with Numba where it is installed and with numpy
column by column otherwise; the kernels read them byte by byte, so the two must agree on every
layout, permutation, flip and channel count. What the records mean is checked against the CPU's
windows in ``tests/core/ops/image/test_image_kernels_gpu.py`` (no GPU needed there either).
"""

from __future__ import annotations

import numpy as np
import pytest
from dali._ops.window import extract_gpu as W

pytest.importorskip("numba")


def _case(rng, n, ndim):
    in_shape = rng.integers(0, 40, (n, ndim))
    anchors = rng.integers(-5, 30, (n, ndim))
    win_shapes = rng.integers(0, 50, (n, ndim))
    flips = rng.random((n, ndim)) < 0.4
    order = tuple(rng.permutation(ndim).tolist())
    in_ptrs = rng.integers(0, 2**47, n, dtype=np.uint64)
    out_ptrs = rng.integers(0, 2**47, n, dtype=np.uint64)
    channels = rng.integers(0, 5, n)
    return in_shape, in_ptrs, out_ptrs, anchors, win_shapes, flips, order, channels


@pytest.mark.parametrize("ndim", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("n", [1, 7, 256, 1000])
def test_compiled_descs_equal_the_numpy_ones(monkeypatch, ndim, n):
    rng = np.random.default_rng(ndim * 1000 + n)
    for _ in range(3):
        case = _case(rng, n, ndim)
        assert W._compiled() is not None
        compiled = W.window_descs(*case)
        with monkeypatch.context() as m:
            m.setattr(W, "_compiled", lambda: None)
            numpy_made = W.window_descs(*case)
        assert compiled.dtype == numpy_made.dtype
        assert compiled.tobytes() == numpy_made.tobytes()


def test_fewer_described_dimensions_than_input_axes_leave_the_rest_zero():
    """``order`` may describe the input's axes in another order; unused slots stay 0."""
    shapes = np.array([[4, 5, 3]])
    desc = W.window_descs(
        shapes, np.array([8], np.uint64), np.array([16], np.uint64),
        np.array([[1, 2, 0]]), np.array([[2, 2, 3]]), np.array([[False, True, False]]),
        (2, 0, 1), np.array([3]),
    )  # fmt: skip
    assert desc["in_stride"][0].tolist() == [1, 15, 3, 0, 0, 0]
    assert desc["out_shape"][0].tolist() == [3, 2, 2, 0, 0, 0]
    assert desc["anchor"][0].tolist() == [0, 1, 2, 0, 0, 0]
    assert desc["in_extent"][0].tolist() == [3, 4, 5, 0, 0, 0]
    assert int(desc["flip"][0]) == 0b100  # input axis 1 is described third
    assert (int(desc["input"][0]), int(desc["output"][0]), int(desc["channels"][0])) == (8, 16, 3)
