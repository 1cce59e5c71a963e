"""Crop windows, shared by `fn.crop`, `fn.crop_mirror_normalize` and `fn.slice`.

A crop window is an ``anchor`` and a ``shape`` in the input's own dimensions. The crop size
comes from ``crop`` (``(H, W)`` or ``(D, H, W)``) or ``crop_h``/``crop_w``/``crop_d`` (truncated
to integers; 0 keeps the whole extent; a negative size, which DALI also takes as the whole
extent, is an error naming the argument and the sample); the start along each cropped axis is
``round_half_away(double(float32(pos)) · (extent − crop))`` with ``pos`` = ``crop_pos_x`` /
``crop_pos_y`` / ``crop_pos_z``, as DALI computes it (``crop_pos_y=0.7`` with 75 spare rows
starts at row 52; float64 arithmetic would give 53). ``rounding="truncate"`` truncates instead.
`CropWindows` holds these arguments (DALI's ``CropAttr``).

A window that does not fit the input is handled by ``out_of_bounds_policy``: ``"error"`` (the
default) fails naming the sample and the sizes, ``"pad"`` (or its alias ``"constant"``) fills
the outside with ``fill_values`` (one value, or one per channel), ``"trim_to_shape"`` cuts the
window down to the input (`apply_policy`). `extract_window` copies one window out of an array
(numpy or CuPy), `extract_windows` those of a whole batch.

Example:
    >>> window_slices(anchor=[-1, 2], shape=[3, 2], in_shape=[4, 3])
    ((slice(0, 2, None), slice(2, 3, None)), (slice(1, 3, None), slice(0, 1, None)), False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg
from dali._ops.base import Operator
from dali._ops.generic.cast import (
    array_module,
    convert_sat,
    per_sample_scalars,
    per_sample_vectors,
    run_per_sample,
)
from dali._tensors.base import aligned_empty

__all__ = [
    "CROP_ARGS",
    "CROP_LAYOUTS",
    "CROP_WINDOW_ARGS",
    "OUT_OF_BOUNDS_ARGS",
    "SLICE_ARGS",
    "CropWindows",
    "apply_policy",
    "check_policy",
    "extract_window",
    "extract_windows",
    "fill_array",
    "output_dtype_arg",
    "slice_shape_error",
    "window_fill",
    "window_meta",
    "window_slices",
]

#: Layouts accepted by the crop operators, in DALI's order (the first of each ndim is the default
#: for an input without a layout).
CROP_LAYOUTS = ("HWC", "CHW", "DHWC", "CDHW", "FHWC", "FCHW", "CFHW", "FDHWC", "FCDHW", "CFDHW")
POLICIES = ("error", "pad", "constant", "trim_to_shape")


# --------------------------------------------------------------------------------------------
# Windows: the out-of-bounds policy, extraction with fill (numpy and CuPy alike)
# --------------------------------------------------------------------------------------------


def check_policy(op: Operator) -> str:
    policy = op.arg("out_of_bounds_policy")
    if policy not in POLICIES:
        raise op.arg_error(
            "out_of_bounds_policy",
            f'unsupported value {policy!r}; supported values are "error" (default), "pad" '
            f'and "trim_to_shape"',
        )
    return "pad" if policy == "constant" else policy


def apply_policy(
    policy: str,
    anchor: list[int],
    shape: list[int],
    in_shape: Sequence[int],
) -> tuple[list[int], list[int]] | str:
    """Apply the out-of-bounds policy; returns the window, or an error message for "error"."""
    if policy == "trim_to_shape":
        anchor, shape = list(anchor), list(shape)
        for d, n in enumerate(in_shape):
            anchor[d] = max(anchor[d], 0)
            if anchor[d] + shape[d] >= n:
                shape[d] = max(0, n - anchor[d])
        return anchor, shape
    if policy == "error":
        for d, n in enumerate(in_shape):
            end = anchor[d] + shape[d]
            if anchor[d] < 0 or anchor[d] > n or end < 0 or end > n:
                return (
                    f"the window of shape {tuple(shape)} at {tuple(anchor)} does not fit in the "
                    f'input of shape {tuple(in_shape)} (out_of_bounds_policy="error"; use '
                    f'"pad" or "trim_to_shape" to allow it)'
                )
    return anchor, shape


def window_slices(
    anchor: Sequence[int], shape: Sequence[int], in_shape: Sequence[int]
) -> tuple[tuple[slice, ...], tuple[slice, ...], bool]:
    """Source slices (in the input), destination slices (in the window), whether it is inside."""
    src, dst = [], []
    inside = True
    for a, s, n in zip(anchor, shape, in_shape):
        lo, hi = max(a, 0), min(a + s, n)
        hi = max(hi, lo)
        src.append(slice(lo, hi))
        dst.append(slice(lo - a, hi - a))
        inside = inside and a >= 0 and a + s <= n
    return tuple(src), tuple(dst), inside


def fill_array(
    op: Operator,
    values: Sequence[float],
    dtype: Any,
    ndim: int,
    channel_axis: int | None,
    channels: int | None,
) -> np.ndarray:
    """``fill_values`` as an array of ``dtype`` broadcastable against a window of ``ndim`` dims.

    One value fills everything; several values are per channel (their count must match the
    channels of the output).
    """
    vals = np.asarray(values, dtype=np.float64).reshape(-1)
    if vals.size == 0:
        vals = np.zeros(1)
    if vals.size > 1:
        if channel_axis is None:
            raise op.arg_error(
                "fill_values",
                f"{vals.size} values given but the input layout has no channel dimension",
            )
        if channels is not None and vals.size < channels:
            raise op.arg_error(
                "fill_values",
                f"give one value or one per channel: {vals.size} values for {channels} channels",
            )
        vals = vals[:channels] if channels is not None else vals
        shape = [1] * ndim
        shape[channel_axis] = vals.size
        vals = vals.reshape(shape)
    else:
        vals = vals.reshape((1,) * ndim)
    return convert_sat(np, vals, np.dtype(dtype))


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
    window, see `fill_array`). With ``out`` the result is written there.
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
            copy = aligned_empty(region.shape, region.dtype)
            copy[...] = region
            return copy
        return xp.ascontiguousarray(converted)
    if out is None:
        shape_out = x.shape[:lead] + tuple(shape)
        out = aligned_empty(shape_out, out_dtype) if xp is np else xp.empty(shape_out, out_dtype)
    out[...] = fill if xp is np or fill is None else xp.asarray(fill)
    if region.size:
        out[pre + dst] = convert_sat(xp, region, out_dtype, truncate=True)
    return out


def window_fill(
    op: Operator, shape: Sequence[int], layout: str, dtype: Any, lead: int = 0
) -> np.ndarray:
    """The op's ``fill_values`` for a window of ``shape`` in ``layout`` (see `fill_array`)."""
    c = layout.find("C")
    return fill_array(
        op,
        op.arg("fill_values"),
        dtype,
        len(shape) + lead,
        None if c < 0 else c + lead,
        None if c < 0 else shape[c],
    )


