"""Batched GPU kernels for `fn.crop`, `fn.crop_mirror_normalize` and `fn.flip` (CuPy).

All three copy a *window* of every sample to a new buffer: a crop window (anchor and shape per
sample, possibly reaching outside the input, where ``fill_values`` is written), read
backwards along flipped axes, permuted to the output layout and converted to the output type
on the way. `crop_mirror_normalize` also normalises, ``(float(in) − mean'[c]) · inv[c]`` in
float32 exactly as its CPU path does, and pads the channels with 0. ONE launch per batch
whatever the shapes (see `dali._ops.gpu.kernels`): the per-sample geometry travels in one struct array,
the mean/inv rows and the fill values with it, in one host-to-device copy.

Two kernels:

* ``dali_window_hwc`` — 2-D images, channels last in, HWC or CHW (``PLANAR``) out: one thread
  per output pixel handles all its channels (one integer division per pixel). This is the
  training path: ``crop_mirror_normalize`` of uint8 HWC to float16 CHW reads each byte once and
  writes each half once.
* ``dali_window`` — any layout up to 6 dimensions: one thread per output element, its
  coordinates unravelled in the output layout and mapped back through the permutation.

Element conversions are `_convert_sat_gpu.CONVERT`'s (identical to ``convert_sat``): crop and flip
truncate floats to integers as DALI's crop kernels do, crop_mirror_normalize rounds halves away.

Example:
    >>> desc_size()
    144
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image._convert_sat_gpu import CONVERT

__all__ = [
    "MAX_DIMS",
    "GpuBatch",
    "WindowArrays",
    "cmn_batch",
    "crop_batch",
    "desc_size",
    "flip_batch",
    "gpu_batch",
    "window_descs",
]

MAX_DIMS = 6
_ITEMS = 4  # elements a thread of dali_window writes
_ITEMS_HWC = 2  # pixels a thread of dali_window_hwc writes

_DESC = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("in_stride", "<i8", (MAX_DIMS,)),
        ("out_shape", "<i4", (MAX_DIMS,)),
        ("anchor", "<i4", (MAX_DIMS,)),
        ("in_extent", "<i4", (MAX_DIMS,)),
        ("flip", "<i4"),
        ("channels", "<i4"),
    ],
    align=True,
)
assert _DESC.itemsize == 144
# `extract_gpu_jit.fill_window_descs` writes the fields at these offsets (in 4-byte words)
assert G.field_words(_DESC) == [0, 2, 4, 16, 22, 28, 34, 35]


@functools.cache
def _compiled() -> Any | None:
    """`extract_gpu_jit` (the descriptions compiled), or None when Numba is not installed."""
    try:
        from dali._ops.window import extract_gpu_jit
    except ImportError:
        return None
    return extract_gpu_jit


_source = (
    CONVERT
    + r"""
struct dali_win_desc {
  const void* in;
  void* out;
  i64 in_stride[6];   // input elements between neighbours along each output dimension
  int out_shape[6];   // the output's dimensions (dali_window_hwc: the window's H, W, channels)
  int anchor[6];      // where the window starts along each, in input coordinates
  int in_extent[6];   // the input's extent along each (outside it: the fill value)
  int flip;           // bit k: dimension k is read backwards
  int channels;       // the input's channels (normalising: padded channels are 0)
};
static_assert(sizeof(dali_win_desc) == 144, "dali_win_desc");

// One output element from the input element (or the fill value outside the input, or 0 for a
// padded channel): crop_mirror_normalize's float32 formula and rounding when NORM, else the
// truncating conversion of crop/slice.
template <typename In, typename Out, bool NORM>
__device__ __forceinline__ Out dali_window_value(const In* in, i64 src, bool inside, int c,
                                                 int channels, const float* mean,
                                                 const float* inv, const Out* fill, int nfill) {
  if (NORM && c >= channels) return dali_convert<Out, false>(0.f);
  if (!inside) return fill[nfill > 1 ? c : 0];
  if (NORM) {
    const float v = __fmul_rn(__fsub_rn(dali_to_float(in[src]), mean[c]), inv[c]);
    return dali_convert<Out, false>(v);
  }
  return dali_convert<Out, true>(in[src]);
}

