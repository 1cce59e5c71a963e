# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.noise` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike

from dali.pipeline import DataNode

__all__ = [
    "gaussian",
    "salt_and_pepper",
    "shot",
]

@overload
def gaussian(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    mean: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    stddev: float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Applies gaussian noise to the input.

    The shape and data type of the output will match the input.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mean (float, default 0.0, per-sample): Mean of the distribution.
        stddev (float, default 1.0, per-sample): Standard deviation of the distribution.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """

@overload
def gaussian(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    mean: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    stddev: float | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
    """Applies gaussian noise to the input.

    The shape and data type of the output will match the input.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mean (float, default 0.0, per-sample): Mean of the distribution.
        stddev (float, default 1.0, per-sample): Standard deviation of the distribution.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """

@overload
def salt_and_pepper(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    pepper_val: float | DataNode | ArrayLike | None = ...,
    per_channel: bool | None = ...,
    preserve: bool | None = ...,
    prob: float | DataNode | ArrayLike | None = ...,
    salt_val: float | DataNode | ArrayLike | None = ...,
    salt_vs_pepper: float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
) -> DataNode:
    """Applies salt-and-pepper noise to the input.

    The shape and data type of the output will match the input. Without ``per_channel``, the
    channel axis ('C', or the last one when the layout is empty) must be the first or the last
    axis: a pixel is kept whole, or all its channels become salt, or pepper.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        prob (float, default 0.05, per-sample): Probability of an output value to take a salt or pepper value.
        salt_vs_pepper (float, default 0.5, per-sample): Probability of a corrupted output value to take a salt value.
        salt_val (float, optional, per-sample): Value of salt (default: 1.0 for floats, else the type's maximum).
        pepper_val (float, optional, per-sample): Value of pepper (default: -1.0 for floats, else the type's minimum).
        per_channel (bool, default False): Draw for every channel on its own (else once per pixel, for all channels).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """

@overload
def salt_and_pepper(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    pepper_val: float | DataNode | ArrayLike | None = ...,
    per_channel: bool | None = ...,
    preserve: bool | None = ...,
    prob: float | DataNode | ArrayLike | None = ...,
    salt_val: float | DataNode | ArrayLike | None = ...,
    salt_vs_pepper: float | DataNode | ArrayLike | None = ...,
    seed: int | None = ...,
) -> list[DataNode]:
    """Applies salt-and-pepper noise to the input.

    The shape and data type of the output will match the input. Without ``per_channel``, the
    channel axis ('C', or the last one when the layout is empty) must be the first or the last
    axis: a pixel is kept whole, or all its channels become salt, or pepper.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        prob (float, default 0.05, per-sample): Probability of an output value to take a salt or pepper value.
        salt_vs_pepper (float, default 0.5, per-sample): Probability of a corrupted output value to take a salt value.
        salt_val (float, optional, per-sample): Value of salt (default: 1.0 for floats, else the type's maximum).
        pepper_val (float, optional, per-sample): Value of pepper (default: -1.0 for floats, else the type's minimum).
        per_channel (bool, default False): Draw for every channel on its own (else once per pixel, for all channels).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """

@overload
def shot(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    factor: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
) -> DataNode:
    """Applies shot noise to the input.

    The shot noise is generated by applying the following formula::

        output[:] = poisson_dist(max(0, input[:] / factor)) * factor) if factor != 0
        output[:] = input[:]                                          if factor == 0

    where ``poisson_dist`` represents a poisson distribution. Each event increases the output
    value by ``factor``, and the input holds the expected values; the output is quantized to
    multiples of ``factor``. The shape and data type of the output will match the input.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        factor (float, default 20.0, per-sample): Factor parameter.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """

@overload
def shot(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    factor: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
) -> list[DataNode]:
    """Applies shot noise to the input.

    The shot noise is generated by applying the following formula::

        output[:] = poisson_dist(max(0, input[:] / factor)) * factor) if factor != 0
        output[:] = input[:]                                          if factor == 0

    where ``poisson_dist`` represents a poisson distribution. Each event increases the output
    value by ``factor``, and the input holds the expected values; the output is quantized to
    multiples of ``factor``. The shape and data type of the output will match the input.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        factor (float, default 20.0, per-sample): Factor parameter.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    """