def extract_windows(
    op: Operator,
    ws: Any,
    tl: Any,
    dense: Any,
    wins: Sequence[tuple[list[int], list[int]]],
    out_dtype: Any,
    layout: str,
) -> Any:
    """The window ``wins[i]`` of every sample ``i`` of the non-empty batch ``tl``, as a batch.

    ``dense`` is the batch as one array, or None (see `batch_array`): with one window for
    every sample the whole batch is sliced at once. Otherwise the samples are cut one by one
    (on the thread pool), into one output array when the windows have the same shape.
    """
    xp, tl_cls = array_module(tl)
    if dense is not None and all(w == wins[0] for w in wins):
        anchor, shape = wins[0]
        fill = window_fill(op, shape, layout, out_dtype, lead=1)
        out = extract_window(xp, dense, anchor, shape, fill, out_dtype, lead=1)
        return tl_cls._make(out, layout)
    samples = tl._samples()
    uniform = all(w[1] == wins[0][1] for w in wins)
    out = None
    if uniform:
        shape = (len(wins), *wins[0][1])
        out = aligned_empty(shape, out_dtype) if xp is np else xp.empty(shape, dtype=out_dtype)

    def one(i: int) -> Any:
        anchor, shape = wins[i]
        fill = window_fill(op, shape, layout, out_dtype)
        dst = None if out is None else out[i]
        return extract_window(xp, samples[i], anchor, shape, fill, out_dtype, out=dst)

    results = run_per_sample(ws, xp, one, len(wins))
    return tl_cls._make(out if out is not None else results, layout)


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


