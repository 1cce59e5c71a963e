"""`fn.random_bbox_crop` (CPU only): a random crop window that keeps the boxes valid.

The operator does not crop anything: it picks a window for each sample and gives it with the
boxes remapped into it, for `fn.slice` (or `fn.crop`) to cut the image:

    anchor, shape, boxes, labels = fn.random_bbox_crop(boxes, labels, thresholds=[0.1, 0.5],
                                                      scaling=[0.3, 1.0], aspect_ratio=[0.5, 2])
    images = fn.slice(images, anchor, shape)          # relative window, axis_names="WH"

Inputs: ``boxes`` ``[N, 2·ndim]`` FLOAT, relative (``[0, 1]``), 2-D (``ndim = 2``) or 3-D boxes
in ``bbox_layout`` (default ``"xyXY"``/``"xyzXYZ"``; ``ltrb=False``, deprecated, means
``"xyWH"``); optionally ``labels`` ``[N, ...]`` INT32. Outputs, in order: ``anchor`` and
``shape`` (FLOAT ``[ndim]``, ``[x, y(, z)]`` and ``[w, h(, d)]``: relative, or absolute pixels
with ``crop_shape``), the kept ``boxes`` in the crop's relative coordinates and layout, their
``labels`` (if given) and their indices in the input (``output_bbox_indices=True``).

How the window is chosen is `dali._ops.detection._crop_search` (DALI's loop over thresholds and
attempts). A box is kept when its centre is inside the window (half-open, ``[lo, hi)``), or with
``bbox_prune_threshold=t`` when at least the fraction ``t`` of its area is; a kept box is clipped
to the window and rescaled to it: ``(clip(box) − lo) / (hi − lo)``. The "no crop" outcome
(``allow_no_crop``) gives anchor 0, shape 1 and every box unchanged.

With ``crop_shape`` (and ``input_shape``, both in ``shape_layout``, default ``"WH"``/``"WHD"``)
the window has that size in pixels at a random integer anchor, and ``anchor``/``shape`` are
absolute: give them to ``fn.slice(..., normalized_anchor=False, normalized_shape=False)`` or use
``fn.crop``. ``input_shape`` alone makes ``aspect_ratio`` a ratio of pixel extents.

The random draws come from each sample's own counter-based stream: the same sample gets the same
window whatever the batch size, the threads or the sharding; they are not DALI's draws.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> boxes = np.array([[0.1, 0.1, 0.3, 0.4], [0.5, 0.5, 0.9, 0.8]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=3)
    ... def pipe():
    ...     b = types.Constant(boxes)
    ...     return tuple(fn.random_bbox_crop(b, scaling=[0.5, 1.0], aspect_ratio=[0.5, 2.0],
    ...                                      allow_no_crop=False, output_bbox_indices=True))
    >>> anchor, shape, kept, index = (o.at(0) for o in pipe().run())
    >>> bool(((anchor >= 0) & (anchor + shape <= 1.0001)).all()), len(kept) == len(index) > 0
    (True, True)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.detection._boxes import BoxLayout, as_float_boxes
from dali._ops.detection._crop_search import CropParams, kept_boxes, search
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["RandomBBoxCrop", "remap_boxes"]

_log = logging.getLogger("dali")
_F32 = np.float32


def remap_boxes(
    lo: np.ndarray, hi: np.ndarray, crop_lo: np.ndarray, crop_hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Boxes ``(N, ndim)`` clipped to a relative window and expressed relative to it (DALI's
    ``RemapBox``), float32, clamped to ``[0, 1]``.

    Example:
        >>> lo, hi = remap_boxes(np.float32([[0.1, 0.3]]), np.float32([[0.6, 0.9]]),
        ...                      np.float32([0.0, 0.5]), np.float32([0.5, 1.0]))
        >>> lo.astype(float).round(6).tolist(), hi.astype(float).round(6).tolist()
        ([[0.2, 0.0]], [[1.0, 0.8]])
    """
    ext = crop_hi - crop_lo
    with np.errstate(divide="ignore", invalid="ignore"):
        start = (np.maximum(crop_lo, lo) - crop_lo) / ext
        end = (np.minimum(crop_hi, hi) - crop_lo) / ext
    one = _F32(1)
    return np.clip(start, 0, one).astype(_F32), np.clip(end, 0, one).astype(_F32)


def _outputs(args: Mapping[str, Any], num_inputs: int = 1) -> int:
    """anchor, shape, boxes, (labels with a second input), (indices)."""
    return 3 + (num_inputs - 1) + int(bool(args.get("output_bbox_indices", False)))


