"""The host side of the batched GPU resampling (`gpu`): its records and its planning.

The kernels read one record per sample (and per axis): `AXIS`, ``DESC_2D`` for the tiled 2-D
kernel, ``JOB`` and ``PASS`` for the separable passes, each the numpy twin of a CUDA struct.
They are filled with the values `AxisPlan` holds, float32 values computed as
`reference.axis_weights` computes them (`axis_record`).

A batch of images is planned without a per-sample Python loop, which would cost far more than
the kernel (tens of milliseconds for 256 images): `plan_batch` is `AxisPlan.make` on
``(samples, axes)`` arrays, `Images` and `descs_2d` fill the descriptors column by column, with
the same float32 operations in the same order, so the descriptors are byte for byte those of the
per-sample code. That code (`Sample`, `descs_2d_reference`) remains for volumes and the
separable passes, and as the reference the tests compare against. Every step works in blocks of
rows that keep the GIL (`dali._exec.gil`): it runs in the executor's GPU thread beside the
pipeline's other Python threads. With Numba installed the same computations run compiled
instead (`gpu_plan_jit`: loops over the samples, equal byte for byte; about a tenth of the time
at a batch of 256).

Example:
    >>> import numpy as np
    >>> from dali._ops.image.resample import reference
    >>> plan = reference.AxisPlan.make(in_size=12, out_size=4, lo=0.0, hi=12.0)
    >>> rec = axis_record(plan, accumulate=False)
    >>> int(rec["support"]), int(rec["table_n"])  # a triangle 3 input pixels wide each side
    (6, 3)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from dali import _options as options
from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image.resample import reference

__all__ = [
    "AXIS",
    "DESC_2D",
    "ITEMS",
    "JOB",
    "PASS",
    "TABLE_KINDS",
    "Images",
    "PlanBatch",
    "Sample",
    "axis_record",
    "choose_tiles",
    "choose_tiles_reference",
    "descs_2d",
    "descs_2d_reference",
    "plan_batch",
]

_F32 = np.float32
_SMEM_LIMIT = 48 * 1024  # the default dynamic shared memory a block may use
_MAX_INNER = 64  # channels per pixel the tiled kernel takes (more: the separable passes)
#: Elements per thread of the separable passes.
ITEMS = 4

#: One spatial axis of one sample (``struct dali_axis``).
AXIS = np.dtype(
    [
        ("start", "<f4"),
        ("scale", "<f4"),
        ("tscale", "<f4"),
        ("support", "<i4"),
        ("table", "<i4"),
        ("table_n", "<i4"),
        ("in_size", "<i4"),
        ("accumulate", "<i4"),
    ],
    align=True,
)

#: One sample of the tiled 2-D kernel (``struct dali_resample2d_desc``).
DESC_2D = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("in_plane", "<i8"),
        ("out_plane", "<i8"),
        ("planes", "<i4"),
        ("inner", "<i4"),
        ("in_h", "<i4"),
        ("in_w", "<i4"),
        ("out_h", "<i4"),
        ("out_w", "<i4"),
        ("tiles_y", "<i4"),
        ("tiles_x", "<i4"),
        ("first", "<i4"),
        ("zero", "<i4"),
        ("axis", AXIS, (2,)),
    ],
    align=True,
)

#: The weights of one axis of one sample for the separable passes (``struct dali_axis_job``).
JOB = np.dtype([("axis", AXIS), ("out_size", "<i4"), ("bofs", "<i4"), ("wofs", "<i8")], align=True)

#: One sample of one separable pass (``struct dali_pass_desc``).
PASS = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("outer", "<i8"),
        ("inner", "<i8"),
        ("n_in", "<i4"),
        ("n_out", "<i4"),
        ("bofs", "<i4"),
        ("support", "<i4"),
        ("wofs", "<i8"),
        ("zero", "<i4"),
        ("pad", "<i4"),
    ],
    align=True,
)

assert (AXIS.itemsize, DESC_2D.itemsize, JOB.itemsize, PASS.itemsize) == (32, 136, 48, 64)
#: ``DESC_2D`` in 4-byte words; `gpu_plan_jit.fill_descs` writes its fields at these word offsets.
_DESC_WORDS = DESC_2D.itemsize // 4
assert G.field_words(DESC_2D) == [0, 2, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
assert G.field_words(AXIS) == list(range(8))


# -- filter tables (their place in the device array of `gpu.filter_tables`) ------------------------

#: The filter kinds in the order of their tables in the device array.
TABLE_KINDS = tuple(sorted(reference.TABLES))
_TABLE_OFFSETS = dict(
    zip(
        TABLE_KINDS,
        np.cumsum([0] + [len(reference.TABLES[k]) for k in TABLE_KINDS[:-1]]).tolist(),
    )
)


def axis_record(plan: reference.AxisPlan, *, accumulate: bool) -> np.ndarray:
    """The kernels' description of one axis (float32 values as `axis_weights` computes them)."""
    return np.array(_axis_tuple(plan, accumulate), dtype=AXIS)


