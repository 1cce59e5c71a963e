# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.experimental.decoders` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike

from dali.pipeline import DataNode

__all__ = [
    "Video",
]

class Video:
    """The deprecated ``experimental.decoders.video``: `VideoDecoder` under its old name.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        frames (int_vec, optional, per-sample): Frame numbers to decode (any order).
        start_frame (int, optional, per-sample): First frame (default 0).
        end_frame (int, optional, per-sample): End of the frames (exclusive).
        sequence_length (int, optional, per-sample): Number of frames from start_frame.
        stride (int, optional, per-sample): Distance between frames (default 1).
        pad_mode (str, default 'constant'): none, constant, edge, reflect_*.
        fill_value (int_vec, default [0]): Colour of constant padding frames.
        build_index (bool, default True): Accepted (an index is always built).
        affine (bool, default True): Accepted (thread pinning; no effect).

    Devices: cpu, mixed. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        affine: bool | None = ...,
        build_index: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        end_frame: int | DataNode | ArrayLike | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        frames: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        pad_mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        sequence_length: int | DataNode | ArrayLike | None = ...,
        start_frame: int | DataNode | ArrayLike | None = ...,
        stride: int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Video`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        encoded: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        affine: bool | None = ...,
        build_index: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        end_frame: int | DataNode | ArrayLike | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        frames: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        pad_mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        sequence_length: int | DataNode | ArrayLike | None = ...,
        start_frame: int | DataNode | ArrayLike | None = ...,
        stride: int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        encoded: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        affine: bool | None = ...,
        build_index: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        end_frame: int | DataNode | ArrayLike | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        frames: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        pad_mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        sequence_length: int | DataNode | ArrayLike | None = ...,
        start_frame: int | DataNode | ArrayLike | None = ...,
        stride: int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
