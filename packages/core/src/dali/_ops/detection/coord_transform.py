"""`fn.coord_transform` (cpu, gpu): ``out = M · in + T`` for every point of a tensor.

A sample is a tensor of points ``[..., D]`` (at least 2-D: ``[N, D]`` points, or ``[H, W, 3]``
colours); its last dimension, ``D`` (1 to 6), must be the same for every non-empty sample of the
batch. The output replaces ``D`` by the number of rows of ``M`` (1 to 6).

The transform is given as DALI's ``MTTransformAttr`` takes it, each argument constant or per
sample:

* ``M``: a row-major ``rows × D`` matrix, flattened (``rows`` follows from its length), or one
  number ``s`` (``s`` times the identity); per sample, a ``[rows, D]`` matrix or a scalar.
  Absent: the identity.
* ``T``: the translation, ``rows`` values or one number for all; absent: none.
* ``MT``: the block matrix ``[M T]``, ``rows × (D + 1)``, or one number (``M = s·I``, ``T = 0``);
  it excludes ``M`` and ``T``.

The arithmetic is DALI's, in float32: the input converted to float, then for every output row
``M[r, 0]·x0 + M[r, 1]·x1 + … + T[r]`` accumulated left to right (no fused multiply-add; on
both backends). ``dtype`` is FLOAT (default) or the input's own type; an integer output is
rounded half away from zero and saturated (`dali._ops.numeric.convert_sat`). Inputs may be
UINT8, INT16, UINT16, INT32 or FLOAT.

One deliberate difference: a *per-sample scalar* ``MT`` is the documented ``s·I`` with ``T = 0``;
DALI 2.4 gives ``D + 1`` output components there, garbage beyond the first sample.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> pts = np.array([[1, 2], [3, 4]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     p = types.Constant(pts)
    ...     return fn.coord_transform(p, M=[0, 1, 1, 0], T=[10, 20]), fn.coord_transform(p, MT=2)
    >>> swap, double = pipe().run()
    >>> swap.at(0).tolist(), double.at(0).tolist()
    ([[12.0, 21.0], [14.0, 23.0]], [[2.0, 4.0], [6.0, 8.0]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, np_dtype
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import convert_sat
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["CoordTransform", "transform_points"]

_F32 = np.float32

#: The input types DALI's kernel is instantiated for.
_INPUT_TYPES = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float32))
#: Point dimensionalities (input and output) DALI's kernel is instantiated for.
_MAX_DIM = 6


def transform_points(points: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``M · p + T`` for ``(K, D)`` points, in float32, accumulated as DALI does.

    Example:
        >>> p = np.array([[1, 2]], np.float32)
        >>> transform_points(p, np.float32([[1, 1], [2, 0]]), np.float32([0.5, 0])).tolist()
        [[3.5, 2.0]]
    """
    p = points.astype(_F32, copy=False)
    acc = p[:, :1] * m[None, :, 0]
    for j in range(1, m.shape[1]):
        acc = acc + p[:, j : j + 1] * m[None, :, j]
    return acc + t


_KERNEL = r"""
// One thread per point: the point's sample by binary search over the samples' first points,
// then M p + T accumulated left to right with no fused multiply-add (`transform_points`).
template <typename In>
__global__ void dali_coord_transform(const In* __restrict__ in, float* __restrict__ out,
                                     const i64* __restrict__ first_point, int n_samples,
                                     const float* __restrict__ mats,
                                     const float* __restrict__ trans, i64 n_points,
                                     int in_dim, int out_dim) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_points) return;
  int lo = 0, hi = n_samples - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (first_point[mid] <= i) lo = mid; else hi = mid - 1;
  }
  const float* m = mats + (i64)lo * out_dim * in_dim;
  const float* t = trans + (i64)lo * out_dim;
  float v[6];
  for (int c = 0; c < in_dim; c++) v[c] = dali_to_float(in[i * in_dim + c]);
  for (int r = 0; r < out_dim; r++) {
    float acc = __fmul_rn(m[r * in_dim], v[0]);
    for (int c = 1; c < in_dim; c++) acc = __fadd_rn(acc, __fmul_rn(m[r * in_dim + c], v[c]));
    out[i * out_dim + r] = __fadd_rn(acc, t[r]);
  }
}
"""