@functools.lru_cache(maxsize=16384)
def _axis_tuple(plan: reference.AxisPlan, accumulate: bool) -> tuple[Any, ...]:
    """`axis_record` as a tuple (cached: batches repeat sizes, and plans are hashable)."""
    scale = _F32(plan.scale)
    if plan.kind == "nn":
        return (_F32(plan.origin), scale, _F32(0), 1, -1, 0, plan.in_size, int(accumulate))
    n = reference.TABLES[plan.kind].shape[0]
    tscale = _F32(n - 1) / _F32(plan.support_len)
    anchor = _F32(plan.support_len) / _F32(2)
    start = _F32(plan.origin) + _F32(0.5) * scale - _F32(0.5) - anchor
    support = max(1, math.ceil(float(_F32(n - 1) / tscale)))
    return (start, scale, tscale, support, _TABLE_OFFSETS[plan.kind], n, plan.in_size, 0)


# -- planning a batch of images, vectorised -----------------------------------------------------

#: `AxisPlan.kind` values by code (the vectorised planning keeps codes, not names).
_KINDS = ("nn", "triangular", "gaussian", "cubic", "lanczos3")
_KIND_CODES = {k: i for i, k in enumerate(_KINDS)}
_NN, _TRI, _GAUSS, _CUBIC, _LANCZOS = range(5)
_KIND_TABLE_N = np.array([1] + [len(reference.TABLES[k]) for k in _KINDS[1:]], np.int64)
_KIND_TABLE_AT = np.array([-1] + [_TABLE_OFFSETS[k] for k in _KINDS[1:]], np.int64)
#: DALIInterpType → filter code (`reference._filter_kind`).
_INTERP_KIND = np.array([_NN, _TRI, _CUBIC, _LANCZOS, _TRI, _GAUSS], np.int64)


@functools.cache
def _compiled() -> Any | None:
    """`gpu_plan_jit` (the planning compiled), or None when Numba is not installed."""
    try:
        from dali._ops.image.resample import gpu_plan_jit
    except ImportError:
        return None
    return gpu_plan_jit


