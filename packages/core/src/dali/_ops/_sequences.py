"""Sequences and per-frame arguments: the one rule by which image operators process frames.

A *sequence* is a sample whose layout starts with ``F`` (frames): ``FHWC`` video clips from the
video readers, ``FCHW``... Image operators take sequences as they are and apply the same
parameters to every frame of a sample. A *per-frame argument* gives one value per frame
instead: an argument input whose layout starts with ``F`` (``fn.per_frame(angles)`` sets it),
with one outer entry per frame of the corresponding input sample, or a single entry, which
then serves every frame (DALI's rule, ``sequence_operator.h``).

An operator that accepts per-frame values for some of its arguments calls `unfold` with their
names at the start of a run. When the input is a sequence and one of those arguments is given
per frame, `unfold` returns the batch of *frames* (sum of the frame counts, each an image of
the layout without ``F``, a zero-copy view of the input) with every argument expanded to one
value per frame: per-frame values taken frame by frame, per-sample values repeated. The
operator runs itself on that batch, so a GPU operator still makes one launch per batch, and
`Frames.fold` groups the output frames back into sequences. Otherwise `unfold` returns None and
the operator runs as usual: per-frame arguments given for an input that is not a sequence are
ordinary per-sample values, as in DALI.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> clips = [np.zeros((3, 4, 4, 3), np.uint8)] * 2
    >>> angles = [np.array([0.0, 90.0, 180.0], np.float32)] * 2
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: clips, layout="FHWC", batch=True)
    ...     a = fn.external_source(lambda: angles, batch=True)
    ...     return fn.rotate(x, angle=fn.per_frame(a), keep_size=True)
    >>> out = pipe().run()[0]
    >>> out.layout(), out.shape()
    ('FHWC', [(3, 4, 4, 3), (3, 4, 4, 3)])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Frames", "is_sequence", "unfold"]


def is_sequence(layout: str | None) -> bool:
    """Whether a layout describes sequences (its outermost dimension is ``F``)."""
    return layout is not None and layout[:1] == "F"


class Frames:
    """A batch of sequences seen as a batch of frames (made by `unfold`).

    Attributes:
        ws: The workspace of the frame batch: its input 0 holds the frames (layout without
            ``F``), its arguments hold one value per frame.
        counts: The number of frames of every sequence.
        sample_of: For every frame, the index of its sequence.
    """

    __slots__ = ("counts", "sample_of", "ws")

    def __init__(self, ws: Workspace, counts: np.ndarray, sample_of: np.ndarray) -> None:
        self.ws = ws
        self.counts = counts
        self.sample_of = sample_of

    def groups(self) -> list[slice]:
        """The frames of each sequence, as slices of the frame batch."""
        ends = np.cumsum(self.counts).tolist()
        starts = [0, *ends[:-1]]
        return [slice(a, b) for a, b in zip(starts, ends)]

    def run(self, fn: Any) -> Any:
        """``fn(self.ws)``, with a failing frame reported as a failure of its sequence."""
        try:
            return fn(self.ws)
        except SampleFailure as e:
            raise SampleFailure(int(self.sample_of[e.index]), e.error) from e.error

    def fold(self, out: Any) -> Any:
        """Group a frame batch (an operator's output on `ws`) back into sequences.

        The frames of one sequence must have one shape (operators make them so). A dense
        output of uniform sequences is reshaped, an output whose frames lie back to back in one
        buffer is re-described, both without a copy; otherwise each sequence is stacked.
        """
        if isinstance(out, tuple):
            return tuple(self.fold(o) for o in out)
        cls = type(out)
        layout = "F" + out.layout() if out.layout() else ""
        ndim = out.sample_ndim + 1
        counts = self.counts.tolist()
        dense = out.held_dense
        if dense is not None and counts and counts.count(counts[0]) == len(counts):
            return cls.wrap(dense.reshape(len(counts), counts[0], *dense.shape[1:]), layout)
        shapes = out.shape()
        packed = out.flat()
        groups = self.groups()
        frame_shape = [shapes[g.start] if g.stop > g.start else None for g in groups]
        for g, fs in zip(groups, frame_shape):
            if any(shapes[k] != fs for k in range(g.start, g.stop)):
                raise ValueError(f"frames of one sequence have different shapes: {shapes[g]}")
        if dense is not None and dense.flags.c_contiguous:
            packed = (dense.reshape(-1), shapes)
        if packed is not None:
            flat = packed[0]
            seq_shapes = [
                (c, *fs) if fs is not None else (0, *([0] * out.sample_ndim))
                for c, fs in zip(counts, frame_shape)
            ]
            return cls.wrap_flat(flat, seq_shapes, layout, ndim=ndim)
        xp, _ = array_module(out)
        samples = out.samples()
        seqs = [
            xp.stack(samples[g]) if g.stop > g.start else xp.empty((0,), out.np_dtype)
            for g in groups
        ]
        seqs = [s if s.ndim == ndim else s.reshape((0,) * ndim) for s in seqs]
        return cls.wrap(seqs, layout, dtype=out.np_dtype, ndim=ndim)


def _frames_of(tl: Any) -> Any:
    """The frames of a batch of sequences as a batch of images, without a copy: a dense batch
    is reshaped, samples back to back in one buffer stay there (GPU kernels address them as the
    buffer plus offsets), other samples are split into per-frame views."""
    cls, layout, ndim = type(tl), tl.layout()[1:], tl.sample_ndim - 1
    dense = tl.held_dense
    if dense is not None:
        return cls.wrap(dense.reshape(-1, *dense.shape[2:]), layout)
    packed = tl.flat()
    if packed is not None:
        flat, shapes = packed
        frame_shapes = [tuple(s[1:]) for s in shapes for _ in range(s[0])]
        return cls.wrap_flat(flat, frame_shapes, layout, ndim=ndim)
    frames = [f for s in tl.samples() for f in s]
    return cls.wrap(frames, layout, dtype=tl.np_dtype, ndim=ndim)


def unfold(op: Any, ws: Workspace, names: Iterable[str], input_index: int = 0) -> Frames | None:
    """The frame batch of ``ws`` when its input is a sequence with per-frame ``names`` given.

    Args:
        op: The operator (for its errors).
        ws: Its workspace.
        names: The arguments for which the operator accepts per-frame values.
        input_index: The positional input holding the sequences (other inputs are kept as
            they are).

    Returns:
        The frames (see `Frames`), or None: no unfolding is needed (the input is not a
        sequence, or no argument of ``names`` is given per frame).

    Raises:
        OperatorError: A per-frame argument's outer extent is neither 1 nor the number of
            frames of its sample (naming the operator, the argument and the sample).
    """
    tl = ws.inputs[input_index]
    layout = tl.layout()
    given = ws.arg_inputs
    per_frame = [n for n in names if n in given and is_sequence(given[n].layout())]
    if not is_sequence(layout) or not per_frame:
        return None
    counts = np.array([s[0] for s in tl.shape()], dtype=np.int64)
    sample_of = np.repeat(np.arange(len(counts)), counts)
    frames = _frames_of(tl)
    args: dict[str, Any] = {}
    for name, arg in given.items():
        samples = arg.samples()
        if len(samples) != len(counts):
            raise op.arg_error(
                name, f"got {len(samples)} per-sample values for a batch of {len(counts)}"
            )
        if name in per_frame:
            values: list[Any] = []
            for i, (v, n) in enumerate(zip(samples, counts.tolist())):
                if v.shape[0] not in (1, n):
                    raise op.arg_error(
                        name,
                        f"sample {i} has {v.shape[0]} per-frame values, but sample {i} of the "
                        f"input has {n} frames; the numbers must match (or the argument have "
                        "one value for all frames)",
                    )
                values.extend(v[k if v.shape[0] > 1 else 0, ...] for k in range(n))
            arg_layout = arg.layout()[1:]
        else:  # a per-sample value serves every frame of its sequence
            values = [samples[i] for i in sample_of.tolist()]
            arg_layout = arg.layout()
        args[name] = type(arg).wrap(
            values, arg_layout, dtype=arg.np_dtype, ndim=arg.sample_ndim - (name in per_frame)
        )
    inputs = list(ws.inputs)
    inputs[input_index] = frames
    frame_ws = ws.with_batch(inputs, args, ws.meta.take(sample_of))
    return Frames(frame_ws, counts, sample_of)
