"""Rank filters: `fn.experimental.median_blur`, `fn.experimental.erode`, `fn.experimental.dilate`.

A rank filter replaces every pixel with an order statistic of the pixels in a rectangular
window around it, channel by channel: the median (`median_blur`, which removes salt-and-pepper
noise and keeps edges), the minimum (`erode`: dark regions grow) or the maximum (`dilate`:
bright regions grow). No arithmetic is involved, so every backend gives the same values.

In DALI 2.4 these operators exist only on the GPU (they call CV-CUDA); here they also have a
CPU backend (an extension), which uses OpenCV's ``medianBlur``/``erode``/``dilate`` where
they apply and numpy otherwise. Sizes and anchors follow CV-CUDA's order, ``(width,
height)``, and one value stands for both. Images are ``HW``, ``HWC`` or ``CHW``, and
sequences of them (``FHWC``, ``FCHW``).

Borders: `median_blur` repeats the edge pixels (CV-CUDA's replicate border). `erode` and
`dilate` take ``border_mode``: ``"constant"`` (the default: the outside never wins, as
OpenCV's default morphology border), ``"replicate"``, ``"reflect"``, ``"reflect_101"`` or
``"wrap"``. ``iterations`` applies the operation that many times.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.zeros((5, 5), np.uint8)
    >>> img[2, 2] = 9
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [img], layout="HW", batch=True)
    ...     return fn.experimental.dilate(x), fn.experimental.median_blur(x)
    >>> dilated, median = pipe().run()
    >>> dilated.as_array()[0].tolist()[1:4]
    [[0, 9, 9, 9, 0], [0, 9, 9, 9, 0], [0, 9, 9, 9, 0]]
    >>> int(median.as_array().max())
    0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops._sequences import unfold
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._common import optional_cv2
from dali._ops.numeric import array_module, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Dilate", "Erode", "MedianBlur"]

_LAYOUTS = ("HW", "HWC", "FHWC", "CHW", "FCHW")
_BORDERS = ("constant", "replicate", "reflect", "reflect_101", "wrap")
#: numpy/CuPy ``pad`` modes of the border modes
_PAD_MODES = {
    "constant": "constant",
    "replicate": "edge",
    "reflect": "symmetric",
    "reflect_101": "reflect",
    "wrap": "wrap",
}
#: the element types of the operators (CV-CUDA's, plus int8/int16/float64 as an extension)
_TYPES = frozenset(
    np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float32, np.float64)
)


def _planes(op: Operator, tl: Any) -> tuple[str, int, bool]:
    """``(layout, leading non-spatial dims, channel_last)`` of a batch; the layout must be one
    of ``HW``, ``HWC``, ``CHW`` and their sequences (a missing one is assumed by ndim)."""
    layout = tl.layout() or {2: "HW", 3: "HWC", 4: "FHWC"}.get(tl.sample_ndim, "")
    if layout not in _LAYOUTS or len(layout) != tl.sample_ndim:
        raise op.error(
            f"Unsupported input layout: '{tl.layout()}'. Expected one of: "
            + ", ".join(_LAYOUTS)
            + "."
        )
    lead = layout.index("H")
    return layout, lead, layout[-1] == "C"


def _pairs(op: Operator, ws: Workspace, name: str) -> np.ndarray:
    """A 2-value argument per sample, ``(batch, 2)`` in (width, height) order."""
    return ws.arg_vectors(name, np.int64, n=2, what=" (width, height)")


def _window_taps(xp: Any, padded: Any, kh: int, kw: int, h: int, w: int) -> list[Any]:
    return [padded[i : i + h, j : j + w] for i in range(kh) for j in range(kw)]


def _pad(
    xp: Any, x: Any, before: tuple[int, int], after: tuple[int, int], mode: str, value: Any
) -> Any:
    width = [(before[0], after[0]), (before[1], after[1])] + [(0, 0)] * (x.ndim - 2)
    kw = {"constant_values": value} if mode == "constant" else {}
    return xp.pad(x, width, mode=mode, **kw)


def _extreme(dtype: np.dtype[Any], largest: bool) -> Any:
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    info = np.iinfo(dtype)
    return info.max if largest else info.min


class _RankFilter(Operator):
    """Shared running: one 2-D image (``H, W[, C]``) at a time, frames and leading channels
    as separate images."""

    #: the arguments that may be given per sample or per frame
    knobs: tuple[str, ...] = ()

    def run(self, ws: Workspace) -> Any:
        frames = unfold(self, ws, self.knobs)
        if frames is not None:
            return frames.fold(frames.run(super().run))
        return super().run(ws)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        if tl.np_dtype not in _TYPES:
            from dali._dtypes import type_name

            raise self.error(f"Unsupported input type: {type_name(tl.np_dtype)}.")
        layout, lead, _ = _planes(self, tl)
        params = self.params(ws)
        cv2 = optional_cv2() if xp is np else None
        samples = tl.samples()

        def one(i: int) -> Any:
            x = samples[i]
            if x.size == 0:
                return x.copy()
            if lead == 0:
                return self.image(xp, cv2, x, params[i])
            flat = x.reshape(-1, *x.shape[lead:])
            out = xp.empty_like(flat)
            for p in range(flat.shape[0]):
                out[p] = self.image(xp, cv2, flat[p], params[i])
            return out.reshape(x.shape)

        outs = run_per_sample(ws, xp, one, len(samples))
        return cls.wrap(outs, tl.layout() or layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    def params(self, ws: Workspace) -> list[Any]:
        raise NotImplementedError

    def image(self, xp: Any, cv2: Any, x: Any, p: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)


@register(
    "experimental.median_blur",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("window_size", "int_or_int_vec", default=(3, 3), tensor=True,
            doc="Size of the window, (width, height) or one value for both; odd, > 1."),
    ],
)  # fmt: skip
class MedianBlur(_RankFilter):
    """Median blur: every pixel (per channel) becomes the median of the ``window_size``
    window centred on it; the edges are repeated beyond the image.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``. ``window_size``:
    ``(width, height)`` or one value for both (odd, greater than 1), per sample or per frame.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``medianBlur``
    for square windows where OpenCV supports them, numpy otherwise).
    """

    knobs = ("window_size",)

    def params(self, ws: Workspace) -> list[Any]:
        sizes = _pairs(self, ws, "window_size")
        for i, (kw, kh) in enumerate(sizes.tolist()):
            if kw <= 1 or kh <= 1 or kw % 2 == 0 or kh % 2 == 0:
                raise self.arg_error(
                    "window_size",
                    f"The window size must be an odd integer greater than one, got "
                    f"({kw}, {kh}) for sample {i}.",
                )
        return [tuple(s) for s in sizes.tolist()]

    def image(self, xp: Any, cv2: Any, x: Any, p: Any) -> Any:
        kw, kh = p
        h, w = x.shape[:2]
        ch = x.shape[2] if x.ndim == 3 else 1
        if (
            cv2 is not None
            and kw == kh
            and ch in (1, 3, 4)
            and (x.dtype == np.uint8 or (kw <= 5 and x.dtype in (np.uint16, np.float32)))
        ):
            return cv2.medianBlur(np.ascontiguousarray(x), kw).reshape(x.shape)
        padded = _pad(xp, x, (kh // 2, kw // 2), (kh // 2, kw // 2), "edge", 0)
        taps = xp.stack(_window_taps(xp, padded, kh, kw, h, w))
        mid = (kh * kw) // 2
        return xp.sort(taps, axis=0)[mid]


class _Morphology(_RankFilter):
    """Erosion/dilation with a rectangular structuring element (``mask_size``, ``anchor``,
    ``iterations``, ``border_mode``)."""

    knobs = ("mask_size", "anchor")
    #: dilation (maximum) or erosion (minimum)
    largest = False

    def setup(self) -> None:
        if self.arg("border_mode") not in _BORDERS:
            raise self.arg_error(
                "border_mode",
                f"Unknown border mode: {self.arg('border_mode')}. Supported modes: "
                + ", ".join(_BORDERS)
                + ".",
            )
        if self.arg("iterations") < 1:
            raise self.arg_error("iterations", f"Must be at least 1, got {self.arg('iterations')}.")

    def params(self, ws: Workspace) -> list[Any]:
        masks = _pairs(self, ws, "mask_size")
        anchors = _pairs(self, ws, "anchor")
        out = []
        for i, ((kw, kh), (ax, ay)) in enumerate(zip(masks.tolist(), anchors.tolist())):
            if kw < 1 or kh < 1:
                raise self.arg_error(
                    "mask_size", f"must be positive, got ({kw}, {kh}) for sample {i}."
                )
            ax = kw // 2 if ax < 0 else ax
            ay = kh // 2 if ay < 0 else ay
            if ax >= kw or ay >= kh:
                raise self.arg_error(
                    "anchor",
                    f"The anchor ({ax}, {ay}) must lie within the mask of size ({kw}, {kh}) "
                    f"(sample {i}).",
                )
            out.append((kw, kh, ax, ay))
        return out

    def image(self, xp: Any, cv2: Any, x: Any, p: Any) -> Any:
        kw, kh, ax, ay = p
        border = str(self.arg("border_mode"))
        iterations = int(self.arg("iterations"))
        ch = x.shape[2] if x.ndim == 3 else 1
        if cv2 is not None and x.dtype != np.int8 and x.dtype != np.int32 and ch <= 4:
            flags = {
                "constant": cv2.BORDER_CONSTANT,
                "replicate": cv2.BORDER_REPLICATE,
                "reflect": cv2.BORDER_REFLECT,
                "reflect_101": cv2.BORDER_REFLECT_101,
                "wrap": cv2.BORDER_WRAP,
            }
            if border != "wrap":  # OpenCV's morphology has no wrap border
                f = cv2.dilate if self.largest else cv2.erode
                kernel = np.ones((kh, kw), np.uint8)
                out = f(
                    np.ascontiguousarray(x), kernel, anchor=(ax, ay), iterations=iterations,
                    borderType=flags[border],
                )  # fmt: skip
                return out.reshape(x.shape)
        reduce = xp.maximum if self.largest else xp.minimum
        fill = _extreme(x.dtype, not self.largest)
        h, w = x.shape[:2]
        for _ in range(iterations):
            # a rectangle is separable: rows, then columns (exact for min/max)
            padded = _pad(xp, x, (0, ax), (0, kw - ax - 1), _PAD_MODES[border], fill)
            acc = padded[:, 0:w]
            for j in range(1, kw):
                acc = reduce(acc, padded[:, j : j + w])
            padded = _pad(xp, acc, (ay, 0), (kh - ay - 1, 0), _PAD_MODES[border], fill)
            acc = padded[0:h]
            for i in range(1, kh):
                acc = reduce(acc, padded[i : i + h])
            x = acc
        return x


_MORPH_ARGS = [
    Arg("mask_size", "int_or_int_vec", default=(3, 3), tensor=True,
        doc="Size of the structuring element, (width, height) or one value for both."),
    Arg("anchor", "int_or_int_vec", default=(-1, -1), tensor=True,
        doc="Anchor of the structuring element, (x, y); -1: its centre."),
    Arg("iterations", "int", default=1, doc="How many times the operation is applied."),
    Arg("border_mode", "str", default="constant",
        doc="'constant' (the outside never wins), 'replicate', 'reflect', 'reflect_101' or "
        "'wrap'."),
]  # fmt: skip


@register("experimental.erode", devices=("cpu", "gpu"), inputs=1, args=_MORPH_ARGS)
class Erode(_Morphology):
    """Erosion: every pixel (per channel) becomes the minimum over the structuring element
    (a ``mask_size`` rectangle, ``(width, height)``, placed with its ``anchor`` point on the
    pixel; ``-1``: the centre), ``iterations`` times.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``; ``mask_size`` and
    ``anchor`` per sample or per frame. ``border_mode``: ``"constant"`` (the default; the
    outside never wins), ``"replicate"``, ``"reflect"``, ``"reflect_101"`` or ``"wrap"``.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``erode``).
    """

    largest = False


@register("experimental.dilate", devices=("cpu", "gpu"), inputs=1, args=_MORPH_ARGS)
class Dilate(_Morphology):
    """Dilation: every pixel (per channel) becomes the maximum over the structuring element
    (a ``mask_size`` rectangle, ``(width, height)``, placed with its ``anchor`` point on the
    pixel; ``-1``: the centre), ``iterations`` times.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``; ``mask_size`` and
    ``anchor`` per sample or per frame. ``border_mode``: ``"constant"`` (the default; the
    outside never wins), ``"replicate"``, ``"reflect"``, ``"reflect_101"`` or ``"wrap"``.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``dilate``).
    """

    largest = True
