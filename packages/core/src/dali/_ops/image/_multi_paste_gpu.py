"""The GPU backend of `fn.multi_paste` (CuPy): every output frame of a batch in ONE launch.

The host plan (`multi_paste.PastePlan`: the regions, checked) becomes two tables uploaded in
one copy: a row per output frame (its address, extents, channels and its range of regions) and
a row per region (the address of its source frame, the source's width, the anchors and the
extent). ``dali_multi_paste`` gives every output element one thread (``_ITEMS`` elements per
thread), in blocks that each belong to one frame; the thread looks through its frame's regions
from the last to the first and takes the value of the first that covers its pixel — the one
pasted last, as on the CPU, where regions are copied in order — converted with DALI's
saturation (`dali._ops.image._convert_sat_gpu`), or 0 where no region lands. So overlapping
regions need no ordering between threads, and nothing is written twice.

Example:
    >>> _FRAME.itemsize, _REGION.itemsize
    (40, 40)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image._convert_sat_gpu import CONVERT

if TYPE_CHECKING:
    from dali._ops.image.multi_paste import PastePlan

__all__ = ["paste"]

_ITEMS = 4  # output elements per thread

_FRAME = np.dtype(
    [
        ("out", "<u8"),
        ("size", "<i8"),
        ("h", "<i4"),
        ("w", "<i4"),
        ("c", "<i4"),
        ("first", "<i4"),
        ("count", "<i4"),
    ],
    align=True,
)

_REGION = np.dtype(
    [
        ("input", "<u8"),
        ("in_w", "<i4"),
        ("in_y", "<i4"),
        ("in_x", "<i4"),
        ("out_y", "<i4"),
        ("out_x", "<i4"),
        ("h", "<i4"),
        ("w", "<i4"),
    ],
    align=True,
)

assert (_FRAME.itemsize, _REGION.itemsize) == (40, 40)

_SOURCE = (
    CONVERT
    + r"""
struct dali_mp_frame {
  void* out;
  i64 size;              // elements: h * w * c
  int h, w, c;
  int first, count;      // its regions: first .. first + count - 1
};
static_assert(sizeof(dali_mp_frame) == 40, "dali_mp_frame");

struct dali_mp_region {
  const void* in;        // the source frame
  int in_w;              // its width
  int in_y, in_x, out_y, out_x, h, w;
};
static_assert(sizeof(dali_mp_region) == 40, "dali_mp_region");

// DALI's ConvertSat; NaN -> INT16 is 0 (DALI's CPU goes through a 32-bit integer, see
// `multi_paste._paste_region`), elsewhere as `convert_sat`.
template <typename Out, typename In>
__device__ __forceinline__ Out dali_mp_convert(In v) {
  if constexpr (dali_same<Out, short>::value && dali_traits<In>::is_float) {
    if (v != v) return (Out)0;
  }
  return dali_convert<Out, false>(v);
}

