# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.reductions` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType

__all__ = [
    "max",
    "mean",
    "mean_square",
    "min",
    "rms",
    "std_dev",
    "sum",
    "variance",
]

@overload
def max(
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
    """

@overload
def max(
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
    """

@overload
def mean(
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
    """

@overload
def mean(
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
    """

@overload
def mean_square(
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
    """

@overload
def mean_square(
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
    """

@overload
def min(
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
    """

@overload
def min(
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
    """

@overload
def rms(
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
    """

@overload
def rms(
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
    """

@overload
def std_dev(
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
    """

@overload
def std_dev(
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
    """

@overload
def sum(
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
    """

@overload
def sum(
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
    """

@overload
def variance(
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
    """

@overload
def variance(
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
    """
