"""`fn.multi_paste`: paste regions of input images onto blank canvases.

Every output sample is a canvas of zeros of ``output_size`` (H, W) — or, without it, the shape
of the inputs, which must then all have the same H and W — onto which *regions* are pasted one
after the other, a later region covering an earlier one where they overlap:

* with ``in_ids`` the operator takes ONE input batch, and output sample ``i`` receives the
  regions of input samples ``in_ids[i][0]``, ``in_ids[i][1]``, ... (any sample of the batch, as
  often as wanted; an empty ``in_ids`` leaves the canvas blank);
* without it, output sample ``i`` receives sample ``i`` of every positional input (up to 64),
  in the order of the inputs.

Region ``r`` of an output sample is ``shapes[r]`` (H, W) pixels taken at ``in_anchors[r]`` in
its source and put at ``out_anchors[r]`` on the canvas; the ``*_rel`` variants give the same
values relative to the source's (anchors, shapes) or the canvas's (out anchors) extents, in
[0, 1]: in float32, as DALI computes them, a relative anchor is rounded down
(``floor(extent * rel)``) and a relative shape up (``ceil(extent * rel)``). Without a shape,
a region spans from its anchor to the end of its source. Each of these arguments is a
``(number of regions, 2)`` tensor per sample (a per-frame one for sequences). A region that
leaves its source or the canvas is an error, and so is a region with another number of channels
than the others of its output sample (the canvas has the regions' channels).

The values are converted to ``dtype`` (default: the input type) with DALI's saturation
(``ConvertSat``: rounding to nearest, halves away from zero; NaN becomes 0, or INT32's minimum
in INT32, as on DALI's CPU). Types: UINT8, INT16, INT32 and
FLOAT, in and out. Layouts: ``HWC`` images and ``FHWC`` sequences; a sequence is processed as
its frames, as DALI does: the frames of the batch form one batch of images, so ``in_ids``
counts *frames*, and image inputs next to sequences serve every frame of their sample. The
source info of an output sample names its regions' sources, joined with ``;``.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> imgs = [np.full((2, 3, 1), 1, np.uint8), np.full((2, 3, 1), 2, np.uint8)]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: imgs, layout="HWC", batch=True)
    ...     return fn.multi_paste(
    ...         x,
    ...         in_ids=[0, 1],
    ...         shapes=np.array([[2, 2], [1, 2]], np.int32),
    ...         out_anchors=np.array([[0, 0], [1, 2]], np.int32),
    ...         output_size=[3, 4],
    ...     )
    >>> out, = pipe().run()
    >>> out.as_array()[0, ..., 0]
    array([[1, 1, 0, 0],
           [1, 1, 2, 2],
           [0, 0, 0, 0]], dtype=uint8)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops._sequences import Frames, is_sequence
from dali._ops.base import Operator
from dali._ops.numeric import convert_sat

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["MultiPaste", "PastePlan"]

_LAYOUTS = ("HWC", "FHWC")
_DEFAULT_LAYOUT = {3: "HWC", 4: "FHWC"}
#: The element types DALI's kernels are compiled for, in and out.
_TYPES = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.int32, np.float32))
_TYPE_LIST = ", ".join(type_name(t) for t in _TYPES)
#: The arguments given per region (a ``(regions, 2)`` tensor), which accept per-frame values.
_REGION_ARGS = (
    "in_anchors",
    "in_anchors_rel",
    "shapes",
    "shapes_rel",
    "out_anchors",
    "out_anchors_rel",
)
#: The name DALI's range check gives each relative argument (sic: singular anchors).
_REL_NAMES = {
    "shapes_rel": "shapes_rel",
    "in_anchors_rel": "in_anchor_rel",
    "out_anchors_rel": "out_anchor_rel",
}


def _dims(v: Any) -> str:
    """DALI's spelling of a shape in messages: ``4 x 5``."""
    return " x ".join(str(int(e)) for e in v)