class PlanBatch(NamedTuple):
    """The `AxisPlan` of every spatial axis of every sample, as ``(n, axes)`` arrays.

    Row ``i``, column ``d`` holds sample ``i``'s plan of spatial axis ``d`` (outermost first),
    with the values `AxisPlan` holds: float32 values are stored in float64 arrays, as `AxisPlan`
    stores them in Python floats.

    Example:
        >>> pb = plan_batch([[12, 8]], [[4, 8]], [[0.0, 0.0]], [[12.0, 8.0]], 1, 1, True)
        >>> pb.plans()[0][0] == reference.AxisPlan.make(12, 4, 0.0, 12.0)
        True
    """

    in_size: np.ndarray  # int64
    out_size: np.ndarray  # int64
    origin: np.ndarray  # float64 (float32 values)
    scale: np.ndarray  # float64 (float32 values)
    kind: np.ndarray  # int64, index into _KINDS
    radius: np.ndarray  # float64

    @staticmethod
    def from_plans(plans: Sequence[Sequence[reference.AxisPlan]], nsp: int) -> PlanBatch:
        """The arrays of per-sample `AxisPlan` lists (one Python loop: for callers with plans)."""
        flat = [p for row in plans for p in row]
        n = len(plans)

        def col(values: list[Any], dtype: Any) -> np.ndarray:
            return np.array(values, dtype).reshape(n, nsp)

        return PlanBatch(
            col([p.in_size for p in flat], np.int64),
            col([p.out_size for p in flat], np.int64),
            col([p.origin for p in flat], np.float64),
            col([p.scale for p in flat], np.float64),
            col([_KIND_CODES[p.kind] for p in flat], np.int64),
            col([p.radius for p in flat], np.float64),
        )

    def plans(self) -> list[list[reference.AxisPlan]]:
        """The per-sample `AxisPlan` lists (equal to what `AxisPlan.make` gives)."""
        cols = zip(*(a.reshape(-1).tolist() for a in self))
        flat = [reference.AxisPlan(i, o, org, sc, _KINDS[k], r) for i, o, org, sc, k, r in cols]
        nsp = self.in_size.shape[-1]
        return [flat[i : i + nsp] for i in range(0, len(flat), nsp)]


def plan_batch(
    in_size: Any,
    out_size: Any,
    lo: Any,
    hi: Any,
    min_filter: Any,
    mag_filter: Any,
    antialias: bool,
) -> PlanBatch:
    """`AxisPlan.make` for every axis of every sample at once (arguments broadcast together).

    The float32 arithmetic is `AxisPlan.make`'s, operation for operation, so the plans are
    equal to the per-sample ones (``PlanBatch.plans()`` compares equal to them).

    Args:
        in_size: ``(n, axes)`` input extents.
        out_size: ``(n, axes)`` output extents.
        lo: ``(n, axes)`` ROI starts (float32 values or integers below 2**24).
        hi: ``(n, axes)`` ROI ends (``lo > hi`` flips).
        min_filter: DALIInterpType used when shrinking: one, or ``(n, 1)`` per sample.
        mag_filter: DALIInterpType used otherwise: one, or ``(n, 1)`` per sample.
        antialias: Widen the filter when shrinking.

    Raises:
        ValueError: An unknown interpolation type.
    """
    in_size = np.asarray(in_size, np.int64)
    out_size = np.asarray(out_size, np.int64)
    lo = np.asarray(lo, np.float64)
    hi = np.asarray(hi, np.float64)
    shape = np.broadcast_shapes(in_size.shape, out_size.shape, lo.shape, hi.shape)
    min_filter = np.asarray(min_filter, np.int64)
    mag_filter = np.asarray(mag_filter, np.int64)
    if len(shape) < 2:  # (one plan, or one sample's axes)
        return PlanBatch(*_plan_rows(shape, in_size, out_size, lo, hi, min_filter, mag_filter,
                                     antialias=antialias))  # fmt: skip
    n = shape[0]
    jit = _compiled()
    if jit is not None and len(shape) == 2:
        *rows, unknown, bad = jit.plan_rows(
            *(np.broadcast_to(a, shape) for a in (in_size, out_size, lo, hi, min_filter,
                                                  mag_filter)),
            bool(antialias), _INTERP_KIND,
        )  # fmt: skip
        if unknown:
            raise ValueError(f"unknown interpolation type {int(bad)}")
        return PlanBatch(*rows)
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    rows = gil.by_rows(
        lambda *a: _plan_rows((len(a[0]), *shape[1:]), *a, antialias=antialias),
        n,
        shape[-1],
        *(np.broadcast_to(a, shape) for a in (in_size, out_size, lo, hi)),
        *(np.broadcast_to(f, (n, 1)) if f.ndim == 2 else f for f in (min_filter, mag_filter)),
    )
    return PlanBatch(*rows)


