"""`fn.box_encoder` (cpu, gpu): SSD's matching of ground-truth boxes to default boxes (anchors).

Every sample has ``N`` ground-truth boxes ``[N, 4]`` (relative ``ltrb``) and their labels ``[N]``
(INT32); the operator gives one box and one label per anchor: ``[A, 4]`` FLOAT and ``[A]`` INT32,
whatever ``N``. The matching is the one of "SSD: Single Shot MultiBox Detector" as DALI
implements it:

1. the IoU of every box with every anchor (float32, `dali._ops.detection._boxes.iou`);
2. each box claims its best anchor (the last one on ties) by setting that IoU to 2, so every box
   is matched to at least one anchor;
3. each anchor takes its best box (the last one on ties); it is matched when that IoU is above
   ``criteria`` (strictly).

A matched anchor carries its box and label; an unmatched one label 0 and either its own box
(``offset=False``) or zeros (``offset=True``). **Boxes come out as centre-xywh** ``[cx, cy, w,
h]``, not as ``ltrb`` as DALI's documentation says. With ``offset=True`` a matched
anchor gets SSD's regression targets, ``scale`` applied to boxes and anchors first:

    ``[((cx_b − cx_a) / w_a − means[0]) / stds[0], ((cy_b − cy_a) / h_a − means[1]) / stds[1],
    (log(w_b / w_a) − means[2]) / stds[2], (log(h_b / h_a) − means[3]) / stds[3]]``.

On the CPU each sample is a few numpy passes over its ``N × A`` IoU matrix; on the GPU the batch is
one kernel launch, one block per sample, with the same float32 arithmetic (no fused
multiply-adds), so both backends match exactly without ``offset`` and to the ulps of ``log`` with
it.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> anchors = [0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0, 1.0]
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     boxes = types.Constant(np.array([[0.5, 0.5, 0.9, 1.0]], np.float32))
    ...     labels = types.Constant(np.array([7], np.int32))
    ...     return fn.box_encoder(boxes, labels, anchors=anchors)
    >>> b, lab = pipe().run()
    >>> b.at(0).astype(float).round(3).tolist(), lab.at(0).tolist()
    ([[0.25, 0.25, 0.5, 0.5], [0.7, 0.75, 0.4, 0.5]], [0, 7])
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.detection._boxes import as_float_boxes, gpu_flat, iou
from dali._tensors import TensorListCPU, aligned_empty

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["BoxEncoder", "encode_boxes"]

_F32 = np.float32


def _centre_extent(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (lo + hi) * _F32(0.5), hi - lo


def _last_argmax(a: np.ndarray, axis: int) -> np.ndarray:
    """The index of the last maximum along ``axis`` (DALI scans with ``>=``)."""
    n = a.shape[axis]
    return n - 1 - np.argmax(np.flip(a, axis=axis), axis=axis)


def encode_boxes(
    boxes: np.ndarray,
    labels: np.ndarray,
    anchors: np.ndarray,
    *,
    criteria: float = 0.5,
    offset: bool = False,
    means: Any = (0.0, 0.0, 0.0, 0.0),
    stds: Any = (1.0, 1.0, 1.0, 1.0),
    scale: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Encode one sample: ``boxes`` ``(N, 4)`` float32 ltrb and ``labels`` ``(N,)`` against
    ``anchors`` ``(A, 4)`` float32 ltrb; returns ``(A, 4)`` float32 and ``(A,)`` int32.

    Example:
        >>> a = np.array([[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]], np.float32)
        >>> enc, lab = encode_boxes(np.array([[0, 0, 0.4, 0.5]], np.float32), np.array([3]), a)
        >>> enc.tolist(), lab.tolist()
        ([[0.20000000298023224, 0.25, 0.4000000059604645, 0.5], [0.75, 0.75, 0.5, 0.5]], [3, 0])
    """
    a_lo, a_hi = anchors[:, :2], anchors[:, 2:]
    n_anchors = len(anchors)
    out_labels = np.zeros(n_anchors, np.int32)
    a_c, a_e = _centre_extent(a_lo, a_hi)
    if offset:
        out = np.zeros((n_anchors, 4), _F32)
    else:
        out = np.concatenate([a_c, a_e], axis=1)
    if len(boxes) == 0 or n_anchors == 0:
        return out, out_labels
    b_lo, b_hi = boxes[:, :2], boxes[:, 2:]
    ious = iou(b_lo[:, None], b_hi[:, None], a_lo[None], a_hi[None])  # (N, A)
    # every box claims its best anchor, so that it is matched to at least one
    ious[np.arange(len(boxes)), _last_argmax(ious, 1)] = _F32(2)
    best_box = _last_argmax(ious, 0)  # (A,)
    matched = np.flatnonzero(ious[best_box, np.arange(n_anchors)] > _F32(criteria))
    src = best_box[matched]
    b_c, b_e = _centre_extent(b_lo[src], b_hi[src])
    out_labels[matched] = labels[src]
    if not offset:
        out[matched, :2] = b_c
        out[matched, 2:] = b_e
        return out, out_labels
    s = _F32(scale)
    m, sd = np.asarray(means, _F32), np.asarray(stds, _F32)
    b_c, b_e, ac, ae = b_c * s, b_e * s, a_c[matched] * s, a_e[matched] * s
    with np.errstate(divide="ignore", invalid="ignore"):
        out[matched, :2] = ((b_c - ac) / ae - m[:2]) / sd[:2]
        out[matched, 2:] = (np.log(b_e / ae) - m[2:]) / sd[2:]
    return out, out_labels


