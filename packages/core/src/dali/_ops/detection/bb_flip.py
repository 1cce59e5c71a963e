"""`fn.bb_flip`: mirror bounding boxes with their image.

The boxes are relative coordinates (``[0, 1]``), four floats each: ``xywh`` (the default) or
``ltrb`` (``ltrb=True``). A horizontal flip maps ``[l, r]`` to ``[1 − r, 1 − l]``, a vertical one
``[t, b]`` to ``[1 − b, 1 − t]``, as `fn.flip` moves the pixels. Nothing is clamped: a box outside
``[0, 1]`` stays outside, mirrored. DALI reads every box into its two corners and writes it back
(`dali._ops.detection._boxes`), so an ``xywh`` width comes out as ``(x + w) − x`` in float32,
flipped or not; this does the same, bit for bit, on the CPU and the GPU.

A sample is any float32 tensor whose size is a multiple of 4 (``[N, 4]`` usually; ``[0, 4]`` is
an image without boxes); its shape and layout are kept. ``horizontal`` and ``vertical`` may be
given per sample (``horizontal=fn.random.coin_flip()``, the same flags as the image's
`fn.flip`). The batch is flipped at once (one numpy pass; one kernel launch on the GPU).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> box = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     b = types.Constant(box)
    ...     return fn.bb_flip(b), fn.bb_flip(b, ltrb=True)
    >>> xywh, ltrb = pipe().run()
    >>> xywh.at(0).astype(float).round(6).tolist(), ltrb.at(0).astype(float).round(6).tolist()
    ([[0.6, 0.2, 0.3, 0.4]], [[0.7, 0.2, 0.9, 0.4]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.detection._boxes import BoxLayout, as_float_boxes, gpu_flat, gpu_output
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["BbFlip", "flip_boxes"]


def flip_boxes(
    boxes: np.ndarray, horizontal: np.ndarray, vertical: np.ndarray, ltrb: bool
) -> np.ndarray:
    """Flip ``(K, 4)`` float32 boxes; ``horizontal``/``vertical`` are ``(K,)`` bools (or one).

    Example:
        >>> b = np.array([[0.25, 0.5, 0.5, 1.0]], np.float32)
        >>> flip_boxes(b, np.array([True]), np.array([True]), ltrb=True).tolist()
        [[0.5, 0.0, 0.75, 0.5]]
    """
    layout = BoxLayout.ltrb(ltrb)
    lo, hi = layout.read(boxes)
    one = np.float32(1)
    flips = np.stack(np.broadcast_arrays(horizontal, vertical), axis=-1)
    new_lo = np.where(flips, one - hi, lo)
    new_hi = np.where(flips, one - lo, hi)
    return layout.write(new_lo, new_hi)


_KERNEL = r"""
// One thread per box. flags: bit 0 horizontal, bit 1 vertical. The _rn intrinsics keep the
// compiler from fusing anything: the float32 results are the CPU's (`flip_boxes`).
extern "C" __global__ void dali_bb_flip(const float* __restrict__ in, float* __restrict__ out,
                                        const unsigned char* __restrict__ flags, i64 n,
                                        int ltrb) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* b = in + 4 * i;
  float* o = out + 4 * i;
  const unsigned char f = flags[i];
  float lx = b[0], ly = b[1];
  float hx = ltrb ? b[2] : __fadd_rn(b[0], b[2]);
  float hy = ltrb ? b[3] : __fadd_rn(b[1], b[3]);
  if (f & 1) { const float t = __fsub_rn(1.f, hx); hx = __fsub_rn(1.f, lx); lx = t; }
  if (f & 2) { const float t = __fsub_rn(1.f, hy); hy = __fsub_rn(1.f, ly); ly = t; }
  o[0] = lx;
  o[1] = ly;
  o[2] = ltrb ? hx : __fsub_rn(hx, lx);
  o[3] = ltrb ? hy : __fsub_rn(hy, ly);
}
"""


@register(
    "bb_flip",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("horizontal", "int", default=1, tensor=True, doc="Nonzero: flip horizontally."),
        Arg("vertical", "int", default=0, tensor=True, doc="Nonzero: flip vertically."),
        Arg("ltrb", "bool", default=False, doc="Boxes are [l, t, r, b] (else [x, y, w, h])."),
    ],
)
class BbFlip(Operator):
    """Flip relative bounding boxes horizontally (default) and/or vertically.

    ``fn.bb_flip(boxes, horizontal=flip)`` follows ``fn.flip(images, horizontal=flip)``.
    """

    def _flags(self, ws: Workspace) -> np.ndarray:
        """``(batch, 2)`` bools: horizontal, vertical. Per-sample flags must be integers (DALI
        reads them as INT32 and rejects floats)."""
        cols = []
        for name in ("horizontal", "vertical"):
            if ws.is_tensor_arg(name):
                for i, v in enumerate(ws.arg_samples(name)):
                    if np.asarray(v).dtype.kind not in "biu":
                        raise self.arg_error(
                            name, f"sample {i}: expected an integer flag, got {np.asarray(v).dtype}"
                        )
            cols.append(ws.arg_scalars(name, np.int64) != 0)
        return np.stack(cols, axis=1).reshape(-1, 2)

    def _sizes(self, shapes: list[tuple[int, ...]]) -> np.ndarray:
        """Boxes per sample; a sample's size must be a multiple of 4."""
        sizes = np.array([int(np.prod(s, dtype=np.int64)) for s in shapes], dtype=np.int64)
        bad = np.flatnonzero(sizes % 4)
        if bad.size:
            i = int(bad[0])
            raise self.error(
                f"sample {i}: bounding boxes are 4 floats each, but the sample has shape "
                f"{shapes[i]} ({sizes[i]} values, not a multiple of 4)"
            )
        return sizes // 4

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        flags = self._flags(ws)
        samples = [as_float_boxes(self, s, i) for i, s in enumerate(tl.samples())]
        shapes = [s.shape for s in samples]
        counts = self._sizes(shapes)
        if not samples:
            return TensorListCPU.wrap([], tl.layout(), dtype=np.float32, ndim=tl.sample_ndim)
        flat = np.concatenate([s.reshape(-1) for s in samples]).reshape(-1, 4)
        per_box = np.repeat(flags, counts, axis=0)
        out = flip_boxes(flat, per_box[:, 0], per_box[:, 1], bool(self.arg("ltrb"))).reshape(-1)
        ends = np.cumsum(counts * 4)
        parts = np.split(out, ends[:-1])
        return TensorListCPU.wrap(
            [p.reshape(s) for p, s in zip(parts, shapes)], tl.layout(), dtype=np.float32
        )

    def run_gpu(self, ws: Workspace) -> Any:
        """The same flips in one kernel launch: one thread per box of the batch."""
        import cupy

        from dali._ops.gpu import kernels as g

        tl = ws.inputs[0]
        flags = self._flags(ws)
        if tl.np_dtype != np.float32:
            raise self.error(f"bounding boxes must be FLOAT (float32), got {tl.np_dtype}")
        flat, shapes = gpu_flat(tl)
        counts = self._sizes(shapes)
        n = int(counts.sum())
        out = cupy.empty(n * 4, np.float32)
        if n:
            bits = flags[:, 0].astype(np.uint8) | (flags[:, 1].astype(np.uint8) << 1)
            per_box = np.repeat(bits, counts)
            (dev_flags,) = g.upload(per_box)
            kernel = g.kernel_module(g.device_id(), _KERNEL, ("dali_bb_flip",))["dali_bb_flip"]
            blocks = (n + g.BLOCK - 1) // g.BLOCK
            kernel(
                (blocks,),
                (g.BLOCK,),
                (flat, out, dev_flags, np.int64(n), np.int32(bool(self.arg("ltrb")))),
            )
        return gpu_output(out, shapes, tl.layout(), np.float32, tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
