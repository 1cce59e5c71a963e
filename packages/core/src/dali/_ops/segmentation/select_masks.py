"""`fn.segmentation.select_masks`: keep the polygons of chosen masks (COCO-style polygons).

Polygon masks come as ``fn.readers.coco(polygon_masks=True)`` gives them: ``polygons``, an
INT32 ``[P, 3]`` table of ``[mask_id, start_vertex, end_vertex)`` rows, and ``vertices``, a
``[V, D]`` table of coordinates (any type, any ``D``). Given ``mask_ids`` (INT32 ``[K]``, no
duplicates), the operator gives, in the order of ``mask_ids``:

* ``polygons`` ``[K, 3]`` INT32: for each selected mask, its id (or, with
  ``reindex_masks=True``, its position in ``mask_ids``) and its vertex range in the output;
* ``vertices`` ``[sum of the ranges, D]``, of the input's type: the selected vertices, copied
  in that order.

As DALI 2.4, a mask gives one polygon: when several rows of ``polygons`` have the selected
mask id, the last one is used.

Errors (naming the operator): a wrong input type or rank, ``polygons`` without 3 columns, a
duplicated id, an id without a polygon, a vertex range outside ``vertices`` or reversed.
The operator is deterministic and runs on the CPU only, as DALI's.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> polygons = np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10]], np.int32)
    >>> vertices = np.arange(20, dtype=np.float32).reshape(10, 2)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     ids = types.Constant(np.array([2, 0], np.int32))
    ...     return tuple(fn.segmentation.select_masks(
    ...         ids, types.Constant(polygons), types.Constant(vertices), reindex_masks=True))
    >>> polys, verts = (o.at(0) for o in pipe().run())
    >>> polys.tolist(), verts[:, 0].tolist()
    ([[0, 0, 3], [1, 3, 6]], [14.0, 16.0, 18.0, 0.0, 2.0, 4.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["SelectMasks", "select_polygons"]


def select_polygons(
    mask_ids: np.ndarray, polygons: np.ndarray, n_vertices: int, reindex: bool
) -> tuple[np.ndarray, np.ndarray]:
    """One sample's output polygons and, per selected mask, its input vertex range.

    Returns:
        ``(out_polygons, ranges)``: ``[K, 3]`` int32 and ``[K, 2]`` int64 ``[start, end)`` in
        the input vertices.

    Raises:
        ValueError: A duplicated or absent mask id, a vertex range out of bounds or reversed.

    Example:
        >>> polys = np.array([[4, 0, 3], [5, 3, 5], [4, 5, 9]], np.int32)
        >>> out, ranges = select_polygons(np.array([4], np.int32), polys, 9, False)
        >>> out.tolist(), ranges.tolist()  # mask 4's last polygon
        ([[4, 0, 4]], [[5, 9]])
    """
    ids = [int(m) for m in mask_ids]
    new_id: dict[int, int] = {}
    for k, m in enumerate(ids):
        if m in new_id:
            raise ValueError(f"mask_ids should not have duplicated values. Got {m} repeated.")
        new_id[m] = k if reindex else m
    span: dict[int, tuple[int, int]] = {}
    for m, start, end in polygons.tolist():
        if m not in new_id:
            continue
        if not (start >= 0 and end <= n_vertices):
            raise ValueError(
                f"Vertex index range for mask id {m} [{start}, {end}) is out of bounds. "
                f"Expected to be within the range of available vertices [0, {n_vertices})."
            )
        if end < start:
            raise ValueError(f"Vertex start index can't be after end index. Got [{start}, {end})")
        span[m] = (start, end)  # a later polygon of the same mask replaces it (as DALI)
    ranges = np.zeros((len(ids), 2), np.int64)
    out = np.zeros((len(ids), 3), np.int32)
    pos = 0
    for k, m in enumerate(ids):
        if m not in span:
            raise ValueError(f"Selected mask_id {m} is not present in the input.")
        start, end = span[m]
        ranges[k] = start, end
        out[k] = new_id[m], pos, pos + end - start
        pos += end - start
    return out, ranges


@register(
    "segmentation.select_masks",
    class_name="SelectMasks",
    devices=("cpu",),
    inputs=3,
    outputs=2,
    input_names=("mask_ids", "polygons", "vertices"),
    args=[
        Arg(
            "reindex_masks",
            "bool",
            default=False,
            doc="Replace the mask ids by their positions in mask_ids.",
        ),
    ],
)
class SelectMasks(Operator):
    """The polygons (and their vertices) of the masks listed in ``mask_ids``."""

    def _check_inputs(self, ws: Workspace) -> None:
        ids, polys, verts = ws.inputs
        if ids.np_dtype != np.int32:
            raise self.error("``mask_ids`` input is expected to be int32")
        if ids.sample_ndim != 1:
            raise self.error("``mask_ids`` input is expected to be 1D")
        if polys.np_dtype != np.int32:
            raise self.error("``polygons`` input is expected to be int32")
        if polys.sample_ndim != 2:
            raise self.error(f"``polygons`` input is expected to be 2D. Got {polys.sample_ndim}D")
        if verts.sample_ndim != 2:
            raise self.error(f"``vertices`` input is expected to be 2D. Got {verts.sample_ndim}D")
        for p in polys.samples():
            if p.shape[1] != 3:
                raise self.error(
                    "``polygons`` is expected to contain 2D tensors with 3 columns: "
                    f"``mask_id, start_idx, end_idx``. Got {p.shape[1]} columns."
                )

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        self._check_inputs(ws)
        ids, polys, verts = (tl.samples() for tl in ws.inputs)
        vdtype = ws.inputs[2].np_dtype
        reindex = bool(self.arg("reindex_masks"))

        def one(i: int) -> tuple[np.ndarray, np.ndarray]:
            v = verts[i]
            try:
                out, ranges = select_polygons(ids[i], polys[i], v.shape[0], reindex)
            except ValueError as e:
                raise self.error(str(e)) from None
            if len(ranges) == 1:  # one slice: no index array
                return out, v[ranges[0, 0] : ranges[0, 1]].copy()
            rows = [np.arange(s, e) for s, e in ranges.tolist()]
            index = np.concatenate(rows) if rows else np.zeros(0, np.int64)
            return out, v[index]

        # a few microseconds per sample: handing samples to threads would cost more
        results = [one(i) for i in range(ws.batch_size)]
        out_polys = [r[0] for r in results]
        out_verts = [r[1] for r in results]
        return (
            TensorListCPU.wrap(out_polys, "", dtype=np.int32, ndim=2),
            TensorListCPU.wrap(out_verts, "", dtype=vdtype, ndim=2),
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        verts = node.inputs[2]
        shape = verts.static_shape
        ncoords = shape[1] if shape is not None and len(shape) == 2 else None
        return [
            {"dtype": DALIDataType.INT32, "ndim": 2, "layout": "", "static_shape": (None, 3)},
            {"dtype": verts.dtype, "ndim": 2, "layout": "", "static_shape": (None, ncoords)},
        ]
