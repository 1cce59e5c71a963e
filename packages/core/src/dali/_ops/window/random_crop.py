"""DALI's random crop-window generator and ``RandomCropAttr``, shared by the
random-crop operators.

`fn.decoders.image_random_crop` and `fn.random_resized_crop` pick their window the way DALI's
``RandomCropGenerator`` does: a crop whose area is a uniform fraction of the image in
``random_area`` and whose aspect ratio (w/h) is log-uniform in ``random_aspect_ratio``, retried
up to ``num_attempts`` times, with DALI's float32 arithmetic and its fallbacks for images that are
too wide, too tall or too small. The anchor is uniform over the positions where the window fits.

`random_crop_windows` computes the windows of a whole batch at once with numpy: the attempts of
every sample are evaluated together, in a couple of rounds over the samples still searching
(`_windows`), and the first accepted one is kept, which is the same window the sequential loop
would stop at. DALI draws from one stream per sample slot (so a sample's crop
depends on its position in the batch); we draw a fixed ``2·num_attempts + 2`` values per sample
from the sample's own counter-based stream (``ws.rng``, sub-stream `CROP_WINDOW_STREAM`), so the
same sample gets the same window whatever the batch size, thread count, sharding or backend.
It is an order of magnitude faster than a numpy ``Generator`` per sample and the
Python loop, and it keeps the GIL throughout (but in `SampleRNG.bits`): evaluating every attempt
at once was a little faster alone but released the GIL in 20-odd numpy calls, each of which can
wait for Python's switch interval to take it back (``benchmarks/RESULTS.md``, "Random crop
windows").

`RandomCropParams` holds the checked arguments (DALI's ``RandomCropAttr``) and gives the
decoders' windows (`RandomCropParams.image_windows`): the batch's windows computed together
from the sizes in the image headers, in a `BatchWindows`.

Example:
    >>> import numpy as np
    >>> from dali._exec.rng import SampleRNG, combine
    >>> rng = SampleRNG(combine(42, np.arange(2)))
    >>> anchors, sizes = random_crop_windows(rng, [(375, 500), (1, 1)])
    >>> bool(np.all(anchors + sizes <= [(375, 500), (1, 1)])), sizes[1].tolist()
    (True, [1, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._exec import gil
from dali._graph.schema import Arg
from dali._ops.window.image_windows import BatchWindows, Window

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["CROP_WINDOW_STREAM", "RANDOM_CROP_ARGS", "RandomCropParams", "random_crop_windows"]

#: The schema arguments of DALI's ``RandomCropAttr`` (add them to an operator's ``args``).
RANDOM_CROP_ARGS = (
    Arg(
        "random_area",
        "float_vec",
        default=(0.08, 1.0),
        doc="Range of the crop area as a fraction of the image area.",
    ),
    Arg(
        "random_aspect_ratio",
        "float_vec",
        default=(3.0 / 4.0, 4.0 / 3.0),
        doc="Range of the crop aspect ratio (width / height).",
    ),
    Arg("num_attempts", "int", default=10, doc="Attempts to find a window before the fallback."),
)


@dataclass(frozen=True)
class RandomCropParams:
    """Validated random-crop arguments (float32, as DALI stores them)."""

    area: tuple[float, float]
    aspect_ratio: tuple[float, float]
    num_attempts: int

    @classmethod
    def from_op(cls, op: Any) -> RandomCropParams:
        """Read and check ``random_area``, ``random_aspect_ratio`` and ``num_attempts``.

        Raises the operator's ``arg_error`` (naming the operator and the argument).
        """

        def pair(name: str) -> tuple[float, float]:
            v = tuple(float(np.float32(x)) for x in op.arg(name))
            if len(v) == 1:  # DALI's GetSingleOrRepeatedArg
                v = (v[0], v[0])
            if len(v) != 2:
                raise op.arg_error(name, f"expected 1 or 2 values, got {len(v)}")
            if v[0] > v[1]:
                raise op.arg_error(name, f"provided empty range [{v[0]}, {v[1]}]")
            if v[0] <= 0:
                raise op.arg_error(name, f"values must be positive, got {list(v)}")
            return v

        area = pair("random_area")
        aspect = pair("random_aspect_ratio")
        attempts = op.arg("num_attempts")
        if attempts < 1:
            raise op.arg_error("num_attempts", f"must be at least 1, got {attempts}")
        return cls(area, aspect, int(attempts))

    def image_windows(self, rng: Any, shapes: np.ndarray) -> BatchWindows:
        """The decoders' windows of a batch: computed together for the ``(n, 2)`` header sizes
        ``shapes`` (``(-1, -1)`` where not known), and for its decoded size alone where an
        image's differs.

        Args:
            rng: The batch's `dali._exec.rng.SampleRNG` (``ws.rng``, taken in the executor
                thread: the window functions run on the decoders' threads).
            shapes: Each image's ``(height, width)`` from its header.
        """
        area, aspect, attempts = self.area, self.aspect_ratio, self.num_attempts
        # one call for the batch; the unknown sizes (-1) get a dummy (empty) window, never used
        anchors, sizes = random_crop_windows(rng, shapes, area, aspect, attempts)

        def fallback(i: int, H: int, W: int) -> Window:
            # the decoded size was not known: the same function, for this sample alone
            a, s = random_crop_windows(rng.subset([i]), [(H, W)], area, aspect, attempts)
            return Window(int(a[0, 0]), int(a[0, 1]), int(s[0, 0]), int(s[0, 1]))

        return BatchWindows(anchors, sizes, shapes, fallback)


#: The sub-stream of a sample's random stream (`SampleRNG.bits`) the crop windows are drawn from.
CROP_WINDOW_STREAM = 0x63726F70  # "crop"


def random_crop_windows(
    source: Any,
    shapes: Any,
    random_area: Any = (0.08, 1.0),
    random_aspect_ratio: Any = (3.0 / 4.0, 4.0 / 3.0),
    num_attempts: int = 10,
    *,
    stream: int = CROP_WINDOW_STREAM,
) -> tuple[np.ndarray, np.ndarray]:
    """The random crop windows of a batch, one per sample, computed together.

    Sample ``i``'s window is a function of its shape and of its random stream only (the
    ``2·num_attempts + 2`` values of sub-stream ``stream``): per attempt a float32 uniform for
    the area and one for the log of the aspect ratio, then one value per anchor coordinate.

    Args:
        source: A workspace (its ``rng`` is used) or a `dali._exec.rng.SampleRNG` with one
            stream per sample.
        shapes: ``(batch, 2)`` integers, each image's ``(height, width)``; an empty image (a
            side of 0, or below: an unknown size) gets an empty window at (0, 0).
        random_area: ``(lo, hi)`` fraction of the image area, or ``(batch, 2)`` per sample.
        random_aspect_ratio: ``(lo, hi)`` range of w/h, or ``(batch, 2)`` per sample.
        num_attempts: Attempts before the fallback window (0: the fallback window at once,
            as DALI's generator with ``num_attempts=0``).
        stream: The sub-stream to draw from.

    Returns:
        ``(anchors, sizes)``: two ``(batch, 2)`` int64 arrays, ``(y, x)`` and ``(h, w)``; every
        window lies inside its image.

    Example:
        >>> from dali._exec.rng import SampleRNG, combine
        >>> anchors, sizes = random_crop_windows(
        ...     SampleRNG(combine(0, np.arange(3))), [(4, 800), (800, 4), (0, 5)])
        >>> sizes.tolist()  # too wide, too tall (cut to the aspect limits), empty
        [[4, 5], [5, 4], [0, 0]]
    """
    rng = getattr(source, "rng", source)
    shp = np.asarray(shapes, dtype=np.int64).reshape(-1, 2)
    n = len(shp)
    if len(rng) != n:
        raise ValueError(f"{n} shapes for {len(rng)} random streams")
    attempts = int(num_attempts)
    if attempts < 0:
        raise ValueError(f"num_attempts must not be negative, got {attempts}")
    if n == 0:
        empty = np.zeros((0, 2), dtype=np.int64)
        return empty, empty.copy()
    return _windows(
        shp, random_area, random_aspect_ratio, rng.bits(2 * attempts + 2, stream=stream)
    )


def _per_sample(v: Any, n: int) -> tuple[Any, Any]:
    """``(lo, hi)`` as float32: scalars for one pair, ``(n,)`` arrays for ``n`` pairs.

    One value means lo = hi (DALI's ``GetSingleOrRepeatedArg``).
    """
    a = np.asarray(v, dtype=np.float32)
    if a.ndim <= 1:
        a = a.reshape(-1)
        return a[0], a[-1]
    if a.shape[-1] == 1:
        a = np.concatenate([a, a], axis=-1)
    a = np.broadcast_to(a, (n, 2))
    return np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1])


def _rows(v: Any, rows: Workspace) -> Any:
    """The ``rows`` of a per-sample value as a column (a scalar is everyone's), gathered in
    one dimension (see ``options.HELD_ELEMENTS``)."""
    return v if np.ndim(v) == 0 else v[rows][:, None]


def _uniform(drawn: np.ndarray) -> np.ndarray:
    """float32 uniforms in [0, 1) with 24 random bits, as numpy's
    ``Generator.random(dtype=float32)`` makes them."""
    return (drawn >> np.uint64(40)).astype(np.float32) * np.float32(2.0**-24)


def _windows(
    shapes: np.ndarray, random_area: Any, random_aspect_ratio: Any, bits: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`random_crop_windows` from the drawn bits (``(batch, 2·attempts + 2)`` uint64).

    The attempts are tried in rounds, each on the samples still searching: first attempt
    for every sample, then as many of the next ones at once as fit in ``options.HELD_ELEMENTS``
    values (an ImageNet-like image accepts its first attempt about 70 % of the time, so a batch
    of 256
    usually takes two rounds). A sample's window is the first accepted attempt, as in DALI's
    loop; every value is computed element-wise as the sequential loop would. Besides large
    operations, numpy releases the GIL, whatever their size, in an argmax along an axis and in a
    fancy index in two dimensions: neither is used here.
    """
    f32, i64 = np.float32, np.int64
    n = len(shapes)
    attempts = (bits.shape[1] - 2) // 2
    H, W = shapes[:, 0], shapes[:, 1]
    empty = (H <= 0) | (W <= 0)
    H, W = np.maximum(H, 1), np.maximum(W, 1)
    area_lo, area_hi = _per_sample(random_area, n)
    min_wh, max_wh = _per_sample(random_aspect_ratio, n)
    Hf, Wf = H.astype(f32), W.astype(f32)
    original_area = (H * W).astype(f32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        max_hw = f32(1.0) / min_wh
        min_area = original_area * area_lo
        max_w = np.maximum(1, (Hf * max_wh).astype(i64))
        max_h = np.maximum(1, (Wf * max_hw).astype(i64))
        too_wide = (H * max_w).astype(f32) < min_area
        too_tall = ~too_wide & ((W * max_h).astype(f32) < min_area)
        log_lo, log_hi = np.log(min_wh), np.log(max_wh)
        h = np.where(too_wide, H, max_h)  # the too-tall windows' too; the others' follow
        w = np.where(too_wide, max_w, W)

        todo = np.flatnonzero(~(too_wide | too_tall))  # the samples still searching
        flat = bits.reshape(-1)
        a0 = 0
        while todo.size and a0 < attempts:
            k = todo.size
            b = min(attempts - a0, max(1, options.HELD_ELEMENTS // k))  # this round's attempts
            rows: Any = slice(None) if k == n else todo
            # this round's draws of these samples, gathered from the flat bits (a 1-D index)
            # (np.arange gives the GIL up whatever its size: `dali._exec.gil`)
            at = (todo * bits.shape[1])[:, None] + (2 * (a0 + gil.arange(b)))
            u_area, u_ratio = _uniform(flat[at]), _uniform(flat[at + 1])
            lo, hi = _rows(area_lo, rows), _rows(area_hi, rows)
            target_area = (lo + (hi - lo) * u_area) * _rows(original_area, rows)
            # a negative area (random_area may start below 0) gives DALI a 1x1 window
            target_area = np.maximum(target_area, f32(0))
            llo, lhi = _rows(log_lo, rows), _rows(log_hi, rows)
            ratio = np.exp(llo + (lhi - llo) * u_ratio)
            # C roundf (half away from zero) of positive float32 values, computed in double
            cw = np.maximum(1, np.floor(np.sqrt(target_area * ratio).astype(np.float64) + 0.5))
            ch = np.maximum(1, np.floor(np.sqrt(target_area / ratio).astype(np.float64) + 0.5))
            r = cw.astype(f32) / ch.astype(f32)
            ok = (cw <= _rows(W, rows)) & (ch <= _rows(H, rows))
            ok &= (_rows(min_wh, rows) <= r) & (r <= _rows(max_wh, rows))
            first = np.where(ok, gil.arange(b), b).min(axis=1)  # b: none accepted
            hit = first < b
            chosen = np.flatnonzero(hit) * b + first[hit]
            # cast first: a fancy assignment that casts gives the GIL up
            h[todo[hit]] = ch.ravel()[chosen].astype(i64)
            w[todo[hit]] = cw.ravel()[chosen].astype(i64)
            todo = todo[~hit]
            a0 += b

        if todo.size:  # every attempt failed: the whole image cut to the aspect limits, shrunk
            Ht, Wt, Hft, Wft = H[todo], W[todo], Hf[todo], Wf[todo]
            lo_r, hi_r = _at(min_wh, todo), _at(max_wh, todo)
            whole_r = Wft / Hft
            fb_h = np.where(whole_r > hi_r, Ht, np.where(whole_r < lo_r, max_h[todo], Ht))
            fb_w = np.where(whole_r > hi_r, max_w[todo], np.where(whole_r < lo_r, Wt, Wt))
            max_area = _at(area_hi, todo) * Wft * Hft
            scale = np.minimum(f32(1.0), max_area / (fb_w * fb_h).astype(f32))
            s = np.sqrt(scale)
            h[todo] = np.maximum(1, (fb_h.astype(f32) * s).astype(i64))
            w[todo] = np.maximum(1, (fb_w.astype(f32) * s).astype(i64))

    # only a random_area above 1 (the argument checks allow it) can make the too-wide/too-tall
    # window larger than the image; DALI's anchor is then undefined, ours is 0
    h, w = np.minimum(h, H), np.minimum(w, W)
    h[empty] = 0
    w[empty] = 0
    # the anchor: uniform over the 0..(extent - size) positions, from the top 32 bits
    u32 = np.uint64(32)
    y = (bits[:, -2] >> u32) * (H - h + 1).astype(np.uint64) >> u32
    x = (bits[:, -1] >> u32) * (W - w + 1).astype(np.uint64) >> u32
    y[empty] = 0
    x[empty] = 0
    # (n, 2) results assembled column by column (see ``options.HELD_ELEMENTS``)
    anchors, sizes = np.empty((n, 2), dtype=i64), np.empty((n, 2), dtype=i64)
    anchors[:, 0], anchors[:, 1], sizes[:, 0], sizes[:, 1] = y, x, h, w
    return anchors, sizes


def _at(v: Any, index: np.ndarray) -> Any:
    """``v[index]``, or the scalar ``v`` itself (a value for every sample)."""
    return v if np.ndim(v) == 0 else v[index]
