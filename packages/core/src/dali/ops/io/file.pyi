# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.io.file` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike

from dali.pipeline import DataNode

__all__ = [
    "Read",
]

class Read:
    """Reads raw file contents from an encoded filename represented by a 1-D byte array.

    Each input sample is a path (its UTF-8 bytes as ``uint8`` or ``int8``); each output sample
    is the file's bytes (1-D ``uint8``). Local paths, ``file://`` and fsspec URLs (``s3://``)
    are read. Encode a path with ``np.frombuffer(path.encode("utf-8"), dtype=np.uint8)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dont_use_mmap (bool, default False): Read with plain file I/O instead of mapping the file into memory.
        use_o_direct (bool, default False): Bypass the system cache (accepted; no effect here).

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        preserve: bool | None = ...,
        use_o_direct: bool | None = ...,
    ) -> None:
        """Set the arguments of `Read`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        filepaths: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        preserve: bool | None = ...,
        use_o_direct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        filepaths: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        preserve: bool | None = ...,
        use_o_direct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
