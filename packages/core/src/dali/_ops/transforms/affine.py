"""Affine transforms: `fn.transforms.*`, the matrices that warp_affine and coord_transform take.

An ``n``-D affine transform ``x ↦ A·x + t`` is stored as DALI stores it: one float32
``(n, n + 1)`` tensor per sample, ``[A | t]`` (layout ``"**"``), for 1 to 6 dimensions.
``fn.transforms.translation``, ``scale``, ``rotation``, ``shear`` and ``crop`` make one from
their arguments (constants, or per-sample argument inputs); ``fn.transforms.combine`` multiplies
two or more. Given a transform as positional input, a generator *applies* its own transform
after it: the output is ``M · input`` (``reverse_order=True``: ``input · M``), so
``fn.transforms.rotation(fn.transforms.scale(scale=[2, 2]), angle=30)`` scales, then rotates.
The result feeds ``fn.warp_affine(images, matrix=mt)`` and ``fn.coord_transform(points, MT=mt)``
directly (``warp_affine`` reads it as destination→source by default: ``inverse_map=False`` makes
it source→destination).

Sequences: a transform input whose layout starts with ``F`` (``"F**"``: one matrix per frame)
or a per-frame argument (``fn.per_frame(angles)``: one value per frame) makes the output one
matrix per frame, ``(frames, n, n + 1)`` with layout ``"F**"``; per-sample values then serve
every frame of their sample, and a transform input that is not a sequence is applied to every
frame. DALI's rule decides the frame count: the first sequence input, else the first per-frame
argument by name; the others must have as many frames, or (arguments) one.

The arithmetic is DALI's, in float32 (`dali._ops.transforms._matrices`), and is done for the
whole batch at once; a constant argument makes one matrix. DALI 2.4 has these operators on the
CPU only, and so does this library.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     angles = fn.external_source(lambda: [np.float32(90), np.float32(180)], batch=True)
    ...     mt = fn.transforms.scale(scale=[2, 3])
    ...     mt = fn.transforms.rotation(mt, angle=angles, center=[1, 1])
    ...     return mt, fn.transforms.translation(offset=[5, 6])
    >>> rot, shift = pipe().run()
    >>> rot.layout(), rot.shape(), np.round(rot.at(1), 4).tolist()
    ('**', [(2, 3), (2, 3)], [[-2.0, 0.0, 2.0], [-0.0, -3.0, 2.0]])
    >>> shift.at(0).tolist()
    [[1.0, 0.0, 5.0], [0.0, 1.0, 6.0]]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali._dtypes import DALIDataType, type_name
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._sequences import is_sequence
from dali._ops.base import Operator
from dali._ops.transforms import _matrices as mx
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "CombineTransforms",
    "TransformCrop",
    "TransformRotation",
    "TransformScale",
    "TransformShear",
    "TransformTranslation",
]

_F32 = np.float32
#: ``(ndim, build)``: a transform's dimensionality and the function making its matrices.
_Define = tuple[int, Callable[[], np.ndarray]]

_REVERSE = Arg(
    "reverse_order",
    "bool",
    default=False,
    doc="False: apply this transform after the input's (M·input); True: before (input·M).",
)
_PER_FRAME = " Per sample or per frame (fn.per_frame)."


def _shape_text(shapes: list[tuple[int, ...]]) -> str:
    """Shapes as DALI lists them in its messages: ``{2 x 3, 3 x 4}``."""
    return "{" + ", ".join(" x ".join(str(e) for e in s) for s in shapes) + "}"


class _Frames:
    """How a run's matrices ("rows") map to its samples: one per sample (``counts`` None) or
    one per frame, ``counts[i]`` for sample ``i``."""

    __slots__ = ("batch", "counts", "rows")

    def __init__(self, batch: int, counts: np.ndarray | None) -> None:
        self.batch = batch
        self.counts = counts
        self.rows = batch if counts is None else int(counts.sum())


class _AffineBase(Operator):
    """What every transform operator shares: the frame plan, the input checks, the output."""

    #: The arguments that may be given per frame (every tensor argument of the operator).
    frame_args: ClassVar[tuple[str, ...]] = ()

    # -- frames ------------------------------------------------------------------------------
    def _frames(self, ws: Workspace) -> _Frames:
        """The frame count of every sample, from the sequence inputs and per-frame arguments
        (DALI's ``SequenceOperator``: the inputs first, then the arguments by name)."""
        ref: np.ndarray | None = None
        ref_what = ""
        for i, tl in enumerate(ws.inputs):
            if not is_sequence(tl.layout()):
                continue
            counts = np.array([s[0] for s in tl.shape()], dtype=np.int64)
            if ref is None:
                ref, ref_what = counts, f"input {i}"
                continue
            bad = np.flatnonzero(counts != ref)
            if bad.size:
                k = int(bad[0])
                raise self.error(
                    f"The {ref_what} and the input {i} have different number of frames for "
                    f"sample {k}, respectively: {ref[k]} and {counts[k]}"
                )
        given = ws.arg_inputs
        for name in sorted(n for n in self.frame_args if n in given):
            tl = given[name]
            if not is_sequence(tl.layout()):
                continue
            counts = np.array([s[0] for s in tl.shape()], dtype=np.int64)
            if len(counts) != ws.batch_size:
                raise self.arg_error(
                    name, f"got {len(counts)} per-sample values for a batch of {ws.batch_size}"
                )
            if ref is None:
                ref, ref_what = counts, f"argument `{name}`"
                continue
            bad = np.flatnonzero((counts != 1) & (counts != ref))
            if bad.size:
                k = int(bad[0])
                raise self.arg_error(
                    name,
                    f"The sample {k} of tensor argument `{name}` contains {counts[k]} per-frame "
                    f"parameters, but there are {ref[k]} frames in the corresponding sample of "
                    f"{ref_what}. The numbers should match.",
                )
        return _Frames(ws.batch_size, ref)

    # -- inputs ------------------------------------------------------------------------------
    def _transform_input(self, ws: Workspace, index: int, frames: _Frames) -> np.ndarray:
        """Input ``index`` as ``(rows, a, b)`` float32 (one matrix per row), checked to be
        float and uniform; not yet checked to be ``(n, n + 1)``."""
        tl = ws.inputs[index]
        if tl.np_dtype != _F32:
            raise self.error(
                f"Unexpected input data type. Expected float, got: {type_name(tl.np_dtype)}"
            )
        seq = is_sequence(tl.layout())
        dense = tl.dense()
        if seq:
            shapes = [s[1:] for s in tl.shape()]
            if any(s != shapes[0] for s in shapes):
                raise self.error("All matrices must have the same shape.")
            if dense is not None:
                return np.asarray(dense).reshape(-1, *dense.shape[2:])
            return np.concatenate(tl.samples(), axis=0) if shapes else np.zeros((0, 0, 0), _F32)
        if dense is None:
            raise self.error("All matrices must have the same shape.")
        dense = np.asarray(dense)
        if frames.counts is not None:
            return np.repeat(dense, frames.counts, axis=0)
        return dense

    def _check_matrix_shape(self, m: np.ndarray, what: str = "The input, if provided,") -> int:
        """The ``n`` of ``(rows, n, n + 1)`` matrices, or DALI's error."""
        if m.ndim != 3 or len(m) == 0 or m.shape[2] != m.shape[1] + 1:
            shapes = [tuple(m.shape[1:])] * len(m)
            raise self.error(
                f"{what} is expected to be a 2D tensor with dimensions (ndim, ndim+1) "
                f"representing an affine transform. Got: {_shape_text(shapes)}"
            )
        return int(m.shape[1])

    # -- output ------------------------------------------------------------------------------
    def _output(self, mats: np.ndarray, n: int, frames: _Frames) -> TensorListCPU:
        """The top ``n`` rows of the homogeneous matrices, one sample (or frame) per row."""
        rows = frames.rows
        top = np.empty((rows, n, n + 1), _F32)
        top[...] = mats[:, :n, :]
        counts = frames.counts
        if counts is None:
            return TensorListCPU.wrap(top, "**")
        if len(counts) and (counts == counts[0]).all():
            return TensorListCPU.wrap(top.reshape(len(counts), int(counts[0]), n, n + 1), "F**")
        shapes: list[tuple[int, ...]] = [(int(c), n, n + 1) for c in counts]
        return TensorListCPU.wrap_flat(top.reshape(-1), shapes, "F**", ndim=3)

    @staticmethod
    def _homogeneous(m: np.ndarray) -> np.ndarray:
        """``(rows, n, n + 1)`` → ``(rows, n + 1, n + 1)`` with the row ``[0, …, 0, 1]``."""
        rows, n = m.shape[0], m.shape[1]
        out = mx.identity(rows, n)
        out[:, :n, :] = m
        return out


class _Generator(_AffineBase):
    """A transform generator: its matrices from its arguments (`define`), applied to the
    optional input transform."""

    #: The dimensionalities the operator makes (DALI's ``SupportedDims``).
    supported: ClassVar[tuple[int, ...]] = (1, 2, 3, 4, 5, 6)

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        """The transform's ``n`` and the builder of its ``(rows or 1, n + 1, n + 1)`` matrices
        (a constant transform is one matrix). ``in_ndim``: the input transform's ``n``."""
        raise NotImplementedError

    # -- arguments, read per row -------------------------------------------------------------
    def _raw(self, ws: Workspace, name: str, frames: _Frames) -> np.ndarray:
        """An argument as ``(rows, *value_shape)`` float32 (a constant: ``(1, *shape)``).

        Per-sample values must all have one shape; per-frame ones give their frames (one frame
        serves all), per-sample ones are repeated for the frames of their sample."""
        if not ws.is_tensor_arg(name):
            return np.asarray(self.arg(name), _F32)[None]
        tl = ws.arg_inputs[name]
        counts = frames.counts
        per_frame = counts is not None and is_sequence(tl.layout())
        if not per_frame:
            dense = tl.dense()
            if dense is None or len(dense) != ws.batch_size:
                samples = ws.arg_samples(name)  # raises for another number of samples
                raise self.arg_error(
                    name,
                    f'Expected uniform shape for argument "{name}" but got shape '
                    f"{_shape_text([s.shape for s in samples])}",
                )
            data = np.asarray(dense).astype(_F32, copy=False)
            return data if counts is None else np.repeat(data, counts, axis=0)
        samples = ws.arg_samples(name)
        shapes = [s.shape[1:] for s in samples]
        if any(s != shapes[0] for s in shapes):
            raise self.arg_error(
                name,
                f'Expected uniform shape for argument "{name}" but got shape {_shape_text(shapes)}',
            )
        assert counts is not None
        parts = [
            np.asarray(s) if len(s) == c else np.repeat(np.asarray(s), c, axis=0)
            for s, c in zip(samples, counts.tolist())
        ]
        if not parts:
            return np.zeros((0, *shapes[0]) if shapes else (0,), _F32)
        return np.concatenate(parts, axis=0).astype(_F32, copy=False)

    def _free_vector(self, ws: Workspace, name: str, frames: _Frames) -> np.ndarray:
        """A vector argument whose length gives the dimensionality: ``(rows or 1, k)``."""
        v = self._raw(ws, name, frames)
        if v.ndim > 2:
            raise self.arg_error(
                name, f"Input with dimension ({v.ndim - 1}) cannot be converted to dimension (1)."
            )
        return v.reshape(len(v), -1)

    def _vector(self, ws: Workspace, name: str, frames: _Frames, n: int) -> np.ndarray | None:
        """A vector argument of ``n`` values (one value stands for all): ``(rows or 1, n)``;
        None when not given."""
        if not self.has_arg(name):
            return None
        v = self._raw(ws, name, frames)
        size = math.prod(v.shape[1:])
        if ws.is_tensor_arg(name):
            if v.ndim == 1:  # a scalar per sample
                return np.repeat(v[:, None], n, axis=1)
            if v.shape[1:] != (n,):
                shape = _shape_text([tuple(v.shape[1:])] * max(len(v), 1))
                raise self.arg_error(
                    name, f'Expected uniform shape for argument "{name}" but got shape {shape}'
                )
            return v
        if size not in (1, n):
            raise self.arg_error(
                name,
                f'Argument "{name}" expected shape {n} but got {size} values, which can\'t be '
                "interpreted as the expected shape.",
            )
        return np.full((1, n), v.reshape(-1)[0], _F32) if size == 1 else v.reshape(1, n)

    def _scalar(self, ws: Workspace, name: str, frames: _Frames) -> np.ndarray:
        """A scalar argument: ``(rows or 1,)``."""
        v = self._raw(ws, name, frames)
        if v.ndim != 1:
            raise self.arg_error(
                name, f"Input with dimension ({v.ndim - 1}) cannot be converted to dimension (0)."
            )
        return v

    # -- the run -----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        frames = self._frames(ws)
        if ws.batch_size == 0:  # (a branch no sample took: no values to size the transform)
            return self._output(np.empty((0, 1, 1), _F32), 0, frames)
        given = ws.inputs[0] if ws.inputs else None
        inp = in_ndim = None
        if given is not None:
            inp = self._transform_input(ws, 0, frames)
            in_ndim = self._check_matrix_shape(inp)
        n, build = self.define(ws, frames, in_ndim)
        if in_ndim is not None and in_ndim != n:
            raise self.error(
                f"The input describes a {in_ndim}D transform but other arguments suggest a "
                f"{n}D transform"
            )
        if n not in self.supported:
            raise self.error(f"Unsupported number of dimensions {n}")
        mats = build()
        if inp is not None:
            h = self._homogeneous(inp)
            mats = mx.compose(h, mats) if self.arg("reverse_order") else mx.compose(mats, h)
        return self._output(mats, n, frames)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]] | None:
        """FLOAT, ``"**"`` or (sequences) ``"F**"`` where the inputs' layouts tell."""
        layouts = [i.layout for i in node.inputs] + [a.layout for a in node.arg_inputs.values()]
        if any(lay is not None and is_sequence(lay) for lay in layouts):
            return [{"dtype": DALIDataType.FLOAT, "ndim": 3, "layout": "F**"}]
        if any(lay is None for lay in layouts):
            return [{"dtype": DALIDataType.FLOAT}]
        return [{"dtype": DALIDataType.FLOAT, "ndim": 2, "layout": "**"}]


