"""The crop arguments: DALI's ``CropAttr``, shared by `fn.crop`, `fn.crop_mirror_normalize` and
`fn.decoders.image_crop`.

A crop window is an ``anchor`` and a ``shape`` in the input's own dimensions. The crop size
comes from ``crop`` (``(H, W)`` or ``(D, H, W)``) or ``crop_h``/``crop_w``/``crop_d`` (truncated
to integers; 0 keeps the whole extent; a negative size, which DALI also takes as the whole
extent, is an error naming the argument and the sample); the start along each cropped axis is
``round_half_away(double(float32(pos)) · (extent − crop))`` with ``pos`` = ``crop_pos_x`` /
``crop_pos_y`` / ``crop_pos_z``, as DALI computes it (``crop_pos_y=0.7`` with 75 spare rows
starts at row 52; float64 arithmetic would give 53). ``rounding="truncate"`` truncates instead
(`crop_anchors`).

`CropAttr` checks these arguments once, at build (constants) or per batch (per-sample values),
with the same error texts for every operator that has them, and gives the windows: of a batch
of arrays in any layout (`CropAttr.windows`, after the out-of-bounds policy), or of images
whose size is known only once decoded (`CropAttr.image_windows`, the decoders').

Example:
    >>> import numpy as np
    >>> pos = float(np.float32(0.7))  # 0.699999988...: DALI's float32 value, as a double
    >>> int(crop_anchors(pos, 75, truncate=False)), int(crop_anchors(0.7, 75, truncate=False))
    (52, 53)
    >>> crop_anchors(np.array([0.5, 0.5]), np.array([5, -5]), truncate=False).tolist()
    [3.0, -3.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg
from dali._ops._static_shapes import with_extents
from dali._ops.base import Operator
from dali._ops.window.image_windows import Window, WindowFn
from dali._ops.window.out_of_bounds import OUT_OF_BOUNDS_ARGS, apply_policy, check_policy

if TYPE_CHECKING:
    from dali._graph.node import StaticShape
    from dali.author import Workspace

__all__ = [
    "CROP_ARGS",
    "CROP_LAYOUTS",
    "CROP_SIZE_ARGS",
    "CROP_WINDOW_ARGS",
    "CropAttr",
    "crop_anchors",
    "invalid_extents",
]

#: Layouts accepted by the crop operators, in DALI's order (the first of each ndim is the default
#: for an input without a layout).
CROP_LAYOUTS = ("HWC", "CHW", "DHWC", "CDHW", "FHWC", "FCHW", "CFHW", "FDHWC", "FCDHW", "CFDHW")

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


def invalid_extents(values: Any) -> np.ndarray | None:
    """``values`` flattened to float64 when one of them is negative or not finite (a window
    or slice extent: 0 is allowed), else None."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.all(v >= 0) and np.all(np.isfinite(v)):  # (NaN fails both)
        return None
    return v


def crop_anchors(pos: Any, spare: Any, truncate: bool) -> Any:
    """DALI's crop anchor, ``round_half_away(double(float32(pos)) · spare)`` (``spare``: the
    extent minus the crop), as float64 values; scalars or arrays alike.

    ``pos`` holds float32 values (DALI stores the positions as float); the product is taken
    in float64 and rounded half away from zero exactly (``a - trunc(a)`` is exact, so no
    double rounding moves a value across the half), or truncated with ``truncate``.
    """
    a = pos * spare
    t = np.trunc(a)
    if not truncate:
        frac = a - t
        t = t + (frac >= 0.5) - (frac <= -0.5)
    return t


#: The arguments that set a crop window's size.
CROP_SIZE_ARGS = ("crop", "crop_d", "crop_h", "crop_w")


