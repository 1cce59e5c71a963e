"""`fn.segmentation.random_object_bbox`: the bounding box of a random object of a label map.

The input is a segmentation mask: an N-D map (1 to 6 dimensions; 2-D images, 3-D volumes) of
integer class labels (BOOL, INT8/UINT8, INT16/UINT16, INT32/UINT32). An *object* is a blob of
face-connected elements of one label (`dali._ops.segmentation._labeling`: 4-connectivity in
2-D, 6 in 3-D, as DALI). For each sample the operator

1. draws "foreground" with probability ``foreground_prob``; otherwise the box is the whole input
   and the class is the background;
2. picks a class: at random among ``classes`` present in the sample (with ``class_weights``,
   or uniformly; by default every label but ``background``), labels the blobs of that class
   and keeps those at least ``threshold`` long on every axis (and of those, with ``k_largest``,
   the ``k`` of largest box volume); when none is left the class is dropped and another one
   is picked; when no class is left, the box is the whole input;
3. picks one of the kept blobs uniformly and gives its box.

With ``ignore_class=True`` every blob of every non-background label is one candidate (so large
classes are not favoured per class); the labels still keep the blobs apart.

Outputs (INT32): ``format="anchor_shape"`` (the default) gives ``anchor`` and ``shape``,
``"start_end"`` gives ``start`` and ``end`` (one past the last element), ``"box"`` gives
``[start..., end...]`` as one vector; ``output_class=True`` adds the chosen label (a scalar: the
background when the box is the whole input). Coordinates follow the input's dimensions (a HW
mask: ``[y, x]``), ready for ``fn.slice(image, anchor, shape, axis_names="HW")``.

``cache_objects=True`` remembers each distinct input's labels and boxes (keyed by a 256-bit
hash of its bytes), for small datasets of large volumes: the labelling is then done once.

The operator runs on the CPU only, as DALI's. The draws come from each sample's own
counter-based stream (`Workspace.rng`): a sample gets the same box whatever the batch size or
threads; they are not DALI's draws.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> mask = np.zeros((6, 8), np.uint8)
    >>> mask[1:3, 1:4] = 1  # one object of class 1
    >>> mask[4:6, 5:8] = 2  # one object of class 2
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=7)
    ... def pipe():
    ...     m = types.Constant(mask)
    ...     return tuple(fn.segmentation.random_object_bbox(m, classes=[2], output_class=True))
    >>> anchor, shape, label = (o.at(0) for o in pipe().run())
    >>> anchor.tolist(), shape.tolist(), int(label)
    ([4, 5], [2, 3], 2)
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype, type_name
from dali._exec.rng import SampleRNG
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.segmentation._labeling import blob_boxes, label_values
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["RandomObjectBBox"]

_FORMATS = ("anchor_shape", "start_end", "box")
_INPUT_TYPES = frozenset(
    np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32)
)
#: Uniforms drawn per sample with the batch; a sample that needs more (classes rejected by
#: ``threshold``) draws further blocks from other sub-streams of its own stream.
_BLOCK = 8
#: The sub-stream of the first block (`SampleRNG.uniform`'s ``stream``).
_STREAM = 0x726F6262  # "robb"


def _outputs(args: Mapping[str, Any]) -> int:
    return (
        1
        + int(args.get("format", "anchor_shape") != "box")
        + int(bool(args.get("output_class", False)))
    )


class _Draws:
    """The uniforms of one sample, in order: a block drawn with the batch, then more blocks of
    the sample's own stream when needed."""

    def __init__(self, rng: SampleRNG, index: int, first: np.ndarray) -> None:
        self._rng, self._index = rng, index
        self._buf, self._pos, self._block = first, 0, 0

    def uniform(self) -> float:
        if self._pos == len(self._buf):
            self._block += 1
            one = self._rng.subset([self._index])
            self._buf = one.uniform(_BLOCK, stream=_STREAM + self._block)[0]
            self._pos = 0
        u = float(self._buf[self._pos])
        self._pos += 1
        return u

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        return min(int(self.uniform() * n), n - 1)


