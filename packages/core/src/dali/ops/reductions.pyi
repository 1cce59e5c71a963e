# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.reductions` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType

__all__ = [
    "Max",
    "Mean",
    "MeanSquare",
    "Min",
    "RMS",
    "StdDev",
    "Sum",
    "Variance",
]

class Max:
    """The largest element along the reduced axes (NaN skipped).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Max`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Mean:
    """The mean of the elements along the reduced axes.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        dtype (dtype, optional): Output (and accumulation) type.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Mean`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class MeanSquare:
    """The mean of the squared elements along the reduced axes.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        dtype (dtype, optional): Output (and accumulation) type.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `MeanSquare`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Min:
    """The smallest element along the reduced axes (NaN skipped).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Min`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class RMS:
    """The root mean square of the elements along the reduced axes.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        dtype (dtype, optional): Output (and accumulation) type.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `RMS`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class StdDev:
    """The standard deviation along the reduced axes around the given ``mean`` (input 1).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        ddof (int, default 0): Delta degrees of freedom: divide by N - ddof.

    Devices: cpu, gpu. Inputs: 2..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `StdDev`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        mean: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        mean: list[DataNode] | DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Sum:
    """The sum of the elements along the reduced axes.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        dtype (dtype, optional): Output (and accumulation) type.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Sum`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Variance:
    """The variance along the reduced axes around the given ``mean`` (input 1).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional): Axes to reduce (negative from the end); [] reduces none; default: all.
        axis_names (layout, optional): Axes to reduce, by layout name ("" reduces none).
        keep_dims (bool, default False): Keep the reduced axes with extent 1.
        ddof (int, default 0): Delta degrees of freedom: divide by N - ddof.

    Devices: cpu, gpu. Inputs: 2..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Variance`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        mean: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        mean: list[DataNode] | DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        keep_dims: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
