"""The CPU entry of resampling: which path resamples a sample, and what the fast paths share.

`resample` sends samples whose two spatial axes are adjacent (HWC, HW, CHW, FHWC, ...) to a
fast 2-D path: `jit` (Numba row passes, bit-equal to the reference) when the `jit` extra is
installed, else `band` (banded BLAS products, equal within float32 reordering). Volumes
(three adjacent axes) take a pass over the outermost axis plus the 2-D path when Numba is
installed and the reference's pass order allows it (`separable_3d`). Others, empty samples and
all-NN resampling take `reference.resample_reference`. Both fast paths see a sample
as a stack of ``(H, W, C)`` images through `each_image`.

Example:
    >>> import numpy as np
    >>> from dali._ops.image.resample.reference import AxisPlan, resample_reference
    >>> img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    >>> plans = [AxisPlan.make(4, 2, 0.0, 4.0), AxisPlan.make(4, 2, 0.0, 4.0)]
    >>> out = resample(img, (0, 1), plans, np.uint8)
    >>> out.shape, bool((out == resample_reference(img, (0, 1), plans, np.uint8)).all())
    ((2, 2, 3), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._ops.image.resample.reference import (
    AxisPlan,
    axis_order,
    nn_indices,
    resample_reference,
)

__all__ = ["each_image", "resample", "separable_3d"]


def each_image(
    data: np.ndarray,
    first: int,
    plans: Sequence[AxisPlan],
    one: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Apply ``one`` to every ``(H, W, C)`` image of a sample and put the results back together.

    The spatial axes are ``first, first + 1``: the axes before them (frames, planar channels)
    are looped over, the axes after them (interleaved channels) are flattened into ``C``. NN
    axes are gathered here, so ``one`` sees only filtered axes left to do.
    """
    outer = data.shape[:first]
    h, w = data.shape[first], data.shape[first + 1]
    inner = data.shape[first + 2 :]
    images = data.reshape((-1, h, w, int(np.prod(inner, dtype=np.int64))))
    py, px = plans
    results = []
    for img in images:
        if py.kind == "nn":
            img = np.take(img, nn_indices(py, accumulate=True), axis=0)
        if px.kind == "nn":
            img = np.take(img, nn_indices(px, accumulate=False), axis=1)
        results.append(one(img))
    out = results[0][None] if len(results) == 1 else np.stack(results)
    return out.reshape(*outer, py.out_size, px.out_size, *inner)


def resample(
    data: np.ndarray,
    axes: Sequence[int],
    plans: Sequence[AxisPlan],
    out_dtype: Any,
    *,
    fast: bool = True,
) -> np.ndarray:
    """Resample one sample: a fast 2-D path for images, else `resample_reference`.

    The fast paths (`jit` when Numba is installed, else `band`) handle every filter, dtype and
    ROI of samples whose two spatial axes are adjacent (HWC, HW, CHW, FHWC...); they compute
    what the reference computes, in float32.

    Args:
        data: One sample.
        axes: Its spatial axes, outermost first.
        plans: One `AxisPlan` per spatial axis.
        out_dtype: The output numpy dtype.
        fast: Allow the fast paths.
    """
    if (
        fast
        and len(axes) == 2
        and axes[1] == axes[0] + 1
        and data.size
        and all(p.out_size for p in plans)
        and not all(p.kind == "nn" for p in plans)
    ):
        # (imported here: both fast paths import `each_image` from this module)
        from dali._ops.image.resample import band, jit

        if jit.available():
            return jit.resample_2d(data, axes[0], plans, out_dtype)
        return band.resample_2d(data, axes[0], plans, out_dtype)
    if fast and separable_3d(data, axes, plans):
        return _resample_3d(data, axes, plans, out_dtype)
    return resample_reference(data, axes, plans, out_dtype)


def separable_3d(data: np.ndarray, axes: Sequence[int], plans: Sequence[AxisPlan]) -> bool:
    """Whether `resample` takes the fast path for three adjacent spatial axes: Numba is
    installed, some axis is filtered, and the reference's pass order (`axis_order`, identity
    axes left out) resamples the outermost axis first or last, so that the two inner axes
    are one 2-D pass of the fast path."""
    from dali._ops.image.resample import jit

    if not (
        len(axes) == 3
        and axes[1] == axes[0] + 1
        and axes[2] == axes[0] + 2
        and data.size
        and all(p.out_size for p in plans)
        and not all(p.kind == "nn" for p in plans)
        and jit.available()
    ):
        return False
    order = [i for i in axis_order(axes, plans) if not plans[i].is_identity]
    return not order or order[0] == 0 or order[-1] == 0


def _resample_3d(
    data: np.ndarray, axes: Sequence[int], plans: Sequence[AxisPlan], out_dtype: Any
) -> np.ndarray:
    """Three adjacent axes as the reference resamples them, one axis at a time (float32
    between the passes): the outermost one by `jit.resample_outer` (its rows are whole
    planes), the two inner ones by the fast 2-D path, in the reference's order."""
    from dali._ops.image.resample import jit

    order = [i for i in axis_order(axes, plans) if not plans[i].is_identity]
    if order and order[0] == 0:
        planes = jit.resample_outer(data, axes[0], plans[0], None)
        return resample(planes, axes[1:], plans[1:], out_dtype)
    inner = resample(data, axes[1:], plans[1:], np.float32)
    return jit.resample_outer(inner, axes[0], plans[0], np.dtype(out_dtype))