@dataclass
class PastePlan:
    """Where every region of a batch comes from and goes, checked (see `MultiPaste.plan`).

    The batch is the batch of *frames* when the inputs are sequences (``counts`` is then the
    number of frames of every sequence), else the batch of samples.

    Attributes:
        out_shapes: The (H, W, C) of every output frame.
        first: Where the regions of output frame ``j`` start in the region arrays
            (``first[j]`` to ``first[j + 1]``), int64.
        src_input: The positional input of every region.
        src_frame: The frame (sample) of that input every region is taken from.
        in_anchor, shape, out_anchor: ``(regions, 2)`` int64 arrays: (y, x) in the source,
            (h, w), (y, x) on the canvas.
        sample_of: For every frame, its sample (its sequence).
        frame_of: For every frame, its index in its sequence (0 for images).
        seq_inputs: Which positional inputs are sequences.
        counts: The frames of every sequence, or None (no input is a sequence).
        out_dtype: The output element type.
    """

    out_shapes: list[tuple[int, int, int]]
    first: np.ndarray
    src_input: np.ndarray
    src_frame: np.ndarray
    in_anchor: np.ndarray
    shape: np.ndarray
    out_anchor: np.ndarray
    sample_of: np.ndarray
    frame_of: np.ndarray
    seq_inputs: list[bool]
    counts: np.ndarray | None
    out_dtype: np.dtype[Any]

    @property
    def num_frames(self) -> int:
        return len(self.out_shapes)


