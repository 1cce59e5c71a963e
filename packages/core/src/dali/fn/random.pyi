# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.random` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType

__all__ = [
    "beta",
    "choice",
    "coin_flip",
    "normal",
    "uniform",
]

@overload
def beta(
    shape_like: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    alpha: float | DataNode | ArrayLike | None = ...,
    beta: float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Generates a random number from ``[0, 1]`` range following the beta distribution.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        alpha (float, default 1.0, per-sample): The alpha parameter (> 0).
        beta (float, default 1.0, per-sample): The beta parameter (> 0).
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): FLOAT (default) or FLOAT64.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..1.
    """

@overload
def beta(
    shape_like: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    alpha: float | DataNode | ArrayLike | None = ...,
    beta: float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Generates a random number from ``[0, 1]`` range following the beta distribution.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        alpha (float, default 1.0, per-sample): The alpha parameter (> 0).
        beta (float, default 1.0, per-sample): The beta parameter (> 0).
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): FLOAT (default) or FLOAT64.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..1.
    """

@overload
def choice(
    a: DataNode | ArrayLike,
    shape_like: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    p: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Generates a random sample from a given 1D array (or from ``0 .. a - 1`` for a scalar
    ``a``), with the probabilities ``p``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        p (float_or_float_vec, optional, per-sample): The probability of each entry.
        shape (int_or_int_vec, optional, per-sample): Shape of each sample (default: one).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..2.
    """

@overload
def choice(
    a: list[DataNode] | DataNode | ArrayLike,
    shape_like: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    p: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Generates a random sample from a given 1D array (or from ``0 .. a - 1`` for a scalar
    ``a``), with the probabilities ``p``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        p (float_or_float_vec, optional, per-sample): The probability of each entry.
        shape (int_or_int_vec, optional, per-sample): Shape of each sample (default: one).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..2.
    """

@overload
def coin_flip(
    shape_like: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    probability: float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Bernoulli draws: 1 with probability ``probability``, else 0.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        probability (float, default 0.5, per-sample): Probability of a 1.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): BOOL, UINT8 or INT32 (default).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """

@overload
def coin_flip(
    shape_like: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    probability: float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Bernoulli draws: 1 with probability ``probability``, else 0.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        probability (float, default 0.5, per-sample): Probability of a 1.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): BOOL, UINT8 or INT32 (default).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """

@overload
def normal(
    shape_like: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    mean: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    stddev: float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Normally distributed values with the given ``mean`` and ``stddev``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mean (float, default 0.0, per-sample): Mean of the distribution.
        stddev (float, default 1.0, per-sample): Standard deviation.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): Output type (default FLOAT); integers are rounded.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """

@overload
def normal(
    shape_like: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    mean: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    stddev: float | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Normally distributed values with the given ``mean`` and ``stddev``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mean (float, default 0.0, per-sample): Mean of the distribution.
        stddev (float, default 1.0, per-sample): Standard deviation.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): Output type (default FLOAT); integers are rounded.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """

@overload
def uniform(
    shape_like: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    range: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    values: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Uniformly distributed values in ``[range[0], range[1])``, or drawn from ``values``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        range (float_vec, default (-1.0, 1.0), per-sample): [min, max) interval.
        values (float_vec, optional, per-sample): Discrete values to draw from instead.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): Output type (default FLOAT); integers are rounded.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """

@overload
def uniform(
    shape_like: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    preserve: bool | None = ...,
    range: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    values: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Uniformly distributed values in ``[range[0], range[1])``, or drawn from ``values``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        range (float_vec, default (-1.0, 1.0), per-sample): [min, max) interval.
        values (float_vec, optional, per-sample): Discrete values to draw from instead.
        shape (int_vec, optional, per-sample): Shape of each sample (default: scalar).
        dtype (dtype, optional): Output type (default FLOAT); integers are rounded.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..1.
    """
