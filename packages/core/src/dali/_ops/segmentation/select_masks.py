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


_Flat = tuple[np.ndarray, list[tuple[int, ...]]]


def _select_batch(
    ids: list[np.ndarray], polys: list[np.ndarray], verts: list[np.ndarray], reindex: bool
) -> tuple[_Flat, _Flat] | None:
    """`select_polygons` and the vertex gather of a whole batch in a few array operations
    (per-sample numpy calls on a few dozen rows cost more than the work): each output as one
    flat buffer and its samples' shapes. None when a sample would be an error, or the samples'
    vertices differ in width: the caller then goes sample by sample.
    """
    n = len(ids)
    if n == 0:
        return None
    width = verts[0].shape[1]
    if any(v.shape[1] != width for v in verts):
        return None
    counts = np.array([len(m) for m in ids], np.int64)
    rows = np.array([len(p) for p in polys], np.int64)
    nverts = np.array([len(v) for v in verts], np.int64)
    sample = np.arange(n, dtype=np.int64)
    # (sample, mask id) as one int64 key: the ids are int32, so 33 bits hold id + 2**31
    id_sample = np.repeat(sample, counts)
    flat_ids = np.concatenate(ids)
    keys = (id_sample << 33) + (flat_ids.astype(np.int64) + 2**31)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if np.any(sorted_keys[1:] == sorted_keys[:-1]):  # a duplicated id
        return None
    table = np.concatenate(polys).astype(np.int64).reshape(-1, 3)
    row_sample = np.repeat(sample, rows)
    row_keys = (row_sample << 33) + (table[:, 0] + 2**31)
    at = np.minimum(np.searchsorted(sorted_keys, row_keys), max(len(keys) - 1, 0))
    hit = np.flatnonzero(sorted_keys[at] == row_keys) if len(keys) else at[:0]
    start, end = table[hit, 1], table[hit, 2]
    if np.any((start < 0) | (end > nverts[row_sample[hit]]) | (end < start)):
        return None  # every polygon of a selected mask is checked, as sample by sample
    # each selected id's polygon: the last row of its mask (rows are in increasing order)
    chosen = np.full(len(keys), -1, np.int64)
    np.maximum.at(chosen, order[at[hit]], hit)
    if np.any(chosen < 0):  # an id without a polygon
        return None
    start, end = table[chosen, 1], table[chosen, 2]
    length = end - start
    ends = np.concatenate(([0], np.cumsum(length)))  # the batch's vertices before each one
    before = ends[:-1]
    first = np.cumsum(counts) - counts  # each sample's first selection
    sample_base = ends[first]
    kept = ends[first + counts] - sample_base  # each sample's output vertices
    pos = before - np.repeat(sample_base, counts)
    out = np.empty((len(keys), 3), np.int32)
    if reindex:
        out[:, 0] = np.arange(len(keys)) - np.repeat(first, counts)
    else:
        out[:, 0] = flat_ids
    out[:, 1] = pos
    out[:, 2] = pos + length
    # the selected vertices of the batch, gathered from its vertices laid end to end
    vert_base = np.cumsum(nverts) - nverts
    src = start + vert_base[id_sample]
    index = np.arange(int(length.sum())) + np.repeat(src - before, length)
    gathered = np.concatenate(verts)[index]
    return (
        (out.reshape(-1), [(k, 3) for k in counts.tolist()]),
        (gathered.reshape(-1), [(k, width) for k in kept.tolist()]),
    )


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
        batch = _select_batch(ids, polys, verts, reindex)
        if batch is not None:
            (out_polys, poly_shapes), (out_verts, vert_shapes) = batch
            return (
                TensorListCPU.wrap_flat(out_polys, poly_shapes, "", ndim=2),
                TensorListCPU.wrap_flat(out_verts, vert_shapes, "", ndim=2),
            )

        # a sample the batch path rejected: sample by sample, for the first sample's own error
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

        results = [one(i) for i in range(ws.batch_size)]
        return (
            TensorListCPU.wrap([r[0] for r in results], "", dtype=np.int32, ndim=2),
            TensorListCPU.wrap([r[1] for r in results], "", dtype=vdtype, ndim=2),
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
