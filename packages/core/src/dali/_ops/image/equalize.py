"""`fn.equalize` (``fn.experimental.equalize``, its deprecated alias): histogram equalization.

Every channel of every image (every frame of a sequence) is equalized on its own, with the
arithmetic of OpenCV's ``equalizeHist``, which DALI 2.4's CPU backend calls: with ``hist`` the
256-bin histogram of the plane, ``n`` its number of pixels and ``lo`` its smallest value,

* a plane of one value is left as it is;
* otherwise every value ``v`` becomes ``round(cdf(v) · s)``, where ``cdf(v)`` counts the pixels
  in ``(lo, v]``, ``s = 255 / (n - hist[lo])`` in float32, the product is float32 and rounded
  half to even (so ``lo`` maps to 0 and the largest value to 255).

The input is uint8, with layout ``HW``, ``HWC``, ``CHW``, ``FHW``, ``FHWC`` or ``FCHW`` (2-D
inputs without a layout are ``HW``, 3-D ones ``HWC``, 4-D ones ``FHWC``); the output has its
shape, type and layout. The CPU backend accepts at most 128 channels, as DALI's. The planes of a
uniform batch are equalized together: one histogram, one table and one lookup for the batch.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.array([[10, 10, 20], [20, 20, 30]], dtype=np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.equalize(types.Constant(img, layout="HW"))
    >>> out, = pipe().run()
    >>> out.as_array()[0].tolist()
    [[0, 0, 191], [191, 191, 255]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._common import image_layout, optional_cv2, static_image_layout
from dali._ops.numeric import array_module, batch_array, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Equalize", "equalize_planes"]

LAYOUTS = ("HW", "HWC", "CHW", "FHW", "FHWC", "FCHW")
#: The most channels DALI 2.4's CPU backend accepts (OpenCV's ``CV_CN_MAX``).
MAX_CPU_CHANNELS = 128


def equalize_planes(xp: Any, planes: Any) -> Any:
    """Equalize each row of a ``(P, N)`` uint8 array on its own (OpenCV's ``equalizeHist``).

    Args:
        xp: numpy or CuPy.
        planes: The planes, one a row.

    Returns:
        A new ``(P, N)`` uint8 array.
    """
    p, n = planes.shape
    if p == 0 or n == 0:
        return xp.array(planes, copy=True)
    base = xp.arange(p, dtype=np.int64)[:, None] * 256
    keys = planes.astype(np.int64) + base
    hist = xp.bincount(keys.ravel(), minlength=p * 256).reshape(p, 256)
    lo = xp.argmax((hist > 0).astype(np.int8), axis=1)
    first = xp.take_along_axis(hist, lo[:, None], axis=1)  # (P, 1)
    cum = xp.cumsum(hist, axis=1) - first  # pixels in (lo, v]
    rest = n - first
    scale = np.float32(255) / xp.maximum(rest, 1).astype(np.float32)
    lut = xp.rint(cum.astype(np.float32) * scale)
    lut = xp.clip(lut, 0, 255).astype(np.uint8)
    levels = xp.arange(256, dtype=np.int64)[None, :]
    lut = xp.where(levels <= lo[:, None], np.uint8(0), lut)
    lut = xp.where(rest == 0, lo[:, None].astype(np.uint8), lut)  # one value: kept
    return lut.ravel()[keys]


def _to_planes(xp: Any, x: Any, layout: str) -> tuple[Any, Any]:
    """``x`` (a sample, or a batch with a leading axis) as ``(P, H·W)`` planes, and the
    function that puts equalized planes back into ``x``'s shape."""
    if layout.endswith("C"):  # channels last: the planes are strided
        moved = xp.moveaxis(x, -1, -3)
        h, w = moved.shape[-2:]
        return (
            moved.reshape(x.size // max(h * w, 1) if h * w else 0, h * w),
            lambda y: xp.ascontiguousarray(xp.moveaxis(y.reshape(moved.shape), -3, -1)),
        )
    h, w = x.shape[-2:]  # HW, FHW, CHW, FCHW: the planes are contiguous
    return x.reshape(x.size // (h * w) if h * w else 0, h * w), lambda y: y.reshape(x.shape)


def _equalize_cv2(cv2: Any, x: np.ndarray, layout: str) -> np.ndarray:
    """One sample equalized by OpenCV, channel by channel and frame by frame (the arithmetic
    `equalize_planes` reproduces)."""
    out = np.empty(x.shape, np.uint8)  # C order: its reshapes below are views
    if x.size == 0:
        return out
    if layout.endswith("C"):
        h, w, c = x.shape[-3:]
        frames, dst = x.reshape(-1, h, w, c), out.reshape(-1, h, w, c)
        for f in range(frames.shape[0]):
            if c == 1:
                dst[f, :, :, 0] = cv2.equalizeHist(np.ascontiguousarray(frames[f, :, :, 0]))
            else:
                planes = [cv2.equalizeHist(p) for p in cv2.split(frames[f])]
                dst[f] = cv2.merge(planes).reshape(h, w, c)
        return out
    h, w = x.shape[-2:]
    src_planes, out_planes = x.reshape(-1, h, w), out.reshape(-1, h, w)
    for k in range(src_planes.shape[0]):
        out_planes[k] = cv2.equalizeHist(src_planes[k])
    return out


@register("equalize", devices=("cpu", "gpu"), inputs=1, outputs=1, args=[])
class Equalize(Operator):
    """Performs grayscale/per-channel histogram equalization.

    The supported inputs are images and videos of uint8_t type.
    """

    def _check(self, tl: Any, layout: str, max_channels: int | None) -> None:
        if tl.np_dtype != np.uint8:
            raise self.error(
                f"Unsupported input type for equalize operator: {tl.np_dtype.name}. "
                "Expected input type: `uint8_t`."
            )
        c_axis = layout.find("C")
        if c_axis < 0 or max_channels is None:
            return
        for i, shape in enumerate(tl.shape()):
            c = shape[c_axis]
            if not 1 <= c <= max_channels:
                raise self.error(
                    "The CPU equalize operator supports images with number of channels in "
                    f"[1, {max_channels}] channels. However, the sample at index {i} has "
                    f"{c} channels."
                )

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws, MAX_CPU_CHANNELS)

    def run_gpu(self, ws: Workspace) -> Any:
        """The CPU body on CuPy arrays, without the CPU backend's channel limit."""
        return self._run(ws, None)

    def _run(self, ws: Workspace, max_channels: int | None) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, LAYOUTS)
        self._check(tl, layout, max_channels)
        if len(tl) == 0:
            return tl_cls.wrap([], layout, dtype=np.uint8, ndim=tl.sample_ndim)
        cv2 = optional_cv2() if xp is np else None
        if cv2 is not None:  # OpenCV's equalizeHist itself, plane by plane, on the threads
            samples = tl.samples()
            out = ws.map(lambda i: _equalize_cv2(cv2, samples[i], layout))
            return tl_cls.wrap(out, layout, dtype=np.uint8, ndim=tl.sample_ndim)
        dense = batch_array(tl, xp)
        if dense is not None:
            planes, back = _to_planes(xp, dense, layout)
            return tl_cls.wrap(back(equalize_planes(xp, planes)), layout)
        samples = tl.samples()

        def one(i: int) -> Any:
            planes, back = _to_planes(xp, samples[i], layout)
            return back(equalize_planes(xp, planes))

        return tl_cls.wrap(run_per_sample(ws, xp, one, len(tl)), layout)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, layout=static_image_layout(node, LAYOUTS))