@register(
    "multi_paste",
    devices=("cpu", "gpu"),
    inputs=(1, 64),
    input_names=("images",),
    args=[
        Arg("in_ids", "int_vec", tensor=True,
            doc="Indices of the input samples to paste into each output (one input batch)."),
        Arg("in_anchors", "int", tensor=True,
            doc="Top-left corners of the regions in their sources: (regions, 2) per sample."),
        Arg("in_anchors_rel", "float", tensor=True,
            doc="`in_anchors` relative to the source's extents, in [0, 1]."),
        Arg("shapes", "int", tensor=True,
            doc="Extents (H, W) of the regions: (regions, 2) per sample."),
        Arg("shapes_rel", "float", tensor=True,
            doc="`shapes` relative to the source's extents, in [0, 1]."),
        Arg("out_anchors", "int", tensor=True,
            doc="Top-left corners of the regions on the canvas: (regions, 2) per sample."),
        Arg("out_anchors_rel", "float", tensor=True,
            doc="`out_anchors` relative to the canvas's extents, in [0, 1]."),
        Arg("output_size", "int_vec", tensor=True,
            doc="The canvas (H, W); may be omitted when the inputs have one shape."),
        Arg("dtype", "dtype", doc="Output data type. If not set, the input type is used."),
    ],
)  # fmt: skip
class MultiPaste(Operator):
    """Performs multiple pastes from image batch to each of the outputs.

    If the `in_ids` is specified, the operator expects exactly one input batch. In that case,
    for each output sample, `in_ids` describes which samples from the input batch should be
    pasted to the corresponding sample in the output batch.

    If the `in_ids` argument is omitted, the operator accepts multiple inputs. In that case,
    the i-th sample from each input batch will be pasted to the i-th sample of the output batch.
    All the input batches must have the same type and device placement.

    If the input shapes are uniform and no explicit `output_size` is provided, the operator
    assumes the same output shape (the output canvas size). Otherwise, the `output_size` must
    be specified.

    The regions are given by `in_anchors` (or `in_anchors_rel`), `shapes` (or `shapes_rel`)
    and `out_anchors` (or `out_anchors_rel`), each a 2D tensor per sample of shape
    ``number of pasted regions`` x 2 (H and W); without anchors they are zero, without shapes a
    region spans from its anchor to the end of its input. The canvas is zero where no region
    lands; a later region covers an earlier one.

    This operator can also change the type of data (UINT8, INT16, INT32, FLOAT).

    This operator allows sequence inputs (``FHWC``); the region arguments accept per-frame
    values.
    """

    def setup(self) -> None:
        for name in ("out_anchors", "in_anchors", "shapes"):  # DALI's order of the checks
            if self.has_arg(name) and self.has_arg(f"{name}_rel"):
                raise self.arg_error(
                    name, f"The `{name}` and `{name}_rel` cannot be specified together"
                )
        for name in _REGION_ARGS:
            if self.has_arg(name) and not self.is_tensor_arg(name):
                raise self.arg_error(
                    name,
                    f"Invalid type of argument `{name}`: expected a 2D tensor of shape "
                    "`number of pasted regions` x 2 (a numpy array or a per-sample input), "
                    "got a scalar",
                )
        dtype = self.arg("dtype")
        self.out_dtype: np.dtype[Any] | None = np_dtype(dtype) if dtype else None
        if self.out_dtype is not None and self.out_dtype not in _TYPES:
            raise self._unsupported("output", self.out_dtype)

    def _unsupported(self, what: str, dtype: Any) -> Exception:
        return self.error(
            f"Unsupported {what} type: {type_name(dtype)}\nSupported types: {_TYPE_LIST}"
        )

    # -- the frames ------------------------------------------------------------------------------

    def _layout(self, k: int, tl: Any) -> str:
        given = tl.layout()
        if given:
            if given not in _LAYOUTS:
                raise self.error(
                    f'The layout "{given}" does not match any of the allowed layouts for input '
                    f"{k}. Valid layouts are: HWC, FHWC"
                )
            return str(given)
        layout = _DEFAULT_LAYOUT.get(tl.sample_ndim)
        if layout is None:
            raise self.error(
                f"The number of dimensions {tl.sample_ndim} does not match any of the allowed "
                f"layouts for input {k}. Valid layouts are: HWC, FHWC"
            )
        return layout

    def _frame_shapes(
        self, ws: Workspace
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, list[bool]]:
        """The (H, W, C) of every frame of every input, ``(inputs, frames, 3)``, with the frames'
        samples and indices, the sequences' frame counts (None: no sequences) and which inputs
        are sequences. Image inputs next to sequences serve every frame of their sample."""
        inputs = ws.inputs
        seq = [is_sequence(self._layout(k, tl)) for k, tl in enumerate(inputs)]
        shapes = [np.array(tl.shape(), np.int64).reshape(-1, tl.sample_ndim) for tl in inputs]
        n = len(shapes[0])
        if not any(seq):
            frames = np.arange(n, dtype=np.int64)
            return np.stack(shapes), frames, np.zeros(n, np.int64), None, seq
        ref = seq.index(True)
        counts = shapes[ref][:, 0].copy()
        for k, s in enumerate(shapes):
            if seq[k] and not np.array_equal(s[:, 0], counts):
                i = int(np.flatnonzero(s[:, 0] != counts)[0])
                raise self.error(
                    f"The input {ref} and the input {k} have different number of frames for "
                    f"sample {i}, respectively: {counts[i]} and {s[i, 0]}"
                )
        sample_of = np.repeat(np.arange(n, dtype=np.int64), counts)
        starts = np.cumsum(counts) - counts
        frame_of = np.arange(len(sample_of), dtype=np.int64) - np.repeat(starts, counts)
        table = np.stack([(s[:, 1:] if q else s)[sample_of] for s, q in zip(shapes, seq)])
        return table, sample_of, frame_of, counts, seq

    def _arg_frames(
        self, ws: Workspace, name: str, counts: np.ndarray | None, kind: str
    ) -> np.ndarray | list[np.ndarray]:
        """An argument's value for every frame: per-frame values (a per-frame input given for
        sequences) frame by frame, per-sample ones repeated for each frame of their sample.

        One ``(frames, ...)`` array where that costs no per-frame work (a constant, an
        argument input whose samples have one shape), else a list of per-frame arrays.
        """
        given = ws.arg_inputs.get(name)
        frames = ws.batch_size if counts is None else int(counts.sum())
        if given is None:  # a scalar argument: one value for every frame
            value = np.asarray(self.arg(name), np.int64)
            return np.broadcast_to(value, (frames, *value.shape))
        dtype = np.dtype(given.np_dtype)
        if dtype.kind not in kind:
            want = "an integer type (INT32)" if kind == "iu" else "a floating point type"
            raise self.arg_error(name, f"the values must be of {want}, got {type_name(dtype)}")
        if counts is None:
            dense = given.dense()
            if dense is not None and len(dense) == ws.batch_size:
                return np.asarray(dense)
        samples = ws.arg_samples(name)
        if counts is None:
            return samples
        per_frame = name in _REGION_ARGS and is_sequence(given.layout())
        out: list[np.ndarray] = []
        for i, (v, f) in enumerate(zip(samples, counts.tolist())):
            if not per_frame or v.ndim == 0:
                out.extend([v] * f)
                continue
            m = v.shape[0]
            if m not in (1, f):
                raise self.arg_error(
                    name,
                    f"The sample {i} of tensor argument `{name}` contains {m} per-frame "
                    f"parameters, but there are {f} frames in the corresponding sample of "
                    "input 0. The numbers should match.",
                )
            out.extend(v[k if m > 1 else 0] for k in range(f))
        return out

    # -- the plan --------------------------------------------------------------------------------

    def plan(self, ws: Workspace) -> PastePlan:
        """Check the batch and the arguments as DALI does, in DALI's order, and place every
        region. The host work both backends share.

        Raises:
            OperatorError: With DALI's message: layouts, types, ``in_ids`` out of range, the
                output size, channels that differ, argument shapes, relative values outside
                [0, 1], regions outside their source or the canvas, unsupported types.
        """
        inputs = ws.inputs
        table, sample_of, frame_of, counts, seq = self._frame_shapes(ws)
        in_dtype = np.dtype(inputs[0].np_dtype)
        for k, tl in enumerate(inputs[1:], 1):
            if np.dtype(tl.np_dtype) != in_dtype:
                raise self.error(
                    f"All input batches must have the same data type. Got "
                    f"{type_name(in_dtype)} and {type_name(tl.np_dtype)} at indicies 0 and {k}."
                )
        out_dtype = self.out_dtype if self.out_dtype is not None else in_dtype
        n = table.shape[1]
        if n == 0:  # DALI checks nothing more but the types
            if in_dtype not in _TYPES:
                raise self._unsupported("input", in_dtype)
            none = np.zeros(0, np.int64)
            pairs = np.zeros((0, 2), np.int64)
            return PastePlan(
                [], np.zeros(1, np.int64), none, none, pairs, pairs, pairs, sample_of,
                frame_of, seq, counts, out_dtype,
            )  # fmt: skip

        # which sources each output frame takes, as DALI's AcquireInIdxs
        if self.has_arg("in_ids"):
            if len(inputs) != 1:
                raise self.error(
                    "If the `in_ids` is specified, the operator accepts exactly one positional "
                    f"input batch. Got: {len(inputs)} inputs."
                )
            ids = self._arg_frames(ws, "in_ids", counts, "iu")
            for j, v in enumerate(ids[:1] if isinstance(ids, np.ndarray) else ids):
                if v.ndim > 1:
                    raise self.arg_error(
                        "in_ids",
                        f"expected a 1D list of indices for output sample {j}, got a tensor of "
                        f"shape {_dims(v.shape)}",
                    )
            if isinstance(ids, np.ndarray):  # one number of regions for every frame
                rows = ids.reshape(n, -1)
                paste_counts = np.full(n, rows.shape[1], np.int64)
                src_frame = rows.reshape(-1).astype(np.int64)
            else:
                id_arrays = [np.asarray(v, np.int64).reshape(-1) for v in ids]
                paste_counts = np.array([a.size for a in id_arrays], np.int64)
                src_frame = np.concatenate(id_arrays) if id_arrays else np.zeros(0, np.int64)
            bad = (src_frame < 0) | (src_frame >= n)
            if bad.any():
                raise self.arg_error(
                    "in_ids",
                    "The `in_idx` must be in range [0, .., batch_size - 1]. Got in_idx: "
                    f"{src_frame[np.argmax(bad)]}. Input batch size is: {n}.",
                )
            src_input = np.zeros(src_frame.size, np.int64)
        else:
            k_in = len(inputs)
            paste_counts = np.full(n, k_in, np.int64)
            src_frame = np.repeat(np.arange(n, dtype=np.int64), k_in)
            src_input = np.tile(np.arange(k_in, dtype=np.int64), n)
        first = np.zeros(n + 1, np.int64)
        np.cumsum(paste_counts, out=first[1:])
        src_shape = table[src_input, src_frame]  # (regions, 3): the sources' H, W, C

        out_hw = self._output_hw(ws, table, counts)
        channels = self._channels(src_shape[:, 2], first, table[0, :, 2])
        out_shapes = [(int(h), int(w), c) for (h, w), c in zip(out_hw.tolist(), channels)]

        in_anchor, shape, out_anchor = self._regions(ws, counts, first, src_shape[:, :2], out_hw)

        if in_dtype not in _TYPES:
            raise self._unsupported("input", in_dtype)
        return PastePlan(
            out_shapes, first, src_input, src_frame, in_anchor, shape, out_anchor,
            sample_of, frame_of, seq, counts, out_dtype,
        )  # fmt: skip

    def _output_hw(self, ws: Workspace, table: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
        """The canvas (H, W) of every frame: ``output_size``, or the inputs' common shape."""
        n = table.shape[1]
        if not self.has_arg("output_size"):
            hw = table[:, :, :2].reshape(-1, 2)
            if n and not (hw == hw[0]).all():
                other = hw[np.argmax((hw != hw[0]).any(axis=1))]
                raise self.error(
                    "If the `output_size` is not specified, all the input samples must have the "
                    f"same shape. Got samples of different shapes: {_dims(hw[0])} and "
                    f"{_dims(other)}."
                )
            return np.broadcast_to(hw[:1], (n, 2))
        sizes = self._arg_frames(ws, "output_size", counts, "iu")
        for j, v in enumerate(sizes[:1] if isinstance(sizes, np.ndarray) else sizes):
            if v.ndim > 1:
                raise self.arg_error(
                    "output_size",
                    f"expected a 1D tuple (H, W) for sample {j}, got a tensor of shape "
                    f"{_dims(v.shape)}",
                )
        if isinstance(sizes, np.ndarray):
            rows = sizes.reshape(n, -1).astype(np.int64)
        else:
            lengths = [int(v.size) for v in sizes]
            if len(set(lengths)) > 1:
                raise self.arg_error(
                    "output_size",
                    'Expected uniform shape for argument "output_size" but got shapes: '
                    + ", ".join(map(str, lengths)),
                )
            rows = np.array([np.asarray(v, np.int64).reshape(-1) for v in sizes], np.int64)
            rows = rows.reshape(n, lengths[0])
        if rows.shape[1] < 2:
            raise self.arg_error(
                "output_size",
                f"The `output_size` should be a tuple (H, W), got {rows.shape[1]} elements for "
                "a sample at index 0.",
            )
        negative = (rows[:, :2] < 0).any(axis=1)
        if negative.any():
            j = int(np.argmax(negative))
            raise self.arg_error(
                "output_size",
                "The `output_size` must be non-negative, got a shape with negative extent: "
                f"{_dims(rows[j])} for a sample at index {j}.",
            )
        return rows[:, :2]

    def _channels(self, src_c: np.ndarray, first: np.ndarray, own_c: np.ndarray) -> list[int]:
        """The channels of every output frame: those of its regions (which must agree), or,
        without regions, those of the input's sample at its index (DALI's rule)."""
        counts = np.diff(first)
        has = counts > 0
        lead = np.zeros(len(counts), np.int64)
        lead[has] = src_c[first[:-1][has]]
        frame_of_region = np.repeat(np.arange(len(counts)), counts)
        bad = src_c != lead[frame_of_region]
        if bad.any():
            r = int(np.argmax(bad))
            j = int(frame_of_region[r])
            raise self.error(
                "All regions pasted into given output sample must have the same number of "
                f"channels. Got different number of channels: {lead[j]}, {src_c[r]} for "
                f"output sample at index {j}."
            )
        out = np.where(has, lead, own_c)
        channels: list[int] = out.tolist()
        return channels

    def _regions(
        self,
        ws: Workspace,
        counts: np.ndarray | None,
        first: np.ndarray,
        src_hw: np.ndarray,
        out_hw: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every region's input anchor, shape and output anchor, checked as DALI checks them:
        frame by frame, the arguments' shapes, then region by region the relative values and
        the bounds."""
        n = len(first) - 1
        acquired: dict[str, np.ndarray | list[np.ndarray]] = {}
        for name in ("out_anchors", "out_anchors_rel", "in_anchors", "in_anchors_rel",
                     "shapes", "shapes_rel"):  # fmt: skip  # DALI's order of acquisition
            if self.has_arg(name):
                kind = "f" if name.endswith("_rel") else "iu"
                per_frame = acquired[name] = self._arg_frames(ws, name, counts, kind)
                dims = (
                    [per_frame.ndim - 1]
                    if isinstance(per_frame, np.ndarray)
                    else [v.ndim for v in per_frame]
                )
                for d in dims:
                    if d != 2:
                        raise self.arg_error(
                            name,
                            f"Input with dimension ({d}) cannot be converted to dimension "
                            "(2): expected a 2D tensor of shape `number of pasted regions` x 2",
                        )
        # checked in this order, frame by frame
        given = {name: acquired[name] for name in _REGION_ARGS if name in acquired}
        # the arguments' shapes, frame by frame: the first bad one is raised after the regions
        # of the frames before it (DALI checks each frame's shapes, then its regions)
        shape_error: Exception | None = None
        valid = n
        m_all = int(first[1] - first[0]) if n else 0
        uniform = all(
            isinstance(v, np.ndarray) and v.shape[1:] == (m_all, 2) for v in given.values()
        ) and bool((np.diff(first) == m_all).all())
        for j in range(0 if uniform else n):
            m = int(first[j + 1] - first[j])
            for name in given:
                got = given[name][j].shape
                if got != (m, 2):
                    shape_error = self.arg_error(
                        name,
                        f"Unexpected shape for argument `{name}` for output sample at index {j}. "
                        "It should be a 2D tensor of shape `number of pasted regions` x 2, i.e. "
                        f"{m} x 2. Got tensor of shape: {_dims(got)}.",
                    )
                    break
            if shape_error is not None:
                valid = j
                break
        r_end = int(first[valid])
        values = {
            name: _rows(v[:valid], np.float32 if name.endswith("_rel") else np.int64)
            for name, v in given.items()
        }
        src = src_hw[:r_end]
        frame = np.repeat(np.arange(valid), np.diff(first[: valid + 1]))
        canvas = np.asarray(out_hw)[frame]
        bad = np.zeros(r_end, bool)
        with np.errstate(invalid="ignore", over="ignore"):
            for name, rel in values.items():
                if name.endswith("_rel"):
                    rel_ok = (rel >= 0) & (rel <= 1)  # NaN fails
                    bad |= ~rel_ok.all(axis=1)
                    values[name] = np.where(rel_ok, rel, np.float32(0))
            if "shapes" in values:
                shape = values["shapes"]
            elif "shapes_rel" in values:
                shape = np.ceil(src.astype(np.float32) * values["shapes_rel"]).astype(np.int64)
            else:
                shape = src.copy()
            if "in_anchors" in values:
                in_anchor = values["in_anchors"]
            elif "in_anchors_rel" in values:
                rel = values["in_anchors_rel"]
                in_anchor = np.floor(src.astype(np.float32) * rel).astype(np.int64)
            else:
                in_anchor = np.zeros((r_end, 2), np.int64)
            if "shapes" not in values and "shapes_rel" not in values:
                shape = shape - in_anchor
            if "out_anchors" in values:
                out_anchor = values["out_anchors"]
            elif "out_anchors_rel" in values:
                rel = values["out_anchors_rel"]
                out_anchor = np.floor(canvas.astype(np.float32) * rel).astype(np.int64)
            else:
                out_anchor = np.zeros((r_end, 2), np.int64)
        in_ok = (in_anchor >= 0) & (shape >= 0) & (in_anchor + shape <= src)
        out_ok = (out_anchor >= 0) & (out_anchor + shape <= canvas)
        bad |= ~(in_ok & out_ok).all(axis=1)
        if bad.any():
            r = int(np.argmax(bad))
            j = int(frame[r])
            raise self._region_error(
                given, j, r - int(first[j]), src[r], canvas[r], in_anchor[r], shape[r],
                out_anchor[r],
            )  # fmt: skip
        if shape_error is not None:
            raise shape_error
        return in_anchor, shape, out_anchor

    def _region_error(
        self,
        given: dict[str, np.ndarray | list[np.ndarray]],
        j: int,
        r: int,
        src: np.ndarray,
        canvas: np.ndarray,
        in_anchor: np.ndarray,
        shape: np.ndarray,
        out_anchor: np.ndarray,
    ) -> Exception:
        """The error DALI raises first for region ``r`` of output frame ``j``."""
        where = f"for region at index {r} pasted into output sample at index {j}."
        for name in ("shapes_rel", "in_anchors_rel", "out_anchors_rel"):
            if name in given:
                for factor in np.asarray(given[name][j][r], np.float32).tolist():
                    if not 0.0 <= factor <= 1.0:
                        return self.arg_error(
                            name,
                            f"The `{_REL_NAMES[name]}` must be float in [0, 1] range, got "
                            f"{factor:g} {where}",
                        )
        tail = f", for the region at index {r}, pasted into output sample at index {j}."
        for k in range(2):
            if not (in_anchor[k] >= 0 and shape[k] >= 0 and in_anchor[k] + shape[k] <= src[k]):
                return self.error(
                    "The pasted region must be within input sample. Got input anchor: "
                    f"{_dims(in_anchor)}, pasted region shape: {_dims(shape)}, input shape: "
                    f"{_dims(src)}" + tail
                )
            if not (out_anchor[k] >= 0 and out_anchor[k] + shape[k] <= canvas[k]):
                return self.error(
                    "The pasted region must be within output bounds. Got output anchor: "
                    f"{_dims(out_anchor)}, pasted region shape: {_dims(shape)}, output shape: "
                    f"{_dims(canvas)}" + tail
                )
        raise AssertionError("no error found for a region marked bad")

    # -- running ---------------------------------------------------------------------------------

    def _source_infos(self, ws: Workspace, plan: PastePlan) -> list[str] | None:
        """Every output sample's source info: its regions' sources, joined with ``;`` (the
        first frame's, for sequences)."""
        per_input = [tl.source_infos or ws.meta.source_info for tl in ws.inputs]
        if all(p is None for p in per_input):
            return None
        sample_of = plan.sample_of.tolist()
        src_input = plan.src_input.tolist()
        src_frame = plan.src_frame.tolist()
        first = plan.first.tolist()
        if plan.counts is None:
            heads = list(range(plan.num_frames))
        else:  # a sequence is named after its first frame
            starts = (np.cumsum(plan.counts) - plan.counts).tolist()
            heads = [s if c else -1 for s, c in zip(starts, plan.counts.tolist())]
        out = []
        for j in heads:
            parts = []
            for r in range(first[j], first[j + 1]) if j >= 0 else ():
                infos = per_input[src_input[r]]
                info = infos[sample_of[src_frame[r]]] if infos is not None else ""
                if info:
                    parts.append(info)
            out.append(";".join(parts))
        return out

    def _finish(self, ws: Workspace, plan: PastePlan, out: Any) -> Any:
        if plan.counts is not None:
            out = Frames(ws, plan.counts, plan.sample_of).fold(out)
        out.source_infos = self._source_infos(ws, plan)
        return out

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        plan = self.plan(ws)
        n = plan.num_frames
        frames = [_frames_cpu(tl, q, plan) for tl, q in zip(ws.inputs, plan.seq_inputs)]
        shapes = plan.out_shapes
        covered = _covered(plan).tolist()
        # uninitialised: only the canvases that the regions may leave uncovered are zeroed,
        # each just before its pastes (while it is in cache)
        dense = None
        if n and shapes.count(shapes[0]) == n:
            dense = np.empty((n, *shapes[0]), plan.out_dtype)
        first = plan.first.tolist()
        # one row per region: source input and frame, in (y, x), (h, w), out (y, x)
        table = np.concatenate(
            [plan.src_input[:, None], plan.src_frame[:, None], plan.in_anchor, plan.shape,
             plan.out_anchor], axis=1,
        ).tolist()  # fmt: skip
        dtype = plan.out_dtype
        same = dtype == np.dtype(ws.inputs[0].np_dtype)

        def one(j: int) -> np.ndarray:
            out = dense[j] if dense is not None else np.empty(shapes[j], dtype)
            if not covered[j]:
                out[...] = 0
            for k, f, iy, ix, h, w, oy, ox in table[first[j] : first[j + 1]]:
                if not (h and w):
                    continue
                src = frames[k][f][iy : iy + h, ix : ix + w]
                if same:
                    out[oy : oy + h, ox : ox + w] = src
                else:
                    _paste_region(out[oy : oy + h, ox : ox + w], src)
            return out

        frame_bytes = sum(math.prod(x) for x in shapes) * dtype.itemsize // max(n, 1)
        if frame_bytes >= _THREADED_FRAME_BYTES:
            results = ws.map(one, n)
        else:  # a few small copies per frame: handing frames to threads costs more
            results = [one(j) for j in range(n)]
        if dense is not None:
            tl = TensorListCPU.wrap(dense, "HWC")
        else:
            tl = TensorListCPU.wrap(results, "HWC", dtype=dtype, ndim=3)
        return self._finish(ws, plan, tl)

    def run_gpu(self, ws: Workspace) -> Any:
        """Same plan as `run_cpu`; every output frame in ONE kernel launch."""
        from dali._ops.image import _multi_paste_gpu

        plan = self.plan(ws)
        return self._finish(ws, plan, _multi_paste_gpu.paste(ws.inputs, plan))

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The dtype (``dtype`` or the input's), the layout and ndim (``FHWC`` when an input
        is a sequence), and the channels when input 0's are static (every region, and a canvas
        without regions, has them)."""
        from dali._dtypes import dali_dtype

        ins = node.inputs
        dtype = node.scalar_args.get("dtype") or ins[0].dtype
        ndims = [x.ndim for x in ins]
        layouts = [x.layout or (_DEFAULT_LAYOUT.get(d) if d is not None else None)
                   for x, d in zip(ins, ndims)]  # fmt: skip
        meta: dict[str, Any] = {"dtype": dali_dtype(dtype) if dtype is not None else None}
        if any(la is None for la in layouts):
            return [meta]
        seq = any(is_sequence(la) for la in layouts)
        meta["layout"] = "FHWC" if seq else "HWC"
        meta["ndim"] = 4 if seq else 3
        shape0 = ins[0].static_shape
        c = shape0[-1] if shape0 is not None else None
        meta["static_shape"] = (None,) * (meta["ndim"] - 1) + (c,)
        return [meta]


def _rows(values: np.ndarray | list[np.ndarray], dtype: Any) -> np.ndarray:
    """Per-frame ``(m, 2)`` values (an array of them, or a list) as one ``(regions, 2)`` array
    of ``dtype``."""
    if isinstance(values, np.ndarray):
        return values.reshape(-1, 2).astype(dtype)
    if not values:
        return np.zeros((0, 2), dtype)
    return np.concatenate([np.asarray(v, dtype) for v in values]).reshape(-1, 2)


def _frames_cpu(tl: Any, seq: bool, plan: PastePlan) -> list[np.ndarray]:
    """The frames of a CPU input, one per frame of the batch (images serve every frame of their
    sample)."""
    samples = tl.samples()
    if plan.counts is None:
        return list(samples)
    sample_of, frame_of = plan.sample_of.tolist(), plan.frame_of.tolist()
    if seq:
        return [samples[s][f] for s, f in zip(sample_of, frame_of)]
    return [samples[s] for s in sample_of]


#: From this output size per frame on, the frames are pasted on the pipeline's threads. Below,
#: each frame is a few copies of tens of KB, each giving the GIL up and taking it back, and the
#: threads mostly wait for each other (a 32x224x224x3 batch of 4 regions per frame: 0.6 ms in
#: one thread, 0.9-1.3 ms on two).
_THREADED_FRAME_BYTES = 1 << 20


def _covered(plan: PastePlan) -> np.ndarray:
    """Which output frames their regions cover whole, by two cheap sufficient tests: a region
    as large as the canvas, or regions pairwise disjoint whose areas add up to the canvas's (a
    tiling: a mosaic). Those canvases need no zeroing before the pastes (DALI zeroes every
    canvas first); the others are zeroed whole."""
    n = plan.num_frames
    counts = np.diff(plan.first)
    frame = np.repeat(np.arange(n), counts)
    canvas = np.array([h * w for h, w, _ in plan.out_shapes], np.int64).reshape(n)
    area = plan.shape[:, 0] * plan.shape[:, 1]
    whole = np.zeros(n, bool)
    whole[frame[(area == canvas[frame]) & (area > 0)]] = True
    total = np.zeros(n, np.int64)
    np.add.at(total, frame, area)
    tiling = (total == canvas) & (canvas > 0) & ~whole
    for m in np.unique(counts[tiling]).tolist():  # frames with m regions, together
        rows = np.flatnonzero(tiling & (counts == m))
        idx = plan.first[rows][:, None] + np.arange(m)  # (frames, m) region indices
        y0, x0 = plan.out_anchor[idx, 0], plan.out_anchor[idx, 1]
        y1, x1 = y0 + plan.shape[idx, 0], x0 + plan.shape[idx, 1]
        overlap = (
            (y0[:, :, None] < y1[:, None, :])
            & (y0[:, None, :] < y1[:, :, None])
            & (x0[:, :, None] < x1[:, None, :])
            & (x0[:, None, :] < x1[:, :, None])
        )
        overlap &= np.triu(np.ones((m, m), bool), 1)  # each pair once, not a region with itself
        tiling[rows] = ~overlap.any(axis=(1, 2))
    return whole | tiling


def _exact_cast(src: np.dtype[Any], dst: np.dtype[Any]) -> bool:
    """Whether numpy's plain cast is DALI's ``ConvertSat`` from ``src`` to ``dst``: to float
    (C's conversion, round to nearest even, as numpy's), or between integers that fit."""
    return dst.kind == "f" or (src.kind in "iu" and np.can_cast(src, dst, "safe"))


def _paste_region(out: np.ndarray, src: np.ndarray) -> None:
    """``out[...] = ConvertSat(src)``: DALI's saturating conversion, NaN becoming 0 in INT16
    (DALI's CPU converts through a 32-bit integer, whose NaN, INT32_MIN, truncates to 0)."""
    if src.dtype == out.dtype or _exact_cast(src.dtype, out.dtype):
        np.copyto(out, src, casting="unsafe")  # one pass, no temporary
        return
    with np.errstate(invalid="ignore"):  # inf - inf while rounding: saturated below
        converted = convert_sat(np, src, out.dtype)
    if out.dtype == np.int16 and src.dtype.kind == "f":
        nan = np.isnan(src)
        if nan.any():
            converted = np.where(nan, np.int16(0), converted)
    out[...] = converted
