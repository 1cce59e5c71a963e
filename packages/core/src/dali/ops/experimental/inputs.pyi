# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.experimental.inputs` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike

from dali.pipeline import DataNode

__all__ = [
    "Video",
]

class Video:
    """Streams fed videos as batches of frame sequences (CPU: PyAV; mixed: NVDEC).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        sequence_length (int, required): Frames per sequence.
        last_sequence_policy (str, default 'partial'): partial or pad.
        blocking (bool, default False): Wait for feed_input instead of failing.
        no_copy (bool, default False): Accepted (the video is read in place).
        affine (bool, default True): Accepted (thread pinning; no effect).

    Devices: cpu, mixed. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        affine: bool | None = ...,
        blocking: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        last_sequence_policy: str | PathLike[str] | None = ...,
        no_copy: bool | None = ...,
        preserve: bool | None = ...,
        sequence_length: int | None = ...,
    ) -> None:
        """Set the arguments of `Video`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        affine: bool | None = ...,
        blocking: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        last_sequence_policy: str | PathLike[str] | None = ...,
        no_copy: bool | None = ...,
        preserve: bool | None = ...,
        sequence_length: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
