"""The slice arguments: DALI's ``SliceAttr``, shared by `fn.slice` and `fn.decoders.image_slice`.

A slice window is given either by two extra positional inputs, ``anchor`` and ``shape`` (floats
are relative to the input extents when ``normalized_anchor``/``normalized_shape`` are set, the
default; integers are always absolute), or by named arguments: ``start``/``rel_start`` with
``end``/``rel_end``/``shape``/``rel_shape``. The values apply to the dimensions named by
``axis_names`` (default ``"WH"``: x first, then y) or given by ``axes``. As in DALI, the start
and end are computed in double precision (`positional_bounds`, `named_bounds`; with both
relative, the end is ``(rel_start + rel_shape) · extent``, one rounding less) and rounded to the
nearest integer, halves away from zero (`SliceAttr.window`).

`SliceAttr` checks the arguments once (their combinations, the constant shapes) and gives the
windows of a batch of arrays (`SliceAttr.windows`, after the out-of-bounds policy).
`ImageSliceAttr` is the decoders' variant: images are sliced along H and W only, the values
are DALI's float32 ones, and each window is a function of the decoded size
(`ImageSliceAttr.image_windows`). The two variants share the rules and the arithmetic; they
still word some checks differently (kept byte for byte from before the two were merged):

=====================================  ===========================  ===========================
rule                                   `fn.slice`                   `image_slice`
=====================================  ===========================  ===========================
named arguments xor anchor and shape   three texts                  two, the second with the
                                                                    number of inputs
anchor and shape inputs: same type,    "; got", then a failure of   ", got", then one text
1-D, one number per sliced axis        the sample per rule          naming the sample
named values: one per sliced axis      a failure of the sample      the text names the sample
end before start                       ``got a, e``                 ``(start=a, end=e)``
coordinates within ±2⁶³                checked                      not checked
``axes`` with ``axis_names``           an error                     ``axis_names`` wins
=====================================  ===========================  ===========================

Example:
    >>> import numpy as np
    >>> ext = np.array([100.0, 60.0])
    >>> positional_bounds(np.array([0.25, 0.5]), np.array([0.5, 0.25]), True, True, ext)
    (array([25., 30.]), array([75., 45.]))
    >>> named_bounds({"start": np.array([10.0, 5.0]), "shape": np.array([20.0, 20.0])}, ext)
    (array([10.,  5.]), array([30., 25.]))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.node import StaticShape
from dali._graph.schema import Arg
from dali._ops.base import Operator
from dali._ops.numeric import host_samples, round_half_away, round_half_away_int
from dali._ops.window.axes import axes_from_args
from dali._ops.window.crop_attr import invalid_extents
from dali._ops.window.image_windows import Window, WindowFn
from dali._ops.window.out_of_bounds import (
    OUT_OF_BOUNDS_ARGS,
    apply_policy,
    apply_policy_batch,
    check_policy,
)

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "NAMED_ARGS",
    "SLICE_ARGS",
    "ImageSliceAttr",
    "SliceAttr",
    "named_bounds",
    "positional_bounds",
    "slice_shape_error",
    "static_slice_shape",
]

#: The named slice arguments, in the order they are read.
NAMED_ARGS = ("start", "rel_start", "end", "rel_end", "shape", "rel_shape")

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

_I64 = float(2**63)
#: Coordinates the batched windows take (floats whose rounding to int64 is exact).
_EXACT = float(2**52)

#: The operator's name of each slice argument: DALI's ``NamedSliceAttr`` takes the names, so that
#: `fn.readers.numpy` reads ``roi_start``... ``roi_axes`` with the same rules (`SliceAttr.names`).
_NAMES: Mapping[str, str | None] = {
    **{k: k for k in NAMED_ARGS},
    "axes": "axes",
    "axis_names": "axis_names",
}

#: A sample's ``(start, end)`` along the sliced axes as a function of their extents.
_Bounds = Callable[[np.ndarray], tuple[Any, Any]]


def slice_shape_error(
    op: Operator, name: str, values: Any, sample: int | None = None
) -> Exception | None:
    """The error for a slice extent that is not finite and >= 0, else None: the ``shape`` /
    ``rel_shape`` argument ``name``, or the ``shape`` input for ``name="shape input"``.

    A constant argument is checked at build, per-sample values at run time (``sample``: its
    index, named in the message).
    """
    v = invalid_extents(values)
    if v is None:
        return None
    where = "" if sample is None else f"sample {sample}: "
    msg = f"{where}negative or non-finite shapes are not allowed, got {v.tolist()}"
    if name == "shape input":
        return op.error(f"the `shape` input, {msg}")
    return op.arg_error(name, msg)


def positional_bounds(
    anchor: Any, shape: Any, norm_anchor: bool, norm_shape: bool, extent: Any
) -> tuple[Any, Any]:
    """``(start, end)`` from the ``anchor`` and ``shape`` inputs (float64 values, relative to
    ``extent`` where normalised), as DALI computes them."""
    if norm_anchor and norm_shape:  # one multiplication after the sum (DALI)
        return anchor * extent, (anchor + shape) * extent
    start = anchor * extent if norm_anchor else anchor
    return start, start + (shape * extent if norm_shape else shape)


def named_bounds(values: Mapping[str, Any], extent: Any) -> tuple[Any, Any]:
    """``(start, end)`` from one sample's named arguments (float64 values, by name), as DALI
    computes them: no start is 0, no end is the extent."""
    if "start" in values:
        start = values["start"]
    elif "rel_start" in values:
        start = values["rel_start"] * extent
    else:
        start = np.zeros(len(extent))
    if "end" in values:
        end = values["end"]
    elif "rel_end" in values:
        end = values["rel_end"] * extent
    elif "shape" in values:  # (>= 0: checked with `slice_shape_error`)
        end = start + values["shape"]
    elif "rel_shape" in values:
        if "rel_start" in values:  # one multiplication after the sum (DALI)
            end = (values["rel_start"] + values["rel_shape"]) * extent
        else:
            end = start + values["rel_shape"] * extent
    else:
        end = extent
    return start, end


class SliceAttr:
    """The slice arguments of `fn.slice` (DALI's ``SliceAttr``): checks and windows.

    As in DALI, a constant of one value applies to every sliced axis, and an empty value
    (per sample) counts as not given.

    Args:
        op: The operator.
        names: The operator's names of the arguments, where they differ from `NAMED_ARGS`,
            ``axes`` and ``axis_names`` (`fn.readers.numpy`: ``{"start": "roi_start", ...,
            "axes": "roi_axes", "axis_names": None}``). ``axis_names`` None: the operator has
            none, and an empty ``axes`` means every axis.

    Attributes:
        named: The named arguments given, in `NAMED_ARGS` order (empty: the positional
            inputs give the windows).
        names: The operator's name of each argument (see ``names`` above).
        policy: The checked ``out_of_bounds_policy`` (``"constant"`` as ``"pad"``).

    Raises:
        OperatorError: At construction, for an invalid combination or constant.
    """

    names: Mapping[str, str | None] = _NAMES

    def __init__(self, op: Operator, names: Mapping[str, str | None] | None = None) -> None:
        self.op = op
        if names:
            self.names = {**_NAMES, **names}
        self.named = tuple(k for k in NAMED_ARGS if op.has_arg(self._name(k)))
        n_in = len(op.node.inputs)
        if n_in == 2:
            raise op.error("expects the anchor and the shape as two extra inputs, got only one")
        if n_in == 3 and self.named:
            raise op.arg_error(
                self.named[0],
                "named arguments start/end/shape are not compatible with the positional anchor "
                "and shape inputs",
            )
        if n_in == 1 and not self.named:
            raise op.error(
                "expected named slice arguments (e.g. start/end, start/shape) or positional "
                "inputs (anchor, shape)"
            )
        self._check_named()
        if self.names["axis_names"] is not None and op.has_arg("axes") and op.has_arg("axis_names"):
            raise op.arg_error("axis_names", '"axes" and "axis_names" are mutually exclusive')
        self._check_shape_constants()
        self.policy = check_policy(op)

    # -- checks --------------------------------------------------------------------------------
    def _name(self, key: str) -> str:
        """The operator's name of the slice argument ``key`` (`names`)."""
        name = self.names[key]
        assert name is not None
        return name

    def _check_named(self) -> None:
        """At most one start and one end argument."""
        given, n = self.named, self._name
        if "start" in given and "rel_start" in given:
            raise self.op.arg_error(
                n("rel_start"), f'"{n("start")}" and "{n("rel_start")}" are mutually exclusive'
            )
        ends = [k for k in given if k not in ("start", "rel_start")]
        if len(ends) > 1:
            raise self.op.arg_error(
                n(ends[1]),
                f'"{n("end")}", "{n("rel_end")}", "{n("shape")}" and "{n("rel_shape")}" are '
                "mutually exclusive",
            )

    def _check_shape_constants(self) -> None:
        for name in map(self._name, ("shape", "rel_shape")):
            if self.op.has_arg(name) and not self.op.is_tensor_arg(name):
                err = slice_shape_error(self.op, name, self.op.arg(name))
                if err is not None:
                    raise err

    def _check_bounds(self, i: int, a: float, e: float) -> None:
        op = self.op
        if not (-_I64 <= a <= _I64):
            raise SampleFailure(i, op.error(f"anchor value out of range; got {a}"))
        if not (-_I64 <= e <= _I64):
            raise SampleFailure(i, op.error(f"end coordinates out of range; got {e}"))
        if e < a:
            raise SampleFailure(
                i, op.error(f"end coordinates can't be before start coordinates; got {a}, {e}")
            )

    # -- windows -------------------------------------------------------------------------------
    def window(
        self, i: int, in_shape: Sequence[int], axes: Sequence[int], start: Any, end: Any
    ) -> tuple[list[int], list[int]]:
        """Sample ``i``'s window from its ``(start, end)`` along ``axes`` (the whole extent
        along the others), rounded half away from zero as DALI rounds them."""
        anchor = [0] * len(in_shape)
        shape = list(in_shape)
        for k, dim in enumerate(axes):
            a, e = float(start[k]), float(end[k])
            self._check_bounds(i, a, e)
            anchor[dim] = round_half_away_int(a)
            shape[dim] = round_half_away_int(e) - anchor[dim]
        return anchor, shape

    def axes(self, ndim: int, layout: str) -> list[int]:
        """The sliced axes of an input of ``ndim`` dimensions in ``layout``."""
        op = self.op
        if self.names["axis_names"] is None:  # DALI's AxisArgs without names: none means all
            name = self._name("axes")
            return axes_from_args(op, list(op.arg(name)) or None, None, ndim, layout, name)
        if op.has_arg("axes"):
            return axes_from_args(op, op.arg("axes"), None, ndim, layout)
        return axes_from_args(op, None, op.arg("axis_names"), ndim, layout)

    def windows(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], layout: str, ndim: int
    ) -> list[tuple[list[int], list[int]]]:
        """The window of every sample, after the out-of-bounds policy.

        Raises:
            SampleFailure: An invalid per-sample value, or a window that does not fit with
                ``out_of_bounds_policy="error"``.
        """
        if not self.named:
            batch = self._positional_batch(ws, shapes, self.axes(ndim, layout))
            if batch is not None:
                return batch
        wins = self._windows(ws, shapes, layout, ndim)
        out = []
        for i, (anchor, shape) in enumerate(wins):
            w = apply_policy(self.policy, anchor, shape, shapes[i])
            if isinstance(w, str):
                raise SampleFailure(i, self.op.arg_error("out_of_bounds_policy", w))
            out.append(w)
        return out

    def _positional_batch(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], axes: list[int]
    ) -> list[tuple[list[int], list[int]]] | None:
        """Every window at once from anchor and shape inputs that are host batches of one
        1-D array per sample, with `_windows`'s arithmetic over the whole batch (a detection
        pipeline slices every image by `fn.random_bbox_crop`'s outputs: per sample, this was
        ~40 µs of Python). None where a value needs a message (a bad extent, an end before its
        start, a window that ``out_of_bounds_policy="error"`` refuses) or the inputs are held
        otherwise: `_windows` then goes sample by sample and raises the exact error."""
        a_tl, s_tl = ws.inputs[1], ws.inputs[2]
        if type(a_tl).__name__ != "TensorListCPU" or type(s_tl).__name__ != "TensorListCPU":
            return None
        anchors, sizes = a_tl.dense(), s_tl.dense()
        n = len(shapes)
        if (
            anchors is None
            or sizes is None
            or anchors.dtype != sizes.dtype
            or anchors.shape != (n, len(axes))
            or sizes.shape != anchors.shape
            or not n
        ):
            return None
        op = self.op
        s64 = sizes.astype(np.float64)
        if invalid_extents(s64) is not None:
            return None
        in_shapes = np.array(shapes, np.int64).reshape(n, -1)
        ext = in_shapes[:, axes].astype(np.float64)
        norm_a = anchors.dtype.kind == "f" and op.arg("normalized_anchor")
        norm_s = anchors.dtype.kind == "f" and op.arg("normalized_shape")
        start, end = positional_bounds(anchors.astype(np.float64), s64, norm_a, norm_s, ext)
        if not (np.all(np.abs(start) <= _EXACT) and np.all(np.abs(end) <= _EXACT)):
            return None  # (NaN fails too) beyond 2**52, or out of range: `_check_bounds`
        if not np.all(end >= start):
            return None
        first = round_half_away(np, start).astype(np.int64)
        anchor = np.zeros_like(in_shapes)
        shape = in_shapes.copy()
        anchor[:, axes] = first
        shape[:, axes] = round_half_away(np, end).astype(np.int64) - first
        applied = apply_policy_batch(self.policy, anchor, shape, in_shapes)
        if applied is None:
            return None
        return list(zip(applied[0].tolist(), applied[1].tolist()))

    def _windows(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], layout: str, ndim: int
    ) -> list[tuple[list[int], list[int]]]:
        op = self.op
        axes = self.axes(ndim, layout)
        naxes = len(axes)
        wins = []
        if not self.named:
            for i, (a, s) in enumerate(self._positional(ws, len(shapes), naxes)):
                err = slice_shape_error(op, "shape input", s)
                if err is not None:
                    raise SampleFailure(i, err)
                ext = np.array([shapes[i][d] for d in axes], np.float64)
                norm_a = a.dtype.kind == "f" and op.arg("normalized_anchor")
                norm_s = s.dtype.kind == "f" and op.arg("normalized_shape")
                a64, s64 = a.astype(np.float64), s.astype(np.float64)
                start, end = positional_bounds(a64, s64, norm_a, norm_s, ext)
                wins.append(self.window(i, shapes[i], axes, start, end))
            return wins
        values = {name: self._named_values(ws, name, naxes) for name in self.named}
        for i, in_shape in enumerate(shapes):
            for name in ("shape", "rel_shape"):
                if name in values:
                    err = slice_shape_error(op, self._name(name), values[name][i])
                    if err is not None:
                        raise SampleFailure(i, err)
            ext = np.array([in_shape[d] for d in axes], np.float64)
            given = {k: v[i] for k, v in values.items() if v[i].size}  # empty: not given
            start, end = named_bounds(given, ext)
            wins.append(self.window(i, in_shape, axes, start, end))
        return wins

    def _positional(self, ws: Workspace, n: int, naxes: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per-sample (anchor, shape) from the two extra inputs, checked."""
        op = self.op
        out = []
        anchors, shapes = host_samples(ws.inputs[1]), host_samples(ws.inputs[2])
        for i in range(n):
            a, s = np.asarray(anchors[i]), np.asarray(shapes[i])
            if a.dtype != s.dtype:
                raise op.error(
                    f"anchor and shape should have the same type; got {a.dtype} and {s.dtype}"
                )
            if a.ndim > 1 or a.shape != s.shape:
                raise SampleFailure(
                    i, op.error("anchor and shape must be 1-D tensors of the same shape")
                )
            a, s = a.reshape(-1), s.reshape(-1)
            if a.size != naxes:
                raise SampleFailure(
                    i, op.error(f"unexpected number of arguments {a.size} vs {naxes} axes")
                )
            out.append((a, s))
        return out

    def _named_values(self, ws: Workspace, name: str, naxes: int) -> list[np.ndarray]:
        arg = self._name(name)
        values = ws.arg_vectors(arg, np.float64)
        if not self.op.is_tensor_arg(arg) and values and values[0].size == 1:
            # DALI's ArgValue: a constant of one value applies to every sliced axis
            return [np.repeat(values[0], naxes)] * len(values)
        for i, v in enumerate(values):
            if v.size != naxes and v.size != 0:  # (empty: not given for this sample)
                raise SampleFailure(
                    i, self.op.arg_error(arg, f"has {v.size} values for {naxes} sliced axes")
                )
        return values


class ImageSliceAttr(SliceAttr):
    """The slice arguments of `fn.decoders.image_slice`: `SliceAttr` on H×W images.

    The sliced axes are H and W only (``axis_names`` takes priority over ``axes``), the
    values are DALI's float32 ones (integers as int64), and a window is a function of the
    decoded size (`image_windows`). The out-of-bounds policy is the decoder's (``clip``).

    Attributes:
        image_axes: The sliced axes, 0 (H) and/or 1 (W), in the order the values give them.
    """

    def __init__(self, op: Operator) -> None:
        self.op = op
        if op.has_arg("axis_names") or not op.has_arg("axes"):
            names = op.arg("axis_names")
            axes = []
            for c in names:
                if c not in "HW":
                    raise op.arg_error(
                        "axis_names", f"images are sliced along H and W only, got {names!r}"
                    )
                axes.append("HW".index(c))
        else:
            axes = []
            for a in op.arg("axes"):
                a = a + 3 if a < 0 else a
                if a not in (0, 1):
                    raise op.arg_error(
                        "axes", f"images are sliced along axes 0 (H) and 1 (W) only, got {a}"
                    )
                axes.append(a)
        if len(set(axes)) != len(axes):
            raise op.arg_error("axes", f"repeated axis in {axes}")
        self.image_axes = tuple(axes)
        self.named = tuple(k for k in NAMED_ARGS if op.has_arg(k))
        self._check_named()
        self._check_shape_constants()
        n_inputs = len(op.node.inputs)
        if self.named and n_inputs != 1:
            raise op.error(
                "named arguments start/end/shape are not compatible with the positional "
                "anchor and shape inputs"
            )
        if not self.named and n_inputs != 3:
            raise op.error(
                "expected named slice arguments (e.g. start/end, rel_start/rel_shape) or the "
                f"positional inputs (data, anchor, shape); got {n_inputs} input(s)"
            )

    def _check_bounds(self, i: int, a: float, e: float) -> None:
        if e < a:
            raise self.op.error(
                f"end coordinates can't be before start coordinates (start={a}, end={e})"
            )

    def image_windows(self, ws: Workspace, n: int) -> list[WindowFn]:
        """One function of the decoded ``(H, W)`` per sample, giving its window.

        Raises:
            OperatorError: An invalid per-sample value (naming the sample).
        """
        op = self.op
        k = len(self.image_axes)
        bounds: list[_Bounds]
        if self.named:
            vals: dict[str, list[np.ndarray]] = {}
            for name in self.named:
                dt = np.float32 if name.startswith("rel_") else np.int64
                per = ws.arg_vectors(name, dt)
                for i, v in enumerate(per):
                    if v.size != k:
                        raise op.arg_error(
                            name,
                            f"sample {i}: expected {k} values (axes {self.image_axes}), "
                            f"got {v.size}",
                        )
                    if name in ("shape", "rel_shape"):
                        err = slice_shape_error(op, name, v, i)
                        if err is not None:
                            raise err
                vals[name] = [v.astype(np.float64) for v in per]
            bounds = [partial(named_bounds, {a: v[i] for a, v in vals.items()}) for i in range(n)]
        else:
            bounds = self._positional_bounds(ws, n, k)
        return [partial(self._image_window, i, b) for i, b in enumerate(bounds)]

    def _positional_bounds(self, ws: Workspace, n: int, k: int) -> list[_Bounds]:
        op = self.op
        anchors, shapes = ws.inputs[1].samples(), ws.inputs[2].samples()
        if len(anchors) != n or len(shapes) != n:
            raise op.error("the anchor and shape inputs must have one value per sample")
        out: list[_Bounds] = []
        for i in range(n):
            a, s = np.asarray(anchors[i]), np.asarray(shapes[i])
            if a.dtype != s.dtype:
                raise op.error(
                    f"anchor and shape should have the same type, got {a.dtype} and {s.dtype}"
                )
            if a.dtype.kind not in "iuf" or a.ndim > 1 or s.ndim > 1 or a.size != k or s.size != k:
                raise op.error(
                    f"sample {i}: anchor and shape must be 1-D with {k} numbers (axes "
                    f"{self.image_axes}), got {a.dtype} {a.shape} and {s.dtype} {s.shape}"
                )
            err = slice_shape_error(op, "shape input", s, i)
            if err is not None:
                raise err
            is_float = a.dtype.kind == "f"
            out.append(
                partial(
                    positional_bounds,
                    a.astype(np.float32).astype(np.float64).reshape(-1),
                    s.astype(np.float32).astype(np.float64).reshape(-1),
                    is_float and bool(op.arg("normalized_anchor")),
                    is_float and bool(op.arg("normalized_shape")),
                )
            )
        return out

    def _image_window(self, i: int, bounds: _Bounds, H: int, W: int) -> Window:
        """Sample ``i``'s window of an ``H×W`` image (a `WindowFn` once ``i`` and ``bounds``
        are bound)."""
        axes = self.image_axes
        size = (H, W)
        start, end = bounds(np.array([size[d] for d in axes], np.float64))
        (y, x), (h, w) = self.window(i, size, axes, start, end)
        return Window(y, x, h, w)


def static_slice_shape(node: Any, default_names: str = "WH") -> StaticShape | None:
    """The output shape of a slice whose window is known at trace time, where the input's
    static shape fixes it (`dali._ops._static_shapes`): constant named arguments, or
    positional anchor and shape inputs made of constants; the window's extent along each
    sliced axis (its bounds rounded as `SliceAttr.window` rounds them), the input's along the
    others. None for per-sample windows and ``trim_to_shape`` (its window depends on the
    data)."""
    from dali._ops._static_shapes import constant_arg, constant_vector, static_axes

    src = node.inputs[0]
    shape, layout = src.static_shape, src.layout
    args = node.scalar_args
    if shape is None:
        return None
    axes = static_axes(node, len(shape), layout, default_names)
    if axes is None:
        return None
    # where the window is not known: the sliced axes are, the others keep their extents
    unknown = tuple(None if d in axes else e for d, e in enumerate(shape))
    if args.get("out_of_bounds_policy", "error") not in ("error", "pad", "constant"):
        return unknown
    n = len(axes)
    ext = np.array([np.nan if shape[d] is None else shape[d] for d in axes], np.float64)
    with np.errstate(invalid="ignore"):
        if len(node.inputs) == 3:
            values = []
            for inp in node.inputs[1:]:
                source = inp.source
                if source is None or source.schema.fn_path != "_constant":
                    return unknown
                v = np.asarray(constant_arg(source, "value")).reshape(-1)
                values.append(np.repeat(v, n) if v.size == 1 else v)
            anchor, extent = values
            if anchor.size != n or extent.size != n:
                return unknown
            norm_a = anchor.dtype.kind == "f" and bool(args.get("normalized_anchor", True))
            norm_s = extent.dtype.kind == "f" and bool(args.get("normalized_shape", True))
            start, end = positional_bounds(
                anchor.astype(np.float64), extent.astype(np.float64), norm_a, norm_s, ext
            )
        else:
            given = {}
            for name in NAMED_ARGS:
                if name in args or name in node.arg_inputs:
                    values_of = constant_vector(node, name, n)
                    if values_of is None:
                        return unknown
                    given[name] = values_of
            start, end = named_bounds(given, ext)
    out = list(shape)
    for k, d in enumerate(axes):
        a, e = float(start[k]), float(end[k])
        finite = np.isfinite(a) and np.isfinite(e) and e >= a
        out[d] = round_half_away_int(e) - round_half_away_int(a) if finite else None
    return tuple(out)