# --------------------------------------------------------------------------------------------
# The crop arguments (DALI's CropAttr and OutOfBoundsAttr)
# --------------------------------------------------------------------------------------------


class CropWindows:
    """The crop arguments of an operator (DALI's ``CropAttr``): validation and windows."""

    def __init__(self, op: Operator) -> None:
        self.op = op
        has = op.has_arg
        self.has_crop = has("crop")
        self.has_w, self.has_h, self.has_d = has("crop_w"), has("crop_h"), has("crop_d")
        self.whole = not (self.has_crop or self.has_w or self.has_h or self.has_d)
        if self.has_w != self.has_h:
            raise op.arg_error(
                "crop_w" if self.has_w else "crop_h",
                "`crop_w` and `crop_h` arguments must be provided together",
            )
        if self.has_d and not self.has_w:
            raise op.arg_error(
                "crop_d", "`crop_d` argument must be provided together with `crop_w` and `crop_h`"
            )
        if self.has_crop and (self.has_w or self.has_d):
            raise op.arg_error("crop", "`crop` argument is not compatible with `crop_h`, `crop_w`")
        if self.has_crop and not op.is_tensor_arg("crop"):
            n = len(op.arg("crop"))
            if n not in (2, 3):
                raise op.arg_error(
                    "crop", f"should have 2 or 3 elements (H, W or D, H, W); got {n}"
                )
        rounding = op.arg("rounding")
        if rounding not in ("round", "truncate"):
            raise op.arg_error(
                "rounding",
                f'value {rounding!r} is not supported; supported values are "round", "truncate"',
            )
        self.truncate = rounding == "truncate"
        for name in ("crop_pos_x", "crop_pos_y", "crop_pos_z"):
            if not op.is_tensor_arg(name):
                self._check_pos(name, op.arg(name))
        for name in ("crop", "crop_h", "crop_w", "crop_d"):
            if has(name) and not op.is_tensor_arg(name):
                self._check_size(name, op.arg(name))
        self.policy = check_policy(op)
        self.size_arg = "crop" if self.has_crop else ("crop_w" if self.has_w else "crop")

    def _check_pos(self, name: str, value: float, sample: int | None = None) -> None:
        if not 0.0 <= value <= 1.0:
            where = "" if sample is None else f"sample {sample}: "
            raise self.op.arg_error(name, f"{where}{value} is out of range [0.0, 1.0]")

    def _check_size(self, name: str, value: Any, sample: int | None = None) -> None:
        """A window size must be a finite number >= 0 (0: the whole extent).

        DALI takes a negative size as "the whole extent" too, silently; it has no meaning
        (unlike `fn.resize`'s, which flips), so it is an error here: at build for a constant,
        at run time, naming the sample, for a per-sample argument.
        """
        v = _invalid_extents(value)
        if v is None:
            return
        where = "" if sample is None else f"sample {sample}: "
        shown = [float(x) for x in v] if v.size > 1 else float(v[0])
        raise self.op.arg_error(
            name,
            f"{where}window sizes must be finite and >= 0 (0 keeps the whole extent), got {shown}",
        )

    def sizes(self, ws: Any) -> list[tuple[int, int, int]]:
        """Per-sample requested (d, h, w); values <= 0 mean "the whole extent"."""
        n = ws.batch_size
        op = self.op
        if self.has_crop and not ws.is_tensor_arg("crop"):
            vals = [int(e) for e in np.asarray(op.arg("crop"), np.float32).reshape(-1)]
            return [tuple(vals) if len(vals) == 3 else (-1, vals[0], vals[1])] * n
        if self.has_crop:
            out = []
            for i, v in enumerate(per_sample_vectors(ws, op, "crop", np.float32)):
                if v.size not in (2, 3):
                    raise op.arg_error(
                        "crop", f"sample {i}: should have 2 or 3 elements; got {v.size}"
                    )
                self._check_size("crop", v, i)
                vals = [int(e) for e in v]  # C++ float -> int truncation
                out.append(tuple(vals) if len(vals) == 3 else (-1, vals[0], vals[1]))
            return out  # type: ignore[return-value]
        if self.has_w:
            cols = []
            for name in ("crop_d", "crop_h", "crop_w"):
                if name == "crop_d" and not self.has_d:
                    cols.append(np.full(n, -1))
                    continue
                v = per_sample_scalars(ws, op, name, np.float32)
                if ws.is_tensor_arg(name) and _invalid_extents(v) is not None:
                    for i, x in enumerate(v.tolist()):
                        self._check_size(name, x, i)  # raises at the first bad sample
                cols.append(v.astype(np.int64))
            d, h, w = cols
            return [(int(d[i]), int(h[i]), int(w[i])) for i in range(n)]
        return [(-1, -1, -1)] * n

    def positions(self, ws: Any) -> np.ndarray:
        """Per-sample (z, y, x) normalised positions, as float32 (DALI's storage)."""
        cols = []
        for name in ("crop_pos_z", "crop_pos_y", "crop_pos_x"):
            v = per_sample_scalars(ws, self.op, name, np.float32)
            if ws.is_tensor_arg(name):
                for i, p in enumerate(v):
                    self._check_pos(name, float(p), i)
            cols.append(v)
        return np.stack(cols, axis=1)

    def windows(
        self, ws: Any, shapes: Sequence[tuple[int, ...]], layout: str
    ) -> list[tuple[list[int], list[int]]]:
        """The window of every sample, after the out-of-bounds policy.

        Raises:
            SampleFailure: for a window that does not fit with ``out_of_bounds_policy="error"``.
        """
        op = self.op
        n = len(shapes)
        if self.whole:
            return [([0] * len(s), list(s)) for s in shapes]
        if n == 0:
            return []
        h_dim, w_dim = layout.find("H"), layout.find("W")
        d_dim, f_dim = layout.find("D"), layout.find("F")
        z_dim = d_dim if d_dim >= 0 else f_dim  # crop_d crops frames of a sequence
        # the whole batch at once, with the per-sample arithmetic of DALI (see the module doc)
        in_shape = np.array([tuple(s) for s in shapes], dtype=np.int64).reshape(n, -1)
        sizes = np.array(self.sizes(ws), dtype=np.int64).reshape(n, 3)
        pos = self.positions(ws)
        crop = in_shape.copy()
        norm = np.full(in_shape.shape, 0.5)
        for dim, col in ((h_dim, 1), (w_dim, 2), (z_dim, 0)):
            if dim >= 0:
                given = sizes[:, col] > 0
                crop[given, dim] = sizes[given, col]
                norm[given, dim] = pos[given, col]  # float32 values, exactly
        a = norm * (in_shape - crop)  # float64, as double(float32(pos)) * (extent - crop)
        t = np.trunc(a)
        if not self.truncate:  # round half away from zero, exactly (`round_half_away_int`)
            frac = a - t
            t = t + (frac >= 0.5) - (frac <= -0.5)
        anchor = t.astype(np.int64)
        if self.policy == "trim_to_shape":
            anchor = np.maximum(anchor, 0)
            crop = np.where(anchor + crop >= in_shape, np.maximum(0, in_shape - anchor), crop)
        elif self.policy == "error":
            end = anchor + crop
            bad = ((anchor < 0) | (anchor > in_shape) | (end < 0) | (end > in_shape)).any(axis=1)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                win = apply_policy("error", anchor[i].tolist(), crop[i].tolist(), shapes[i])
                raise SampleFailure(i, op.arg_error(self.size_arg, str(win)))
        return list(zip(anchor.tolist(), crop.tolist()))


