# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.random` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType

__all__ = [
    "Beta",
    "Choice",
    "CoinFlip",
    "Normal",
    "Uniform",
]

class Beta:
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
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `Beta`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class Choice:
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
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        p: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Choice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class CoinFlip:
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
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        probability: float | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `CoinFlip`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class Normal:
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
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `Normal`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class Uniform:
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
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `Uniform`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