@register(
    "random_bbox_crop",
    class_name="RandomBBoxCrop",
    devices=("cpu",),
    inputs=(1, 2),
    outputs=_outputs,
    outputs_by_inputs=True,
    input_names=("boxes", "labels"),
    random=True,
    args=[
        Arg("thresholds", "float_vec", default=(0.0,), doc="Minimum overlap values to draw from."),
        Arg("threshold_type", "str", default="iou", doc='"iou" or "overlap".'),
        Arg("aspect_ratio", "float_vec", default=(1.0, 1.0), doc="Ratio ranges (w/h, ...)."),
        Arg("scaling", "float_vec", default=(1.0, 1.0), doc="Range of relative extents."),
        Arg("ltrb", "bool", default=True, doc='Deprecated: False means bbox_layout="xyWH".'),
        Arg("num_attempts", "int", default=1, doc="Attempts per drawn threshold."),
        Arg("total_num_attempts", "int", default=-1, doc="Attempts before the best is taken."),
        Arg(
            "all_boxes_above_threshold",
            "bool",
            default=True,
            doc="Every box (else one) must reach the threshold.",
        ),
        Arg("allow_no_crop", "bool", default=True, doc="'No crop' is one more outcome."),
        Arg("bbox_prune_threshold", "float", doc="Keep boxes this much inside (else: centres)."),
        Arg("crop_shape", "int_vec", tensor=True, doc="Fixed window size (pixels)."),
        Arg("input_shape", "int_vec", tensor=True, doc="Image size (pixels)."),
        Arg("bbox_layout", "layout", doc='Box layout ("xyXY", "xyWH", ...).'),
        Arg("shape_layout", "layout", doc='Layout of crop_shape/input_shape ("WH").'),
        Arg("output_bbox_indices", "bool", default=False, doc="Add the kept boxes' indices."),
        Arg("quiet", "bool", default=False, doc="No warning when the best window is used."),
    ],
)
class RandomBBoxCrop(Operator):
    """A random crop window (``anchor``, ``shape``) and the boxes (and labels) it keeps.

    Example (SSD): ``anchor, shape, boxes, labels = fn.random_bbox_crop(boxes, labels,
    thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9], scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0],
    bbox_layout="xyXY", allow_no_crop=True, num_attempts=50)``, then
    ``fn.slice(images, anchor, shape)``.
    """

    def setup(self) -> None:
        scaling = tuple(float(v) for v in self.arg("scaling"))
        if len(scaling) != 2:
            raise self.arg_error(
                "scaling", f"must be a range `[min, max]`. Got {len(scaling)} values"
            )
        if not 0 <= scaling[0] <= scaling[1]:
            raise self.arg_error(
                "scaling", f"range must be positive and min <= max. Got: {list(scaling)}"
            )
        prune = None
        if self.has_arg("bbox_prune_threshold"):
            prune = float(self.arg("bbox_prune_threshold"))
            if not 0 <= prune <= 1:
                raise self.arg_error("bbox_prune_threshold", f"must be in [0, 1]. Got: {prune}")
        ar = [float(v) for v in self.arg("aspect_ratio")]
        if len(ar) not in (2, 6):
            raise self.arg_error(
                "aspect_ratio",
                f"expected 2 values (or 6 for 3-D boxes: x/y, x/z, y/z ranges), got {len(ar)}",
            )
        ranges = tuple((ar[i], ar[i + 1]) for i in range(0, len(ar), 2))
        for lo, hi in ranges:
            if not 0 <= lo <= hi:
                raise self.arg_error(
                    "aspect_ratio", f"range must be positive and min <= max. Got: {lo}, {hi}"
                )
        self.has_crop_shape = self.has_arg("crop_shape")
        if self.has_crop_shape and not self.has_arg("input_shape"):
            raise self.arg_error(
                "crop_shape", "`input_shape` must be provided when providing `crop_shape`"
            )
        if self.has_arg("ltrb"):
            if self.has_arg("bbox_layout"):
                raise self.arg_error(
                    "ltrb",
                    "`ltrb` and `bbox_layout` can't be provided at the same time. `ltrb` was "
                    "deprecated in favor of `bbox_layout`.",
                )
            _log.warning(
                '%s: `ltrb` is deprecated; use `bbox_layout` (ltrb=True is "xyXY", '
                'ltrb=False is "xyWH")',
                self.display_name,
            )
        allow_no_crop = bool(self.arg("allow_no_crop"))
        if self.has_crop_shape:
            if not self.has_arg("allow_no_crop"):
                _log.warning(
                    "%s: with an explicit `crop_shape`, `allow_no_crop` does not take effect",
                    self.display_name,
                )
                allow_no_crop = False
            for name, bad in (
                ("allow_no_crop", allow_no_crop),
                ("aspect_ratio", self.has_arg("aspect_ratio")),
                ("scaling", self.has_arg("scaling")),
            ):
                if bad:
                    raise self.arg_error(
                        name, f"`{name}` is incompatible with providing `crop_shape` explicitly"
                    )
        thresholds = tuple(float(v) for v in self.arg("thresholds"))
        if not thresholds:
            raise self.arg_error("thresholds", "at least one threshold value must be provided")
        attempts = int(self.arg("num_attempts"))
        if attempts <= 0:
            raise self.arg_error("num_attempts", f"must be greater than zero, got {attempts}")
        for t in thresholds:
            if not 0 <= t <= 1:
                raise self.arg_error("thresholds", f"values must be in [0.0, 1.0]. Received: {t}")
        kind = self.arg("threshold_type")
        if kind not in ("iou", "overlap"):
            raise self.arg_error(
                "threshold_type", f'unsupported value "{kind}"; expected "iou" or "overlap"'
            )
        total = -1
        if self.has_arg("total_num_attempts"):
            total = int(self.arg("total_num_attempts"))
            if total <= 0:
                raise self.arg_error(
                    "total_num_attempts", f"must be greater than zero, got {total}"
                )
        self.params = CropParams(
            thresholds=thresholds,
            allow_no_crop=allow_no_crop,
            overlap=kind == "overlap",
            aspect_ratio=ranges,
            scaling=(scaling[0], scaling[1]),
            num_attempts=attempts,
            total_num_attempts=total,
            all_boxes_above_threshold=bool(self.arg("all_boxes_above_threshold")),
            prune_threshold=prune,
        )

    # -- inputs ----------------------------------------------------------------------------
    def _layout(self, ndim: int) -> BoxLayout:
        text = self.arg("bbox_layout") if self.has_arg("bbox_layout") else None
        if not text:
            return BoxLayout.ltrb(bool(self.arg("ltrb")), ndim)
        try:
            return BoxLayout.parse(str(text), ndim)
        except ValueError as e:
            raise self.arg_error("bbox_layout", str(e)) from None

    def _boxes(self, tl: Any) -> tuple[list[np.ndarray], int]:
        """The samples checked: FLOAT, ``[N, 2·ndim]`` with one ``ndim`` (2 or 3) for all."""
        samples = [as_float_boxes(self, s, i) for i, s in enumerate(tl.samples())]
        if tl.sample_ndim != 2:
            raise self.error(
                f"expects boxes of shape [N, 4] (or [N, 6]), got {tl.sample_ndim}-D samples"
            )
        if not samples:
            return samples, 2
        ncoords = samples[0].shape[1]
        for i, s in enumerate(samples):
            if s.shape[1] != ncoords:
                raise self.error(
                    f"sample {i}: {s.shape[1]} coordinates per box, sample 0 has {ncoords}"
                )
        if ncoords not in (4, 6):
            raise self.error(f"unexpected number of coordinates per box: {ncoords} (4 or 6)")
        return samples, ncoords // 2

    def _labels(self, tl: Any, counts: list[int]) -> list[np.ndarray]:
        out = []
        for i, lab in enumerate(tl.samples()):
            lab = np.asarray(lab)
            if lab.dtype != np.int32:
                raise self.error(f"sample {i}: labels must be INT32, got {lab.dtype}")
            if lab.ndim == 0 or lab.shape[0] != counts[i]:
                raise self.error(
                    f"sample {i}: {counts[i]} boxes but labels of shape {list(lab.shape)}"
                )
            out.append(lab)
        return out

    def _shape_arg(self, ws: Workspace, name: str, ndim: int) -> np.ndarray:
        """``crop_shape``/``input_shape`` per sample, ``(batch, ndim)`` int64, in W, H(, D)."""
        rows = []
        for i, v in enumerate(ws.arg_vectors(name, np.float64)):
            if v.size != ndim:
                raise self.arg_error(name, f"sample {i}: must be a {ndim}D vector, got {v.size}")
            if (v < 0).any():
                raise self.arg_error(name, f"sample {i}: values must not be negative, got {v}")
            if name == "input_shape" and (v == 0).any():
                raise self.arg_error(name, f"sample {i}: extents must be positive, got {v}")
            rows.append(v.astype(np.int64))
        out = np.array(rows, np.int64).reshape(-1, ndim)
        internal = "WHD"[:ndim]
        given = self.arg("shape_layout") if self.has_arg("shape_layout") else ""
        if given and given != internal:
            if sorted(given) != sorted(internal):
                raise self.arg_error(
                    "shape_layout", f"must be a permutation of `{internal}`, got `{given}`"
                )
            out = out[:, [str(given).index(c) for c in internal]]
        return out

    # -- run -------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        samples, ndim = self._boxes(ws.inputs[0])
        layout = self._layout(ndim)
        n = len(samples)
        # every sample's boxes back to back: one pass over the batch for the reading, the
        # checks, the padding and the outputs (per sample that was ~5 ms a batch of 64)
        counts = [len(s) for s in samples]
        size = np.array(counts, np.int64)
        first = np.concatenate([[0], np.cumsum(size)])
        flat = np.concatenate(samples) if n else np.zeros((0, 2 * ndim), _F32)
        lo, hi = layout.read(flat.reshape(-1, 2 * ndim))
        bad = np.flatnonzero(((lo < 0) | (hi > 1)).any(axis=1))
        if bad.size:
            i = int(np.searchsorted(first, bad[0], side="right")) - 1
            j = int(bad[0] - first[i])
            raise self.error(
                f"sample {i}: box {j} {samples[i][j].tolist()} is out of bounds [0, 1]"
            )
        labels = self._labels(ws.inputs[1], counts) if len(ws.inputs) > 1 else None
        in_shape = crop_shape = None
        if self.has_arg("input_shape"):
            in_shape = self._shape_arg(ws, "input_shape", ndim).astype(_F32)
        if self.has_crop_shape:
            crop_shape = self._shape_arg(ws, "crop_shape", ndim)
        owner = np.repeat(np.arange(n), size)  # each box's sample, and its place in it
        place = np.arange(len(owner)) - first[owner]
        lo_pad = np.zeros((n, max(counts, default=0), ndim), _F32)
        hi_pad = np.zeros_like(lo_pad)
        lo_pad[owner, place], hi_pad[owner, place] = lo, hi
        p = self.params
        try:
            res = search(ws.rng, p, lo_pad, hi_pad, size, in_shape, crop_shape)
        except RuntimeError as e:
            raise self.error(
                f"sample {e.args[1]}: no window satisfies the thresholds after {e.args[2]} "
                "attempts; give `total_num_attempts` to take the best window after that many "
                "(DALI would search forever)"
            ) from None
        if not self.arg("quiet"):
            for failed in np.flatnonzero(~res.success).tolist():
                _log.warning(
                    "%s: could not find a valid cropping window to satisfy the specified "
                    "requirements (attempted %d times). Using the best cropping window so far "
                    "(best_metric=%g)",
                    self.display_name,
                    res.attempts[failed],
                    res.best[failed],
                )
        # the boxes each sample keeps: all with "no crop", those of its window, or none
        clo, chi = res.rel_lo[owner], res.rel_hi[owner]
        keep = np.where(
            res.no_crop[owner],
            True,
            res.found[owner] & kept_boxes(clo, chi, lo, hi, p.prune_threshold),
        )
        remapped = (
            np.where(res.no_crop[owner, None], lo, 0),
            np.where(res.no_crop[owner, None], hi, 0),
        )
        crop = keep & ~res.no_crop[owner]
        if crop.any():
            r_lo, r_hi = remap_boxes(lo[crop], hi[crop], clo[crop], chi[crop])
            remapped[0][crop], remapped[1][crop] = r_lo, r_hi
        out_flat = layout.write(remapped[0][keep], remapped[1][keep])
        kept_per = np.bincount(owner[keep], minlength=n).tolist()
        box_shapes: list[tuple[int, ...]] = [(k, 2 * ndim) for k in kept_per]
        out_boxes = TensorListCPU.wrap_flat(out_flat.reshape(-1), box_shapes, "", ndim=2)
        out_index = TensorListCPU.wrap_flat(
            np.ascontiguousarray(place[keep], np.int32), [(k,) for k in kept_per], "", ndim=1
        )
        outs = [
            TensorListCPU.wrap(res.out_lo, ""),
            TensorListCPU.wrap(res.out_hi - res.out_lo, ""),
            out_boxes,
        ]
        if labels is not None:
            kept_labels = [lab[keep[first[i] : first[i + 1]]] for i, lab in enumerate(labels)]
            ndim_l = ws.inputs[1].sample_ndim
            outs.append(TensorListCPU.wrap(kept_labels, "", dtype=np.int32, ndim=ndim_l))
        if self.arg("output_bbox_indices"):
            outs.append(out_index)
        return tuple(outs)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        ncoords = node.inputs[0].static_shape[-1] if node.inputs[0].static_shape else None
        nd = ncoords // 2 if isinstance(ncoords, int) else None
        metas: list[dict[str, Any]] = [
            {"dtype": DALIDataType.FLOAT, "ndim": 1, "layout": "", "static_shape": (nd,)},
            {"dtype": DALIDataType.FLOAT, "ndim": 1, "layout": "", "static_shape": (nd,)},
            {"dtype": DALIDataType.FLOAT, "ndim": 2, "layout": "", "static_shape": (None, ncoords)},
        ]
        if len(node.inputs) > 1:
            metas.append({"dtype": DALIDataType.INT32, "ndim": node.inputs[1].ndim, "layout": ""})
        if node.scalar_args.get("output_bbox_indices"):
            metas.append({"dtype": DALIDataType.INT32, "ndim": 1, "layout": ""})
        return metas