@dataclass
class _Classes:
    """DALI's ``ClassInfo`` of one sample: the background, the candidate classes and their
    weights (set to 0 for classes absent from the sample or without a satisfactory blob)."""

    background: int
    classes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def pick(self, draws: _Draws) -> int:
        """The index of a class drawn by weight (DALI's CDF search), or -1 when none has a
        positive weight left."""
        w = self.weights
        if not len(w):
            return -1
        total = np.cumsum(w, dtype=np.float64)
        if total[-1] <= 0:
            return -1
        cdf = total.astype(np.float32).astype(np.float64)  # DALI keeps the CDF in float32
        pos = draws.uniform() * cdf[-1]
        idx = int(np.searchsorted(cdf, pos, side="left"))
        while idx < len(w) and w[idx] == 0:  # zero weights make the search ambiguous
            idx += 1
        return idx if idx < len(w) else -1


@dataclass
class _CacheEntry:
    labels: np.ndarray | None = None
    boxes: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)


@register(
    "segmentation.random_object_bbox",
    class_name="RandomObjectBBox",
    devices=("cpu",),
    inputs=1,
    outputs=_outputs,
    input_names=("input",),
    random=True,
    args=[
        Arg("format", "str", default="anchor_shape", doc='"anchor_shape", "start_end" or "box".'),
        Arg("foreground_prob", "float", default=1.0, tensor=True, doc="P(an object box)."),
        Arg("classes", "int_vec", tensor=True, doc="Foreground labels (default: all but bg)."),
        Arg("background", "int", default=0, tensor=True, doc="The background label."),
        Arg("class_weights", "float_vec", tensor=True, doc="Relative class probabilities."),
        Arg("k_largest", "int", doc="Pick among the k largest boxes only."),
        Arg("threshold", "int_vec", tensor=True, doc="Per-axis minimum box extent."),
        Arg("ignore_class", "bool", default=False, doc="Every blob equally likely."),
        Arg("output_class", "bool", default=False, doc="Add the chosen label as an output."),
        Arg("cache_objects", "bool", default=False, doc="Remember each input's boxes."),
    ],
)
class RandomObjectBBox(Operator):
    """The bounding box of a randomly chosen object (connected blob) of a label map.

    Typical use, a random crop around an object of a segmentation mask (3-D, DHW):
    ``anchor, shape = fn.segmentation.random_object_bbox(labels, foreground_prob=0.7,
    k_largest=3)``, then a ``fn.roi_random_crop`` of the wanted size around that box.
    """

    def setup(self) -> None:
        fmt = self.arg("format")
        if fmt not in _FORMATS:
            raise self.arg_error(
                "format",
                f'Invalid output format: "{fmt}"\n'
                'Possible values: "anchor_shape", "start_end" and "box".',
            )
        self.format = fmt
        self.ignore_class = bool(self.arg("ignore_class"))
        self.output_class = bool(self.arg("output_class"))
        if self.ignore_class and (
            self.has_arg("classes") or self.has_arg("class_weights") or self.output_class
        ):
            raise self.arg_error(
                "ignore_class",
                "Class-related arguments ``classes``, ``weights`` and ``output_class`` "
                "cannot be used when ``ignore_class`` is True",
            )
        self.k_largest = -1
        if self.has_arg("k_largest"):
            self.k_largest = int(self.arg("k_largest"))
            if self.k_largest < 1:
                raise self.arg_error(
                    "k_largest", f"``k_largest`` must be at least 1; got {self.k_largest}"
                )
        self.use_cache = bool(self.arg("cache_objects"))
        self._cache: dict[tuple[bytes, str, tuple[int, ...]], _CacheEntry] = {}
        self._cache_lock = threading.Lock()

    # -- arguments ---------------------------------------------------------------------------
    def _class_infos(self, ws: Workspace) -> list[_Classes]:
        """Each sample's `_Classes` before the labels of the sample are known (DALI's
        ``ClassInfo::Init``)."""
        n = ws.batch_size
        explicit_bg = self.has_arg("background")
        bgs = ws.arg_scalars("background", np.int64)
        use_cls = self.has_arg("classes") and not self.ignore_class
        use_w = self.has_arg("class_weights") and not self.ignore_class
        classes = ws.arg_vectors("classes", np.int64) if use_cls else None
        weights = ws.arg_vectors("class_weights", np.float32) if use_w else None
        infos = []
        for i in range(n):
            info = _Classes(int(bgs[i]))
            if classes is not None:
                cls = classes[i]
                if weights is not None and weights[i].shape != cls.shape:
                    raise self.arg_error(
                        "class_weights",
                        "If both ``classes`` and ``class_weights`` are provided, their shapes "
                        f"must match. Got:\n  classes.shape = {cls.shape}"
                        f"\n  weights.shape = {weights[i].shape}",
                    )
                info.classes = cls.copy()
                info.weights = np.ones(len(cls), np.float32)
                clash = cls == info.background
                if clash.any():
                    if explicit_bg:
                        raise self.arg_error(
                            "classes",
                            f"Class label {int(cls[clash][0])} coincides with background label"
                            " - please specify a different background label or remove it from"
                            " your list of foreground classes.",
                        )
                    # no background given: take one that is not a class
                    lowest = int(cls.min())
                    if lowest == np.iinfo(np.int32).min:
                        bg = int(np.iinfo(np.int32).max)
                        taken = set(cls.tolist())
                        while bg in taken:
                            bg -= 1
                        info.background = bg
                    else:
                        info.background = lowest - 1
            if weights is not None:
                info.weights = weights[i].astype(np.float32).copy()
                if classes is None:  # consecutive labels, skipping the background
                    out, c = [], 0
                    for _ in range(len(info.weights)):
                        if c == info.background:
                            c += 1
                        out.append(c)
                        c += 1
                    info.classes = np.array(out, np.int64)
            infos.append(info)
        return infos

    # -- one sample --------------------------------------------------------------------------
    def _entry(self, mask: np.ndarray) -> _CacheEntry | None:
        if not self.use_cache:
            return None
        data = np.ascontiguousarray(mask)
        digest = hashlib.blake2b(data.tobytes(), digest_size=32).digest()
        key = (digest, data.dtype.str, data.shape)
        with self._cache_lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = _CacheEntry()
        return entry

    @staticmethod
    def _as_type(mask: np.ndarray, label: int) -> int:
        """A label as the mask's type holds it (C's conversion: integers wrap, bool is != 0)."""
        return int(np.array(label, np.int64).astype(mask.dtype).astype(np.int64))

    def _boxes(
        self, mask: np.ndarray, entry: _CacheEntry | None, kind: str, label: int
    ) -> np.ndarray:
        key = (kind, label)
        if entry is not None and key in entry.boxes:
            return entry.boxes[key]
        value = self._as_type(mask, label)
        if kind == "bg":
            boxes = blob_boxes(mask, background=value)
        else:
            boxes = blob_boxes(mask, target=value)
        if entry is not None:
            entry.boxes[key] = boxes
        return boxes

    def _pick_box(self, boxes: np.ndarray, threshold: np.ndarray | None, draws: _Draws) -> int:
        """DALI's ``PickBox``: the row of a random box that passes ``threshold`` (among the
        ``k_largest``), or -1."""
        ndim = boxes.shape[1] // 2
        extent = boxes[:, ndim:].astype(np.int64) - boxes[:, :ndim]
        rows = np.arange(len(boxes))
        if threshold is not None:
            rows = rows[np.all(extent >= threshold, axis=1)]
        n = len(rows)
        if n == 0:
            return -1
        k = self.k_largest
        if 0 < k < n:
            volume = np.prod(extent[rows], axis=1)
            order = np.argsort(-volume, kind="stable")  # by volume, then by position
            return int(rows[order[draws.below(k)]])
        return int(rows[draws.below(n)])

    def _foreground_box(
        self,
        mask: np.ndarray,
        info: _Classes,
        threshold: np.ndarray | None,
        draws: _Draws,
    ) -> tuple[np.ndarray | None, int]:
        """The chosen box (a ``2·ndim`` row) and its class, or None and the background."""
        entry = self._entry(mask)
        if self.ignore_class:
            boxes = self._boxes(mask, entry, "bg", info.background)
            row = self._pick_box(boxes, threshold, draws)
            return (boxes[row] if row >= 0 else None), info.background
        if entry is not None and entry.labels is not None:
            labels = entry.labels
        else:
            labels = label_values(mask)
            if entry is not None:
                entry.labels = labels
        # labels are compared as the mask's type holds them (C's conversion, as DALI's)
        present = labels[labels != self._as_type(mask, info.background)]
        if not self.has_arg("classes") and not self.has_arg("class_weights"):
            info.classes = present
            info.weights = np.ones(len(present), np.float32)
        else:
            wrapped = np.array([self._as_type(mask, int(c)) for c in info.classes], np.int64)
            info.weights[~np.isin(wrapped, present)] = 0
        while True:
            idx = info.pick(draws)
            if idx < 0:
                return None, info.background
            label = int(info.classes[idx])
            boxes = self._boxes(mask, entry, "cls", label)
            row = self._pick_box(boxes, threshold, draws)
            if row >= 0:
                return boxes[row], label
            info.weights[idx] = 0  # no satisfactory blob in this class: try another one

    # -- the batch -----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        tl = ws.inputs[0]
        n = ws.batch_size
        dtype = tl.np_dtype
        ndim = tl.sample_ndim
        if n and dtype not in _INPUT_TYPES:
            raise self.error(f"Unsupported input type: {type_name(dali_dtype(dtype))}")
        if n and not 1 <= ndim <= 6:
            raise self.error(f"Unsupported number of dimensions {ndim}; must be 1..6")
        samples = tl.samples()
        fg_prob = ws.arg_scalars("foreground_prob", np.float64)
        infos = self._class_infos(ws)
        thresholds = (
            ws.arg_vectors("threshold", np.int64, n=ndim, what=" (one per dimension of the input)")
            if self.has_arg("threshold")
            else None
        )
        rng = ws.rng
        first = rng.uniform(_BLOCK, stream=_STREAM)

        def one(i: int) -> tuple[np.ndarray, int]:
            mask = samples[i]
            draws = _Draws(rng, i, first[i])
            whole = np.concatenate([np.zeros(ndim, np.int64), mask.shape])
            if not draws.uniform() < fg_prob[i]:
                return whole, infos[i].background
            thr = thresholds[i] if thresholds is not None else None
            box, label = self._foreground_box(mask, infos[i], thr, draws)
            return (whole if box is None else box.astype(np.int64)), label

        results = ws.map(one)
        boxes = np.array([r[0] for r in results], np.int64).reshape(n, 2 * ndim)
        lo, hi = boxes[:, :ndim], boxes[:, ndim:]
        outs: list[TensorListCPU]
        if self.format == "box":
            outs = [TensorListCPU.wrap(boxes.astype(np.int32), "")]
        elif self.format == "start_end":
            outs = [
                TensorListCPU.wrap(lo.astype(np.int32), ""),
                TensorListCPU.wrap(hi.astype(np.int32), ""),
            ]
        else:
            outs = [
                TensorListCPU.wrap(lo.astype(np.int32), ""),
                TensorListCPU.wrap((hi - lo).astype(np.int32), ""),
            ]
        if self.output_class:
            labels = np.array([r[1] for r in results], np.int64).astype(np.int32)
            outs.append(TensorListCPU.wrap(labels, ""))
        return tuple(outs)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        shape = node.inputs[0].static_shape
        nd = len(shape) if shape is not None else None
        fmt = node.scalar_args.get("format", "anchor_shape")
        width = None if nd is None else (2 * nd if fmt == "box" else nd)
        vec = {"dtype": DALIDataType.INT32, "ndim": 1, "layout": "", "static_shape": (width,)}
        metas = [dict(vec) for _ in range(1 if fmt == "box" else 2)]
        if node.scalar_args.get("output_class"):
            metas.append({"dtype": DALIDataType.INT32, "ndim": 0, "layout": "", "static_shape": ()})
        return metas