// Any layout: one thread per output element (`items` of them, a block apart).
template <typename In, typename Out, int NDIM, bool NORM>
__global__ void dali_window(const dali_win_desc* __restrict__ descs,
                            const int* __restrict__ block_start, int nsamples,
                            const float* __restrict__ norm, int cmax, int norm_stride,
                            const Out* __restrict__ fill, int nfill, int cdim, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_win_desc& d = descs[s];
  unsigned total = 1;
  for (int k = 0; k < NDIM; k++) total *= (unsigned)d.out_shape[k];
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  const In* in = (const In*)d.in;
  Out* out = (Out*)d.out;
  const float* mean = norm + (i64)s * norm_stride;
  const float* inv = mean + cmax;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= total) return;
    unsigned q = (unsigned)e;
    i64 src = 0;
    bool inside = true;
    int c = 0;
#pragma unroll
    for (int k = NDIM - 1; k >= 0; k--) {
      const unsigned ext = (unsigned)d.out_shape[k];
      int o;
      if (k == 0) {
        o = (int)q;
      } else {
        o = (int)(q % ext);
        q /= ext;
      }
      if ((d.flip >> k) & 1) o = (int)ext - 1 - o;
      if (k == cdim) c = o;
      const int p = d.anchor[k] + o;
      inside = inside && p >= 0 && p < d.in_extent[k];
      src += (i64)p * d.in_stride[k];
    }
    out[e] = dali_window_value<In, Out, NORM>(in, src, inside, c, d.channels, mean, inv, fill,
                                              nfill);
  }
}

// 2-D images, channels last: one thread per output pixel, all channels; HWC or CHW (PLANAR) out.
template <typename In, typename Out, bool PLANAR, bool NORM>
__global__ void dali_window_hwc(const dali_win_desc* __restrict__ descs,
                                const int* __restrict__ block_start, int nsamples,
                                const float* __restrict__ norm, int cmax, int norm_stride,
                                const Out* __restrict__ fill, int nfill, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_win_desc& d = descs[s];
  const int H = d.out_shape[0], W = d.out_shape[1], OC = d.out_shape[2], C = d.channels;
  const unsigned npix = (unsigned)H * (unsigned)W;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  const In* in = (const In*)d.in;
  Out* out = (Out*)d.out;
  const float* mean = norm + (i64)s * norm_stride;
  const float* inv = mean + cmax;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= npix) return;
    int y = (int)((unsigned)e / (unsigned)W);
    int x = (int)e - y * W;
    if (d.flip & 1) y = H - 1 - y;
    if (d.flip & 2) x = W - 1 - x;
    const int sy = d.anchor[0] + y, sx = d.anchor[1] + x;
    const bool inside = sy >= 0 && sy < d.in_extent[0] && sx >= 0 && sx < d.in_extent[1];
    const i64 px = inside ? sy * d.in_stride[0] + sx * d.in_stride[1] : 0;
    for (int c = 0; c < OC; c++) {
      const Out v = dali_window_value<In, Out, NORM>(in, px + c, inside && c < C, c, C, mean,
                                                     inv, fill, nfill);
      out[PLANAR ? (i64)c * npix + e : e * OC + c] = v;
    }
  }
}
"""
)


def desc_size() -> int:
    """Bytes of one sample's description (checked against the CUDA struct)."""
    return _DESC.itemsize


def _kernel(name: str) -> Any:
    return G.kernel_module(G.device_id(), _source, (name,))[name]


class GpuBatch(NamedTuple):
    """The samples of a TensorListGPU as the kernels address them (see `gpu_batch`)."""

    shapes: list[tuple[int, ...]]
    ptrs: np.ndarray
    keep: list[Any]
    dtype: np.dtype[Any]
    ndim: int
    shape_arr: np.ndarray | None = None  # the shapes as an ``(n, ndim)`` int64 array

    def shape_array(self) -> np.ndarray:
        """The shapes as an ``(n, ndim)`` int64 array."""
        if self.shape_arr is not None:
            return self.shape_arr
        return np.array(self.shapes, np.int64).reshape(len(self.shapes), self.ndim)


class WindowArrays(NamedTuple):
    """The windows of a batch as two ``(n, ndim)`` int64 arrays (input axis order).

    Accepted wherever a sequence of per-sample ``(anchor, shape)`` windows is.
    """

    anchors: np.ndarray
    shapes: np.ndarray