def _args(*args: Arg) -> list[Arg]:
    return [*args, _REVERSE]


@register(
    "transforms.translation",
    inputs=(0, 1),
    input_names=("input",),
    args=_args(
        Arg(
            "offset",
            "float_vec",
            default=REQUIRED,
            tensor=True,
            doc="The translation vector; its length is the number of dimensions." + _PER_FRAME,
        ),
    ),
)
class TransformTranslation(_Generator):
    """Produces a translation affine transform matrix (applied to the input transform, if
    one is given)."""

    frame_args = ("offset",)

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        offset = self._free_vector(ws, "offset", frames)
        return offset.shape[1], lambda: mx.translation(offset)


@register(
    "transforms.scale",
    inputs=(0, 1),
    input_names=("input",),
    args=_args(
        Arg(
            "scale",
            "float_vec",
            default=REQUIRED,
            tensor=True,
            doc="The scale factor per dimension (one value: every dimension)." + _PER_FRAME,
        ),
        Arg(
            "center",
            "float_vec",
            tensor=True,
            doc="The center of the scaling (as many values as `scale`)." + _PER_FRAME,
        ),
        Arg(
            "ndim",
            "int",
            doc="Number of dimensions when `scale` is one value and there is no input.",
        ),
    ),
)
class TransformScale(_Generator):
    """Produces a scale affine transform matrix (applied to the input transform, if one is
    given). The dimensionality is the length of `scale`; for one value, the input's, else
    `ndim`, else 1."""

    frame_args = ("scale", "center")

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        scale = self._free_vector(ws, "scale", frames)
        k = scale.shape[1]
        ndim_arg = self.arg("ndim") if self.has_arg("ndim") else -1
        if k > 1:
            n = k
        elif in_ndim is not None:
            n = in_ndim
        else:
            n = ndim_arg if ndim_arg > 0 else 1
        if k == 1:
            scale = np.repeat(scale, n, axis=1)
        center = self._vector(ws, "center", frames, n)
        return n, lambda: mx.scaling(scale, center)


