"""Copying windows out of arrays (numpy or CuPy), and the output of a windowing operator.

A window is an ``anchor`` and a ``shape`` in the input's own dimensions; it may reach outside
the input, where it takes the fill values (`out_of_bounds.fill_array`). `window_slices` splits
a window into the part inside the input and where that part goes; `extract_window` copies one
window of one array (or of a dense batch, ``lead=1``), converting to the output type as DALI's
crop and slice kernels do (floats truncated toward zero, then saturated); `extract_windows`
cuts the windows of a whole batch, at once where they are equal. The GPU twin, one kernel
launch for a batch, is `extract_gpu`.

`output_dtype_arg` and `window_meta` are the output type (``dtype`` or its deprecated alias
``output_dtype``) and the static metadata of `fn.crop`, `fn.slice` and
`fn.crop_mirror_normalize`.

Example:
    >>> window_slices(anchor=[-1, 2], shape=[3, 2], in_shape=[4, 3])
    ((slice(0, 2, None), slice(2, 3, None)), (slice(1, 3, None), slice(0, 1, None)), False)
    >>> import numpy as np
    >>> x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    >>> extract_window(np, x, [-1, 1], [2, 2], np.full((1, 1), 99, np.uint8)).tolist()
    [[99, 99], [1, 2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat, run_per_sample
from dali._ops.window.out_of_bounds import inside_bounds, window_fill
from dali._tensors.base import aligned_copy, aligned_empty

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "extract_window",
    "extract_windows",
    "output_dtype_arg",
    "window_meta",
    "window_slices",
]


def window_slices(
    anchor: Sequence[int], shape: Sequence[int], in_shape: Sequence[int]
) -> tuple[tuple[slice, ...], tuple[slice, ...], bool]:
    """Source slices (in the input), destination slices (in the window), whether it is inside."""
    bounds = inside_bounds(anchor, shape, in_shape)
    src = tuple(slice(lo, hi) for lo, hi in bounds)
    dst = tuple(slice(lo - a, hi - a) for (lo, hi), a in zip(bounds, anchor))
    inside = all(a >= 0 and a + s <= n for a, s, n in zip(anchor, shape, in_shape))
    return src, dst, inside


def extract_window(
    xp: Any,
    x: Any,
    anchor: Sequence[int],
    shape: Sequence[int],
    fill: np.ndarray | None,
    out_dtype: Any = None,
    lead: int = 0,
    out: Any = None,
) -> Any:
    """The window of ``x`` (after ``lead`` batch axes), converted to ``out_dtype``, as a copy.

    Outside the input the window takes ``fill`` (an array of ``out_dtype`` broadcastable to the
    window, see `out_of_bounds.fill_array`). With ``out`` the result is written there.
    """
    out_dtype = np.dtype(out_dtype or x.dtype)
    pre = (slice(None),) * lead
    src, dst, inside = window_slices(anchor, shape, x.shape[lead:])
    region = x[pre + src]
    if inside:
        # DALI's crop/slice kernels truncate float to integer (conformance: 2.5 -> 2)
        converted = convert_sat(xp, region, out_dtype, truncate=True)
        if out is not None:
            out[...] = converted
            return out
        if converted is region:  # a copy is needed anyway: make it 64-byte aligned on the host
            if xp is not np:
                return xp.array(region, copy=True, order="C")
            return aligned_copy(region)
        return xp.ascontiguousarray(converted)
    if out is None:
        shape_out = x.shape[:lead] + tuple(shape)
        out = aligned_empty(shape_out, out_dtype) if xp is np else xp.empty(shape_out, out_dtype)
    out[...] = fill if xp is np or fill is None else xp.asarray(fill)
    if region.size:
        out[pre + dst] = convert_sat(xp, region, out_dtype, truncate=True)
    return out


def extract_windows(
    op: Operator,
    ws: Workspace,
    tl: Any,
    dense: Any,
    wins: Sequence[tuple[list[int], list[int]]],
    out_dtype: Any,
    layout: str,
) -> Any:
    """The window ``wins[i]`` of every sample ``i`` of the non-empty batch ``tl``, as a batch.

    ``dense`` is the batch as one array, or None (see `numeric.batch_array`): with one window
    for every sample the whole batch is sliced at once. Otherwise the samples are cut one by
    one (on the thread pool), into one output array when the windows have the same shape.
    """
    xp, tl_cls = array_module(tl)
    if dense is not None and all(w == wins[0] for w in wins):
        anchor, shape = wins[0]
        fill = window_fill(op, shape, layout, out_dtype, lead=1)
        out = extract_window(xp, dense, anchor, shape, fill, out_dtype, lead=1)
        return tl_cls.wrap(out, layout)
    samples = tl.samples()
    uniform = all(w[1] == wins[0][1] for w in wins)
    out = None
    if uniform:
        out_shape = (len(wins), *wins[0][1])
        out = (
            aligned_empty(out_shape, out_dtype)
            if xp is np
            else xp.empty(out_shape, dtype=out_dtype)
        )

    def one(i: int) -> Any:
        anchor, shape = wins[i]
        fill = window_fill(op, shape, layout, out_dtype)
        dst = None if out is None else out[i]
        return extract_window(xp, samples[i], anchor, shape, fill, out_dtype, out=dst)

    results = run_per_sample(ws, xp, one, len(wins))
    return tl_cls.wrap(out if out is not None else results, layout)


def window_meta(node: Any, layout: str | None) -> list[dict[str, Any]]:
    """The static metadata of a cropping operator's output: the type given by ``dtype`` (or
    its alias ``output_dtype``, else the input's), the input's ndim and ``layout``."""
    from dali._dtypes import dali_dtype

    src = node.inputs[0]
    dtype = node.scalar_args.get("dtype") or node.scalar_args.get("output_dtype") or src.dtype
    return [
        {
            "dtype": dali_dtype(dtype) if dtype is not None else None,
            "ndim": src.ndim,
            "layout": layout,
        }
    ]


def output_dtype_arg(op: Operator, allowed: Sequence[str] | None) -> Any:
    """The ``dtype`` argument (or its deprecated alias ``output_dtype``), checked: a numpy
    dtype, or None where not given (the input's type is kept).

    Raises:
        OperatorError: Both names given, or a type outside ``allowed`` (numpy names).
    """
    from dali._dtypes import np_dtype, type_name

    if op.has_arg("dtype") and op.has_arg("output_dtype"):
        raise op.arg_error("output_dtype", "is a deprecated alias of `dtype`; give only `dtype`")
    name = "output_dtype" if op.has_arg("output_dtype") else "dtype"
    dtype = op.arg(name)
    if not dtype:
        return None
    try:
        np_t = np_dtype(dtype)
    except TypeError:
        raise op.arg_error(name, f"unsupported output type {type_name(dtype)}") from None
    if allowed is not None and np_t.name not in allowed:
        raise op.arg_error(
            name,
            f"unsupported output type {type_name(dtype)}; supported: "
            + ", ".join(type_name(t) for t in allowed),
        )
    return np_t