template <typename Out, typename In>
__global__ void dali_multi_paste(const dali_mp_frame* __restrict__ frames,
                                 const dali_mp_region* __restrict__ regions,
                                 const int* __restrict__ block_start, int nframes, int items) {
  const int s = dali_find_sample(block_start, nframes, blockIdx.x);
  const dali_mp_frame& f = frames[s];
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  Out* out = (Out*)f.out;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= f.size) return;
    const i64 p = e / f.c;
    const int c = (int)(e - p * f.c);
    const int y = (int)(p / f.w);
    const int x = (int)(p - (i64)y * f.w);
    Out v = (Out)0;
    for (int r = f.first + f.count - 1; r >= f.first; r--) {  // the last pasted wins
      const dali_mp_region& g = regions[r];
      const int dy = y - g.out_y, dx = x - g.out_x;
      if ((unsigned)dy < (unsigned)g.h && (unsigned)dx < (unsigned)g.w) {
        const In* in = (const In*)g.in;
        v = dali_mp_convert<Out, In>(in[((i64)(g.in_y + dy) * g.in_w + (g.in_x + dx)) * f.c + c]);
        break;
      }
    }
    out[e] = v;
  }
}
"""
)


def _kernel(out_dtype: Any, in_dtype: Any) -> Any:
    name = f"dali_multi_paste<{G.c_type(out_dtype)}, {G.c_type(in_dtype)}>"
    return G.kernel_module(G.device_id(), _SOURCE, (name,))[name]


def _frame_pointers(tl: Any, seq: bool, plan: PastePlan) -> tuple[np.ndarray, list[Any]]:
    """The device address of every frame of an input (uint64, one per frame of the batch;
    an image serves every frame of its sample) and the arrays to keep alive."""
    _, arr, ptrs, keep = G.input_batch(tl)
    if plan.counts is None:
        return ptrs, keep
    sample_of = plan.sample_of
    if not seq:
        return ptrs[sample_of], keep
    frame_bytes = arr[:, 1:].prod(axis=1).astype(np.uint64) * np.uint64(tl.np_dtype.itemsize)
    return ptrs[sample_of] + plan.frame_of.astype(np.uint64) * frame_bytes[sample_of], keep


def paste(inputs: Sequence[Any], plan: PastePlan) -> Any:
    """The output frames of ``plan`` (a `TensorListGPU`, ``HWC``); nothing waits for the GPU.

    Args:
        inputs: The operator's input batches (``TensorListGPU``).
        plan: The checked regions (`multi_paste.MultiPaste.plan`).
    """
    shapes = plan.out_shapes
    dtype = plan.out_dtype
    flat, out_ptrs = G.alloc_outputs(shapes, dtype)
    result = G.make_output(flat, shapes, "HWC", dtype, 3)
    n = plan.num_frames
    sizes = np.array([h * w * c for h, w, c in shapes], np.int64).reshape(n)
    blocks = -(-sizes // (G.BLOCK * _ITEMS))
    starts, total = G.block_starts(blocks)
    if not total:
        return result
    keep: list[Any] = []
    pointers = []
    for tl, seq in zip(inputs, plan.seq_inputs):
        ptrs, kept = _frame_pointers(tl, seq, plan)
        pointers.append(ptrs)
        keep += kept
    table = np.stack(pointers)  # (inputs, frames)
    counts = np.diff(plan.first)

    frames = gil.zeros(n, _FRAME)
    frames["out"] = out_ptrs
    frames["size"] = sizes
    dims = np.array(shapes, np.int64).reshape(n, 3)
    frames["h"], frames["w"], frames["c"] = dims[:, 0], dims[:, 1], dims[:, 2]
    frames["first"] = plan.first[:-1]
    frames["count"] = counts

    in_dtype = np.dtype(inputs[0].np_dtype)
    regions = gil.zeros(len(plan.src_frame), _REGION)
    if len(regions):
        regions["input"] = table[plan.src_input, plan.src_frame]
        # the source frames' widths: the input's frame shapes, gathered per region
        widths = np.stack(
            [_frame_widths(tl, seq, plan) for tl, seq in zip(inputs, plan.seq_inputs)]
        )
        regions["in_w"] = widths[plan.src_input, plan.src_frame]
        regions["in_y"], regions["in_x"] = plan.in_anchor[:, 0], plan.in_anchor[:, 1]
        regions["out_y"], regions["out_x"] = plan.out_anchor[:, 0], plan.out_anchor[:, 1]
        regions["h"], regions["w"] = plan.shape[:, 0], plan.shape[:, 1]
    d_frames, d_regions, d_starts = G.upload(frames, regions, starts)
    _kernel(dtype, in_dtype)(
        (total,),
        (G.BLOCK,),
        (d_frames, d_regions, d_starts, np.int32(n), np.int32(_ITEMS)),
    )
    del keep  # the inputs' arrays lived until the launch was queued
    return result


def _frame_widths(tl: Any, seq: bool, plan: PastePlan) -> np.ndarray:
    """The width of every frame of an input, one per frame of the batch."""
    arr = np.array(tl.shape(), np.int64).reshape(-1, tl.sample_ndim)
    widths = arr[:, -2]
    return widths if plan.counts is None else widths[plan.sample_of]