@register(
    "transforms.rotation",
    inputs=(0, 1),
    input_names=("input",),
    args=_args(
        Arg(
            "angle",
            "float",
            default=REQUIRED,
            tensor=True,
            doc="Angle, in degrees (counter-clockwise)." + _PER_FRAME,
        ),
        Arg(
            "axis",
            "float_vec",
            tensor=True,
            doc="Axis of a 3-D rotation (any non-zero length); makes the transform 3-D."
            + _PER_FRAME,
        ),
        Arg(
            "center",
            "float_vec",
            tensor=True,
            doc="The center of the rotation (one value per dimension)." + _PER_FRAME,
        ),
    ),
)
class TransformRotation(_Generator):
    """Produces a rotation affine transform matrix (applied to the input transform, if one is
    given): 2-D, or 3-D about `axis` when it is given."""

    frame_args = ("angle", "axis", "center")
    supported = (2, 3)

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        angle = self._scalar(ws, "angle", frames)
        if self.has_arg("axis"):
            axis = self._vector(ws, "axis", frames, 3)
            assert axis is not None
            center = self._vector(ws, "center", frames, 3)
            return 3, lambda: mx.with_center(mx.rotation3d(axis, angle), center)
        center = self._vector(ws, "center", frames, 2)
        return 2, lambda: mx.with_center(mx.rotation2d(angle), center)


