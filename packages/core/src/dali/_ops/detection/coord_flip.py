"""`fn.coord_flip`: reflect points (or vectors) about a centre, axis by axis.

A sample is a float32 ``[N, D]`` tensor of ``N`` points with ``D`` coordinates (``D`` at most 3,
the same for the whole batch). ``layout`` names the coordinates in order, with the letters
``x``, ``y`` and ``z`` (empty: ``"x"``, ``"xy"`` or ``"xyz"`` by ``D``); each of the first ``D``
axes must appear in it. A flipped coordinate ``v`` becomes ``2 * center - v`` (``2 * center`` is
computed first, in float32, as DALI does), so with the default centre 0.5 relative coordinates
are mirrored in ``[0, 1]``. ``flip_x`` (default 1), ``flip_y`` and ``flip_z`` (default 0) and
the three centres may be given per sample (``flip_x=fn.random.coin_flip()``, the flag of the
image's `fn.flip`). The output keeps the input's shape and layout.

The batch is flipped at once: the points of every sample lie in one ``(points, D)`` array, with
each sample's flags and centres repeated over its points (one numpy pass per flipped coordinate
on the CPU, one element-wise kernel on the GPU).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> pts = np.array([[0.1, 0.2], [0.75, 0.5]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     p = fn.external_source(lambda: [pts])
    ...     return fn.coord_flip(p), fn.coord_flip(p, flip_x=0, flip_y=1, center_y=1.0)
    >>> x, y = pipe().run()
    >>> x.at(0).astype(float).round(6).tolist(), y.at(0).astype(float).round(6).tolist()
    ([[0.9, 0.2], [0.25, 0.5]], [[0.1, 1.8], [0.75, 1.5]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["CoordFlip"]

_AXES = ("x", "y", "z")
_PARAMS = tuple(f"{kind}_{axis}" for kind in ("flip", "center") for axis in _AXES)


def _flip_host(
    points: np.ndarray, flips: np.ndarray, origin: np.ndarray, shapes: Sequence[tuple[int, ...]]
) -> None:
    """Flip ``points`` (the ``(P, D)`` points of samples of ``shapes``, an array of the batch's
    own, changed in place) column by column: ``2 * center - v`` where the sample's flag is set.
    A column at a time is several times faster than one broadcast over rows of two or three
    coordinates."""
    uniform = (flips == flips[0]).all() and (origin == origin[0]).all()
    counts = [] if uniform else [s[0] for s in shapes]
    for col in range(points.shape[1]):
        values = points[:, col]
        if uniform:  # constants, or per-sample values that agree: no per-point parameters
            if flips[0, col]:
                np.subtract(origin[0, col], values, out=values)
            continue
        f = np.repeat(flips[:, col], counts)
        if f.any():
            o = np.repeat(origin[:, col], counts)
            np.copyto(values, o - values, where=f)


@register(
    "coord_flip",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("layout", "layout", default="", doc='Order of the coordinates: "x", "xy", "xyz"...'),
        Arg("flip_x", "int", default=1, tensor=True, doc="Flip the horizontal (x) coordinate."),
        Arg("flip_y", "int", default=0, tensor=True, doc="Flip the vertical (y) coordinate."),
        Arg("flip_z", "int", default=0, tensor=True, doc="Flip the depthwise (z) coordinate."),
        Arg("center_x", "float", default=0.5, tensor=True, doc="Flip centre on the x axis."),
        Arg("center_y", "float", default=0.5, tensor=True, doc="Flip centre on the y axis."),
        Arg("center_z", "float", default=0.5, tensor=True, doc="Flip centre on the z axis."),
    ],
)
class CoordFlip(Operator):
    """Transforms vectors or points by flipping (reflecting) their coordinates with respect
    to a given center."""

    def _columns(self, ndim: int) -> list[int]:
        """The input column of x, y and z (DALI's rule: an axis beyond ``ndim`` keeps its
        default column 0/1/2, which then matters only where the layout reuses it)."""
        layout = str(self.arg("layout") or "")
        if not layout:
            layout = "xyz"[:ndim]
        cols = []
        for k, axis in enumerate(_AXES):
            if ndim > k:
                col = layout.find(axis)
                if col < 0:
                    raise self.arg_error("layout", f'Dimension "{axis}" not found in the layout')
                cols.append(col)
            else:
                cols.append(k)
        return cols

    def _ndim(
        self,
        shapes: list[tuple[int, ...]],
        dtype: np.dtype[Any],
        points: np.ndarray | None = None,
    ) -> int:
        """``D``, the samples checked to be ``[N, D]`` FLOAT points with one ``D`` (``points``:
        the samples already concatenated, which told whether their shapes agree)."""
        if dtype != np.float32:
            raise self.error(f"Input is expected to be float (FLOAT), got {dtype}")
        if not shapes:
            return 0
        if points is not None and points.ndim == 2:
            ndim = points.shape[1]  # the concatenation took samples of one width only
        else:
            ndim = self._width(shapes)
        if ndim > 3:
            raise self.error(f"Unexpected number of dimensions {ndim}")
        return int(ndim)

    def _width(self, shapes: list[tuple[int, ...]]) -> int:
        """The ``D`` of ``[N, D]`` samples, or the error naming what differs."""
        if set(map(len, shapes)) != {2}:
            for i, s in enumerate(shapes):
                if len(s) != 2:
                    raise self.error(
                        f"sample {i}: expected a 2D [N, D] tensor of N points, got shape {s}"
                    )
        ndim = shapes[0][1]
        widths = list(zip(*shapes))[1]  # whole-batch checks: a batch has hundreds of samples
        if widths.count(ndim) != len(widths):
            raise self.error(
                "All samples are expected to have coordinates with same number of dimensions. "
                f"Got : {shapes}"
            )
        return ndim

    def _params(self, ws: Workspace, ndim: int) -> tuple[np.ndarray, np.ndarray]:
        """Per sample and column: whether to flip (``(batch, ndim)`` bools) and the mirrored
        origin ``2 * center`` (float32), assigned in x, y, z order as DALI does. Constants
        give one row, which serves every sample."""
        tensors = any(ws.is_tensor_arg(name) for name in _PARAMS)
        b = ws.batch_size if tensors else min(ws.batch_size, 1)
        cols = self._columns(ndim)
        width = max(3, *(c + 1 for c in cols))
        flips = np.zeros((b, width), dtype=bool)
        origin = np.ones((b, width), dtype=np.float32)
        for axis, col in zip(_AXES, cols):
            name = f"flip_{axis}"
            if ws.is_tensor_arg(name):
                given = ws.arg_inputs[name]
                if len(given) and given.np_dtype.kind not in "biu":  # one type: sample 0's
                    raise self.arg_error(
                        name, f"sample 0: expected an integer flag (INT32), got {given.np_dtype}"
                    )
            flips[:, col] = ws.arg_scalars(name, np.int64)[:b] != 0
            center = ws.arg_scalars(f"center_{axis}", np.float32)[:b]
            origin[:, col] = np.float32(2) * center
        return flips[:, :ndim], origin[:, :ndim]

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        dense = tl.held_dense if xp is np else tl.dense()
        samples = None if dense is not None else tl.samples()
        shapes = (
            [tuple(dense.shape[1:])] * len(dense)
            if dense is not None
            else [s.shape for s in samples]  # type: ignore[union-attr]
        )
        points = None
        if xp is np and samples and tl.np_dtype == np.float32 and tl.flat() is None:
            try:  # the batch's points, one copy: the checks then need not look at every sample
                points = np.concatenate(samples)
            except ValueError:  # the shapes differ: `_ndim` says how
                points = None
        ndim = self._ndim(shapes, tl.np_dtype, points)
        flips, origin = self._params(ws, ndim)
        if not shapes or not ndim:
            return tl
        if xp is np:
            if dense is not None:
                points = dense.reshape(-1, ndim).copy()
                _flip_host(points, flips, origin, shapes)
                return tl_cls.wrap(points.reshape(dense.shape), tl.layout())
            if points is None:  # samples back to back in a flat buffer
                packed = tl.flat()
                assert packed is not None
                size = sum(s[0] for s in shapes) * ndim
                points = packed[0][:size].reshape(-1, ndim).copy()
            _flip_host(points, flips, origin, shapes)
            return tl_cls.wrap_flat(points.reshape(-1), shapes, tl.layout(), 2)
        if dense is not None:  # (B, N, D): the parameters broadcast over the points
            f, o = xp.asarray(flips[:, None, :]), xp.asarray(origin[:, None, :])
            return tl_cls.wrap(xp.where(f, o - dense, dense), tl.layout())
        assert samples is not None
        counts = np.array([s[0] for s in shapes], dtype=np.int64)
        flat = tl.flat()
        points = flat[0].reshape(-1, ndim) if flat is not None else xp.concatenate(samples)
        if len(flips) and (flips == flips[0]).all() and (origin == origin[0]).all():
            f, o = xp.asarray(flips[:1]), xp.asarray(origin[:1])  # the same for every point
        else:
            f = xp.asarray(np.repeat(flips, counts, axis=0))
            o = xp.asarray(np.repeat(origin, counts, axis=0))
        out = xp.where(f, o - points, points)
        # the samples lie back to back in ``out``: views are made only when asked for
        return tl_cls.wrap_flat(out.reshape(-1), shapes, tl.layout(), 2)

    run_gpu = run_cpu  # the same element-wise operations on CuPy arrays (the non-numpy path)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