@register(
    "coord_transform",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("M", "float_vec", tensor=True, doc="Matrix (rows x D, row-major) or a scalar."),
        Arg("T", "float_vec", tensor=True, doc="Translation (rows values) or a scalar."),
        Arg("MT", "float_vec", tensor=True, doc="Block matrix [M T] or a scalar."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="FLOAT or the input's type."),
    ],
)
class CoordTransform(Operator):
    """Apply ``out = M · in + T`` to the points (last dimension) of every sample.

    Example: ``fn.coord_transform(points, MT=fn.transforms.rotation(angle=30))`` (any affine
    matrix), ``fn.coord_transform(rgb, M=[0.299, 0.587, 0.114])`` (grayscale).
    """

    def setup(self) -> None:
        fused = self.has_arg("MT")
        if fused and (self.has_arg("M") or self.has_arg("T")):
            raise self.arg_error(
                "MT", "the combined `MT` argument cannot be used together with `M` or `T`"
            )
        self.fused = fused
        self.out_dtype = np_dtype(self.arg("dtype"))

    # -- the transform of each sample ----------------------------------------------------------
    def _matrix(self, ws: Workspace, in_dim: int) -> tuple[int, list[np.ndarray], list[np.ndarray]]:
        """``(rows, per-sample (rows, D) matrices, per-sample (rows,) translations)``."""
        n = ws.batch_size
        name = "MT" if self.fused else "M"
        cols = in_dim + (1 if self.fused else 0)

        def split(full: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            if self.fused:
                return np.ascontiguousarray(full[:, :in_dim]), np.ascontiguousarray(full[:, -1])
            return full, None

        mats: list[np.ndarray]
        trans: list[np.ndarray | None]
        if not self.has_arg(name):
            rows = in_dim
            mats, trans = [np.eye(in_dim, dtype=_F32)] * n, [None] * n
        elif not ws.is_tensor_arg(name):
            vals = np.asarray(self.arg(name), dtype=_F32).reshape(-1)
            if vals.size == 1:
                rows = in_dim
                m, t = np.eye(in_dim, dtype=_F32) * vals[0], None
            else:
                if vals.size == 0:
                    raise self.arg_error(name, "the matrix must not be an empty list")
                if vals.size % cols:
                    raise self.arg_error(
                        name,
                        f"cannot form a matrix with {vals.size} elements and {cols} columns "
                        f"(the input has {in_dim}-D points)",
                    )
                rows = vals.size // cols
                m, t = split(vals.reshape(rows, cols))
            mats, trans = [m] * n, [t] * n
        else:
            samples = [np.asarray(v) for v in ws.arg_samples(name)]
            self._check_float(name, samples)
            shapes = {s.shape for s in samples}
            if len(shapes) > 1:
                raise self.arg_error(
                    name, f"matrices for all samples must have the same shape, got {sorted(shapes)}"
                )
            shape = shapes.pop() if shapes else ()
            if len(shape) not in (0, 2):
                raise self.arg_error(
                    name, f"expected 2-D matrices or scalars per sample, got shape {list(shape)}"
                )
            if len(shape) == 0:
                rows = in_dim
                mats = [np.eye(in_dim, dtype=_F32) * _F32(s) for s in samples]
                trans = [None] * n
            else:
                if shape[0] == 0:
                    raise self.arg_error(name, "a matrix with 0 rows is not allowed")
                if shape[1] != cols:
                    raise self.arg_error(
                        name,
                        f"matrices of shape {list(shape)} do not match the input: "
                        f"{cols} columns are needed",
                    )
                rows = shape[0]
                pairs = [split(s.astype(_F32)) for s in samples]
                mats, trans = [p[0] for p in pairs], [p[1] for p in pairs]
        if self.fused:
            zeros = np.zeros(rows, _F32)
            return rows, mats, [t if t is not None else zeros for t in trans]
        return rows, mats, self._translation(ws, rows)

    def _translation(self, ws: Workspace, rows: int) -> list[np.ndarray]:
        n = ws.batch_size
        if not self.has_arg("T"):
            return [np.zeros(rows, _F32)] * n
        if not ws.is_tensor_arg("T"):
            vals = np.asarray(self.arg("T"), dtype=_F32).reshape(-1)
            if vals.size == 1:
                vals = np.full(rows, vals[0], _F32)
            if vals.size != rows:
                raise self.arg_error(
                    "T", f"expects a single value or a list of {rows} elements, got {vals.size}"
                )
            return [vals] * n
        samples = [np.asarray(v) for v in ws.arg_samples("T")]
        self._check_float("T", samples)
        shapes = {s.shape for s in samples}
        if len(shapes) > 1:
            raise self.arg_error(
                "T", f"translations for all samples must have the same shape, got {sorted(shapes)}"
            )
        shape = shapes.pop() if shapes else ()
        if len(shape) > 1:
            raise self.arg_error("T", f"expected 1-D vectors or scalars, got shape {list(shape)}")
        if len(shape) == 1 and shape[0] != rows:
            raise self.arg_error("T", f"expected {rows}-D translation vectors, got {shape[0]}-D")
        return [np.broadcast_to(s.astype(_F32), (rows,)) for s in samples]

    def _check_float(self, name: str, samples: list[np.ndarray]) -> None:
        for i, s in enumerate(samples):
            if s.dtype != np.float32:  # DALI reads argument inputs as float only
                raise self.arg_error(name, f"sample {i}: expected FLOAT values, got {s.dtype}")

    def _plan(self, ws: Workspace, tl: Any, shapes: list[tuple[int, ...]]) -> Any:
        """Check the input; returns ``(in_dim, rows, mats, trans, out_shapes)``; ``rows`` is
        0 when every sample is empty (DALI then reads no argument and outputs 0 components)."""
        dtype = np.dtype(tl.np_dtype)
        if dtype not in _INPUT_TYPES:
            raise self.error(
                f"unsupported input type {dtype}; expected UINT8, INT16, UINT16, INT32 or FLOAT"
            )
        if self.out_dtype not in (dtype, np.dtype(np.float32)):
            raise self.arg_error(
                "dtype",
                f"the output type must be FLOAT or the input's type ({dtype}), "
                f"got {self.out_dtype}",
            )
        if tl.sample_ndim < 2:
            raise self.error(
                f"expects points of at least 2 dimensions ([N, D]), got {tl.sample_ndim}-D samples"
            )
        dims = {s[-1] for s in shapes if int(np.prod(s, dtype=np.int64))}
        if len(dims) > 1:
            raise self.error(
                f"the point dimensions must be the same for all samples, got shapes {shapes}"
            )
        if not dims:  # nothing to transform
            return 0, 0, [], [], [(*s[:-1], 0) for s in shapes]
        in_dim = dims.pop()
        if in_dim > _MAX_DIM:
            raise self.error(f"unsupported point dimensionality {in_dim} (at most {_MAX_DIM})")
        rows, mats, trans = self._matrix(ws, in_dim)
        if rows > _MAX_DIM:
            raise self.error(f"unsupported output dimensionality {rows} (at most {_MAX_DIM})")
        return in_dim, rows, mats, trans, [(*s[:-1], rows) for s in shapes]

    # -- backends ------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        samples = tl.samples()
        shapes = [tuple(s.shape) for s in samples]
        in_dim, rows, mats, trans, out_shapes = self._plan(ws, tl, shapes)
        out_dtype = self.out_dtype

        def one(i: int) -> np.ndarray:
            x = samples[i]
            if rows == 0 or x.size == 0:
                return np.zeros(out_shapes[i], out_dtype)
            out = transform_points(x.reshape(-1, in_dim), mats[i], trans[i])
            return convert_sat(np, out, out_dtype).reshape(out_shapes[i])

        out = ws.map(one)
        return TensorListCPU.wrap(out, tl.layout(), dtype=out_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """Every point of the batch in one kernel launch (then one rounding pass for integer
        outputs)."""
        import cupy

        from dali._ops.detection._boxes import gpu_flat, gpu_output
        from dali._ops.gpu import kernels as g

        tl = ws.inputs[0]
        flat, shapes = gpu_flat(tl)
        in_dim, rows, mats, trans, out_shapes = self._plan(ws, tl, shapes)
        points = np.array([int(np.prod(s[:-1], dtype=np.int64)) for s in shapes], np.int64)
        total = int(points.sum()) if rows else 0
        out = cupy.empty(total * rows, _F32)
        if total:
            first = np.zeros(len(points), np.int64)
            np.cumsum(points[:-1], out=first[1:])
            d_first, d_mats, d_trans = g.upload(
                first, np.stack(mats).astype(_F32), np.stack(trans).astype(_F32)
            )
            name = f"dali_coord_transform<{g.c_type(tl.np_dtype)}>"
            kernel = g.kernel_module(g.device_id(), _KERNEL, (name,))[name]
            blocks = (total + g.BLOCK - 1) // g.BLOCK
            kernel(
                (blocks,),
                (g.BLOCK,),
                (
                    flat,
                    out,
                    d_first,
                    np.int32(len(points)),
                    d_mats,
                    d_trans,
                    np.int64(total),
                    np.int32(in_dim),
                    np.int32(rows),
                ),
            )
        out = convert_sat(cupy, out, self.out_dtype)
        return gpu_output(out, out_shapes, tl.layout(), self.out_dtype, tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype", DALIDataType.FLOAT)
        return [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout}]