@register(
    "transforms.shear",
    inputs=(0, 1),
    input_names=("input",),
    args=_args(
        Arg(
            "shear",
            "float_vec",
            tensor=True,
            doc="Shear factors: 2-D (sx, sy) or 3-D (xy, xz, yx, yz, zx, zy)." + _PER_FRAME,
        ),
        Arg(
            "angles",
            "float_vec",
            tensor=True,
            doc="Shear angles in degrees, [-90, 90] (instead of `shear`)." + _PER_FRAME,
        ),
        Arg(
            "center",
            "float_vec",
            tensor=True,
            doc="The center of the shear (one value per dimension)." + _PER_FRAME,
        ),
    ),
)
class TransformShear(_Generator):
    """Produces a shear affine transform matrix (applied to the input transform, if one is
    given). ``shear`` (or ``angles``, ``tan`` of which are the factors) has 2 values (2-D) or 6,
    a 3×2 matrix (3-D); a shear factor is the offset along the first axis per unit of the
    second."""

    frame_args = ("shear", "angles", "center")
    supported = (2, 3)

    def setup(self) -> None:
        if self.has_arg("shear") == self.has_arg("angles"):
            raise self.error(
                "One and only one of the following arguments is expected: ``shear`` or ``angles``"
            )

    def _dims(self, ws: Workspace, name: str, v: np.ndarray) -> int:
        """The dimensionality a shear value's shape gives (DALI's rules)."""
        if not ws.is_tensor_arg(name):
            size = v.size
            n = int(np.sqrt(size)) + 1
            if size != n * (n - 1):
                raise self.arg_error(
                    name,
                    "Shear matrix must have D*(D-1) elements where D is the number of "
                    f"dimensions. Got {size} elements.",
                )
            return n
        shape = v.shape[1:]
        if len(shape) == 1 and shape[0] == 2:
            return 2
        if len(shape) == 2 and shape[1] == shape[0] - 1:
            return int(shape[0])
        raise self.arg_error(
            name,
            "Shear coefficient must be a D x (D-1) matrix or a 2-element vector. Got: "
            + " x ".join(str(e) for e in shape),
        )

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        name = "shear" if self.has_arg("shear") else "angles"
        v = self._raw(ws, name, frames)
        n = self._dims(ws, name, v)
        factors = v.reshape(len(v), -1)
        if name == "angles":
            ok = (factors >= -90) & (factors <= 90)
            if not ok.all():
                bad = float(factors[~ok][0])
                raise self.arg_error(
                    name, f"Angle is expected to be in the range [-90, 90]. Got: {bad:g}"
                )
            factors = mx.tan_deg(factors)
        center = self._vector(ws, "center", frames, n) if n in (2, 3) else None
        return n, lambda: mx.with_center(mx.shearing(factors), center)