@functools.cache
def _compiled() -> Any:
    """The compiled CPU encoder (`encode_boxes`'s arithmetic, float32 operation by operation,
    as the GPU kernel below does it), or None without Numba. It computes each box's IoU with
    every anchor once and scans them as DALI's CPU kernel does, releasing the GIL (samples run
    in parallel on ``ws.map``).

    The loops over the anchors have no branches (selects instead), so that the compiler makes
    them SIMD: the IoU of a box with 8 anchors at once, the best box of 8 anchors at once. The
    values are those of the branching loop: a pair that does not overlap has a zero
    intersection either way, and a select keeps the division's result only where the
    intersection is not zero. ``columns`` holds the anchors' edges, areas, centres and extents
    as contiguous rows (`anchor_columns`); ``best_iou``/``best_box`` are scratch per anchor."""
    try:
        import numba
    except ImportError:
        return None

    # error_model="numpy": a division by zero is inf or NaN rather than an exception, whose
    # check would keep the loops scalar (no pair divides by zero where its result is used)
    @numba.njit(nogil=True, cache=True, error_model="numpy")
    def encode(
        boxes: np.ndarray,
        labels: np.ndarray,
        columns: np.ndarray,
        params: np.ndarray,
        offset: bool,
        out: np.ndarray,
        out_labels: np.ndarray,
        ious: np.ndarray,
        best_iou: np.ndarray,
        best_box: np.ndarray,
    ) -> None:  # pragma: no cover - compiled
        n, n_anchors = boxes.shape[0], columns.shape[1]
        ax0, ay0, ax1, ay1, area = columns[0], columns[1], columns[2], columns[3], columns[4]
        acx, acy, aw, ah = columns[5], columns[6], columns[7], columns[8]
        half, zero, two = np.float32(0.5), np.float32(0.0), np.float32(2.0)
        scale, criteria = params[8], params[9]
        for b in range(n):
            bx0, by0, bx1, by1 = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]
            vb = (bx1 - bx0) * (by1 - by0)
            row = ious[b]
            odd = 0  # a negative or NaN IoU (boxes with their corners swapped)
            for a in range(n_anchors):
                w = min(bx1, ax1[a]) - max(bx0, ax0[a])
                h = min(by1, ay1[a]) - max(by0, ay0[a])
                inter = (max(zero, w)) * (max(zero, h))
                v = inter / (vb + area[a] - inter)
                v = v if inter != zero else zero
                row[a] = v
                odd |= not v >= zero
            # the last anchor of the largest IoU: the non-negative floats are ordered as their
            # bit patterns, whose integer maximum is SIMD, then a scan back to the last holding it
            best_a = 0
            if odd:
                best = np.float32(-1.0)
                for a in range(n_anchors):
                    if row[a] >= best:
                        best, best_a = row[a], a
            else:
                keys = row.view(np.int32)
                top = keys[0]
                for a in range(n_anchors):
                    top = max(top, keys[a])
                for a in range(n_anchors - 1, -1, -1):
                    if keys[a] == top:
                        best_a = a
                        break
            row[best_a] = two
        if n:
            for a in range(n_anchors):
                best_iou[a] = ious[0, a]
                best_box[a] = 0
        for b in range(1, n):  # each anchor's best box: the last of the largest IoU
            row = ious[b]
            for a in range(n_anchors):
                better = row[a] >= best_iou[a]
                best_iou[a] = row[a] if better else best_iou[a]
                best_box[a] = b if better else best_box[a]
        # every anchor unmatched first (label 0; zeros, or its centre and extent), then the
        # matched ones (a few in thousands) overwritten: no branch in the loops over them all
        for a in range(n_anchors):
            out_labels[a] = 0
        if offset:
            for a in range(n_anchors):
                out[a, 0], out[a, 1], out[a, 2], out[a, 3] = zero, zero, zero, zero
        else:
            for a in range(n_anchors):
                out[a, 0], out[a, 1], out[a, 2], out[a, 3] = acx[a], acy[a], aw[a], ah[a]
        for a in range(n_anchors if n else 0):
            if best_iou[a] <= criteria or best_iou[a] != best_iou[a]:
                continue
            bi = best_box[a]
            x0, y0, x1, y1 = boxes[bi, 0], boxes[bi, 1], boxes[bi, 2], boxes[bi, 3]
            out_labels[a] = labels[bi]
            cx, cy = (x0 + x1) * half, (y0 + y1) * half
            w, h = x1 - x0, y1 - y0
            if not offset:
                out[a, 0], out[a, 1], out[a, 2], out[a, 3] = cx, cy, w, h
            else:
                sax, say = acx[a] * scale, acy[a] * scale
                saw, sah = aw[a] * scale, ah[a] * scale
                out[a, 0] = ((cx * scale - sax) / saw - params[0]) / params[4]
                out[a, 1] = ((cy * scale - say) / sah - params[1]) / params[5]
                out[a, 2] = (np.log((w * scale) / saw) - params[2]) / params[6]
                out[a, 3] = (np.log((h * scale) / sah) - params[3]) / params[7]

    return encode


