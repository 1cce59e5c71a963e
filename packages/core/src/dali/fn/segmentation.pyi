# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.segmentation` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike

from dali.pipeline import DataNode

__all__ = [
    "random_mask_pixel",
    "random_object_bbox",
    "select_masks",
]

@overload
def random_mask_pixel(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    foreground: int | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    threshold: float | DataNode | ArrayLike | None = ...,
    value: int | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Random coordinates of an element of a mask, of a foreground one when ``foreground``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        value (int, optional, per-sample): Foreground: the elements equal to this.
        threshold (float, default 0.0, per-sample): Foreground: elements above.
        foreground (int, default 0, per-sample): Nonzero: draw from foreground.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..1.
    """

@overload
def random_mask_pixel(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    foreground: int | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    threshold: float | DataNode | ArrayLike | None = ...,
    value: int | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
    """Random coordinates of an element of a mask, of a foreground one when ``foreground``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        value (int, optional, per-sample): Foreground: the elements equal to this.
        threshold (float, default 0.0, per-sample): Foreground: elements above.
        foreground (int, default 0, per-sample): Nonzero: draw from foreground.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..1.
    """

@overload
def random_object_bbox(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    background: int | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    cache_objects: bool | None = ...,
    class_weights: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    classes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    foreground_prob: float | DataNode | ArrayLike | None = ...,
    format: str | PathLike[str] | None = ...,
    ignore_class: bool | None = ...,
    k_largest: int | None = ...,
    output_class: bool | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    threshold: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
    """The bounding box of a randomly chosen object (connected blob) of a label map.

    Typical use, a random crop around an object of a segmentation mask (3-D, DHW):
    ``anchor, shape = fn.segmentation.random_object_bbox(labels, foreground_prob=0.7,
    k_largest=3)``, then a ``fn.roi_random_crop`` of the wanted size around that box.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        format (str, default 'anchor_shape'): "anchor_shape", "start_end" or "box".
        foreground_prob (float, default 1.0, per-sample): P(an object box).
        classes (int_vec, optional, per-sample): Foreground labels (default: all but bg).
        background (int, default 0, per-sample): The background label.
        class_weights (float_vec, optional, per-sample): Relative class probabilities.
        k_largest (int, optional): Pick among the k largest boxes only.
        threshold (int_vec, optional, per-sample): Per-axis minimum box extent.
        ignore_class (bool, default False): Every blob equally likely.
        output_class (bool, default False): Add the chosen label as an output.
        cache_objects (bool, default False): Remember each input's boxes.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..1.
    """

@overload
def random_object_bbox(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    background: int | DataNode | ArrayLike | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    cache_objects: bool | None = ...,
    class_weights: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    classes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    foreground_prob: float | DataNode | ArrayLike | None = ...,
    format: str | PathLike[str] | None = ...,
    ignore_class: bool | None = ...,
    k_largest: int | None = ...,
    output_class: bool | None = ...,
    preserve: bool | None = ...,
    seed: int | None = ...,
    threshold: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> list[list[DataNode]]:
    """The bounding box of a randomly chosen object (connected blob) of a label map.

    Typical use, a random crop around an object of a segmentation mask (3-D, DHW):
    ``anchor, shape = fn.segmentation.random_object_bbox(labels, foreground_prob=0.7,
    k_largest=3)``, then a ``fn.roi_random_crop`` of the wanted size around that box.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        format (str, default 'anchor_shape'): "anchor_shape", "start_end" or "box".
        foreground_prob (float, default 1.0, per-sample): P(an object box).
        classes (int_vec, optional, per-sample): Foreground labels (default: all but bg).
        background (int, default 0, per-sample): The background label.
        class_weights (float_vec, optional, per-sample): Relative class probabilities.
        k_largest (int, optional): Pick among the k largest boxes only.
        threshold (int_vec, optional, per-sample): Per-axis minimum box extent.
        ignore_class (bool, default False): Every blob equally likely.
        output_class (bool, default False): Add the chosen label as an output.
        cache_objects (bool, default False): Remember each input's boxes.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..1.
    """

@overload
def select_masks(
    mask_ids: DataNode | ArrayLike,
    polygons: DataNode | ArrayLike,
    vertices: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    reindex_masks: bool | None = ...,
) -> list[DataNode]:
    """The polygons (and their vertices) of the masks listed in ``mask_ids``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        reindex_masks (bool, default False): Replace the mask ids by their positions in mask_ids.

    Devices: cpu. Inputs: 3..3.
    """

@overload
def select_masks(
    mask_ids: list[DataNode] | DataNode | ArrayLike,
    polygons: list[DataNode] | DataNode | ArrayLike,
    vertices: list[DataNode] | DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    reindex_masks: bool | None = ...,
) -> list[DataNode] | list[list[DataNode]]:
    """The polygons (and their vertices) of the masks listed in ``mask_ids``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        reindex_masks (bool, default False): Replace the mask ids by their positions in mask_ids.

    Devices: cpu. Inputs: 3..3.
    """