@register(
    "transforms.crop",
    inputs=(0, 1),
    input_names=("input",),
    args=_args(
        Arg(
            "from_start",
            "float_vec",
            default=(0.0,),
            tensor=True,
            doc="Lower bound of the original coordinate space." + _PER_FRAME,
        ),
        Arg(
            "from_end",
            "float_vec",
            default=(1.0,),
            tensor=True,
            doc="Upper bound of the original coordinate space." + _PER_FRAME,
        ),
        Arg(
            "to_start",
            "float_vec",
            default=(0.0,),
            tensor=True,
            doc="Lower bound of the destination coordinate space." + _PER_FRAME,
        ),
        Arg(
            "to_end",
            "float_vec",
            default=(1.0,),
            tensor=True,
            doc="Upper bound of the destination coordinate space." + _PER_FRAME,
        ),
        Arg(
            "absolute",
            "bool",
            default=False,
            doc="Swap start and end (per axis) where start > end.",
        ),
    ),
)
class TransformCrop(_Generator):
    """Produces an affine transform matrix that maps the box ``[from_start, from_end]`` onto
    ``[to_start, to_end]`` (e.g. to move coordinates into a crop window); applied to the input
    transform, if one is given. A single value stands for every dimension."""

    frame_args = ("from_end", "from_start", "to_end", "to_start")
    _names = ("from_start", "from_end", "to_start", "to_end")

    def define(self, ws: Workspace, frames: _Frames, in_ndim: int | None) -> _Define:
        vals = [self._free_vector(ws, name, frames) for name in self._names]
        sizes = [v.shape[1] for v in vals]
        n = max(sizes)
        if any(s not in (n, 1) for s in sizes):
            raise self.error(
                "Arguments ``from_start``, ``from_end``, ``to_start`` and ``to_end`` should "
                "have the same number of dimensions or be a single element which will be "
                "broadcast to all dimensions"
            )
        absolute = bool(self.arg("absolute"))
        return n, lambda: mx.crop_window(vals[0], vals[1], vals[2], vals[3], absolute)