def gpu_batch(tl: Any) -> GpuBatch:
    """Shapes and device addresses of the samples of ``tl`` (no stacking of ragged samples)."""
    shapes, arr, ptrs, keep = G.input_batch(tl)
    return GpuBatch(shapes, ptrs, keep, np.dtype(tl.np_dtype), int(tl.sample_ndim), arr)


def window_descs(
    shapes: Sequence[Sequence[int]] | np.ndarray,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    anchors: np.ndarray,
    win_shapes: np.ndarray,
    flips: np.ndarray,
    order: Sequence[int],
    channels: np.ndarray,
) -> np.ndarray:
    """The per-sample descriptions of a window batch (host side; no GPU needed).

    Args:
        shapes: The input shapes (a sequence, or an ``(n, ndim)`` array).
        in_ptrs, out_ptrs: The samples' input and output addresses (uint64).
        anchors: ``(n, ndim)`` window starts, in input axis order.
        win_shapes: ``(n, ndim)`` window extents, in input axis order (the channel extent
            already padded where channels are padded).
        flips: ``(n, ndim)`` bool, the input axes read backwards.
        order: The input axis of every described dimension (the output permutation for
            ``dali_window``, the identity for ``dali_window_hwc``).
        channels: ``(n,)`` the input channels (0 where there is no channel axis).

    Returns:
        The ``(n,)`` struct array of ``dali_win_desc``.
    """
    n = len(shapes)
    nd = len(order)
    if n == 0:
        return gil.zeros(0, _DESC)
    in_shape = np.asarray(shapes if isinstance(shapes, np.ndarray) else list(shapes), np.int64)
    in_shape = in_shape.reshape(n, -1)
    columns = (
        np.asarray(in_ptrs, np.uint64),
        np.asarray(out_ptrs, np.uint64),
        np.asarray(anchors, np.int64),
        np.asarray(win_shapes, np.int64),
        np.asarray(flips, bool),
        np.asarray(channels, np.int64),
    )
    jit = _compiled()
    if jit is not None:
        desc = gil.zeros(n, _DESC)
        words = _DESC.itemsize // 4
        jit.fill_window_descs(
            desc.view(np.int32).reshape(n, words),
            desc.view(np.int64).reshape(n, words // 2),
            in_shape,
            *columns,
            np.array(order, np.int64),
        )
        return desc
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    return gil.by_rows(
        lambda *a: (_desc_rows(*a, order=order),), n, max(nd, in_shape.shape[1]), in_shape, *columns
    )[0]


def _desc_rows(
    in_shape: np.ndarray,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    anchors: np.ndarray,
    win_shapes: np.ndarray,
    flips: np.ndarray,
    channels: np.ndarray,
    *,
    order: Sequence[int],
) -> np.ndarray:
    """`window_descs` of a block of rows (arrays)."""
    desc = gil.zeros(len(in_shape), _DESC)
    strides = np.ones_like(in_shape)
    for a in range(in_shape.shape[1] - 2, -1, -1):
        strides[:, a] = strides[:, a + 1] * in_shape[:, a + 1]
    desc["input"] = in_ptrs
    desc["output"] = out_ptrs
    # column by column: a fancy index in two dimensions gives the GIL up whatever its size
    for d, a in enumerate(order):
        desc["in_stride"][:, d] = strides[:, a]
        desc["out_shape"][:, d] = win_shapes[:, a]
        desc["anchor"][:, d] = anchors[:, a]
        desc["in_extent"][:, d] = in_shape[:, a]
    flip = np.zeros_like(channels)
    for d, a in enumerate(order):
        flip |= flips[:, a].astype(np.int64) << d
    desc["flip"] = flip
    desc["channels"] = channels
    return desc


def _launch(
    src: GpuBatch,
    anchors: np.ndarray,
    win_shapes: np.ndarray,
    flips: np.ndarray,
    *,
    perm: Sequence[int],
    c_axis: int,
    out_dtype: Any,
    layout: str,
    fill: np.ndarray,
    norm: tuple[np.ndarray, np.ndarray, bool] | None = None,
) -> Any:
    """Queue the window kernel for a batch; returns the output `TensorListGPU`."""
    out_dtype = np.dtype(out_dtype)
    n = len(src.shapes)
    nd = len(perm)
    if nd > MAX_DIMS:
        raise ValueError(f"at most {MAX_DIMS} dimensions are supported on the GPU, got {nd}")
    win_shapes = np.asarray(win_shapes, np.int64).reshape(n, nd)
    # (column by column, list by list: numpy would give the GIL up, see `dali._exec.gil`)
    out_shapes = list(zip(*(win_shapes[:, a].tolist() for a in perm)))
    if G.is_uniform(out_shapes):
        out_shapes = [out_shapes[0]] * n
    flat, out_ptrs = G.alloc_outputs(out_shapes, out_dtype)
    result = G.make_output(flat, out_shapes, layout, out_dtype, src.ndim)
    counts = np.ones(n, np.int64)
    for a in range(nd):
        counts *= win_shapes[:, a]
    if n and int(counts.max()) >= 2**31:
        raise ValueError("a sample of more than 2^31 elements is too large for the GPU kernels")
    in_shape = src.shape_array()
    channels = in_shape[:, c_axis] if c_axis >= 0 else gil.zeros(n, np.int64)
    hwc = c_axis == 2 and nd == 3 and tuple(perm) in ((0, 1, 2), (2, 0, 1))
    if hwc:  # the window in its own (H, W, C) order; the kernel writes HWC or CHW
        order: Sequence[int] = (0, 1, 2)
        per_thread = win_shapes[:, 0] * win_shapes[:, 1]
        items = _ITEMS_HWC
    else:
        order = perm
        per_thread = counts
        items = _ITEMS
    desc = window_descs(in_shape, src.ptrs, out_ptrs, anchors, win_shapes, flips, order, channels)
    blocks = -(-per_thread // (G.BLOCK * items)) if n else per_thread
    starts, total = G.block_starts(blocks)
    if not total:
        return result
    if norm is not None:
        mean, inv, uniform = norm
        cmax = int(mean.shape[1])
        if uniform:  # one row for all
            mean, inv = mean[:1], inv[:1]
        table = np.stack([mean, inv], axis=1).astype(np.float32)  # (rows, 2, cmax)
        norm_stride = 0 if uniform else 2 * cmax
    else:
        cmax, norm_stride = 0, 0
        table = np.zeros(1, np.float32)
    fill = np.ascontiguousarray(fill, dtype=out_dtype).reshape(-1)
    d_desc, d_starts, d_norm, d_fill = G.upload(desc, starts, table, fill)
    types = f"{G.c_type(src.dtype)}, {G.c_type(out_dtype)}"
    flag = "true" if norm is not None else "false"
    common = (
        d_desc,
        d_starts,
        np.int32(n),
        d_norm,
        np.int32(cmax),
        np.int32(norm_stride),
        d_fill,
        np.int32(fill.size),
    )
    if hwc:
        planar = "true" if tuple(perm) == (2, 0, 1) else "false"
        kernel = _kernel(f"dali_window_hwc<{types}, {planar}, {flag}>")
        kernel((total,), (G.BLOCK,), (*common, np.int32(items)))
    else:
        cdim = list(perm).index(c_axis) if c_axis >= 0 else -1
        kernel = _kernel(f"dali_window<{types}, {nd}, {flag}>")
        kernel((total,), (G.BLOCK,), (*common, np.int32(cdim), np.int32(items)))
    del src  # the inputs stay referenced (src.keep) until here: the launch is queued
    return result


def _windows(
    wins: Sequence[tuple[Sequence[int], Sequence[int]]] | WindowArrays, nd: int
) -> tuple[np.ndarray, np.ndarray]:
    """Anchors and shapes of the windows as ``(n, nd)`` int64 arrays (new arrays)."""
    if isinstance(wins, WindowArrays):
        n = len(wins.anchors)
        anchors = np.array(wins.anchors, np.int64).reshape(n, nd)
        return anchors, np.array(wins.shapes, np.int64).reshape(n, nd)
    n = len(wins)
    if n and all(w == wins[0] for w in wins):  # one window for all: no per-sample conversion
        first = np.array([wins[0][0], wins[0][1]], np.int64).reshape(2, 1, nd)
        return np.repeat(first[0], n, axis=0), np.repeat(first[1], n, axis=0)
    anchors = np.array([w[0] for w in wins], np.int64).reshape(n, nd)
    shapes = np.array([w[1] for w in wins], np.int64).reshape(n, nd)
    return anchors, shapes


def crop_batch(
    src: GpuBatch,
    wins: Sequence[tuple[Sequence[int], Sequence[int]]] | WindowArrays,
    *,
    layout: str,
    out_dtype: Any,
    fill: np.ndarray,
) -> Any:
    """`fn.crop` of a batch: the window ``wins[i]`` of every sample, converted to ``out_dtype``.

    Args:
        src: The input batch (`gpu_batch`).
        wins: Per sample ``(anchor, shape)`` in the input's axes (after the out-of-bounds
            policy; parts outside the input take ``fill``), or `WindowArrays`.
        layout: The layout (kept).
        out_dtype: The output type; floats are truncated to integers (``convert_sat(...,
            truncate=True)``).
        fill: The fill values in ``out_dtype``: one, or one per channel.

    Returns:
        A `TensorListGPU`; nothing waits for the GPU.
    """
    nd = src.ndim
    anchors, shapes = _windows(wins, nd)
    return _launch(
        src,
        anchors,
        shapes,
        gil.zeros((len(anchors), nd), bool),
        perm=tuple(range(nd)),
        c_axis=layout.find("C"),
        out_dtype=out_dtype,
        layout=layout,
        fill=fill,
    )


def flip_batch(src: GpuBatch, flips: np.ndarray, *, layout: str) -> Any:
    """`fn.flip` of a batch: ``flips[i, a]`` says whether sample ``i`` is reversed along axis ``a``.

    Returns:
        A `TensorListGPU`; nothing waits for the GPU.
    """
    n, nd = len(src.shapes), src.ndim
    shapes = np.array(src.shapes, np.int64).reshape(n, nd)
    return _launch(
        src,
        gil.zeros(shapes.shape, np.int64),
        shapes,
        np.asarray(flips, bool).reshape(n, nd),
        perm=tuple(range(nd)),
        c_axis=layout.find("C"),
        out_dtype=src.dtype,
        layout=layout,
        fill=np.zeros(1, src.dtype),
    )


def cmn_batch(
    src: GpuBatch,
    wins: Sequence[tuple[Sequence[int], Sequence[int]]] | WindowArrays,
    *,
    in_layout: str,
    out_layout: str,
    out_dtype: Any,
    mirror: np.ndarray,
    mean: np.ndarray,
    inv: np.ndarray,
    uniform_norm: bool,
    out_channels: Sequence[int] | np.ndarray,
    fill: np.ndarray,
) -> Any:
    """`fn.crop_mirror_normalize` of a batch in one kernel launch.

    Args:
        src: The input batch (`gpu_batch`), any element type.
        wins: Per sample ``(anchor, shape)`` in the input's axes, or `WindowArrays`.
        in_layout, out_layout: The layouts (``out_layout`` a permutation of ``in_layout``).
        out_dtype: float32, float16, uint8 or int8.
        mirror: ``(n,)`` bool, flip the window horizontally.
        mean, inv: ``(n, cmax)`` float32 folded parameters (``mean'`` and ``scale / std``).
        uniform_norm: Every sample has the same parameters (one row is uploaded).
        out_channels: Per sample, the output channels (``pad_output``: the next power of two;
            the padded channels are 0).
        fill: The out-of-bounds values in ``out_dtype``: one, or one per channel.

    Returns:
        A `TensorListGPU`; nothing waits for the GPU.
    """
    nd = len(in_layout)
    anchors, shapes = _windows(wins, nd)
    n = len(anchors)
    c_axis = in_layout.find("C")
    shapes[:, c_axis] = np.asarray(out_channels, np.int64)
    flips = gil.zeros((n, nd), bool)
    flips[:, in_layout.find("W")] = np.asarray(mirror, bool).reshape(n)
    perm = tuple(in_layout.index(a) for a in out_layout)
    return _launch(
        src,
        anchors,
        shapes,
        flips,
        perm=perm,
        c_axis=c_axis,
        out_dtype=out_dtype,
        layout=out_layout,
        fill=fill,
        norm=(np.asarray(mean, np.float32), np.asarray(inv, np.float32), uniform_norm),
    )
