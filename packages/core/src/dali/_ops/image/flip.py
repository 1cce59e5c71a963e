"""`fn.flip`: mirror images along their width, height and/or depth.

The axes come from the layout: ``horizontal`` flips ``W``, ``vertical`` flips ``H``,
``depthwise`` flips ``D``; an input without a layout is taken as HWC (3-D), FHWC (4-D) or FDHWC
(5-D), DALI's defaults. **The default flips horizontally.** Each flag may be given per sample
(``horizontal=fn.random.coin_flip()``): a uniform batch is then flipped with one slicing per
distinct combination of flags, not one per sample. On the GPU the batch, ragged or not, with any
flags, is one kernel launch (`dali._ops.window.extract_gpu`).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.flip(x), fn.flip(x, horizontal=0, vertical=1)
    >>> h, v = pipe().run()
    >>> np.array_equal(h.as_array()[0], img[:, ::-1]), np.array_equal(v.as_array()[0], img[::-1])
    (True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec import gil
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._common import image_layout, optional_cv2, static_image_layout
from dali._ops.numeric import array_module, batch_array
from dali._ops.window import extract_gpu

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["FLIP_LAYOUTS", "Flip"]

#: DALI's layouts for flip, in its order (the first of each ndim is the default).
FLIP_LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC", "FCDHW", "FCHW", "CDHW", "CHW")


def _cv2_flip(
    cv2: Any, x: np.ndarray, dst: np.ndarray, w_axis: int, h_axis: int, flip_w: bool, flip_h: bool
) -> None:
    """Flip a C-contiguous array along ``w_axis`` and/or ``h_axis`` into ``dst`` with OpenCV.

    The data is viewed as bytes: a horizontal flip reverses the ``W`` blocks of each row of the
    ``(outer, W, inner)`` view (``inner`` bytes as channels), a vertical flip reverses the rows
    of each ``(H, inner)`` plane, so any dtype and layout work.
    """
    if (not flip_w and not flip_h) or x.size == 0:
        dst[...] = x
        return
    src = x
    if flip_w:
        target = dst if not flip_h else np.empty_like(x)
        _flip_blocks(cv2, src, target, w_axis, 1)
        src = target
    if flip_h:
        _flip_blocks(cv2, src, dst, h_axis, 0)


def _flip_blocks(cv2: Any, x: np.ndarray, dst: np.ndarray, axis: int, code: int) -> None:
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1 :], dtype=np.int64)) * x.itemsize
    n = x.shape[axis]
    src_b = x.reshape(-1).view(np.uint8)
    dst_b = dst.reshape(-1).view(np.uint8)
    if code == 1 and inner <= 512:  # OpenCV channels: reverse the W blocks of each row
        pairs = [(src_b.reshape(outer, n, inner), dst_b.reshape(outer, n, inner))]
        if inner == 1:
            pairs = [(a[:, :, 0], b[:, :, 0]) for a, b in pairs]
    elif code == 0:  # reverse the rows of each (n, inner) plane
        s3, d3 = src_b.reshape(outer, n, inner), dst_b.reshape(outer, n, inner)
        pairs = [(s3[o], d3[o]) for o in range(outer)]
    else:  # too many bytes per element for OpenCV's channels: numpy
        idx: list[Any] = [slice(None)] * x.ndim
        idx[axis] = slice(None, None, -1)
        dst[...] = x[tuple(idx)]
        return
    for a, b in pairs:
        res = cv2.flip(a, code, dst=b)
        if res.ctypes.data != b.ctypes.data:
            b[...] = res.reshape(b.shape)


@register(
    "flip",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("horizontal", "int", default=1, tensor=True, doc="Nonzero: flip along W."),
        Arg("vertical", "int", default=0, tensor=True, doc="Nonzero: flip along H."),
        Arg("depthwise", "int", default=0, tensor=True, doc="Nonzero: flip along D."),
    ],
)
class Flip(Operator):
    """Flip the images horizontally (default), vertically and/or depthwise.

    ``fn.flip(img)`` mirrors left-right; ``fn.flip(img, horizontal=0, vertical=1)`` upside
    down. Layouts (F)(D)HWC and (F)C(D)HW.
    """

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, FLIP_LAYOUTS)
        axes = [layout.find(a) for a in "WHD"]
        flags = self._flags(ws, layout)

        def slices(row: np.ndarray, lead: int) -> tuple[Any, ...]:
            idx: list[Any] = [slice(None)] * (tl.sample_ndim + lead)
            for k, on in enumerate(row):
                if on:
                    idx[axes[k] + lead] = slice(None, None, -1)
            return tuple(idx)

        cv2 = optional_cv2() if xp is np else None
        dense = batch_array(tl, xp)
        if cv2 is not None and not flags[:, 2].any():
            return self._run_cv2(ws, cv2, tl, dense, flags, axes, layout)
        if dense is not None:
            groups = {tuple(r) for r in flags.tolist()}
            if len(groups) == 1:
                out = xp.ascontiguousarray(dense[slices(flags[0], 1)])
                return tl_cls.wrap(out, layout)
            out = xp.empty_like(dense)
            for g in groups:
                idx = np.flatnonzero((flags == np.array(g)).all(axis=1))
                sel = idx if xp is np else xp.asarray(idx)
                out[sel] = dense[sel][slices(np.array(g), 1)]
            return tl_cls.wrap(out, layout)
        samples = tl.samples()
        out_list = [xp.ascontiguousarray(s[slices(flags[i], 0)]) for i, s in enumerate(samples)]
        return tl_cls.wrap(out_list, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    def _run_cv2(
        self,
        ws: Workspace,
        cv2: Any,
        tl: Any,
        dense: Any,
        flags: np.ndarray,
        axes: list[int],
        layout: str,
    ) -> Any:
        """The CPU path: OpenCV's flip (SIMD, no GIL), ~10x faster than a strided numpy copy."""
        from dali._tensors import TensorListCPU

        w_axis, h_axis = axes[0], axes[1]
        if dense is not None:
            src = np.ascontiguousarray(dense)
            out = np.empty_like(src)
            if (flags == flags[0]).all():  # the batch axis is just more rows: one call
                _cv2_flip(cv2, src, out, w_axis + 1, h_axis + 1, *flags[0, :2])
                return TensorListCPU.wrap(out, layout)

            def one_dense(i: int) -> None:
                _cv2_flip(cv2, src[i], out[i], w_axis, h_axis, *flags[i, :2])

            ws.map(one_dense)
            return TensorListCPU.wrap(out, layout)
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            x = np.ascontiguousarray(samples[i])
            dst = np.empty_like(x)
            _cv2_flip(cv2, x, dst, w_axis, h_axis, *flags[i, :2])
            return dst

        return TensorListCPU.wrap(ws.map(one), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One kernel launch for the batch (`extract_gpu.flip_batch`), ragged or with per-sample
        flags; a dense batch with one set of flags is one strided CuPy copy."""
        tl = ws.inputs[0]
        layout = image_layout(self, tl, FLIP_LAYOUTS)
        flags = self._flags(ws, layout)
        if len(tl) == 0:
            return type(tl).wrap([], layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)
        flips = gil.zeros((len(tl), tl.sample_ndim), bool)
        for k, a in enumerate("WHD"):
            axis = layout.find(a)
            if axis >= 0:
                flips[:, axis] = flags[:, k]
        dense = tl.held_dense
        if dense is not None and (flips == flips[0]).all():
            # the same flags for a whole dense batch: one strided CuPy copy, much cheaper on the
            # host than the kernel's descriptions and about as fast on the GPU
            xp, tl_cls = array_module(tl)
            idx = (slice(None), *(slice(None, None, -1) if f else slice(None) for f in flips[0]))
            return tl_cls.wrap(xp.array(dense[idx], order="C"), layout)
        return extract_gpu.flip_batch(extract_gpu.gpu_batch(tl), flips, layout=layout)

    def _flags(self, ws: Workspace, layout: str) -> np.ndarray:
        """Per-sample (horizontal, vertical, depthwise) as bools; depthwise is a no-op without D."""
        names = ("horizontal", "vertical", "depthwise")
        flags = np.stack([ws.arg_scalars(n, np.int64) != 0 for n in names], axis=1)
        if layout.find("D") < 0:
            flags[:, 2] = False  # no depth axis: depthwise is a no-op, as in DALI
        return flags

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, layout=static_image_layout(node, FLIP_LAYOUTS))
