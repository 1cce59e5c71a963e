"""`fn.cast` and `fn.cast_like`: convert the element type with saturation.

DALI's rules (its ``ConvertSat``, `dali._ops.numeric.convert_sat`): a float becomes an integer by
rounding to nearest with halves **away from zero** and clamping to the target range
(``[-1.5, 2.5, 0.5, -0.5]`` → INT32 ``[-2, 3, 1, -1]``, → UINT8 ``[0, 3, 1, 0]``, ``300.0`` →
UINT8 ``255``), an integer that does not fit the target type is clamped, a float too large for
FLOAT16 becomes ``inf`` (``70000.0`` → ``inf``), and anything becomes BOOL as ``x != 0``.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.array([-1.5, 2.5, 0.5, -0.5, 300.0], dtype=np.float32))
    ...     return fn.cast(x, dtype=types.UINT8), fn.cast(x, dtype=types.INT32)
    >>> u8, i32 = pipe().run()
    >>> u8.as_array()[0].tolist(), i32.as_array()[0].tolist()
    ([0, 3, 1, 0, 255], [-2, 3, 1, -1, 300])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Cast", "CastLike"]


def _cast_batch(tl: Any, dtype: np.dtype[Any]) -> Any:
    xp, tl_cls = array_module(tl)
    if tl.np_dtype == dtype:
        dense = tl.dense()
        if dense is not None:
            return tl_cls.wrap(xp.array(dense, copy=True), tl.layout())
        return tl_cls.wrap([xp.array(s, copy=True) for s in tl.samples()], tl.layout())
    dense = tl.dense()
    if dense is not None:
        return tl_cls.wrap(xp.ascontiguousarray(convert_sat(xp, dense, dtype)), tl.layout())
    samples = [convert_sat(xp, s, dtype) for s in tl.samples()]
    return tl_cls.wrap(samples, tl.layout(), dtype=dtype, ndim=tl.sample_ndim)


@register(
    "cast",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[Arg("dtype", "dtype", default=REQUIRED, doc="The output data type.")],
)
class Cast(Operator):
    """Cast the data to ``dtype``: floats round half away from zero, integers saturate.

    ``fn.cast(x, dtype=types.UINT8)`` maps ``[-1.5, 2.5, 300.0]`` to ``[0, 3, 255]``; casting
    ``70000.0`` to FLOAT16 gives ``inf``; any type cast to BOOL is ``x != 0``.
    """

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        dtype = self.arg("dtype")
        if not dtype:
            raise self.arg_error("dtype", "is required")
        try:
            self._dtype = np_dtype(dtype)
        except TypeError:
            raise self.arg_error(
                "dtype", f"cannot cast to {type_name(dtype)}: not a numeric type"
            ) from None

    def run_cpu(self, ws: Workspace) -> Any:
        return _cast_batch(ws.inputs[0], self._dtype)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype")
        return [{"dtype": dtype, "layout": src.layout, "static_shape": src.static_shape}]


@register(
    "cast_like",
    devices=("cpu", "gpu"),
    inputs=2,
    input_names=("input", "like"),
)
class CastLike(Operator):
    """Cast the first input to the data type of the second (same rules as `fn.cast`)."""

    def run_cpu(self, ws: Workspace) -> Any:
        return _cast_batch(ws.inputs[0], ws.inputs[1].np_dtype)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src, like = node.inputs
        return [{"dtype": like.dtype, "layout": src.layout, "static_shape": src.static_shape}]