#: DALI's OutOfBoundsAttr: what to do with a window that does not fit the input.
OUT_OF_BOUNDS_ARGS = (
    Arg(
        "out_of_bounds_policy",
        "str",
        default="error",
        doc='"error", "pad" (fill with fill_values) or "trim_to_shape".',
    ),
    Arg("fill_values", "float_vec", default=(0.0,), doc="Padding value(s): one, or per channel."),
)

#: DALI's CropAttr and OutOfBoundsAttr, shared by `fn.crop`, `fn.crop_mirror_normalize` and
#: `fn.decoders.image_crop`.
CROP_WINDOW_ARGS = (
    Arg("crop", "float_vec", tensor=True, doc="Window size (H, W) or (D, H, W)."),
    Arg("crop_h", "float", default=0.0, tensor=True, doc="Window height (0: whole height)."),
    Arg("crop_w", "float", default=0.0, tensor=True, doc="Window width (0: whole width)."),
    Arg("crop_d", "float", default=0.0, tensor=True, doc="Window depth (volumes, sequences)."),
    Arg("crop_pos_x", "float", default=0.5, tensor=True, doc="Normalised horizontal start."),
    Arg("crop_pos_y", "float", default=0.5, tensor=True, doc="Normalised vertical start."),
    Arg("crop_pos_z", "float", default=0.5, tensor=True, doc="Normalised depth start."),
    Arg("rounding", "str", default="round", doc='"round" (half away from zero) or "truncate".'),
    *OUT_OF_BOUNDS_ARGS,
)