def _plan_rows(
    shape: tuple[int, ...],
    in_size: np.ndarray,
    out_size: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    min_filter: np.ndarray,
    mag_filter: np.ndarray,
    *,
    antialias: bool,
) -> tuple[np.ndarray, ...]:
    """`plan_batch` of a block of rows (``shape``: the block's)."""
    f32 = _F32
    in_size = np.broadcast_to(in_size, shape)
    out_size = np.broadcast_to(out_size, shape)
    degenerate = lo == hi  # "no ROI" in DALI's kernel
    lo = np.where(degenerate, 0.0, lo)
    hi = np.where(degenerate, in_size, hi)
    lo32, hi32 = lo.astype(f32), hi.astype(f32)
    span = hi32 - lo32
    roi_size = np.abs(span)
    down = out_size < roi_size.astype(np.float64)
    filters = np.where(down, min_filter, mag_filter)
    unknown = (filters < 0) | (filters >= len(_INTERP_KIND))
    if unknown.any():
        raise ValueError(f"unknown interpolation type {int(filters[unknown][0])}")
    has_out = out_size != 0
    out32 = np.where(has_out, out_size, 1).astype(f32)
    ratio = np.where(has_out, (roi_size / out32).astype(np.float64), 1.0)
    scale = np.where(has_out, (span / out32).astype(np.float64), 0.0)
    widen = np.where(down, ratio, 1.0) if antialias else np.ones_like(ratio)
    kind = _INTERP_KIND[filters]
    radius = np.where(kind == _CUBIC, np.maximum(2.0, 2.0 * widen), np.maximum(0.5, widen))
    radius = np.where(kind == _LANCZOS, np.maximum(3.0, 3.0 * widen), radius)
    radius = np.where(kind == _NN, 0.0, radius)
    return in_size.copy(), out_size.copy(), lo32.astype(np.float64), scale, kind, radius


#: The `AXIS` fields `_axis_rows` computes, in its order.
_AXIS_FIELDS = ("start", "scale", "tscale", "support", "table", "table_n", "in_size", "accumulate")


def _axis_arrays(pb: PlanBatch) -> dict[str, np.ndarray]:
    """`_axis_tuple` of every plan (``(n, axes)`` arrays keyed by the `AXIS` field names)."""
    n, nsp = pb.kind.shape
    jit = _compiled()
    if jit is not None:
        rows = jit.axis_rows(pb.in_size, pb.origin, pb.scale, pb.kind, pb.radius, _KIND_TABLE_N,
                             _KIND_TABLE_AT)  # fmt: skip
        return dict(zip(_AXIS_FIELDS, rows))
    return dict(zip(_AXIS_FIELDS, gil.by_rows(_axis_rows, n, nsp, *pb)))