class CropAttr:
    """The crop arguments of an operator (DALI's ``CropAttr``): checks and windows.

    Built in the operator's ``setup``: the argument combinations and every constant are
    checked there; per-sample values are checked when read (`sizes`, `positions`).

    Attributes:
        whole: No crop size was given: every window is the whole input.
        truncate: ``rounding="truncate"``.
        policy: The checked ``out_of_bounds_policy`` (``"constant"`` as ``"pad"``).
        size_arg: The argument named by an out-of-bounds error.

    Raises:
        OperatorError: At construction, for an invalid combination or constant.
    """

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
        v = invalid_extents(value)
        if v is None:
            return
        where = "" if sample is None else f"sample {sample}: "
        shown = [float(x) for x in v] if v.size > 1 else float(v[0])
        raise self.op.arg_error(
            name,
            f"{where}window sizes must be finite and >= 0 (0 keeps the whole extent), got {shown}",
        )

    def sizes(self, ws: Workspace) -> list[tuple[int, int, int]]:
        """Per-sample requested (d, h, w); values <= 0 mean "the whole extent"."""
        n = ws.batch_size
        if self.has_crop and not ws.is_tensor_arg("crop"):  # checked at build
            vals = [int(e) for e in np.asarray(ws.arg("crop"), np.float32).reshape(-1)]
            return [(vals[0], vals[1], vals[2]) if len(vals) == 3 else (-1, vals[0], vals[1])] * n
        if self.has_crop:
            out = []
            for i, v in enumerate(ws.arg_vectors("crop", np.float32)):
                if v.size not in (2, 3):
                    raise self.op.arg_error(
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
                v = ws.arg_scalars(name, np.float32)
                if ws.is_tensor_arg(name) and invalid_extents(v) is not None:
                    for i, x in enumerate(v.tolist()):
                        self._check_size(name, x, i)  # raises at the first bad sample
                cols.append(v.astype(np.int64))
            d, h, w = cols
            return [(int(d[i]), int(h[i]), int(w[i])) for i in range(n)]
        return [(-1, -1, -1)] * n

    def positions(self, ws: Workspace) -> np.ndarray:
        """Per-sample (z, y, x) normalised positions, as float32 (DALI's storage)."""
        cols = []
        for name in ("crop_pos_z", "crop_pos_y", "crop_pos_x"):
            v = ws.arg_scalars(name, np.float32)
            if ws.is_tensor_arg(name):
                for i, p in enumerate(v):
                    self._check_pos(name, float(p), i)
            cols.append(v)
        return np.stack(cols, axis=1)

    def windows(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], layout: str
    ) -> list[tuple[list[int], list[int]]]:
        """The window of every sample, after the out-of-bounds policy.

        Raises:
            SampleFailure: for a window that does not fit with ``out_of_bounds_policy="error"``.
        """
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
        anchor = crop_anchors(norm, in_shape - crop, self.truncate).astype(np.int64)
        if self.policy == "trim_to_shape":
            anchor = np.maximum(anchor, 0)
            crop = np.where(anchor + crop >= in_shape, np.maximum(0, in_shape - anchor), crop)
        elif self.policy == "error":
            end = anchor + crop
            bad = ((anchor < 0) | (anchor > in_shape) | (end < 0) | (end > in_shape)).any(axis=1)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                win = apply_policy("error", anchor[i].tolist(), crop[i].tolist(), shapes[i])
                raise SampleFailure(i, self.op.arg_error(self.size_arg, str(win)))
        return list(zip(anchor.tolist(), crop.tolist()))

    def image_windows(self, ws: Workspace) -> list[WindowFn] | None:
        """The decoders' windows: one function of the decoded ``(H, W)`` per sample (None: the
        whole image). The out-of-bounds policy is the decoder's (``clip``)."""
        if self.whole:
            return None
        sizes = self.sizes(ws)  # (d, h, w) per sample; <= 0: the whole extent
        pos = self.positions(ws).tolist()  # (z, y, x) per sample, float32 values
        return [
            partial(_image_window, h, w, p[1], p[2], self.truncate)
            for (_, h, w), p in zip(sizes, pos)
        ]

    @staticmethod
    def static_shape(
        node: Any, shape: StaticShape | None, layout: str | None
    ) -> StaticShape | None:
        """The shape of the windows that the crop arguments of ``node`` cut out of samples of
        ``shape`` in ``layout`` (the operators' `static_meta`: what tracing knows of it).

        ``crop`` (``(H, W)`` or ``(D, H, W)``) or ``crop_h``/``crop_w``/``crop_d`` set those axes
        (``crop_d`` crops ``F`` where the layout has no ``D``); their values are truncated to
        integers and 0 keeps the whole extent. A window is exactly that size with the
        ``out_of_bounds_policy`` "error" (a window that does not fit fails) and "pad"; with
        "trim_to_shape" it is cut to the input (``min(crop, extent)``, known only where the extent
        is). A per-sample size (a DataNode) leaves its axes unknown.

        Example:
            >>> from types import SimpleNamespace
            >>> def node(**args): return SimpleNamespace(scalar_args=args, arg_inputs={})
            >>> CropAttr.static_shape(node(crop=(20.0, 30.9)), (40, 60, 3), "HWC")
            (20, 30, 3)
            >>> trim = node(crop_h=50.0, crop_w=50.0, out_of_bounds_policy="trim_to_shape")
            >>> CropAttr.static_shape(trim, (40, None, 3), "HWC")
            (40, None, 3)
        """
        args: dict[str, Any] = node.scalar_args
        tensors: dict[str, Any] = node.arg_inputs
        if not any(a in args or a in tensors for a in CROP_SIZE_ARGS):
            return shape  # no window: the whole input
        sizes: list[int | None]  # (d, h, w); <= 0: the whole extent; None: per sample
        if "crop" in tensors:
            sizes = [None, None, None]
        elif "crop" in args:
            sizes = [_truncated(v) for v in args["crop"]]
            if len(sizes) == 2:
                sizes.insert(0, 0)
        else:
            sizes = [
                None if a in tensors else _truncated(args.get(a, 0.0)) for a in CROP_SIZE_ARGS[1:]
            ]
        if len(sizes) != 3:
            return None  # an error at build
        if shape is None or layout is None or len(layout) != len(shape):
            return None
        trim = args.get("out_of_bounds_policy") == "trim_to_shape"
        depth = "D" if "D" in layout else "F"
        extents: dict[str, int | None] = {}
        for axis, size_ in zip((depth, "H", "W"), sizes):
            if axis not in layout:
                continue
            extent = shape[layout.index(axis)]
            if size_ is None:
                extents[axis] = None
            elif size_ <= 0:
                extents[axis] = extent
            elif trim:
                extents[axis] = None if extent is None else min(size_, extent)
            else:
                extents[axis] = size_
        return with_extents(shape, layout, extents)


def _image_window(h: int, w: int, py: float, px: float, truncate: bool, H: int, W: int) -> Window:
    """The crop window of an ``H×W`` image (a `WindowFn` once the arguments are bound)."""
    ch = h if h > 0 else H
    cw = w if w > 0 else W
    y = int(crop_anchors(py, H - ch, truncate))
    x = int(crop_anchors(px, W - cw, truncate))
    return Window(y, x, ch, cw)


def _truncated(size: float) -> int | None:
    """A window size as DALI reads it (a float truncated to an int); None where not finite
    (an error at build)."""
    value = np.float32(size)
    return int(value) if np.isfinite(value) else None
