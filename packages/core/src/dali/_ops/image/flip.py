"""`fn.flip` (DALI §3.8): mirror images along their width, height and/or depth.

The axes come from the layout: ``horizontal`` flips ``W``, ``vertical`` flips ``H``,
``depthwise`` flips ``D``; an input without a layout is taken as HWC (3-D), FHWC (4-D) or FDHWC
(5-D), DALI's defaults. **The default flips horizontally.** Each flag may be given per sample
(``horizontal=fn.random.coin_flip()``): a uniform batch is then flipped with one slicing per
distinct combination of flags, not one per sample.

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

from typing import Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.generic.cast import array_module, per_sample_scalars
from dali._ops.image.crop import image_layout, static_image_layout

__all__ = ["FLIP_LAYOUTS", "Flip"]

#: DALI's layouts for flip, in its order (the first of each ndim is the default).
FLIP_LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC", "FCDHW", "FCHW", "CDHW", "CHW")


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
    aliases=("Flip",),
)
class Flip(Operator):
    """Flip the images horizontally (default), vertically and/or depthwise.

    ``fn.flip(img)`` mirrors left-right; ``fn.flip(img, horizontal=0, vertical=1)`` upside
    down. Layouts (F)(D)HWC and (F)C(D)HW.
    """

    def run_cpu(self, ws: Any) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, FLIP_LAYOUTS)
        axes = [layout.find(a) for a in "WHD"]
        names = ("horizontal", "vertical", "depthwise")
        flags = np.stack([per_sample_scalars(ws, self, n, np.int64) != 0 for n in names], axis=1)
        if axes[2] < 0:
            flags[:, 2] = False  # no depth axis: depthwise is a no-op, as in DALI

        def slices(row: np.ndarray, lead: int) -> tuple[Any, ...]:
            idx: list[Any] = [slice(None)] * (tl._ndim + lead)
            for k, on in enumerate(row):
                if on:
                    idx[axes[k] + lead] = slice(None, None, -1)
            return tuple(idx)

        dense = tl._dense()
        if dense is not None:
            groups = {tuple(r) for r in flags.tolist()}
            if len(groups) == 1:
                out = xp.ascontiguousarray(dense[slices(flags[0], 1)])
                return tl_cls._make(out, layout)
            out = xp.empty_like(dense)
            for g in groups:
                idx = np.flatnonzero((flags == np.array(g)).all(axis=1))
                sel = idx if xp is np else xp.asarray(idx)
                out[sel] = dense[sel][slices(np.array(g), 1)]
            return tl_cls._make(out, layout)
        samples = tl._samples()
        out_list = [xp.ascontiguousarray(s[slices(flags[i], 0)]) for i, s in enumerate(samples)]
        return tl_cls._make(out_list, layout, dtype=tl._np_dtype, ndim=tl._ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [
            {
                "dtype": src.dtype,
                "ndim": src.ndim,
                "layout": static_image_layout(node, FLIP_LAYOUTS),
            }
        ]
