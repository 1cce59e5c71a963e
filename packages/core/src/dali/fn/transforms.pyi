# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.transforms` operators (generated from the registry)."""

from collections.abc import Sequence
from typing import overload

from numpy.typing import ArrayLike

from dali.pipeline import DataNode

__all__ = [
    "combine",
    "crop",
    "rotation",
    "scale",
    "shear",
    "translation",
]

@overload
def combine(
    input_0: DataNode | ArrayLike,
    input_1: DataNode | ArrayLike,
    /,
    *inputs: DataNode | ArrayLike,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode:
    """Combines two or more affine transforms.

    By default, applying the result to a point is applying the inputs in the order listed:
    ``[T1, T2, T3]`` gives ``T3(T2(T1(x)))``; with ``reverse_order=True``, ``T1(T2(T3(x)))``.
    The inputs must all have one shape, ``(n, n + 1)``; sequences (``"F**"``) are combined
    frame by frame, a non-sequence input serving every frame.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        reverse_order (bool, default False): False: T1, T2, T3 combine to T3·T2·T1 (T1 first); True: to T1·T2·T3.

    Devices: cpu. Inputs: 2..99.
    """

@overload
def combine(
    input_0: list[DataNode] | DataNode | ArrayLike,
    input_1: list[DataNode] | DataNode | ArrayLike,
    /,
    *inputs: list[DataNode] | DataNode | ArrayLike,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode | list[DataNode]:
    """Combines two or more affine transforms.

    By default, applying the result to a point is applying the inputs in the order listed:
    ``[T1, T2, T3]`` gives ``T3(T2(T1(x)))``; with ``reverse_order=True``, ``T1(T2(T3(x)))``.
    The inputs must all have one shape, ``(n, n + 1)``; sequences (``"F**"``) are combined
    frame by frame, a non-sequence input serving every frame.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        reverse_order (bool, default False): False: T1, T2, T3 combine to T3·T2·T1 (T1 first); True: to T1·T2·T3.

    Devices: cpu. Inputs: 2..99.
    """

@overload
def crop(
    input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    absolute: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    from_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    from_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    to_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    to_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Produces an affine transform matrix that maps the box ``[from_start, from_end]`` onto
    ``[to_start, to_end]`` (e.g. to move coordinates into a crop window); applied to the input
    transform, if one is given. A single value stands for every dimension.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        from_start (float_vec, default (0.0,), per-sample): Lower bound of the original coordinate space. Per sample or per frame (fn.per_frame).
        from_end (float_vec, default (1.0,), per-sample): Upper bound of the original coordinate space. Per sample or per frame (fn.per_frame).
        to_start (float_vec, default (0.0,), per-sample): Lower bound of the destination coordinate space. Per sample or per frame (fn.per_frame).
        to_end (float_vec, default (1.0,), per-sample): Upper bound of the destination coordinate space. Per sample or per frame (fn.per_frame).
        absolute (bool, default False): Swap start and end (per axis) where start > end.
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def crop(
    input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    absolute: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    from_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    from_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    to_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    to_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Produces an affine transform matrix that maps the box ``[from_start, from_end]`` onto
    ``[to_start, to_end]`` (e.g. to move coordinates into a crop window); applied to the input
    transform, if one is given. A single value stands for every dimension.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        from_start (float_vec, default (0.0,), per-sample): Lower bound of the original coordinate space. Per sample or per frame (fn.per_frame).
        from_end (float_vec, default (1.0,), per-sample): Upper bound of the original coordinate space. Per sample or per frame (fn.per_frame).
        to_start (float_vec, default (0.0,), per-sample): Lower bound of the destination coordinate space. Per sample or per frame (fn.per_frame).
        to_end (float_vec, default (1.0,), per-sample): Upper bound of the destination coordinate space. Per sample or per frame (fn.per_frame).
        absolute (bool, default False): Swap start and end (per axis) where start > end.
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def rotation(
    input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    angle: float | DataNode | ArrayLike,
    axis: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode:
    """Produces a rotation affine transform matrix (applied to the input transform, if one is
    given): 2-D, or 3-D about `axis` when it is given.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        angle (float, required, per-sample): Angle, in degrees (counter-clockwise). Per sample or per frame (fn.per_frame).
        axis (float_vec, optional, per-sample): Axis of a 3-D rotation (any non-zero length); makes the transform 3-D. Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the rotation (one value per dimension). Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def rotation(
    input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    angle: float | DataNode | ArrayLike,
    axis: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode | list[DataNode]:
    """Produces a rotation affine transform matrix (applied to the input transform, if one is
    given): 2-D, or 3-D about `axis` when it is given.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        angle (float, required, per-sample): Angle, in degrees (counter-clockwise). Per sample or per frame (fn.per_frame).
        axis (float_vec, optional, per-sample): Axis of a 3-D rotation (any non-zero length); makes the transform 3-D. Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the rotation (one value per dimension). Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def scale(
    input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ndim: int | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    scale: Sequence[float] | float | DataNode | ArrayLike,
) -> DataNode:
    """Produces a scale affine transform matrix (applied to the input transform, if one is
    given). The dimensionality is the length of `scale`; for one value, the input's, else
    `ndim`, else 1.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        scale (float_vec, required, per-sample): The scale factor per dimension (one value: every dimension). Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the scaling (as many values as `scale`). Per sample or per frame (fn.per_frame).
        ndim (int, optional): Number of dimensions when `scale` is one value and there is no input.
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def scale(
    input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ndim: int | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    scale: Sequence[float] | float | DataNode | ArrayLike,
) -> DataNode | list[DataNode]:
    """Produces a scale affine transform matrix (applied to the input transform, if one is
    given). The dimensionality is the length of `scale`; for one value, the input's, else
    `ndim`, else 1.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        scale (float_vec, required, per-sample): The scale factor per dimension (one value: every dimension). Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the scaling (as many values as `scale`). Per sample or per frame (fn.per_frame).
        ndim (int, optional): Number of dimensions when `scale` is one value and there is no input.
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def shear(
    input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    angles: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    shear: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Produces a shear affine transform matrix (applied to the input transform, if one is
    given). ``shear`` (or ``angles``, ``tan`` of which are the factors) has 2 values (2-D) or 6,
    a 3×2 matrix (3-D); a shear factor is the offset along the first axis per unit of the
    second.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shear (float_vec, optional, per-sample): Shear factors: 2-D (sx, sy) or 3-D (xy, xz, yx, yz, zx, zy). Per sample or per frame (fn.per_frame).
        angles (float_vec, optional, per-sample): Shear angles in degrees, [-90, 90] (instead of `shear`). Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the shear (one value per dimension). Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def shear(
    input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    angles: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    center: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
    shear: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Produces a shear affine transform matrix (applied to the input transform, if one is
    given). ``shear`` (or ``angles``, ``tan`` of which are the factors) has 2 values (2-D) or 6,
    a 3×2 matrix (3-D); a shear factor is the offset along the first axis per unit of the
    second.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shear (float_vec, optional, per-sample): Shear factors: 2-D (sx, sy) or 3-D (xy, xz, yx, yz, zx, zy). Per sample or per frame (fn.per_frame).
        angles (float_vec, optional, per-sample): Shear angles in degrees, [-90, 90] (instead of `shear`). Per sample or per frame (fn.per_frame).
        center (float_vec, optional, per-sample): The center of the shear (one value per dimension). Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def translation(
    input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    offset: Sequence[float] | float | DataNode | ArrayLike,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode:
    """Produces a translation affine transform matrix (applied to the input transform, if
    one is given).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        offset (float_vec, required, per-sample): The translation vector; its length is the number of dimensions. Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """

@overload
def translation(
    input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    offset: Sequence[float] | float | DataNode | ArrayLike,
    preserve: bool | None = ...,
    reverse_order: bool | None = ...,
) -> DataNode | list[DataNode]:
    """Produces a translation affine transform matrix (applied to the input transform, if
    one is given).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        offset (float_vec, required, per-sample): The translation vector; its length is the number of dimensions. Per sample or per frame (fn.per_frame).
        reverse_order (bool, default False): False: apply this transform after the input's (M·input); True: before (input·M).

    Devices: cpu. Inputs: 0..1.
    """
