"""`fn.element_extract`, `fn.sequence_rearrange` and `fn.per_frame`: taking frames out of
sequences, reordering them, marking sequences.

A sequence is a sample whose layout starts with ``F`` (`dali._ops._sequences`).

* **element_extract** returns, for every index of ``element_map``, one output holding that
  frame of every sequence: ``FHWC`` in, ``HWC`` out (the ``F`` dropped; an input without a
  layout gives outputs without one). Indices count from 0 and must be below every sample's
  number of frames; negative indices are an error, as in DALI.
* **sequence_rearrange** gives every sequence the frames ``new_order`` lists (frames may
  repeat or be dropped; the result must not be empty): one gather for a uniform batch and one order.
* **per_frame** changes only the layout: it marks an argument input as holding one value per
  frame (``F`` first), for the operators that accept per-frame arguments. Without a layout it
  sets ``F`` followed by ``*`` for the other dimensions; with one, the layout must already start
  with ``F``, unless ``replace=True``, which puts ``F`` in place of its first letter.

No data is copied by ``per_frame``; ``element_extract`` gives views of the input's frames
(ragged batches) or one strided copy per output (uniform batches, the GPU's one launch each).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> clip = np.arange(4 * 2 * 2 * 1, dtype=np.uint8).reshape(4, 2, 2, 1)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [clip], layout="FHWC", batch=True)
    ...     last, first = fn.element_extract(x, element_map=[3, 0])
    ...     return last, first, fn.per_frame(fn.external_source(lambda: [np.ones(4)], batch=True))
    >>> last, first, marked = pipe().run()
    >>> last.layout(), np.array_equal(last.as_array()[0], clip[3]), marked.layout()
    ('HWC', True, 'F')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._sequences import is_sequence
from dali._ops.base import Operator
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ElementExtract", "PerFrame", "SequenceRearrange"]


def _num_outputs(args: Any) -> int:
    element_map = args.get("element_map")
    if element_map is None:
        return 1
    if isinstance(element_map, int):
        return 1
    return max(1, len(element_map))  # an empty map is reported at build (`setup`)


@register(
    "element_extract",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=_num_outputs,
    input_names=("input",),
    args=[
        Arg("element_map", "int_vec", default=REQUIRED, doc="Indices of the frames to extract."),
    ],
)
class ElementExtract(Operator):
    """Extract frames from sequences: one output per index of ``element_map``.

    ``fn.element_extract(video, element_map=[0, -1])`` is an error (no negative indices);
    ``element_map=[2, 0]`` gives two ``HWC`` outputs, the frames 2 and 0 of every ``FHWC``
    sequence.
    """

    def setup(self) -> None:
        self._map = [int(e) for e in self.arg("element_map")]
        if not self._map:
            raise self.arg_error("element_map", "must name at least one element")
        for e in self._map:
            if e < 0:
                raise self.arg_error("element_map", f"negative indices are not allowed, found: {e}")

    def _check(self, tl: Any) -> str:
        layout = tl.layout()
        if layout and not is_sequence(layout):
            raise self.error(
                f"the input layout must describe a sequence (start with 'F'), got '{layout}'"
            )
        if tl.sample_ndim < 2:
            raise self.error(
                "the input must have at least two dimensions: the frames and at least one for "
                f"each frame; got {tl.sample_ndim}"
            )
        shapes = tl.shape()
        for e in self._map:
            for i, s in enumerate(shapes):
                if e >= s[0]:
                    raise self.arg_error(
                        "element_map",
                        f"index {e} is out of bounds for sample {i}, a sequence of {s[0]} elements",
                    )
        return layout[1:]

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws.inputs[0])

    def run_gpu(self, ws: Workspace) -> Any:
        """One strided copy per output for a uniform batch; views of the frames otherwise."""
        return self._run(ws.inputs[0])

    def _run(self, tl: Any) -> Any:
        layout = self._check(tl)
        xp, cls = array_module(tl)
        dense = tl.held_dense
        outs = []
        for e in self._map:
            if dense is not None:
                outs.append(cls.wrap(xp.ascontiguousarray(dense[:, e]), layout))
            else:  # a frame of a C-contiguous sample is itself contiguous: a view
                frames = [s[e] for s in tl.samples()]
                outs.append(cls.wrap(frames, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim - 1))
        return outs[0] if len(outs) == 1 else tuple(outs)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        layout = src.layout[1:] if src.layout else src.layout
        ndim = src.ndim - 1 if src.ndim is not None else None
        shape = src.static_shape[1:] if src.static_shape is not None else None
        element_map = node.scalar_args.get("element_map") or (0,)
        meta = {"dtype": src.dtype, "ndim": ndim, "layout": layout, "static_shape": shape}
        return [dict(meta) for _ in range(max(1, len(element_map)))]


@register(
    "per_frame",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "replace",
            "bool",
            default=False,
            doc="Replace the first letter of an existing layout with 'F' (False: it must be 'F').",
        ),
    ],
)
class PerFrame(Operator):
    """Mark a batch as sequences (its layout starts with ``F``); the data is untouched.

    ``fn.rotate(video, angle=fn.per_frame(angles))`` rotates frame ``k`` of a sample by
    ``angles[k]`` of that sample.
    """

    def _layout(self, layout: str, ndim: int) -> str:
        if ndim < 1:
            raise self.error("cannot mark zero-dimensional input as a sequence")
        if not layout:
            return "F" + "*" * (ndim - 1)
        if self.arg("replace"):
            return "F" + layout[1:]
        if not is_sequence(layout):
            raise self.error(
                "the input must be a sequence: its layout should start with 'F', got "
                f"'{layout}' (replace=True puts 'F' in place of the first letter)"
            )
        return layout

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        layout = self._layout(tl.layout(), tl.sample_ndim)
        _, cls = array_module(tl)
        dense = tl.held_dense
        data = dense if dense is not None else tl.samples()
        return cls.wrap(data, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        layout = None
        if src.ndim is not None and src.ndim >= 1 and src.layout is not None:
            if not src.layout:
                layout = "F" + "*" * (src.ndim - 1)
            elif node.scalar_args.get("replace"):
                layout = "F" + src.layout[1:]
            elif is_sequence(src.layout):
                layout = src.layout
        return [
            {
                "dtype": src.dtype,
                "ndim": src.ndim,
                "layout": layout,
                "static_shape": src.static_shape,
            }
        ]


@register(
    "sequence_rearrange",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "new_order",
            "int_vec",
            default=REQUIRED,
            tensor=True,
            doc="Output frame i is input frame new_order[i]; one list per sample allowed.",
        ),
    ],
)
class SequenceRearrange(Operator):
    """Rearranges frames in a sequence: ``out[i, ...] = in[new_order[i], ...]``.

    The outermost dimension holds the frames (a non-empty layout must start with ``F``).
    Frames may be repeated or dropped, but an output sequence must not be empty; ``new_order``
    may be given per sample (1-D tensors).
    """

    def setup(self) -> None:
        if not self.is_tensor_arg("new_order") and not list(self.arg("new_order")):
            raise self.arg_error("new_order", "Empty result sequences are not allowed.")

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        layout = tl.layout()
        if layout and not is_sequence(layout):
            raise self.error(
                "Expected sequence as the input, where outermost dimension represents frames "
                f'dimension `F`, got data with layout = "{layout}".'
            )
        if tl.sample_ndim < 2:
            raise self.error("Sequence elements must have at least 1 dim")
        orders = ws.arg_vectors("new_order", np.int64)
        per_sample = ws.is_tensor_arg("new_order")
        lengths = [s[0] for s in tl.shape()]
        if per_sample:
            for i, (order, length) in enumerate(zip(orders, lengths)):
                self._check_order(i, order, length)
        elif orders:  # one order: the first sample it does not fit is the error's
            order = orders[0]
            if order.size == 0:
                self._check_order(0, order, lengths[0])
            fits = (order >= 0) & (order[None, :] < np.array(lengths, np.int64)[:, None])
            bad = np.flatnonzero(~fits.all(axis=1))
            if bad.size:
                self._check_order(int(bad[0]), order, lengths[int(bad[0])])
        xp, cls = array_module(tl)
        dense = tl.held_dense
        if dense is not None and not per_sample:
            # one gather per batch: a single np.take beats per-sample copies on threads here
            return cls.wrap(xp.take(dense, xp.asarray(orders[0]), axis=1), layout)
        out = []
        for s, order in zip(tl.samples(), orders):
            out.append(xp.take(s, xp.asarray(order), axis=0))
        return cls.wrap(out, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    def _check_order(self, i: int, order: np.ndarray, length: int) -> None:
        """Raises DALI's error when ``order`` does not fit sample ``i`` of ``length`` frames."""
        if order.size == 0:
            raise self.arg_error(
                "new_order", f"sample {i}: Empty result sequences are not allowed."
            )
        bad = np.flatnonzero((order < 0) | (order >= length))
        if bad.size:
            k = int(bad[0])
            raise self.arg_error(
                "new_order",
                f"new_order[{k}] must be between 0 and input_sequence_length = {length} for "
                f"sample {i}, but it is: {int(order[k])}.",
            )

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        order = node.scalar_args.get("new_order")
        shape = src.static_shape
        if shape is not None and order is not None and len(shape) >= 1:
            shape = (len(order), *shape[1:])
        else:
            shape = None
        meta = {"dtype": src.dtype, "ndim": src.ndim, "layout": src.layout}
        return [{**meta, "static_shape": shape}]