def anchor_columns(anchors: np.ndarray) -> np.ndarray:
    """``[9, A]`` float32, each row contiguous: the anchors' left, top, right and bottom edges,
    their areas (``(r - l) * (b - t)``, as the IoU computes them), centres (``(l + r) * 0.5``)
    and extents (``r - l``), in float32 operation by operation as the encoder computes them."""
    a = np.ascontiguousarray(anchors, _F32).reshape(-1, 4)
    l, t, r, b = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    half = _F32(0.5)
    rows = [l, t, r, b, (r - l) * (b - t), (l + r) * half, (t + b) * half, r - l, b - t]
    return np.ascontiguousarray(np.stack(rows))


_KERNEL = r"""
// The IoU of two ltrb boxes, as `_boxes.iou` computes it in float32 (no fused operations).
__device__ __forceinline__ float dali_box_iou(const float* a, const float* b) {
  const float lx = fmaxf(a[0], b[0]), ly = fmaxf(a[1], b[1]);
  const float hx = fminf(a[2], b[2]), hy = fminf(a[3], b[3]);
  if (hx <= lx || hy <= ly) return 0.f;
  const float inter = __fmul_rn(__fsub_rn(hx, lx), __fsub_rn(hy, ly));
  if (inter == 0.f) return 0.f;
  const float va = __fmul_rn(__fsub_rn(a[2], a[0]), __fsub_rn(a[3], a[1]));
  const float vb = __fmul_rn(__fsub_rn(b[2], b[0]), __fsub_rn(b[3], b[1]));
  return __fdiv_rn(inter, __fsub_rn(__fadd_rn(va, vb), inter));
}

// One block per sample. Phase 1: for each box, the block finds its best anchor (the last one
// on ties); phase 2: each thread takes anchors and finds their best box (a claimed anchor has
// IoU 2), then writes the anchor's box and label.
// params: means[4], stds[4], scale, criteria.
extern "C" __global__ void dali_box_encoder(
    const float* __restrict__ boxes, const int* __restrict__ labels,
    const i64* __restrict__ starts, const int* __restrict__ counts,
    const float* __restrict__ anchors, const float* __restrict__ params, int n_anchors,
    int offset, int* __restrict__ best_anchor, float* __restrict__ out_boxes,
    int* __restrict__ out_labels) {
  __shared__ float s_val[256];
  __shared__ int s_idx[256];
  const int s = blockIdx.x, t = threadIdx.x;
  const i64 start = starts[s];
  const int n = counts[s];
  const float* bx = boxes + 4 * start;
  for (int b = 0; b < n; b++) {
    float best = -1.f;
    int bi = -1;
    for (int a = t; a < n_anchors; a += blockDim.x) {
      const float v = dali_box_iou(bx + 4 * b, anchors + 4 * a);
      if (v >= best) { best = v; bi = a; }
    }
    s_val[t] = best;
    s_idx[t] = bi;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (t < stride) {
        const float v = s_val[t + stride];
        const int i = s_idx[t + stride];
        if (v > s_val[t] || (v == s_val[t] && i > s_idx[t])) { s_val[t] = v; s_idx[t] = i; }
      }
      __syncthreads();
    }
    if (t == 0) best_anchor[start + b] = s_idx[0];
    __syncthreads();
  }
  const float scale = params[8], criteria = params[9];
  for (int a = t; a < n_anchors; a += blockDim.x) {
    const float* an = anchors + 4 * a;
    float* o = out_boxes + ((i64)s * n_anchors + a) * 4;
    const float acx = __fmul_rn(__fadd_rn(an[0], an[2]), 0.5f);
    const float acy = __fmul_rn(__fadd_rn(an[1], an[3]), 0.5f);
    const float aw = __fsub_rn(an[2], an[0]), ah = __fsub_rn(an[3], an[1]);
    float best = 0.f;
    int bi = -1;
    for (int b = 0; b < n; b++) {
      const float v = best_anchor[start + b] == a ? 2.f : dali_box_iou(bx + 4 * b, an);
      if (b == 0 || v >= best) { best = v; bi = b; }
    }
    int label = 0;
    if (bi >= 0 && best > criteria) {
      const float* box = bx + 4 * bi;
      label = labels[start + bi];
      const float cx = __fmul_rn(__fadd_rn(box[0], box[2]), 0.5f);
      const float cy = __fmul_rn(__fadd_rn(box[1], box[3]), 0.5f);
      const float w = __fsub_rn(box[2], box[0]), h = __fsub_rn(box[3], box[1]);
      if (!offset) {
        o[0] = cx; o[1] = cy; o[2] = w; o[3] = h;
      } else {
        const float sax = __fmul_rn(acx, scale), say = __fmul_rn(acy, scale);
        const float saw = __fmul_rn(aw, scale), sah = __fmul_rn(ah, scale);
        o[0] = __fdiv_rn(__fsub_rn(__fdiv_rn(__fsub_rn(__fmul_rn(cx, scale), sax), saw),
                                   params[0]), params[4]);
        o[1] = __fdiv_rn(__fsub_rn(__fdiv_rn(__fsub_rn(__fmul_rn(cy, scale), say), sah),
                                   params[1]), params[5]);
        o[2] = __fdiv_rn(__fsub_rn(logf(__fdiv_rn(__fmul_rn(w, scale), saw)), params[2]),
                         params[6]);
        o[3] = __fdiv_rn(__fsub_rn(logf(__fdiv_rn(__fmul_rn(h, scale), sah)), params[3]),
                         params[7]);
      }
    } else if (!offset) {
      o[0] = acx; o[1] = acy; o[2] = aw; o[3] = ah;
    } else {
      o[0] = 0.f; o[1] = 0.f; o[2] = 0.f; o[3] = 0.f;
    }
    out_labels[(i64)s * n_anchors + a] = label;
  }
}
"""