#: The crop arguments of `fn.crop` and `fn.crop_mirror_normalize`.
CROP_ARGS = (*CROP_WINDOW_ARGS, Arg("image_type", "image_type", doc="Deprecated; ignored."))

#: DALI's SliceAttr and OutOfBoundsAttr, shared by `fn.slice` and `fn.decoders.image_slice`.
SLICE_ARGS = (
    Arg("start", "int_vec", tensor=True, doc="Absolute start coordinates."),
    Arg("rel_start", "float_vec", tensor=True, doc="Relative start coordinates."),
    Arg("end", "int_vec", tensor=True, doc="Absolute end coordinates."),
    Arg("rel_end", "float_vec", tensor=True, doc="Relative end coordinates."),
    Arg("shape", "int_vec", tensor=True, doc="Absolute shape of the slice."),
    Arg("rel_shape", "float_vec", tensor=True, doc="Relative shape of the slice."),
    Arg("axes", "int_vec", default=(1, 0), doc="Dimensions the coordinates refer to."),
    Arg("axis_names", "layout", default="WH", doc="Same, by layout name (takes priority)."),
    Arg("normalized_anchor", "bool", default=True, doc="Float anchor input is relative."),
    Arg("normalized_shape", "bool", default=True, doc="Float shape input is relative."),
    *OUT_OF_BOUNDS_ARGS,
)


def _invalid_extents(values: Any) -> np.ndarray | None:
    """``values`` flattened to float64 when one of them is negative or not finite (a window
    or slice extent: 0 is allowed), else None."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.all(v >= 0) and np.all(np.isfinite(v)):  # (NaN fails both)
        return None
    return v


def slice_shape_error(
    op: Operator, name: str, values: Any, sample: int | None = None
) -> Exception | None:
    """The error for a slice extent that is not finite and >= 0, else None: the ``shape`` /
    ``rel_shape`` argument ``name``, or the ``shape`` input for ``name="shape input"``, of
    `fn.slice` and `decoders.image_slice`.

    A constant argument is checked at build, per-sample values at run time (``sample``: its
    index, named in the message).
    """
    v = _invalid_extents(values)
    if v is None:
        return None
    where = "" if sample is None else f"sample {sample}: "
    msg = f"{where}negative or non-finite shapes are not allowed, got {v.tolist()}"
    if name == "shape input":
        return op.error(f"the `shape` input, {msg}")
    return op.arg_error(name, msg)


def output_dtype_arg(op: Operator, allowed: Sequence[str] | None) -> Any:
    """The ``dtype`` argument (or its deprecated alias ``output_dtype``), checked."""
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