@register(
    "transforms.combine",
    inputs=(2, 99),
    args=[
        Arg(
            "reverse_order",
            "bool",
            default=False,
            doc="False: T1, T2, T3 combine to T3·T2·T1 (T1 first); True: to T1·T2·T3.",
        ),
    ],
)
class CombineTransforms(_AffineBase):
    """Combines two or more affine transforms.

    By default, applying the result to a point is applying the inputs in the order listed:
    ``[T1, T2, T3]`` gives ``T3(T2(T1(x)))``; with ``reverse_order=True``, ``T1(T2(T3(x)))``.
    The inputs must all have one shape, ``(n, n + 1)``; sequences (``"F**"``) are combined
    frame by frame, a non-sequence input serving every frame.
    """

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        frames = self._frames(ws)
        mats = [self._transform_input(ws, i, frames) for i in range(len(ws.inputs))]
        n = self._check_matrix_shape(mats[0])
        for i, m in enumerate(mats[1:], 1):
            if m.shape != mats[0].shape:
                a = _shape_text([tuple(mats[0].shape[1:])] * len(mats[0]))
                b = _shape_text([tuple(m.shape[1:])] * len(m))
                raise self.error(
                    "All input transforms are expected to have the same shape. "
                    f"Got: {a} and {b} for the {i}-th input."
                )
        if n not in range(1, 7):
            raise self.error(f"Unsupported number of dimensions {n}")
        # DALI's order of the float32 products: T3·(T2·(T1·I)), or ((I·T1)·T2)·T3 reversed
        reverse = bool(self.arg("reverse_order"))
        acc = mx.identity(len(mats[0]), n)
        for m in mats:
            h = self._homogeneous(m)
            acc = mx.compose(acc, h) if reverse else mx.compose(h, acc)
        return self._output(acc, n, frames)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]] | None:
        return _Generator.static_meta(node)