def _axis_rows(
    in_size: np.ndarray,
    out_size: np.ndarray,
    origin: np.ndarray,
    scale: np.ndarray,
    kind: np.ndarray,
    radius: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """`_axis_arrays` of a block of rows (`PlanBatch`'s arrays), in `_AXIS_FIELDS` order."""
    f32 = _F32
    nn = kind == _NN
    scale = scale.astype(f32)
    origin = origin.astype(f32)
    table_n = _KIND_TABLE_N[kind]
    # the filters' float32 geometry, in `_axis_tuple`'s order (NN rows are replaced below)
    support_len = np.where(nn, 1.0, 2.0 * radius).astype(f32)
    tscale = (table_n - 1).astype(f32) / support_len
    anchor = support_len / f32(2)
    start = origin + f32(0.5) * scale - f32(0.5) - anchor
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.ceil((table_n - 1).astype(f32) / np.where(nn, f32(1), tscale))
    support = np.maximum(1, np.where(nn, 1, steps.astype(np.int64)))
    accumulate = np.zeros_like(kind)
    accumulate[:, :-1] = nn[:, :-1]  # NN steps the outer coordinates in float32
    return (
        np.where(nn, origin, start),
        scale,
        np.where(nn, f32(0), tscale),
        support,
        _KIND_TABLE_AT[kind],
        np.where(nn, 0, table_n),
        in_size,
        accumulate,
    )


class Images:
    """The host-side geometry of a batch of images (2 spatial axes), one array per quantity.

    What `Sample` holds for one sample, for all of them at once.
    """

    __slots__ = ("axis", "first", "in_sp", "inner", "n", "out_elements", "out_shape", "out_sp",
                 "outer", "pb", "zero")  # fmt: skip

    def __init__(self, shapes: np.ndarray, axes: Sequence[int], pb: PlanBatch) -> None:
        self.n = len(shapes)
        self.pb = pb
        jit = _compiled()
        if jit is not None:
            rows = jit.image_rows(shapes, pb.in_size, pb.out_size, axes[0], axes[1])
        else:  # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
            rows = gil.by_rows(
                lambda s, i, o: _image_rows(s, i, o, axes), self.n, shapes.shape[1],
                shapes, pb.in_size, pb.out_size,
            )  # fmt: skip
        (self.outer, self.inner, self.in_sp, self.out_shape, self.out_elements, self.zero,
         self.first) = rows  # fmt: skip
        self.out_sp = pb.out_size
        self.axis = _axis_arrays(pb)

    def out_shapes(self) -> list[tuple[int, ...]]:
        out = self.out_shape
        if 0 < self.n <= options.HELD_ELEMENTS:  # all alike (resize to one size): no tuple each
            first = out[0].tolist()
            if all((out[:, k] == v).all() for k, v in enumerate(first)):
                return [tuple(first)] * self.n
        rows = list(map(tuple, out.tolist()))  # (numpy would give the GIL up)
        return [rows[0]] * self.n if G.is_uniform(rows) else rows

    def rows(self, blocks: slice) -> Images:
        """The same geometry for the samples ``blocks`` only (views)."""
        part = object.__new__(Images)
        for name in ("outer", "inner", "in_sp", "out_shape", "out_elements", "zero", "first",
                     "out_sp"):  # fmt: skip
            setattr(part, name, getattr(self, name)[blocks])
        part.axis = {k: v[blocks] for k, v in self.axis.items()}
        part.pb = PlanBatch(*(a[blocks] for a in self.pb))
        part.n = len(part.first)
        return part

    def samples(self, shapes: Sequence[tuple[int, ...]], axes: Sequence[int]) -> list[Sample]:
        """The per-sample `Sample` objects (for the separable passes)."""
        return [Sample(s, axes, p) for s, p in zip(shapes, self.pb.plans())]


def _image_rows(
    shapes: np.ndarray, in_size: np.ndarray, out_size: np.ndarray, axes: Sequence[int]
) -> tuple[np.ndarray, ...]:
    """`Images`' per-sample arrays for a block of rows: outer, inner, in_sp, out_shape,
    out_elements, zero, first."""
    a0, a1 = axes
    outer = shapes[:, :a0].prod(axis=1)
    inner = shapes[:, a1 + 1 :].prod(axis=1)
    out_shape = shapes.copy()
    out_shape[:, a0] = out_size[:, 0]  # (a fancy index in two dimensions gives the GIL up)
    out_shape[:, a1] = out_size[:, 1]
    # `reference.axis_order`: the most shrinking axis first (a stable sort of 2 keys)
    ratio = out_size / np.maximum(1, in_size)
    first = (ratio[:, 1] < ratio[:, 0]).astype(np.int64)
    in_sp = np.stack([shapes[:, a0], shapes[:, a1]], axis=1)
    return (outer, inner, in_sp, out_shape, out_shape.prod(axis=1), shapes.prod(axis=1) == 0,
            first)  # fmt: skip


def _column(values: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``values[i, second[i]]`` of an ``(n, 2)`` array (a fancy index in two dimensions would
    give the GIL up, whatever its size)."""
    return np.where(second, values[:, 1], values[:, 0])


def _tile_needs(geo: Images, tile_h: int, tile_w: int) -> np.ndarray:
    """`_tile_need` of every sample."""
    a1 = geo.first == 1
    a2 = ~a1
    t1 = np.minimum(np.where(a1, tile_w, tile_h), _column(geo.out_sp, a1))
    t2 = np.minimum(np.where(a1, tile_h, tile_w), _column(geo.out_sp, a2))
    support = geo.axis["support"]
    s1, s2 = _column(support, a1), _column(support, a2)
    scale2 = np.abs(_column(geo.axis["scale"], a2).astype(np.float64))
    lines = np.ceil((t2 - 1) * scale2 * 1.001).astype(np.int64) + s2 + 4
    lines = np.minimum(_column(geo.in_sp, a2), lines)
    return t1 * s1 + t2 * s2 + t1 + t2 + lines * t1 * geo.inner


def choose_tiles(geo: Images) -> tuple[int, int, int] | None:
    """``(tile_h, tile_w, shared floats)`` for the tiled kernel, or None if it cannot run."""
    jit = _compiled()
    if jit is not None:
        inner = jit.live_inner_max(geo.inner, geo.out_elements, geo.zero)
        for th, tw in _tile_candidates(inner):
            need = jit.tile_need_max(
                geo.first, geo.out_sp, geo.axis["support"], geo.axis["scale"], geo.in_sp,
                geo.inner, geo.out_elements, geo.zero, th, tw,
            )  # fmt: skip
            if 4 * need <= _SMEM_LIMIT:
                return th, tw, need
        return None
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    blocks = gil.row_blocks(geo.n, 2)
    lives = [(geo.out_elements[b] != 0) & ~geo.zero[b] for b in blocks]
    inner = max(
        (int(geo.inner[b][on].max()) for b, on in zip(blocks, lives) if on.any()), default=1
    )
    parts = [(geo.rows(b), on) for b, on in zip(blocks, lives)]
    for th, tw in _tile_candidates(inner):
        need = max(
            (int(_tile_needs(part, th, tw)[on].max()) for part, on in parts if on.any()),
            default=0,
        )
        # zero-fill blocks need no shared memory, but every launch gets the same amount
        if 4 * need <= _SMEM_LIMIT:
            return th, tw, need
    return None


def _tile_candidates(inner: int) -> list[tuple[int, int]]:
    """Tile shapes to try, largest first (none when a pixel has too many channels)."""
    if inner > _MAX_INNER:
        return []
    if inner <= 2:
        return [(32, 64), (16, 64), (16, 32), (8, 32), (8, 16), (4, 16)]
    if inner <= 4:
        return [(32, 32), (16, 32), (16, 16), (8, 16), (8, 8), (4, 8)]
    return [(16, 16), (8, 16), (8, 8), (4, 8), (4, 4), (2, 4)]


def descs_2d(
    geo: Images, in_ptrs: np.ndarray, out_ptrs: np.ndarray, th: int, tw: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``dali_resample2d_desc`` of every sample and its number of blocks."""
    jit = _compiled()
    if jit is not None:
        desc = gil.zeros(geo.n, DESC_2D)
        blocks = np.empty(geo.n, np.int64)
        jit.fill_descs(
            desc.view(np.int32).reshape(geo.n, _DESC_WORDS),
            desc.view(_F32).reshape(geo.n, _DESC_WORDS),
            desc.view(np.uint64).reshape(geo.n, _DESC_WORDS // 2),
            in_ptrs, out_ptrs, geo.in_sp, geo.out_sp, geo.outer, geo.inner, geo.first, geo.zero,
            geo.out_elements, tuple(geo.axis[k] for k in _AXIS_FIELDS), th, tw, blocks,
        )  # fmt: skip
        return desc, blocks
    row_blocks = gil.row_blocks(geo.n, 2)
    if len(row_blocks) > 1:  # in blocks of rows small enough for numpy to keep the GIL
        parts = [descs_2d(geo.rows(b), in_ptrs[b], out_ptrs[b], th, tw) for b in row_blocks]
        return np.concatenate([d for d, _ in parts]), np.concatenate([k for _, k in parts])
    desc = gil.zeros(geo.n, DESC_2D)
    (h, w), (oh, ow) = geo.in_sp.T, geo.out_sp.T
    tiles_y, tiles_x = -(-oh // th), -(-ow // tw)
    desc["input"] = in_ptrs
    desc["output"] = out_ptrs
    desc["in_plane"] = h * w * geo.inner
    desc["out_plane"] = oh * ow * geo.inner
    desc["planes"] = geo.outer
    desc["inner"] = geo.inner
    desc["in_h"], desc["in_w"], desc["out_h"], desc["out_w"] = h, w, oh, ow
    desc["tiles_y"], desc["tiles_x"] = tiles_y, tiles_x
    desc["first"] = geo.first
    desc["zero"] = geo.zero
    axis = desc["axis"]
    for name, values in geo.axis.items():
        axis[name] = values
    blocks = np.where(geo.out_elements != 0, geo.outer * tiles_y * tiles_x, 0)
    return desc, blocks


# -- the per-sample reference (volumes, the separable passes, the tests' oracle) ----------------


class Sample:
    """The host-side geometry of one sample."""

    __slots__ = ("axes", "in_sp", "inner", "order", "out_shape", "out_sp", "outer", "plans", "zero")

    def __init__(
        self, shape: tuple[int, ...], axes: Sequence[int], plans: Sequence[reference.AxisPlan]
    ) -> None:
        self.plans = list(plans)
        self.outer = math.prod(shape[: axes[0]])
        self.inner = math.prod(shape[axes[-1] + 1 :])
        self.in_sp = [shape[a] for a in axes]
        self.out_sp = [p.out_size for p in plans]
        out_shape = list(shape)
        for a, p in zip(axes, plans):
            out_shape[a] = p.out_size
        self.out_shape = tuple(out_shape)
        self.zero = math.prod(shape) == 0
        self.order = reference.axis_order(axes, plans)
        nsp = len(axes)
        self.axes = [_axis_tuple(p, i < nsp - 1) for i, p in enumerate(plans)]

    @property
    def out_elements(self) -> int:
        return math.prod(self.out_shape)


def _tile_need(smp: Sample, tile_h: int, tile_w: int) -> int:
    """Shared-memory floats a tile of ``smp`` may need (the bound the kernel relies on)."""
    a1 = smp.order[0]
    a2 = 1 - a1
    t1 = min(tile_w if a1 else tile_h, smp.out_sp[a1])
    t2 = min(tile_h if a1 else tile_w, smp.out_sp[a2])
    s1, s2 = smp.axes[a1][3], smp.axes[a2][3]  # supports
    scale2 = abs(float(smp.axes[a2][1]))
    lines = min(smp.in_sp[a2], math.ceil((t2 - 1) * scale2 * 1.001) + s2 + 4)
    return t1 * s1 + t2 * s2 + t1 + t2 + lines * t1 * smp.inner


def choose_tiles_reference(samples: Sequence[Sample]) -> tuple[int, int, int] | None:
    """`choose_tiles`, one sample at a time."""
    live = [s for s in samples if s.out_elements and not s.zero]
    inner = max([s.inner for s in live], default=1)
    for th, tw in _tile_candidates(inner):
        need = max([_tile_need(s, th, tw) for s in live], default=0)
        if 4 * need <= _SMEM_LIMIT:
            return th, tw, need
    return None


def descs_2d_reference(
    samples: Sequence[Sample], in_ptrs: np.ndarray, out_ptrs: np.ndarray, th: int, tw: int
) -> tuple[np.ndarray, np.ndarray]:
    """`descs_2d`, one sample at a time."""
    rows = []
    blocks = []
    for smp, src, dst in zip(samples, in_ptrs.tolist(), out_ptrs.tolist()):
        (h, w), (oh, ow) = smp.in_sp, smp.out_sp
        tiles_y, tiles_x = -(-oh // th), -(-ow // tw)
        inner = smp.inner
        rows.append(
            (src, dst, h * w * inner, oh * ow * inner, smp.outer, inner, h, w, oh, ow,
             tiles_y, tiles_x, smp.order[0], int(smp.zero), smp.axes)
        )  # fmt: skip
        blocks.append(smp.outer * tiles_y * tiles_x if smp.out_elements else 0)
    return np.array(rows, dtype=DESC_2D).reshape(len(rows)), np.array(blocks, np.int64)