#: Threads per block of `dali_box_encoder` (the size of its shared reduction arrays).
_GPU_BLOCK = 256


@register(
    "box_encoder",
    devices=("cpu", "gpu"),
    inputs=2,
    outputs=2,
    input_names=("bboxes", "labels"),
    args=[
        Arg("anchors", "float_vec", default=REQUIRED, doc="Anchors, 4 floats each (ltrb)."),
        Arg("criteria", "float", default=0.5, doc="IoU above which an anchor is matched (0..1)."),
        Arg("offset", "bool", default=False, doc="Output SSD's normalised offsets."),
        Arg("means", "float_vec", default=(0.0, 0.0, 0.0, 0.0), doc="[x y w h] offset means."),
        Arg("stds", "float_vec", default=(1.0, 1.0, 1.0, 1.0), doc="[x y w h] offset stds."),
        Arg("scale", "float", default=1.0, doc="Scale of boxes and anchors before the offsets."),
    ],
)
class BoxEncoder(Operator):
    """Match boxes ``[N, 4]`` (ltrb) and labels ``[N]`` to the anchors: ``[A, 4]`` boxes
    (centre-xywh, or SSD offsets with ``offset=True``) and ``[A]`` labels per sample.

    Example: ``boxes, labels = fn.box_encoder(boxes, labels, anchors=default_boxes,
    criteria=0.5, offset=True, scale=std_scale)``.
    """

    def setup(self) -> None:
        criteria = float(self.arg("criteria"))
        if criteria < 0:
            raise self.arg_error("criteria", f"expected criteria >= 0, got {criteria}")
        if criteria > 1:
            raise self.arg_error("criteria", f"expected criteria <= 1, got {criteria}")
        anchors = np.asarray(self.arg("anchors"), dtype=_F32).reshape(-1)
        if anchors.size == 0:
            # (DALI 2.4 crashes on it)
            raise self.arg_error("anchors", "must not be empty")
        if anchors.size % 4:
            raise self.arg_error(
                "anchors", f"anchors size must be divisible by 4, actual value = {anchors.size}"
            )
        self.anchors = anchors.reshape(-1, 4)
        self._columns = anchor_columns(self.anchors)
        for name in ("means", "stds"):
            if len(self.arg(name)) != 4:
                raise self.arg_error(name, f"must be a list of 4 values, got {len(self.arg(name))}")
        if any(v == 0 for v in self.arg("stds")):
            raise self.arg_error("stds", f"values must be != 0, got {list(self.arg('stds'))}")
        self.params = np.array(
            [*self.arg("means"), *self.arg("stds"), self.arg("scale"), criteria], dtype=_F32
        )
        self._gpu_anchors: dict[int, Any] = {}

    def _inputs(self, boxes: Any, labels: Any, i: int) -> tuple[np.ndarray, np.ndarray]:
        """One sample's checked boxes ``(N, 4)`` and labels ``(N,)``."""
        b = as_float_boxes(self, boxes, i)
        lab = np.asarray(labels)
        self._check_shapes(b.shape, lab.shape, lab.dtype, i)
        return b.reshape(-1, 4), lab.reshape(-1)

    def _check_shapes(
        self, bshape: tuple[int, ...], lshape: tuple[int, ...], ldt: Any, i: int
    ) -> None:
        n = int(np.prod(bshape, dtype=np.int64)) // 4
        if int(np.prod(bshape, dtype=np.int64)) and (len(bshape) != 2 or bshape[1] != 4):
            raise self.error(f"sample {i}: expected boxes of shape [N, 4], got {list(bshape)}")
        if np.dtype(ldt) != np.int32:
            raise self.error(f"sample {i}: labels must be INT32, got {np.dtype(ldt)}")
        if int(np.prod(lshape, dtype=np.int64)) != n or (lshape and lshape[0] != n):
            raise self.error(
                f"sample {i}: {n} boxes but labels of shape {list(lshape)} (expected [{n}])"
            )

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        boxes_tl, labels_tl = ws.inputs
        boxes, labels = boxes_tl.samples(), labels_tl.samples()
        n, n_anchors = len(boxes), len(self.anchors)
        # 64-byte aligned: the batches as they are are the outputs (`aligned_empty`)
        out_boxes = aligned_empty((n, n_anchors, 4), _F32)
        out_labels = aligned_empty((n, n_anchors), np.int32)
        kw = {
            "criteria": self.arg("criteria"),
            "offset": self.arg("offset"),
            "means": self.arg("means"),
            "stds": self.arg("stds"),
            "scale": self.arg("scale"),
        }

        kernel = _compiled()
        offset = bool(kw["offset"])

        def one(i: int) -> None:
            b, lab = self._inputs(boxes[i], labels[i], i)
            if kernel is None:
                out_boxes[i], out_labels[i] = encode_boxes(b, lab, self.anchors, **kw)
                return
            kernel(
                np.ascontiguousarray(b),
                np.ascontiguousarray(lab),
                self._columns,
                self.params,
                offset,
                out_boxes[i],
                out_labels[i],
                np.empty((len(b), n_anchors), _F32),
                np.empty(n_anchors, _F32),
                np.empty(n_anchors, np.int64),
            )

        ws.map(one)
        return TensorListCPU.wrap(out_boxes, ""), TensorListCPU.wrap(out_labels, "")

    def run_gpu(self, ws: Workspace) -> tuple[Any, Any]:
        """The whole batch in one kernel launch (one block per sample)."""
        import cupy

        from dali._ops.gpu import kernels as g
        from dali._tensors import TensorListGPU

        boxes_tl, labels_tl = ws.inputs
        if boxes_tl.np_dtype != np.float32:
            raise self.error(f"bounding boxes must be FLOAT (float32), got {boxes_tl.np_dtype}")
        flat_boxes, bshapes = gpu_flat(boxes_tl)
        flat_labels, lshapes = gpu_flat(labels_tl)
        for i, (bs, ls) in enumerate(zip(bshapes, lshapes)):
            self._check_shapes(bs, ls, labels_tl.np_dtype, i)
        n, n_anchors = len(bshapes), len(self.anchors)
        counts = np.array([int(np.prod(s, dtype=np.int64)) // 4 for s in bshapes], np.int64)
        starts = np.zeros(n, np.int64)
        if n > 1:
            np.cumsum(counts[:-1], out=starts[1:])
        out_boxes = cupy.empty((n, n_anchors, 4), _F32)
        out_labels = cupy.empty((n, n_anchors), np.int32)
        if n:
            dev = g.device_id()
            anchors = self._gpu_anchors.get(dev)
            if anchors is None:
                anchors = self._gpu_anchors[dev] = cupy.asarray(self.anchors)
            d_starts, d_counts, d_params = g.upload(starts, counts.astype(np.int32), self.params)
            scratch = cupy.empty(max(int(counts.sum()), 1), np.int32)
            kernel = g.kernel_module(dev, _KERNEL, ("dali_box_encoder",))["dali_box_encoder"]
            kernel(
                (n,),
                (_GPU_BLOCK,),
                (
                    flat_boxes,
                    flat_labels,
                    d_starts,
                    d_counts,
                    anchors,
                    d_params,
                    np.int32(n_anchors),
                    np.int32(bool(self.arg("offset"))),
                    scratch,
                    out_boxes,
                    out_labels,
                ),
            )
        return TensorListGPU.wrap(out_boxes, ""), TensorListGPU.wrap(out_labels, "")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        anchors = node.scalar_args.get("anchors")
        a = len(anchors) // 4 if anchors is not None else None
        return [
            {"dtype": DALIDataType.FLOAT, "ndim": 2, "layout": "", "static_shape": (a, 4)},
            {"dtype": DALIDataType.INT32, "ndim": 1, "layout": "", "static_shape": (a,)},
        ]
