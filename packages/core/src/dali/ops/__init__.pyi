# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""The object operator API: ``ops.Resize(resize_x=256)(images)`` inside ``define_graph``.

Classes are generated from the operator registry, like `dali.fn`; legacy names of the DALI
slides (``ops.FileReader``, ``ops.nvJPEGDecoder``) are deprecated aliases.
"""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, overload

from numpy.typing import ArrayLike, DTypeLike
from typing_extensions import deprecated

from dali.ops import decoders as decoders
from dali.ops import experimental as experimental
from dali.ops import io as io
from dali.ops import noise as noise
from dali.ops import random as random
from dali.ops import readers as readers
from dali.ops import reductions as reductions
from dali.ops import segmentation as segmentation
from dali.ops import transforms as transforms
from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType, DALIInterpType

__all__ = [
    "AudioDecoder",
    "AudioResample",
    "BBoxPaste",
    "BBoxRotate",
    "BatchPermutation",
    "BbFlip",
    "BoxEncoder",
    "Brightness",
    "BrightnessContrast",
    "COCOReader",
    "Caffe2Reader",
    "CaffeReader",
    "Cast",
    "CastLike",
    "Cat",
    "Clahe",
    "CoinFlip",
    "ColorSpaceConversion",
    "ColorTwist",
    "Constant",
    "Contrast",
    "CoordFlip",
    "CoordTransform",
    "Copy",
    "Crop",
    "CropMirrorNormalize",
    "DLTensorPythonFunction",
    "Debayer",
    "DumpImage",
    "ElementExtract",
    "Equalize",
    "Erase",
    "ExpandDims",
    "ExternalSource",
    "FastResizeCropMirror",
    "FileReader",
    "Filter",
    "Flip",
    "Full",
    "FullLike",
    "GaussianBlur",
    "GetProperty",
    "GridMask",
    "HostDecoder",
    "HostDecoderCrop",
    "HostDecoderRandomCrop",
    "HostDecoderSlice",
    "Hsv",
    "Hue",
    "ImageDecoder",
    "ImageDecoderCrop",
    "ImageDecoderRandomCrop",
    "ImageDecoderSlice",
    "Jitter",
    "JpegCompressionDistortion",
    "Laplacian",
    "LookupTable",
    "MFCC",
    "MXNetReader",
    "MelFilterBank",
    "MultiPaste",
    "NemoAsrReader",
    "NonsilentRegion",
    "NormalDistribution",
    "Normalize",
    "NumpyReader",
    "OneHot",
    "Ones",
    "OnesLike",
    "OpticalFlow",
    "Pad",
    "Paste",
    "PeekImageShape",
    "PerFrame",
    "PermuteBatch",
    "PowerSpectrum",
    "PreemphasisFilter",
    "PythonFunction",
    "ROIRandomCrop",
    "RandomBBoxCrop",
    "RandomCropGenerator",
    "RandomResizedCrop",
    "Reinterpret",
    "Reshape",
    "Resize",
    "ResizeCropMirror",
    "Rotate",
    "Saturation",
    "SequenceReader",
    "SequenceRearrange",
    "Shapes",
    "Slice",
    "Spectrogram",
    "Sphere",
    "Squeeze",
    "Stack",
    "TFRecordReader",
    "TensorResize",
    "ToDecibels",
    "TransformTranslation",
    "Transpose",
    "Uniform",
    "VideoReader",
    "VideoReaderResize",
    "WarpAffine",
    "Water",
    "Zeros",
    "ZerosLike",
    "decoders",
    "experimental",
    "io",
    "noise",
    "nvJPEGDecoder",
    "nvJPEGDecoderCrop",
    "nvJPEGDecoderRandomCrop",
    "nvJPEGDecoderSlice",
    "random",
    "readers",
    "reductions",
    "segmentation",
    "transforms",
]

class AudioResample:
    """Resamples an audio signal.

    The resampling is achieved by applying a sinc filter with Hann window with an extent
    controlled by the `quality` argument.

    The resampling ratio can be specified directly or as a ratio of target to source sampling
    rate, or calculated from the ratio of the requested output length to the input length.
    Samples are ``(time,)`` or ``(time, channels)``; the layout is kept. When the type changes
    the values are normalized to fill the dynamic range of the target type (floats are taken
    to be in -1..1; between signed and unsigned types, 0 maps to half of the unsigned range).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        in_rate (float, optional, per-sample): Input sampling rate (with `out_rate`).
        out_rate (float, optional, per-sample): Output sampling rate (with `in_rate`).
        scale (float, optional, per-sample): Ratio of output to input sampling rate.
        out_length (int, optional, per-sample): The requested output length, in samples.
        quality (float, default 50.0): Resampling quality 0..100 (3..64 lobes).
        dtype (dtype, optional): Output type (default: the input's); values are rescaled.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_rate: float | DataNode | ArrayLike | None = ...,
        out_length: int | DataNode | ArrayLike | None = ...,
        out_rate: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        scale: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `AudioResample`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_rate: float | DataNode | ArrayLike | None = ...,
        out_length: int | DataNode | ArrayLike | None = ...,
        out_rate: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        scale: float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_rate: float | DataNode | ArrayLike | None = ...,
        out_length: int | DataNode | ArrayLike | None = ...,
        out_rate: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        scale: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BatchPermutation:
    """Produces a batch of random integers which can be used as indices for indexing samples
    in the batch.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        allow_repetitions (bool, default False): The output may contain repetitions and omissions.
        no_fixed_points (bool, default False): out[i] != i (ignored for a batch of one sample).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        allow_repetitions: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        no_fixed_points: bool | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
    ) -> None:
        """Set the arguments of `BatchPermutation`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        allow_repetitions: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        no_fixed_points: bool | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BbFlip:
    """Flip relative bounding boxes horizontally (default) and/or vertically.

    ``fn.bb_flip(boxes, horizontal=flip)`` follows ``fn.flip(images, horizontal=flip)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        horizontal (int, default 1, per-sample): Nonzero: flip horizontally.
        vertical (int, default 0, per-sample): Nonzero: flip vertically.
        ltrb (bool, default False): Boxes are [l, t, r, b] (else [x, y, w, h]).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `BbFlip`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BBoxPaste:
    """Transform relative boxes so that they follow an image pasted by `fn.paste`.

    Give both operators the same ``ratio``, ``paste_x`` and ``paste_y`` (per-sample values too).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        ratio (float, required, per-sample): Canvas size / image size, as given to fn.paste (at least 1).
        paste_x (float, default 0.5, per-sample): Horizontal paste position, 0..1.
        paste_y (float, default 0.5, per-sample): Vertical paste position, 0..1.
        ltrb (bool, default False): Boxes are [l, t, r, b] (else [x, y, w, h]).

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ltrb: bool | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `BBoxPaste`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ltrb: bool | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ltrb: bool | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BBoxRotate:
    """Rotate bounding boxes (and drop their labels) as `fn.rotate` rotates their image.

    Example: ``boxes, labels = fn.bbox_rotate(boxes, labels, angle=angle,
    input_shape=image.shape(), keep_size=True)``, then
    ``image = fn.rotate(image, angle=angle, keep_size=True)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        angle (float, required, per-sample): Rotation angle in degrees.
        input_shape (int_vec, required, per-sample): The image's shape.
        shape_layout (layout, default 'HW'): The layout of `input_shape`.
        bbox_layout (layout, default 'xyXY'): "xyXY" or "xyWH".
        bbox_normalized (bool, default True): The boxes are relative ([0, 1]).
        keep_size (bool, default False): The canvas is the input size.
        size (float_vec, optional, per-sample): The canvas size (H, W) of `fn.rotate`.
        mode (str, default 'expand'): "expand", "halfway" or "fixed".
        remove_threshold (float, default 0.1): Drop boxes keeping less area.

    Devices: cpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bbox_layout: str | None = ...,
        bbox_normalized: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        keep_size: bool | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        remove_threshold: float | None = ...,
        shape_layout: str | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `BBoxRotate`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        bboxes: DataNode | ArrayLike,
        labels: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bbox_layout: str | None = ...,
        bbox_normalized: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        keep_size: bool | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        remove_threshold: float | None = ...,
        shape_layout: str | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        bboxes: list[DataNode] | DataNode | ArrayLike,
        labels: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bbox_layout: str | None = ...,
        bbox_normalized: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        keep_size: bool | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        remove_threshold: float | None = ...,
        shape_layout: str | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode] | list[DataNode | list[DataNode] | None] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BoxEncoder:
    """Match boxes ``[N, 4]`` (ltrb) and labels ``[N]`` to the anchors: ``[A, 4]`` boxes
    (centre-xywh, or SSD offsets with ``offset=True``) and ``[A]`` labels per sample.

    Example: ``boxes, labels = fn.box_encoder(boxes, labels, anchors=default_boxes,
    criteria=0.5, offset=True, scale=std_scale)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        anchors (float_vec, required): Anchors, 4 floats each (ltrb).
        criteria (float, default 0.5): IoU above which an anchor is matched (0..1).
        offset (bool, default False): Output SSD's normalised offsets.
        means (float_vec, default (0.0, 0.0, 0.0, 0.0)): [x y w h] offset means.
        stds (float_vec, default (1.0, 1.0, 1.0, 1.0)): [x y w h] offset stds.
        scale (float, default 1.0): Scale of boxes and anchors before the offsets.

    Devices: cpu, gpu. Inputs: 2..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchors: Sequence[float] | float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        criteria: float | None = ...,
        means: Sequence[float] | float | None = ...,
        offset: bool | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        stds: Sequence[float] | float | None = ...,
    ) -> None:
        """Set the arguments of `BoxEncoder`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        bboxes: DataNode | ArrayLike,
        labels: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchors: Sequence[float] | float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        criteria: float | None = ...,
        means: Sequence[float] | float | None = ...,
        offset: bool | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        stds: Sequence[float] | float | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        bboxes: list[DataNode] | DataNode | ArrayLike,
        labels: list[DataNode] | DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchors: Sequence[float] | float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        criteria: float | None = ...,
        means: Sequence[float] | float | None = ...,
        offset: bool | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        stds: Sequence[float] | float | None = ...,
    ) -> list[DataNode] | list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Brightness:
    """``out = brightness_shift · range + brightness · in`` (range: 1, or the type's maximum).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        brightness (float, default 1.0, per-sample): Brightness multiplier.
        brightness_shift (float, default 0.0, per-sample): Shift, in units of the output range (1 = the type's maximum).
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Brightness`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
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
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class BrightnessContrast:
    """``out = brightness_shift·range + brightness·(center + contrast·(in − center))``.

    ``range`` is 1 for float outputs and the type's maximum for integers; ``center`` defaults to
    half the input type's positive range (128 for uint8, 0.5 for floats).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        brightness (float, default 1.0, per-sample): Brightness multiplier.
        brightness_shift (float, default 0.0, per-sample): Shift, in units of the output range (1 = the type's maximum).
        contrast (float, default 1.0, per-sample): Contrast multiplier (0: flat).
        contrast_center (float, default 0.5, per-sample): Level unaffected by contrast (default: half the input type's range).
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `BrightnessContrast`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
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
        brightness: float | DataNode | ArrayLike | None = ...,
        brightness_shift: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Cast:
    """Cast the data to ``dtype``: floats round half away from zero, integers saturate.

    ``fn.cast(x, dtype=types.UINT8)`` maps ``[-1.5, 2.5, 300.0]`` to ``[0, 3, 255]``; casting
    ``70000.0`` to FLOAT16 gives ``inf``; any type cast to BOOL is ``x != 0``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dtype (dtype, required): The output data type.

    Devices: cpu, gpu. Inputs: 1..1.
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
    ) -> None:
        """Set the arguments of `Cast`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class CastLike:
    """Cast the first input to the data type of the second (same rules as `fn.cast`).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).

    Devices: cpu, gpu. Inputs: 2..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `CastLike`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        like: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode] | DataNode | ArrayLike,
        like: list[DataNode] | DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Cat:
    """Joins the input tensors along an existing axis.

    The shapes of the inputs must match in all dimensions except the concatenation axis.
    ``axis`` accepts [-ndim, ndim-1]; negative indices count from the back. ``axis_name``
    (exclusive with ``axis``) names the axis in the input layout.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axis (int, default 0): Axis along which the inputs are concatenated.
        axis_name (str, optional): Name of the concatenation axis (instead of `axis`).

    Devices: cpu, gpu. Inputs: 1..999.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Cat`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *inputs: DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode] | DataNode | ArrayLike,
        /,
        *inputs: list[DataNode] | DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Clahe:
    """Contrast Limited Adaptive Histogram Equalization (CLAHE) operator.

    Performs local histogram equalization with clipping and bilinear blending of lookup
    tables (LUTs) between neighboring tiles. This technique enhances local contrast while
    preventing over-amplification of noise. Attempts to use same algorithm as OpenCV
    (https://docs.opencv.org/4.x/d5/daf/tutorial_py_histogram_equalization.html). The input
    image is divided into rectangular tiles, and histogram equalization is applied to each
    tile independently. To avoid artifacts at tile boundaries, the lookup tables are
    bilinearly interpolated between neighboring tiles. Supports both grayscale (1-channel)
    and RGB (3-channel) uint8 images in HWC layout.

    **IMPORTANT COLOR ORDER REQUIREMENT**: For 3-channel images, the channels must be in RGB
    order (Red, Green, Blue). BGR images (common in OpenCV) will produce incorrect results
    when luma_only=True, as the luminance calculation assumes RGB channel order.

    For RGB images, by default CLAHE is applied to the luminance channel only
    (luma_only=True), preserving color relationships. When luma_only=False, CLAHE is applied
    to each color channel independently (CPU only).

    The CPU backend gives OpenCV's results bit for bit; the GPU backend is DALI's own CUDA
    algorithm, within a mean squared error of 5 and a mean absolute error of 2 of it.

    Example usage::

        # Grayscale image
        clahe_out = fn.clahe(grayscale_image, tiles_x=8, tiles_y=8, clip_limit=2.0)

        # RGB image with luminance-only processing (default)
        clahe_out = fn.clahe(rgb_image, tiles_x=8, tiles_y=8, clip_limit=3.0, luma_only=True)

        # RGB image with per-channel processing (CPU)
        clahe_out = fn.clahe(rgb_image, tiles_x=8, tiles_y=8, clip_limit=2.0, luma_only=False)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        tiles_x (int, required): Number of tiles along the image width. Higher values provide more localized enhancement but may introduce artifacts; typical values range from 4 to 16. Must be positive.
        tiles_y (int, required): Number of tiles along the image height. Higher values provide more localized enhancement but may introduce artifacts; typical values range from 4 to 16. Must be positive.
        clip_limit (float, required): Relative clip limit multiplier for histogram bins: the actual clip limit is clip_limit * (tile_area / bins). Values > 1.0 enhance contrast, values close to 1.0 provide minimal enhancement; typical values range from 1.5 to 4.0. On the CPU, a value <= 0 disables clipping (OpenCV); on the GPU the limit is at least 1.
        bins (int, default 256): Number of histogram bins for CLAHE computation (documented as a power of 2). As in DALI 2.4, both backends use 256 bins whatever the value.
        luma_only (bool, default True): For RGB inputs, apply CLAHE to the luminance (L* of CIE L*a*b*) only, preserving color relationships; when False, to each channel independently. The GPU backend supports only luma_only=True for RGB images.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bins: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        clip_limit: float | None = ...,
        luma_only: bool | None = ...,
        preserve: bool | None = ...,
        tiles_x: int | None = ...,
        tiles_y: int | None = ...,
    ) -> None:
        """Set the arguments of `Clahe`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bins: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        clip_limit: float | None = ...,
        luma_only: bool | None = ...,
        preserve: bool | None = ...,
        tiles_x: int | None = ...,
        tiles_y: int | None = ...,
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
        bins: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        clip_limit: float | None = ...,
        luma_only: bool | None = ...,
        preserve: bool | None = ...,
        tiles_x: int | None = ...,
        tiles_y: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ColorSpaceConversion:
    """Converts between various image color models.

    Supports RGB, BGR, GRAY (1 channel) and YCbCr (ITU-R BT.601, 16..235) uint8 images, and
    sequences (``FHWC``) and volumes (``DHWC``, ``FDHWC``) of them.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        image_type (image_type, required): The color space of the input.
        output_type (image_type, required): The color space of the output.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `ColorSpaceConversion`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ColorTwist:
    """Adjust hue, saturation, brightness and contrast of RGB images in one transform.

    The defaults are exactly the identity; ``brightness=0.5`` halves and rounds;
    ``saturation=0`` gives grey.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        brightness (float, default 1.0, per-sample): Brightness multiplier.
        contrast (float, default 1.0, per-sample): Contrast factor (0: grey).
        saturation (float, default 1.0, per-sample): Saturation factor (0: grey).
        hue (float, default 0.0, per-sample): Hue change in degrees.
        image_type (image_type, default 0): Colour space (RGB); kept as is.
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `ColorTwist`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        brightness: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
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
        brightness: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Constant:
    """Produces a batch of constant tensors.

    Floating point values go in ``fdata`` and integer values in ``idata`` (exactly one of
    them); a flat vector of values or a single value, reshaped to ``shape`` (a single value is
    broadcast to fill it). Without ``dtype`` the output is FLOAT for ``fdata`` and INT32 for
    ``idata``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        fdata (float_vec, optional): The values, for floating point types.
        idata (int_vec, optional): The values, for integer types.
        shape (int_vec, optional): Shape of the output; without it the data is 1-D.
        layout (layout, default ''): Layout of the output.
        dtype (dtype, optional): Output type (default: FLOAT for fdata, INT32 for idata).

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fdata: Sequence[float] | float | None = ...,
        idata: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | None = ...,
    ) -> None:
        """Set the arguments of `Constant`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fdata: Sequence[float] | float | None = ...,
        idata: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Contrast:
    """``out = center + contrast · (in − center)`` (center: half the input type's range).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        contrast (float, default 1.0, per-sample): Contrast multiplier (0: flat).
        contrast_center (float, default 0.5, per-sample): Level unaffected by contrast (default: half the input type's range).
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Contrast`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        contrast: float | DataNode | ArrayLike | None = ...,
        contrast_center: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class CoordFlip:
    """Transforms vectors or points by flipping (reflecting) their coordinates with respect
    to a given center.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        layout (layout, default ''): Order of the coordinates: "x", "xy", "xyz"...
        flip_x (int, default 1, per-sample): Flip the horizontal (x) coordinate.
        flip_y (int, default 0, per-sample): Flip the vertical (y) coordinate.
        flip_z (int, default 0, per-sample): Flip the depthwise (z) coordinate.
        center_x (float, default 0.5, per-sample): Flip centre on the x axis.
        center_y (float, default 0.5, per-sample): Flip centre on the y axis.
        center_z (float, default 0.5, per-sample): Flip centre on the z axis.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_x: float | DataNode | ArrayLike | None = ...,
        center_y: float | DataNode | ArrayLike | None = ...,
        center_z: float | DataNode | ArrayLike | None = ...,
        flip_x: int | DataNode | ArrayLike | None = ...,
        flip_y: int | DataNode | ArrayLike | None = ...,
        flip_z: int | DataNode | ArrayLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `CoordFlip`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_x: float | DataNode | ArrayLike | None = ...,
        center_y: float | DataNode | ArrayLike | None = ...,
        center_z: float | DataNode | ArrayLike | None = ...,
        flip_x: int | DataNode | ArrayLike | None = ...,
        flip_y: int | DataNode | ArrayLike | None = ...,
        flip_z: int | DataNode | ArrayLike | None = ...,
        layout: str | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_x: float | DataNode | ArrayLike | None = ...,
        center_y: float | DataNode | ArrayLike | None = ...,
        center_z: float | DataNode | ArrayLike | None = ...,
        flip_x: int | DataNode | ArrayLike | None = ...,
        flip_y: int | DataNode | ArrayLike | None = ...,
        flip_z: int | DataNode | ArrayLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class CoordTransform:
    """Apply ``out = M · in + T`` to the points (last dimension) of every sample.

    Example: ``fn.coord_transform(points, MT=fn.transforms.rotation(angle=30))`` (any affine
    matrix), ``fn.coord_transform(rgb, M=[0.299, 0.587, 0.114])`` (grayscale).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        M (float_vec, optional, per-sample): Matrix (rows x D, row-major) or a scalar.
        T (float_vec, optional, per-sample): Translation (rows values) or a scalar.
        MT (float_vec, optional, per-sample): Block matrix [M T] or a scalar.
        dtype (dtype, default <DALIDataType.FLOAT: 9>): FLOAT or the input's type.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        M: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        MT: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        T: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `CoordTransform`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        M: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        MT: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        T: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
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
        M: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        MT: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        T: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Copy:
    """A copy of the input (same shape, type and layout).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Copy`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Crop:
    """Crop a window of ``crop`` (H, W) or ``crop_h``×``crop_w`` at ``crop_pos_x/y``.

    The window starts at ``round(crop_pos · (extent − crop))`` (halves away from zero). The
    layout and, unless ``dtype`` is given, the type are kept: ``fn.crop(img, crop=(20, 30))`` of a
    40×60 HWC image is ``img[10:30, 15:45]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        crop (float_vec, optional, per-sample): Window size (H, W) or (D, H, W).
        crop_h (float, default 0.0, per-sample): Window height (0: whole height).
        crop_w (float, default 0.0, per-sample): Window width (0: whole width).
        crop_d (float, default 0.0, per-sample): Window depth (volumes, sequences).
        crop_pos_x (float, default 0.5, per-sample): Normalised horizontal start.
        crop_pos_y (float, default 0.5, per-sample): Normalised vertical start.
        crop_pos_z (float, default 0.5, per-sample): Normalised depth start.
        rounding (str, default 'round'): "round" (half away from zero) or "truncate".
        out_of_bounds_policy (str, default 'error'): "error", "pad" (fill with fill_values) or "trim_to_shape".
        fill_values (float_vec, default (0.0,)): Padding value(s): one, or per channel.
        image_type (image_type, optional): Deprecated; ignored.
        dtype (dtype, optional): Output type: FLOAT, FLOAT16 or UINT8 (default: the input's).
        output_dtype (dtype, optional): Deprecated alias of `dtype`.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
    ) -> None:
        """Set the arguments of `Crop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class CropMirrorNormalize:
    """Crop, mirror, normalise, change the layout and the type in one pass.

    ``out = scale · (in − mean) / std + shift``; ``mirror`` flips the cropped window horizontally;
    the default output is FLOAT in CHW layout (``output_layout="HWC"`` keeps HWC). With
    ``mean=128, std=64, scale=64, shift=128, dtype=UINT8`` the output equals the input.
    ``mirror=fn.random.coin_flip()`` is the usual per-sample augmentation.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        crop (float_vec, optional, per-sample): Window size (H, W) or (D, H, W).
        crop_h (float, default 0.0, per-sample): Window height (0: whole height).
        crop_w (float, default 0.0, per-sample): Window width (0: whole width).
        crop_d (float, default 0.0, per-sample): Window depth (volumes, sequences).
        crop_pos_x (float, default 0.5, per-sample): Normalised horizontal start.
        crop_pos_y (float, default 0.5, per-sample): Normalised vertical start.
        crop_pos_z (float, default 0.5, per-sample): Normalised depth start.
        rounding (str, default 'round'): "round" (half away from zero) or "truncate".
        out_of_bounds_policy (str, default 'error'): "error", "pad" (fill with fill_values) or "trim_to_shape".
        fill_values (float_vec, default (0.0,)): Padding value(s): one, or per channel.
        image_type (image_type, optional): Deprecated; ignored.
        mean (float_vec, default (0.0,), per-sample): Mean, one or per channel.
        std (float_vec, default (1.0,), per-sample): Std, one or per channel.
        mirror (int, default 0, per-sample): Nonzero: flip horizontally.
        scale (float, default 1.0): Multiplies the normalised value.
        shift (float, default 0.0): Added after scaling.
        dtype (dtype, optional): FLOAT (default), FLOAT16, INT8 or UINT8.
        output_dtype (dtype, optional): Deprecated alias of `dtype`.
        output_layout (layout, default 'CHW'): Output layout (default CHW).
        pad_output (bool, default False): Pad channels to a power of two.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        mean: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        output_layout: str | None = ...,
        pad_output: bool | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        std: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `CropMirrorNormalize`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        mean: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        output_layout: str | None = ...,
        pad_output: bool | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        std: Sequence[float] | float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        mean: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        output_layout: str | None = ...,
        pad_output: bool | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        std: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Debayer:
    """Performs image demosaicing/debayering.

    Converts single-channel image to RGB using specified color filter array. The supported
    input types are ``uint8_t`` and ``uint16_t``; the output is ``HWC`` (``FHWC`` for
    sequences).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        blue_position (int_vec, required, per-sample): (y, x) of the blue sensor in the 2x2 tile: (0, 0) BG ... (1, 1) RG.
        algorithm (str, optional): CPU: bilinear_ocv (default), edgeaware_ocv, ...

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        algorithm: str | PathLike[str] | None = ...,
        blue_position: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Debayer`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        algorithm: str | PathLike[str] | None = ...,
        blue_position: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        algorithm: str | PathLike[str] | None = ...,
        blue_position: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class DLTensorPythonFunction:
    """Run a Python function on DLPack capsules (`dl_tensor_function`'s docstring).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        function (callable, required): The function to call.
        num_outputs (int, default 1): Number of outputs (0: side effects only).
        output_layouts (any, optional): Layout of each output (a str or a list of str).
        synchronize_stream (bool, default True): Accepted for compatibility.
        batch_processing (bool, default True): Call once per batch with lists of capsules (True, the default) or per sample.

    Devices: cpu, gpu. Inputs: 0..1024.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        batch_processing: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        function: Callable[..., Any] | None = ...,
        num_outputs: int | None = ...,
        output_layouts: Any = ...,
        preserve: bool | None = ...,
        synchronize_stream: bool | None = ...,
    ) -> None:
        """Set the arguments of `DLTensorPythonFunction`; the call may give any of them too."""
    def __call__(
        self,
        *inputs: DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        batch_processing: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        function: Callable[..., Any] | None = ...,
        num_outputs: int | None = ...,
        output_layouts: Any = ...,
        preserve: bool | None = ...,
        synchronize_stream: bool | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class DumpImage:
    """Save images in batch to disk in PPM format.

    Useful for debugging.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        suffix (str, default ''): Suffix to be added to output file names.
        input_layout (layout, default 'HWC'): Layout of input images.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_layout: str | None = ...,
        preserve: bool | None = ...,
        suffix: str | PathLike[str] | None = ...,
    ) -> None:
        """Set the arguments of `DumpImage`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_layout: str | None = ...,
        preserve: bool | None = ...,
        suffix: str | PathLike[str] | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        input_layout: str | None = ...,
        preserve: bool | None = ...,
        suffix: str | PathLike[str] | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ElementExtract:
    """Extract frames from sequences: one output per index of ``element_map``.

    ``fn.element_extract(video, element_map=[0, -1])`` is an error (no negative indices);
    ``element_map=[2, 0]`` gives two ``HWC`` outputs, the frames 2 and 0 of every ``FHWC``
    sequence.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        element_map (int_vec, required): Indices of the frames to extract.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        element_map: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `ElementExtract`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        element_map: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        element_map: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode | list[DataNode] | None]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Equalize:
    """Performs grayscale/per-channel histogram equalization.

    The supported inputs are images and videos of uint8_t type.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Equalize`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Erase:
    """Erases one or more regions from the input tensors.

    The region is specified by an ``anchor`` (starting point) and a ``shape`` (dimensions).
    Only the relevant dimensions are specified; the others are covered whole. To specify
    multiple regions, ``anchor`` and ``shape`` hold them consecutively (``anchor`` = (y0, x0,
    y1, x1, ...), ``shape`` = (h0, w0, h1, w1, ...)), along the axes of ``axis_names`` or
    ``axes``; without them, all dimensions except ``C`` must be given. ``fill_value`` is one
    value, or one per channel. This operator allows sequence inputs and supports volumetric
    data.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        anchor (float_vec, default (), per-sample): Coordinates of the regions' starting points, along the axes given.
        shape (float_vec, default (), per-sample): Extents of the regions, along the axes given.
        axes (int_vec, default (1, 0)): Order of dimensions used for anchor and shape, as dimension indices.
        axis_names (layout, default 'HW'): Order of dimensions used for anchor and shape, as layout names (wins over axes).
        fill_value (float_vec, default (0.0,), per-sample): Value of the erased regions: one, or one per channel.
        normalized_anchor (bool, default False): The anchor is relative to the extent ([0, 1]).
        normalized_shape (bool, default False): The shape is relative to the extent ([0, 1]).
        normalized (bool, default False): Both anchor and shape are relative (exclusive with the two above).
        centered_anchor (bool, default False): The anchor is the centre of the region instead of its first corner.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        centered_anchor: bool | None = ...,
        fill_value: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        normalized: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Erase`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        centered_anchor: bool | None = ...,
        fill_value: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        normalized: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        centered_anchor: bool | None = ...,
        fill_value: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        normalized: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ExpandDims:
    """Insert new dimension(s) with extent 1 to the data shape.

    The new dimensions are inserted at the positions specified by ``axes`` (positions in the
    output). With ``new_axis_names`` (one letter per axis) their names are inserted in the
    layout at the same positions; without it the output layout is empty.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, required): Output positions of the new dimensions.
        new_axis_names (layout, default ''): Layout letters of the new dimensions.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_axis_names: str | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `ExpandDims`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_axis_names: str | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_axis_names: str | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ExternalSource:
    """Data from Python: a callable, an iterable, a generator function, or `feed_input`.

    Example:
        >>> import numpy as np
        >>> from dali import fn, pipeline_def
        >>> @pipeline_def(batch_size=4, num_threads=1)
        ... def pipe():
        ...     return fn.external_source(source=[[np.arange(3)] * 4], cycle=True)
        >>> pipe().run()[0].shape()
        [(3,), (3,), (3,), (3,)]

    Without a declared ``dtype``, ``ndim`` or ``layout`` the first batch of each output sets
    them for the pipeline's life (`Pipeline.reset` keeps them): a later batch with another
    type, number of dimensions or layout is an error naming the source and the iteration,
    as in DALI.

    ``timeout`` (beyond DALI; parallel sources only) is how many seconds a run waits for a
    batch of this source from the worker processes: the time the workers have for it beyond
    the ``prefetch_queue_depth`` batches they compute ahead (the first batch also waits for
    the workers to start, about a second with ``py_start_method="spawn"``). The default,
    None, waits for ever, as DALI does and as PyTorch's ``DataLoader(timeout=0)`` does, since
    a callback may legitimately be slow. When it expires the run raises an error naming the
    source, the worker (index and pid) and the iteration; the unresponsive workers are killed
    (a stopped one too) and the others stopped, and the pipeline can only be closed. A worker
    that dies is reported at once, with or without a timeout. A non-parallel source with a
    ``timeout`` has its callback (or iterable) called on a thread of its own (``dali-source``),
    in order, and the run gives up on it after ``timeout`` seconds, raising an error naming the
    source and the iteration; a stuck callback cannot be stopped, so the pipeline can then only
    be closed. A ``blocking`` source fed with `feed_input` waits at most ``timeout`` for a
    batch. Without a ``timeout`` a non-parallel source runs in the thread that calls
    `Pipeline.run`, where a stuck callback can be interrupted with Ctrl-C.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        source (any, optional): Callable, iterable or generator function giving the data.
        num_outputs (int, optional): Number of outputs (the source returns a tuple of them).
        cycle (any, optional): None/False/"no", True/"quiet" or "raise" (iterables).
        layout (any, optional): Layout of the data (a list: one per output).
        dtype (any, optional): Expected data type, checked (a list: one per output).
        ndim (any, optional): Expected number of dimensions, checked (a list: one per output).
        cuda_stream (any, optional): The stream the source's GPU data is produced on (default: the caller's current stream); the pipeline's stream waits for it on the GPU.
        use_copy_kernel (bool, optional): Accepted for compatibility.
        blocking (bool, default False): Wait for feed_input instead of failing.
        batch (bool, optional): True: the source returns batches; False: one sample per call.
        batch_info (bool, default False): Pass BatchInfo instead of the iteration.
        repeat_last (bool, default False): Re-use the last fed batch when none is new.
        parallel (bool, default False): Run the source in py_num_workers processes.
        no_copy (bool, optional): Use the data without copying it (keep it unchanged).
        prefetch_queue_depth (int, optional): Parallel only: batches computed ahead (1).
        timeout (float, optional): Beyond DALI: seconds to wait for a batch (from the workers, the callback or feed_input) before failing (None: for ever).

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        source: Any = ...,
        num_outputs: int | None = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        batch: bool | None = ...,
        batch_info: bool | None = ...,
        blocking: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cuda_stream: Any = ...,
        cycle: Any = ...,
        dtype: Any = ...,
        layout: Any = ...,
        ndim: Any = ...,
        no_copy: bool | None = ...,
        parallel: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        repeat_last: bool | None = ...,
        timeout: float | None = ...,
        use_copy_kernel: bool | None = ...,
    ) -> None:
        """Set the arguments of `ExternalSource`; the call may give any of them too."""
    def __call__(
        self,
        source: Any = ...,
        num_outputs: int | None = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        batch: bool | None = ...,
        batch_info: bool | None = ...,
        blocking: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cuda_stream: Any = ...,
        cycle: Any = ...,
        dtype: Any = ...,
        layout: Any = ...,
        ndim: Any = ...,
        no_copy: bool | None = ...,
        parallel: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        repeat_last: bool | None = ...,
        timeout: float | None = ...,
        use_copy_kernel: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Filter:
    """Convolves the image with the provided filter (a correlation: the filter is not
    flipped).

    Inputs: ``data`` (images ``HW``/``HWC``/``CHW``, sequences ``F...``, volumes on the GPU),
    ``filter`` (float32, one 2-D array per sample, or per frame: a sequence of 2-D filters
    for a video; 3-D for volumes) and an optional ``fill_value`` (a scalar of the input's
    type per sample, or per frame) used by ``border="constant"`` (0 without it).

    With the filter of shape ``(r, s)`` and ``anchor=(a, b)``, the output at ``(y, x)`` is
    the sum of the filter times the input window from ``(y - a, x - b)`` to ``(y - a + r - 1,
    x - b + s - 1)``; ``anchor=-1`` centres the filter (the middle, rounded down). ``border``
    says how out-of-range positions read the input: ``reflect_101`` (``dcb|abcd``, the
    default), ``reflect_1001`` (``cba|abcd``), ``wrap``, ``clamp`` or ``constant``.
    ``mode="valid"`` crops the output by ``filter_extent - 1`` to the positions where the
    filter lies inside the sample (``anchor`` is then ignored). The computation is in float32;
    an integer output is rounded and saturated.

    Supported types: CPU uint8, uint16, int16, float32 with 2 data axes; GPU also int8,
    float16 and volumes (3 data axes).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        anchor (int_or_int_vec, default (-1,), per-sample): Position of the filter over the input, per filter extent; -1: the middle. Per sample and per frame; ignored in 'valid' mode.
        border (str, default 'reflect_101'): 'reflect_101', 'reflect_1001', 'wrap', 'clamp' or 'constant'.
        mode (str, default 'same'): 'same' or 'valid'.
        dtype (dtype, optional): Output type: FLOAT, or the input's type (the default).

    Devices: cpu, gpu. Inputs: 2..3.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Filter`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        filter: DataNode | ArrayLike,
        fill_value: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        filter: list[DataNode] | DataNode | ArrayLike,
        fill_value: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Flip:
    """Flip the images horizontally (default), vertically and/or depthwise.

    ``fn.flip(img)`` mirrors left-right; ``fn.flip(img, horizontal=0, vertical=1)`` upside
    down. Layouts (F)(D)HWC and (F)C(D)HW.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        horizontal (int, default 1, per-sample): Nonzero: flip along W.
        vertical (int, default 0, per-sample): Nonzero: flip along H.
        depthwise (int, default 0, per-sample): Nonzero: flip along D.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        depthwise: int | DataNode | ArrayLike | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Flip`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        depthwise: int | DataNode | ArrayLike | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        depthwise: int | DataNode | ArrayLike | None = ...,
        horizontal: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        vertical: int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Full:
    """Returns new data of given shape and type, filled with a fill value.

    A fill value that is not a scalar must be broadcastable to the output shape (NumPy-style:
    extents compared from the innermost, each equal or one of them 1). The output has the fill
    value's type.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, optional, per-sample): Shape of the output (default: a scalar).
        layout (layout, optional): Output layout.

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Full`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        fill_value: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        fill_value: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class FullLike:
    """Returns new data with the same shape, type and layout as the input data, filled with
    a fill value (broadcast NumPy-style to the shape, converted to the input's type).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).

    Devices: cpu. Inputs: 2..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `FullLike`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data_like: DataNode | ArrayLike,
        fill_value: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data_like: list[DataNode] | DataNode | ArrayLike,
        fill_value: list[DataNode] | DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class GaussianBlur:
    """Applies a Gaussian blur to the input.

    A separable convolution with Gaussian windows, from the innermost data axis to the
    outermost. With only ``sigma`` the window's diameter is ``2 * ceil(3 * sigma) + 1``; with
    only ``window_size``, ``sigma = (radius - 1) * 0.3 + 0.8`` where ``radius = (window_size -
    1) / 2``. Both may be one value for all data axes or one per axis, ordered as in the
    layout (``HWC``: ``sigma=(sigma_h, sigma_w)``), and per sample (tensor arguments) or per
    frame (``fn.per_frame``). The channels ``C`` and frames ``F`` are not data axes; channels
    must come first or last. Sequences (``F...``) and volumes (``DHW``, ``DHWC``) are
    supported. Borders are reflected without repeating the edge (reflect-101); the output has
    the input's shape and layout and its type, or float32 (``dtype=FLOAT``).

    Supported input types: all integers, float16 (the GPU backend's float16 is an extension:
    DALI's GPU backend has none), float32 and float64.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        sigma (float_or_float_vec, default (0.0,), per-sample): Sigma of the Gaussian kernel: one value, or one per data axis (outermost first); per sample and per frame.
        window_size (int_or_int_vec, default (0,), per-sample): Diameter of the kernel: one value or one per data axis; per sample and per frame.
        dtype (dtype, optional): Output type: FLOAT, or the input's type (the default).

    Devices: cpu, gpu. Inputs: 1..1.
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
        sigma: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `GaussianBlur`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        sigma: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        sigma: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class GetProperty:
    """A metadata item of every sample as a 1-D UINT8 tensor (the bytes of a string).

    ``key="source_info"`` gives where the sample came from (a reader's file path, relative to
    its root; empty when unknown), ``key="layout"`` the layout string.

    Example: ``bytes(pipe.run()[0].at(0)).decode()`` turns a sample back into the string.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        key (str, required): "source_info" or "layout".

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        key: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `GetProperty`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        key: str | PathLike[str] | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        key: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class GridMask:
    """Performs the gridmask augmentation (https://arxiv.org/abs/2001.04086).

    Zeroes out pixels of an image in a grid-like fashion. The grid consists of squares
    repeating in x and y directions, with the same spacing in both directions. Can be rotated
    around the origin.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        tile (int, default 100, per-sample): The length of a single tile (black square plus the spacing).
        ratio (float, default 0.5, per-sample): The ratio between black square width and tile width.
        angle (float, default 0.0, per-sample): Angle, in radians, by which the grid is rotated.
        shift_x (float, default 0.0, per-sample): The x component of the translation vector, applied after rotation.
        shift_y (float, default 0.0, per-sample): The y component of the translation vector, applied after rotation.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
        shift_x: float | DataNode | ArrayLike | None = ...,
        shift_y: float | DataNode | ArrayLike | None = ...,
        tile: int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `GridMask`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
        shift_x: float | DataNode | ArrayLike | None = ...,
        shift_y: float | DataNode | ArrayLike | None = ...,
        tile: int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
        shift_x: float | DataNode | ArrayLike | None = ...,
        shift_y: float | DataNode | ArrayLike | None = ...,
        tile: int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Hsv:
    """Adjust hue (additive, degrees), saturation and value (multiplicative) of RGB images.

    As in DALI the HSV change is approximated by a linear transform in YIQ space. The output is
    UINT8 unless ``dtype`` says otherwise.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        hue (float, default 0.0, per-sample): Hue delta in degrees.
        saturation (float, default 1.0, per-sample): Saturation multiplier.
        value (float, default 1.0, per-sample): Value multiplier.
        dtype (dtype, optional): Output type (default UINT8).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
        value: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Hsv`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
        value: float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
        value: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Hue:
    """Rotate the hue of RGB images by ``hue`` degrees (a rotation in YIQ space).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        hue (float, default 0.0, per-sample): Hue change in degrees.
        image_type (image_type, default 0): Colour space (RGB); kept as is.
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Hue`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        hue: float | DataNode | ArrayLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Jitter:
    """Performs a random Jitter augmentation.

    The output images are produced by moving each pixel by a random amount, in the x and y
    dimensions, and bounded by half of the ``nDegree`` parameter: each offset is one of the
    ``nDegree`` integers from ``-(nDegree // 2)``, and the moved position is clamped into the
    image. ``mask`` (per sample) 0 leaves a sample unchanged. Input: ``HWC`` uint8 or float
    images. (DALI 2.4 runs it on the GPU only; here the CPU backend draws the same values as the
    GPU one.)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        nDegree (int, default 2): Each pixel is moved by a random amount in the ``[-nDegree/2, nDegree/2]`` range
        mask (int, default 1, per-sample): Whether to apply the augmentation to a sample: 0 copies it, nonzero applies it.
        interp_type (interp_type, default 0): Type of interpolation used: INTERP_NN (default) or INTERP_LINEAR.
        fill_value (float, default 0.0): Color value that is used for padding (outside the input).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        nDegree: int | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
    ) -> None:
        """Set the arguments of `Jitter`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        nDegree: int | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        nDegree: int | None = ...,
        preserve: bool | None = ...,
        seed: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class JpegCompressionDistortion:
    """Introduce JPEG compression artifacts to RGB images (uint8 ``HWC``, or ``FHWC``).

    Every image (every frame of a sequence) is compressed to a JPEG of the sample's
    ``quality`` (clamped to 1..100) and decompressed; the shape, type and layout are kept.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        quality (int, default 50, per-sample): JPEG quality, 1 (lowest) to 100 (highest); values outside are clamped.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        quality: int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `JpegCompressionDistortion`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        quality: int | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        quality: int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Laplacian:
    """Computes the Laplacian of the input: the sum over the data axes of the second partial
    derivatives.

    Each partial derivative is a separable convolution: the derivative window (size
    ``window_size``) along its axis and binomial smoothing windows (size ``smoothing_size``,
    by default the derivative window's size; ``1``: no smoothing) along the other axes. For a
    volume with ``window_size=[dz, dy, dx]`` and ``smoothing_size=[sz, sy, sx]`` the ``z``
    derivative uses ``dz`` along ``z`` and ``sy``, ``sx`` along ``y``, ``x``. The derivatives
    are multiplied by ``scale`` (one, or one per axis), or with ``normalized_kernel=True`` by
    ``2^-(s - n - 2)``, ``s`` the sum of the derivative's window sizes and ``n`` the number of
    data axes, and summed in float32. Window sizes may be given per sample and per frame.
    Channels and frames are not data axes; sequences and volumes are supported; borders are
    reflected without repeating the edge. The output has the input's type (saturated) or
    float32 (``dtype=FLOAT``).

    Supported input types: all integers, float16 (the GPU backend's float16 is an extension)
    and float32.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        window_size (int_or_int_vec, default (3,), per-sample): Size of the derivative windows: odd, 3 to 31; one, or one per data axis.
        smoothing_size (int_or_int_vec, optional, per-sample): Size of the smoothing windows: odd, 1 to 31; one, or one per data axis (default: the derivative window's size).
        scale (float_or_float_vec, default (1.0,), per-sample): Factors of the partial derivatives: one, or one per data axis.
        normalized_kernel (bool, default False): Scale every partial derivative by 2^-(sum of its window sizes - ndim - 2).
        dtype (dtype, optional): Output type: FLOAT, or the input's type (the default).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        normalized_kernel: bool | None = ...,
        preserve: bool | None = ...,
        scale: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        smoothing_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Laplacian`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        normalized_kernel: bool | None = ...,
        preserve: bool | None = ...,
        scale: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        smoothing_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        normalized_kernel: bool | None = ...,
        preserve: bool | None = ...,
        scale: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        smoothing_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class LookupTable:
    """Maps integer inputs through the table given by ``keys`` and ``values``:
    ``out[i] = values[keys.index(in[i])]``, or ``default_value`` for any other input.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        keys (int_vec, default ()): Input values (keys), in [0, 65535].
        values (float_vec, default ()): The value of each key.
        default_value (float, default 0.0): The value of every other input.
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Output data type.
        output_dtype (dtype, optional): Deprecated alias of `dtype`.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        default_value: float | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keys: Sequence[int] | int | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        values: Sequence[float] | float | None = ...,
    ) -> None:
        """Set the arguments of `LookupTable`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        default_value: float | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keys: Sequence[int] | int | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        values: Sequence[float] | float | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        default_value: float | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        keys: Sequence[int] | int | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        values: Sequence[float] | float | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class MelFilterBank:
    """Converts a spectrogram to a mel spectrogram by applying a bank of
    triangular filters.

    The frequency ('f') dimension is selected from the input layout.
    In case of no layout, "f", "ft", or "\\*ft" is assumed, depending on the number of dimensions.

    ``nfilter`` triangular filters, equally spaced on the mel scale (``mel_formula``:
    ``"slaney"``, linear under 1 kHz and logarithmic above, as librosa's default, or ``"htk"``,
    ``m = 2595 * log10(1 + f / 700)``) between ``freq_low`` and ``freq_high`` (default:
    ``sample_rate / 2``), are applied to the frequency axis, whose ``nfft // 2 + 1`` bins
    span 0 to ``sample_rate / 2``. With ``normalize`` (the default) each filter's integral is
    1, otherwise its peak is 1. The input is float32; the output has ``nfilter`` values along
    the frequency axis and the input's layout.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        nfilter (int, default 128): Number of mel filters.
        sample_rate (float, default 44100.0): Sampling rate of the audio signal.
        freq_low (float, default 0.0): The minimum frequency.
        freq_high (float, default 0.0): The maximum frequency; default (0): sample_rate / 2.
        normalize (bool, default True): Normalize the filters by their width (integral 1) instead of peak 1.
        mel_formula (str, default 'slaney'): Hz <-> mel formula: "slaney" (librosa's default) or "htk".

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        freq_high: float | None = ...,
        freq_low: float | None = ...,
        mel_formula: str | PathLike[str] | None = ...,
        nfilter: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
        sample_rate: float | None = ...,
    ) -> None:
        """Set the arguments of `MelFilterBank`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        freq_high: float | None = ...,
        freq_low: float | None = ...,
        mel_formula: str | PathLike[str] | None = ...,
        nfilter: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
        sample_rate: float | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        freq_high: float | None = ...,
        freq_low: float | None = ...,
        mel_formula: str | PathLike[str] | None = ...,
        nfilter: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
        sample_rate: float | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class MFCC:
    """Computes Mel Frequency Cepstral Coefficients (MFCC) from
    a mel spectrogram.

    A DCT of type ``dct_type`` (1, 2, 3 or 4, the formulas of
    https://en.wikipedia.org/wiki/Discrete_cosine_transform; ortho-normal with ``normalize``,
    which type 1 does not support) along ``axis`` (default 0, the outer-most dimension) keeps
    ``n_mfcc`` coefficients (at most the axis' extent). If the lifter coefficient is greater
    than 0, the MFCCs are then scaled as::

        MFFC[i] = MFCC[i] * (1 + sin(pi * (i + 1) / lifter)) * (lifter / 2)

    (that is, ``1 + (lifter / 2) * sin(pi * (i + 1) / lifter)``). The input is float32 with 2
    to 4 dimensions; the output keeps its layout.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        n_mfcc (int, default 20): Number of MFCC coefficients.
        dct_type (int, default 2): Discrete Cosine Transform type: 1, 2, 3 or 4 (Wikipedia's formulas).
        normalize (bool, default False): Use an ortho-normal DCT basis (not supported for dct_type=1).
        axis (int, default 0): Axis over which the transform will be applied.
        lifter (float, default 0.0): Cepstral filtering (liftering) coefficient; 0: none.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dct_type: int | None = ...,
        lifter: float | None = ...,
        n_mfcc: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `MFCC`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dct_type: int | None = ...,
        lifter: float | None = ...,
        n_mfcc: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dct_type: int | None = ...,
        lifter: float | None = ...,
        n_mfcc: int | None = ...,
        normalize: bool | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class MultiPaste:
    """Performs multiple pastes from image batch to each of the outputs.

    If the `in_ids` is specified, the operator expects exactly one input batch. In that case,
    for each output sample, `in_ids` describes which samples from the input batch should be
    pasted to the corresponding sample in the output batch.

    If the `in_ids` argument is omitted, the operator accepts multiple inputs. In that case,
    the i-th sample from each input batch will be pasted to the i-th sample of the output batch.
    All the input batches must have the same type and device placement.

    If the input shapes are uniform and no explicit `output_size` is provided, the operator
    assumes the same output shape (the output canvas size). Otherwise, the `output_size` must
    be specified.

    The regions are given by `in_anchors` (or `in_anchors_rel`), `shapes` (or `shapes_rel`)
    and `out_anchors` (or `out_anchors_rel`), each a 2D tensor per sample of shape
    ``number of pasted regions`` x 2 (H and W); without anchors they are zero, without shapes a
    region spans from its anchor to the end of its input. The canvas is zero where no region
    lands; a later region covers an earlier one.

    This operator can also change the type of data (UINT8, INT16, INT32, FLOAT).

    This operator allows sequence inputs (``FHWC``); the region arguments accept per-frame
    values.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        in_ids (int_vec, optional, per-sample): Indices of the input samples to paste into each output (one input batch).
        in_anchors (int, optional, per-sample): Top-left corners of the regions in their sources: (regions, 2) per sample.
        in_anchors_rel (float, optional, per-sample): `in_anchors` relative to the source's extents, in [0, 1].
        shapes (int, optional, per-sample): Extents (H, W) of the regions: (regions, 2) per sample.
        shapes_rel (float, optional, per-sample): `shapes` relative to the source's extents, in [0, 1].
        out_anchors (int, optional, per-sample): Top-left corners of the regions on the canvas: (regions, 2) per sample.
        out_anchors_rel (float, optional, per-sample): `out_anchors` relative to the canvas's extents, in [0, 1].
        output_size (int_vec, optional, per-sample): The canvas (H, W); may be omitted when the inputs have one shape.
        dtype (dtype, optional): Output data type. If not set, the input type is used.

    Devices: cpu, gpu. Inputs: 1..64.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_anchors: int | DataNode | ArrayLike | None = ...,
        in_anchors_rel: float | DataNode | ArrayLike | None = ...,
        in_ids: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        out_anchors: int | DataNode | ArrayLike | None = ...,
        out_anchors_rel: float | DataNode | ArrayLike | None = ...,
        output_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shapes: int | DataNode | ArrayLike | None = ...,
        shapes_rel: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `MultiPaste`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *inputs: DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_anchors: int | DataNode | ArrayLike | None = ...,
        in_anchors_rel: float | DataNode | ArrayLike | None = ...,
        in_ids: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        out_anchors: int | DataNode | ArrayLike | None = ...,
        out_anchors_rel: float | DataNode | ArrayLike | None = ...,
        output_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shapes: int | DataNode | ArrayLike | None = ...,
        shapes_rel: float | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode] | DataNode | ArrayLike,
        /,
        *inputs: list[DataNode] | DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        in_anchors: int | DataNode | ArrayLike | None = ...,
        in_anchors_rel: float | DataNode | ArrayLike | None = ...,
        in_ids: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        out_anchors: int | DataNode | ArrayLike | None = ...,
        out_anchors_rel: float | DataNode | ArrayLike | None = ...,
        output_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shapes: int | DataNode | ArrayLike | None = ...,
        shapes_rel: float | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class NonsilentRegion:
    """Performs leading and trailing silence detection in an audio buffer.

    The operator returns the beginning and length of the non-silent region by comparing the
    short term power calculated for ``window_length`` of the signal with a silence cut-off
    threshold. The signal is considered to be silent when the ``short_term_power_db`` is less
    than the ``cutoff_db``. where::

      short_term_power_db = 10 * log10( short_term_power / reference_power )

    Unless specified otherwise, ``reference_power`` is the maximum power of the signal.

    Inputs and outputs:

    * **Input 0** - 1D audio buffer (integers or float32).
    * **Output 0** - Index of the first sample in the nonsilent region (int32 scalar).
    * **Output 1** - Length of nonsilent region (int32 scalar).

    If ``Outputs[1] == 0``, the signal is silent and ``Outputs[0]`` is 0. ``reset_interval``
    (float32 input only) must be a multiple of ``window_length``, or -1.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        cutoff_db (float, default -60.0): The threshold, in dB, below which the signal is considered silent.
        window_length (int, default 2048): Size of the sliding window used to calculate the short-term power.
        reference_power (float, default 0.0): The reference power (> 0); default: the maximum power of the signal.
        reset_interval (int, default 8192): Samples after which the moving mean is recomputed (float input; -1: never).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        preserve: bool | None = ...,
        reference_power: float | None = ...,
        reset_interval: int | None = ...,
        window_length: int | None = ...,
    ) -> None:
        """Set the arguments of `NonsilentRegion`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        preserve: bool | None = ...,
        reference_power: float | None = ...,
        reset_interval: int | None = ...,
        window_length: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        preserve: bool | None = ...,
        reference_power: float | None = ...,
        reset_interval: int | None = ...,
        window_length: int | None = ...,
    ) -> list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Normalize:
    """Normalise to zero mean and unit standard deviation (or the given ``mean``/``stddev``).

    ``fn.normalize(x)`` uses all axes of each sample; ``fn.normalize(img, axes=[0, 1])``
    normalises every channel of an HWC image separately; ``batch=True`` uses the statistics of
    the whole batch.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mean (float, optional, per-sample): Mean to subtract (default: computed).
        stddev (float, optional, per-sample): Standard deviation (default: computed).
        axes (int_vec, default ()): Reduced axes (default: all).
        axis_names (layout, default ''): Reduced axes, by layout name.
        batch (bool, default False): Compute the statistics over the whole batch.
        ddof (int, default 0): Delta degrees of freedom of the variance.
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Output type (default FLOAT).
        epsilon (float, default 0.0): Added to the variance.
        scale (float, default 1.0): Multiplies the normalised value.
        shift (float, default 0.0): Added to the scaled value.

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
        batch: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        epsilon: float | None = ...,
        mean: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        stddev: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Normalize`; the call may give any of them too."""
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
        batch: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        epsilon: float | None = ...,
        mean: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        stddev: float | DataNode | ArrayLike | None = ...,
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
        batch: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        ddof: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        epsilon: float | None = ...,
        mean: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        scale: float | None = ...,
        shift: float | None = ...,
        stddev: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class OneHot:
    """One-hot encode class indices: ``fn.one_hot(label, num_classes=10)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        num_classes (int, default 0): Number of classes (length of the new axis).
        axis (int, default -1): Where to put the new axis (-1: last).
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Output type (default FLOAT).
        on_value (float, default 1.0): Value at the class index.
        off_value (float, default 0.0): Value elsewhere.
        axis_name (str, optional): One-character layout name of the new axis.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        num_classes: int | None = ...,
        off_value: float | None = ...,
        on_value: float | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `OneHot`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        num_classes: int | None = ...,
        off_value: float | None = ...,
        on_value: float | None = ...,
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
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        num_classes: int | None = ...,
        off_value: float | None = ...,
        on_value: float | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Ones:
    """Returns new data of given shape and type, filled with ones.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, optional, per-sample): Shape of the output (default: a scalar).
        dtype (dtype, default <DALIDataType.INT32: 6>): Output data type.
        layout (layout, optional): Output layout; must match the output's dimensions.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Ones`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class OnesLike:
    """Returns new data with the same shape, type and layout as the input, filled with ones.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dtype (dtype, optional): Overrides the output data type.

    Devices: cpu. Inputs: 1..1.
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
    ) -> None:
        """Set the arguments of `OnesLike`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data_like: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data_like: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class OpticalFlow:
    """Dense optical flow between consecutive frames of each sequence (FHWC uint8).

    Our pyramidal block-matching estimator, not NVIDIA's hardware (module docstring): equal
    results on CPU and GPU, DALI's argument and output format. On the GPU one kernel launch per
    pyramid level covers the whole batch (per level and pair index with temporal hints).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        preset (float, default 0.0): Speed/quality: 0.0 best quality, 0.5 medium, 1.0 fastest.
        output_grid (int, default 4): Pixels per output vector side: 1, 2 or 4.
        hint_grid (int, default 4): Pixels per hint vector side: 1, 2, 4 or 8.
        enable_temporal_hints (bool, default False): Start each frame pair from the previous pair's flow too.
        enable_external_hints (bool, default False): Read hint flows from the second input (required then).
        image_type (image_type, default <DALIImageType.RGB: 0>): RGB, BGR or GRAY.
        output_format (int, default -1): Unused (DALI's legacy argument).

    Devices: cpu, gpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        enable_external_hints: bool | None = ...,
        enable_temporal_hints: bool | None = ...,
        hint_grid: int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_format: int | None = ...,
        output_grid: int | None = ...,
        preserve: bool | None = ...,
        preset: float | None = ...,
    ) -> None:
        """Set the arguments of `OpticalFlow`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        hints: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        enable_external_hints: bool | None = ...,
        enable_temporal_hints: bool | None = ...,
        hint_grid: int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_format: int | None = ...,
        output_grid: int | None = ...,
        preserve: bool | None = ...,
        preset: float | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode] | DataNode | ArrayLike,
        hints: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        enable_external_hints: bool | None = ...,
        enable_temporal_hints: bool | None = ...,
        hint_grid: int | None = ...,
        image_type: DALIImageType | int | None = ...,
        output_format: int | None = ...,
        output_grid: int | None = ...,
        preserve: bool | None = ...,
        preset: float | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Pad:
    """Pad samples at the end of ``axes`` with ``fill_value`` to a common or minimum shape.

    Without ``shape`` each axis is padded to the largest extent in the batch; with it, to at
    least ``shape`` (``-1``: the batch's largest); ``align`` then rounds up to multiples.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        fill_value (float, default 0.0, per-sample): Value of the padding.
        shape (int_vec, optional, per-sample): Minimum extents of the padded axes (-1: max).
        axes (int_vec, optional, per-sample): Axes to pad (default: all).
        axis_names (layout, optional): Axes to pad, by layout name.
        align (int_vec, optional, per-sample): Round the padded extents up to multiples.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        align: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Pad`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        align: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
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
        align: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Paste:
    """Paste UINT8 HWC images onto a canvas ``ratio`` times larger, filled with ``fill_value``.

    Example: ``fn.paste(images, ratio=2, fill_value=(0, 0, 0))`` turns a 40×60 image into an
    80×120 one with the image at rows 20–59, columns 30–89.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        ratio (float, required, per-sample): Canvas size / input size (>= 1).
        fill_value (int_vec, required): Canvas colour, one value per channel.
        paste_x (float, default 0.5, per-sample): Horizontal position, 0..1.
        paste_y (float, default 0.5, per-sample): Vertical position, 0..1.
        min_canvas_size (float, default 0.0, per-sample): Minimum canvas extent.
        n_channels (int, default 3): Number of channels of the images.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        min_canvas_size: float | DataNode | ArrayLike | None = ...,
        n_channels: int | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Paste`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        min_canvas_size: float | DataNode | ArrayLike | None = ...,
        n_channels: int | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        min_canvas_size: float | DataNode | ArrayLike | None = ...,
        n_channels: int | None = ...,
        paste_x: float | DataNode | ArrayLike | None = ...,
        paste_y: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        ratio: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PeekImageShape:
    """Obtains the shape of the encoded image: ``[height, width, channels]``, as it would be
    after decoding.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dtype (dtype, default <DALIDataType.INT64: 7>): Type of the output sizes.
        image_type (image_type, default <DALIImageType.RGB: 0>): Colour format of the image (decides the channel count).
        adjust_orientation (bool, default True): Use the EXIF orientation metadata when calculating the shape.

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `PeekImageShape`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
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
        adjust_orientation: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PerFrame:
    """Mark a batch as sequences (its layout starts with ``F``); the data is untouched.

    ``fn.rotate(video, angle=fn.per_frame(angles))`` rotates frame ``k`` of a sample by
    ``angles[k]`` of that sample.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        replace (bool, default False): Replace the first letter of an existing layout with 'F' (False: it must be 'F').

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        replace: bool | None = ...,
    ) -> None:
        """Set the arguments of `PerFrame`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        replace: bool | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        replace: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PermuteBatch:
    """Returns a batch of tensors constructed by selecting tensors from the input based on
    indices given in `indices` argument: ``out_tensor[i] = in_tensor[indices[i]]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        indices (int_or_int_vec, required, per-sample): One index per output sample, in [0, batch_size).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        indices: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `PermuteBatch`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        indices: Sequence[int] | int | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        indices: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PowerSpectrum:
    """Calculates power spectrum of the signal.

    Each slice of the input along ``axis`` (default: the last dimension; any negative value
    means the last dimension, as in DALI) becomes the
    ``nfft // 2 + 1`` bins of its FFT: the power ``real*real + imag*imag`` (``power=2``) or the
    complex magnitude ``sqrt(real*real + imag*imag)`` (``power=1``). ``nfft`` defaults to the
    extent of the transformed axis; a larger ``nfft`` zero-pads the data, a smaller one uses its
    first ``nfft`` values. The input is float32 with 1 to 3 dimensions; the output is float32.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        nfft (int, optional): Size of the FFT (default: the data's extent along `axis`); nfft // 2 + 1 bins.
        axis (int, default -1): Index of the dimension to be transformed to the frequency domain.
        power (int, default 2): Exponent of the FFT magnitude: 2 (power spectrum) or 1 (complex magnitude).

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `PowerSpectrum`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PreemphasisFilter:
    """Applies preemphasis filter to the input data.

    This filter, in simple form, can be expressed by the formula::

      Y[t] = X[t] - coeff * X[t-1]    if t > 1
      Y[t] = X[t] - coeff * X_border  if t == 0

    with ``X`` and ``Y`` being the input and output signal, respectively.

    The value of ``X_border`` depends on the ``border`` argument::

      X_border = 0                    if border_type == 'zero'
      X_border = X[0]                 if border_type == 'clamp'
      X_border = X[1]                 if border_type == 'reflect'

    Each sample is filtered as one flat signal (any shape); the output keeps its shape and
    layout. Input and output types: all integers, float32 and float64 (default output: float32).
    A one-sample signal with ``"reflect"`` uses ``X[0]`` (it has no ``X[1]``).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        preemph_coeff (float, default 0.97, per-sample): Preemphasis coefficient ``coeff`` (per sample).
        border (str, default 'clamp'): Border value policy: "zero", "clamp" or "reflect".
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Data type for the output.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preemph_coeff: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `PreemphasisFilter`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preemph_coeff: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preemph_coeff: float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class PythonFunction:
    """Run a Python function on numpy (CPU) or CuPy (GPU) arrays, per sample or per batch.

    Example:
        >>> import numpy as np
        >>> from dali import fn, pipeline_def
        >>> @pipeline_def(batch_size=1, num_threads=1)
        ... def pipe():
        ...     x = fn.external_source(lambda: [np.ones(2, np.float32)])
        ...     return fn.python_function(x, function=lambda a: (a, a.sum()), num_outputs=2)
        >>> [o.as_array() for o in pipe().run()]
        [array([[1., 1.]], dtype=float32), array([2.], dtype=float32)]

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        function (callable, required): The function to call.
        num_outputs (int, default 1): Number of outputs (0: side effects only).
        batch_processing (bool, default False): Call once per batch with lists.
        output_layouts (any, optional): Layout of each output (a str or a list of str).
        synchronize_stream (bool, default True): Accepted for compatibility.

    Devices: cpu, gpu. Inputs: 0..1024.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        batch_processing: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        function: Callable[..., Any] | None = ...,
        num_outputs: int | None = ...,
        output_layouts: Any = ...,
        preserve: bool | None = ...,
        synchronize_stream: bool | None = ...,
    ) -> None:
        """Set the arguments of `PythonFunction`; the call may give any of them too."""
    def __call__(
        self,
        *inputs: DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        batch_processing: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        function: Callable[..., Any] | None = ...,
        num_outputs: int | None = ...,
        output_layouts: Any = ...,
        preserve: bool | None = ...,
        synchronize_stream: bool | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class RandomBBoxCrop:
    """A random crop window (``anchor``, ``shape``) and the boxes (and labels) it keeps.

    Example (SSD): ``anchor, shape, boxes, labels = fn.random_bbox_crop(boxes, labels,
    thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9], scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0],
    bbox_layout="xyXY", allow_no_crop=True, num_attempts=50)``, then
    ``fn.slice(images, anchor, shape)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        thresholds (float_vec, default (0.0,)): Minimum overlap values to draw from.
        threshold_type (str, default 'iou'): "iou" or "overlap".
        aspect_ratio (float_vec, default (1.0, 1.0)): Ratio ranges (w/h, ...).
        scaling (float_vec, default (1.0, 1.0)): Range of relative extents.
        ltrb (bool, default True): Deprecated: False means bbox_layout="xyWH".
        num_attempts (int, default 1): Attempts per drawn threshold.
        total_num_attempts (int, default -1): Attempts before the best is taken.
        all_boxes_above_threshold (bool, default True): Every box (else one) must reach the threshold.
        allow_no_crop (bool, default True): 'No crop' is one more outcome.
        bbox_prune_threshold (float, optional): Keep boxes this much inside (else: centres).
        crop_shape (int_vec, optional, per-sample): Fixed window size (pixels).
        input_shape (int_vec, optional, per-sample): Image size (pixels).
        bbox_layout (layout, optional): Box layout ("xyXY", "xyWH", ...).
        shape_layout (layout, optional): Layout of crop_shape/input_shape ("WH").
        output_bbox_indices (bool, default False): Add the kept boxes' indices.
        quiet (bool, default False): No warning when the best window is used.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        all_boxes_above_threshold: bool | None = ...,
        allow_no_crop: bool | None = ...,
        aspect_ratio: Sequence[float] | float | None = ...,
        bbox_layout: str | None = ...,
        bbox_prune_threshold: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        num_attempts: int | None = ...,
        output_bbox_indices: bool | None = ...,
        preserve: bool | None = ...,
        quiet: bool | None = ...,
        scaling: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        shape_layout: str | None = ...,
        threshold_type: str | PathLike[str] | None = ...,
        thresholds: Sequence[float] | float | None = ...,
        total_num_attempts: int | None = ...,
    ) -> None:
        """Set the arguments of `RandomBBoxCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        boxes: DataNode | ArrayLike,
        labels: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        all_boxes_above_threshold: bool | None = ...,
        allow_no_crop: bool | None = ...,
        aspect_ratio: Sequence[float] | float | None = ...,
        bbox_layout: str | None = ...,
        bbox_prune_threshold: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        num_attempts: int | None = ...,
        output_bbox_indices: bool | None = ...,
        preserve: bool | None = ...,
        quiet: bool | None = ...,
        scaling: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        shape_layout: str | None = ...,
        threshold_type: str | PathLike[str] | None = ...,
        thresholds: Sequence[float] | float | None = ...,
        total_num_attempts: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        boxes: list[DataNode] | DataNode | ArrayLike,
        labels: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        all_boxes_above_threshold: bool | None = ...,
        allow_no_crop: bool | None = ...,
        aspect_ratio: Sequence[float] | float | None = ...,
        bbox_layout: str | None = ...,
        bbox_prune_threshold: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        input_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        ltrb: bool | None = ...,
        num_attempts: int | None = ...,
        output_bbox_indices: bool | None = ...,
        preserve: bool | None = ...,
        quiet: bool | None = ...,
        scaling: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        shape_layout: str | None = ...,
        threshold_type: str | PathLike[str] | None = ...,
        thresholds: Sequence[float] | float | None = ...,
        total_num_attempts: int | None = ...,
    ) -> list[DataNode] | list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class RandomCropGenerator:
    """A random crop window (``anchor``, ``shape``) of an image shape ``[H, W(, C)]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        random_area (float_vec, default (0.08, 1.0)): Range of the crop area as a fraction of the image area.
        random_aspect_ratio (float_vec, default (0.75, 1.3333333333333333)): Range of the crop aspect ratio (width / height).
        num_attempts (int, default 10): Attempts to find a window before the fallback.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
    ) -> None:
        """Set the arguments of `RandomCropGenerator`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
    ) -> list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class RandomResizedCrop:
    """Crop a random window (area and aspect ratio drawn at random) and resize it to ``size``.

    Example: ``fn.random_resized_crop(images, size=(224, 224))`` is the usual ImageNet training
    augmentation; ``random_area=(0.08, 1.0)`` and ``random_aspect_ratio=(3/4, 4/3)`` by default.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        size (int_vec, required): Output size (H, W).
        random_area (float_vec, default (0.08, 1.0)): Range of the crop area as a fraction of the image area.
        random_aspect_ratio (float_vec, default (0.75, 1.3333333333333333)): Range of the crop aspect ratio (width / height).
        num_attempts (int, default 10): Attempts to find a window before the fallback.
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        size: Sequence[int] | int | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> None:
        """Set the arguments of `RandomResizedCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        size: Sequence[int] | int | None = ...,
        temp_buffer_hint: int | None = ...,
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
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        num_attempts: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        size: Sequence[int] | int | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Reinterpret:
    """Treats content of the input as if it had a different type, shape, and/or layout.

    The buffer contents are not copied. With ``dtype`` alone the innermost dimension is
    adjusted; its size in bytes must be divisible by the size of the new type.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, optional, per-sample): New shape; one extent may be -1.
        rel_shape (float_vec, optional, per-sample): New shape relative to the input's.
        layout (layout, optional): New layout ('' clears it).
        src_dims (int_vec, optional, per-sample): Input dimensions to keep (-1: insert 1).
        dtype (dtype, optional): Output type: the same bytes seen as this type.

    Devices: cpu, gpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Reinterpret`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Reshape:
    """Treat the data as having another shape and/or layout (no copy).

    ``fn.reshape(x, shape=[240, -1])`` of a ``[480, 640, 3]`` sample gives ``[240, 3840]``;
    ``rel_shape=[0.5, -1]`` does the same relatively; ``src_dims=[-1, 1, 0]`` on ``[300, 200, 1]``
    gives ``[1, 200, 300]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, optional, per-sample): New shape; one extent may be -1.
        rel_shape (float_vec, optional, per-sample): New shape relative to the input's.
        layout (layout, optional): New layout ('' clears it).
        src_dims (int_vec, optional, per-sample): Input dimensions to keep (-1: insert 1).

    Devices: cpu, gpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Reshape`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        src_dims: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Resize:
    """Resize images or volumes (HWC, CHW, FHWC, DHWC, ...) with DALI's resampling filters.

    Exactly one way of giving the size is allowed: ``resize_x``/``resize_y``/``resize_z``,
    ``size``, ``resize_shorter`` or ``resize_longer``. Missing extents keep the aspect ratio
    (``mode="default"``); a negative size flips the axis.

    Example:
        >>> import numpy as np
        >>> import dali
        >>> from dali import fn, types
        >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
        ... def pipe():
        ...     img = types.Constant(np.zeros((100, 200, 3), dtype=np.uint8), layout="HWC")
        ...     return fn.resize(img, resize_x=50)
        >>> p = pipe(); p.build()
        >>> p.run()[0].shape()
        [(25, 50, 3)]

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        save_attrs: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> None:
        """Set the arguments of `Resize`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        save_attrs: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        save_attrs: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> list[DataNode | list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ResizeCropMirror:
    """Fused resize, crop and mirror: the result of ``resize``, then ``crop``, then ``flip``.

    The crop window is taken in the resized image and projected back onto the input, so only
    the window is resampled. ``mirror`` is a per-sample bit mask: 1 flips horizontally, 2
    vertically, 4 along the depth (DALI 2.4 reads the bits of inputs whose spatial axes do not
    come first, CHW or FHWC, from the wrong axis; here they mean what they document).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        crop (float_vec, optional, per-sample): Window size (H, W) or (D, H, W).
        crop_h (float, default 0.0, per-sample): Window height (0: whole height).
        crop_w (float, default 0.0, per-sample): Window width (0: whole width).
        crop_d (float, default 0.0, per-sample): Window depth (volumes, sequences).
        crop_pos_x (float, default 0.5, per-sample): Normalised horizontal start.
        crop_pos_y (float, default 0.5, per-sample): Normalised vertical start.
        crop_pos_z (float, default 0.5, per-sample): Normalised depth start.
        rounding (str, default 'round'): "round" (half away from zero) or "truncate".
        mirror (int, default 0, per-sample): Flip mask: 1 horizontal, 2 vertical, 4 depthwise (bitwise combinations).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> None:
        """Set the arguments of `ResizeCropMirror`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
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
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ROIRandomCrop:
    """A random start of a ``crop_shape`` window that holds as much of the ROI as it can.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        crop_shape (int_vec, required, per-sample): The window's size.
        roi_start (int_vec, required, per-sample): ROI start.
        roi_end (int_vec, optional, per-sample): ROI end (not with roi_shape).
        roi_shape (int_vec, optional, per-sample): ROI shape (not with roi_end).
        in_shape (int_vec, optional, per-sample): The input's shape (not with an input).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        in_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
    ) -> None:
        """Set the arguments of `ROIRandomCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        in_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        in_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Rotate:
    """Rotate images (HWC, FHWC) counter-clockwise, or volumes (DHWC, FDHWC) about ``axis``.

    The canvas grows to hold the whole rotated image unless ``size`` or ``keep_size`` is
    given; pixels outside the input take ``fill_value``, or replicate the border when it is
    unset.

    Example: ``fn.rotate(images, angle=fn.random.uniform(range=(-10, 10)), fill_value=0)``;
    ``angle=90`` gives exactly ``np.rot90(image, 1)``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        angle (float, required, per-sample): Angle in degrees (CCW).
        axis (float_vec, optional, per-sample): Rotation axis (x, y, z); volumes only.
        keep_size (bool, default False): Keep the input canvas size.
        size (float_vec, optional, per-sample): Output size (H, W) or (D, H, W), rounded.
        fill_value (float, optional): Value outside the input; unset: replicate the border.
        interp_type (interp_type, default 1): INTERP_NN or INTERP_LINEAR (default).
        dtype (dtype, optional): Output type (default: the input type).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        axis: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        keep_size: bool | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Rotate`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        angle: float | DataNode | ArrayLike | None = ...,
        axis: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        keep_size: bool | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
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
        angle: float | DataNode | ArrayLike | None = ...,
        axis: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        keep_size: bool | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Saturation:
    """Scale the saturation of RGB images (``saturation=0`` gives grey).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        saturation (float, default 1.0, per-sample): 0: grey, 1: unchanged.
        image_type (image_type, default 0): Colour space (RGB); kept as is.
        dtype (dtype, optional): Output type (default: the input's).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Saturation`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
        saturation: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class SequenceRearrange:
    """Rearranges frames in a sequence: ``out[i, ...] = in[new_order[i], ...]``.

    The outermost dimension holds the frames (a non-empty layout must start with ``F``).
    Frames may be repeated or dropped, but an output sequence must not be empty; ``new_order``
    may be given per sample (1-D tensors).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        new_order (int_vec, required, per-sample): Output frame i is input frame new_order[i]; one list per sample allowed.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_order: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `SequenceRearrange`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_order: Sequence[int] | int | DataNode | ArrayLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        new_order: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Slice:
    """Extract a slice: ``fn.slice(x, anchor, shape)`` or ``fn.slice(x, start=..., end=...)``.

    With the default ``axis_names="WH"`` the coordinates are (x, y): ``start=[1, 2],
    shape=[3, 2]`` of an HWC image is ``img[2:4, 1:4]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        start (int_vec, optional, per-sample): Absolute start coordinates.
        rel_start (float_vec, optional, per-sample): Relative start coordinates.
        end (int_vec, optional, per-sample): Absolute end coordinates.
        rel_end (float_vec, optional, per-sample): Relative end coordinates.
        shape (int_vec, optional, per-sample): Absolute shape of the slice.
        rel_shape (float_vec, optional, per-sample): Relative shape of the slice.
        axes (int_vec, default (1, 0)): Dimensions the coordinates refer to.
        axis_names (layout, default 'WH'): Same, by layout name (takes priority).
        normalized_anchor (bool, default True): Float anchor input is relative.
        normalized_shape (bool, default True): Float shape input is relative.
        out_of_bounds_policy (str, default 'error'): "error", "pad" (fill with fill_values) or "trim_to_shape".
        fill_values (float_vec, default (0.0,)): Padding value(s): one, or per channel.
        dtype (dtype, optional): Output type (default: the input's).
        image_type (image_type, optional): Deprecated; ignored.
        output_dtype (dtype, optional): Deprecated alias of `dtype`.

    Devices: cpu, gpu. Inputs: 1..3.
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
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Slice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        anchor: DataNode | ArrayLike = ...,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        anchor: list[DataNode] | DataNode | ArrayLike = ...,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        image_type: DALIImageType | int | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Spectrogram:
    """Produces a spectrogram from a 1D signal (for example, audio).

    Input data is expected to be one channel (shape being ``(nsamples,)``, ``(nsamples, 1)``, or
    ``(1, nsamples)``) of type float32.

    The signal is cut into windows of ``window_length`` samples, ``window_step`` apart, each
    multiplied by ``window_fn`` (DALI's Hann window, ``0.5 * (1 - cos(2π (t + 0.5) / N))``,
    by default) and transformed by an FFT of ``nfft`` points (``nfft >= window_length``). With
    ``center_windows`` (the default) window ``w`` is centred on sample ``w * window_step``,
    there are ``n // window_step + 1`` windows and the signal is extended by mirroring
    (``reflect_padding``) or with zeros; otherwise only windows inside the signal are taken,
    ``(n - window_length) // window_step + 1`` of them. The output has ``nfft // 2 + 1``
    frequency bins, float32, as ``"ft"`` (bins x windows) or ``"tf"`` (windows x bins).

    The FFT is numpy's (CPU) or cuFFT (GPU): values agree with DALI's to about 1e-6 of the
    sample's largest bin, not bit for bit.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        nfft (int, optional): Size of the FFT (default: `window_length`); the output has nfft // 2 + 1 bins.
        window_length (int, default 512): Window size in number of samples.
        window_step (int, default 256): Step between the STFT windows in number of samples.
        window_fn (float_vec, optional): Samples of the window function (window_length values); default: Hann.
        power (int, default 2): Exponent of the magnitude of the spectrum: 1 (amplitude) or 2 (power).
        center_windows (bool, default True): Pad the signal so that the windows are centred at multiples of window_step.
        reflect_padding (bool, default True): Pad by mirroring the signal (True) or with zeros; ignored without center_windows.
        layout (layout, default 'ft'): Output layout: "ft" (frequency-major) or "tf" (time-major).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_windows: bool | None = ...,
        layout: str | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
        reflect_padding: bool | None = ...,
        window_fn: Sequence[float] | float | None = ...,
        window_length: int | None = ...,
        window_step: int | None = ...,
    ) -> None:
        """Set the arguments of `Spectrogram`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_windows: bool | None = ...,
        layout: str | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
        reflect_padding: bool | None = ...,
        window_fn: Sequence[float] | float | None = ...,
        window_length: int | None = ...,
        window_step: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        center_windows: bool | None = ...,
        layout: str | None = ...,
        nfft: int | None = ...,
        power: int | None = ...,
        preserve: bool | None = ...,
        reflect_padding: bool | None = ...,
        window_fn: Sequence[float] | float | None = ...,
        window_length: int | None = ...,
        window_step: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Sphere:
    """Performs a sphere augmentation.

    Output pixel ``(x, y)`` samples the input at ``c + (|t| / d)·t``, where ``c`` is the image's
    centre, ``t`` the pixel centre's offset from it and ``d`` the larger half-extent: the middle
    is magnified and the rim pushed out (``fill_value``). ``interp_type`` is INTERP_NN or
    INTERP_LINEAR; ``mask`` (per sample) 0 leaves a sample unchanged. Input: ``HWC`` uint8 or
    float images.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mask (int, default 1, per-sample): Whether to apply the augmentation to a sample: 0 copies it, nonzero applies it.
        interp_type (interp_type, default 0): Type of interpolation used: INTERP_NN (default) or INTERP_LINEAR.
        fill_value (float, default 0.0): Color value that is used for padding (outside the input).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Sphere`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Squeeze:
    """Removes the dimensions given as ``axes`` or ``axis_names``.

    It is an error to remove a dimension that would change the total volume: every removed
    dimension must have extent 1, unless the volume is 0 before and after.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axes (int_vec, optional, per-sample): Indices of the dimensions to remove.
        axis_names (layout, optional): Layout letters of the dimensions to remove.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Squeeze`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Stack:
    """Joins the input tensors along a new axis.

    The shapes of respective tensors in the inputs must match. ``axis`` accepts [-ndim, ndim]:
    0 stacks whole tensors, ``ndim`` interleaves their values. ``axis_name`` names the new
    axis: ``axis=0, axis_name="C"`` on "HW" inputs gives "CHW"; without it the output has no
    layout.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        axis (int, default 0): Position of the new axis in the output.
        axis_name (str, optional): One-character name of the new axis in the output layout.

    Devices: cpu, gpu. Inputs: 1..999.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Stack`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *inputs: DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode] | DataNode | ArrayLike,
        /,
        *inputs: list[DataNode] | DataNode | ArrayLike,
        device: str | None = ...,
        name: str | None = ...,
        axis: int | None = ...,
        axis_name: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class TensorResize:
    """Resize tensors: any dimensions, named by ``axes`` or ``axis_names``.

    Exactly one of ``sizes`` and ``scales`` gives the output extents of the chosen dimensions
    (all of them by default); one value stands for all. With ``sizes``, a 0 extent follows the
    others' scale (mode "default") and a negative one flips the dimension; with ``scales``,
    ``size_rounding`` rounds ``scale * extent`` and ``alignment`` tells which point of the
    input region keeps its place. ``roi_start``/``roi_end``/``max_size``/``alignment`` refer to
    the same dimensions. The resized dimensions must lie within 3 consecutive ones. Sequences
    are tensors like others: the frame dimension is resized when ``axes`` names it.

    Example:
        >>> import numpy as np
        >>> import dali
        >>> from dali import fn, types
        >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
        ... def pipe():
        ...     x = types.Constant(np.array([[[[1, 2], [3, 4]]]], np.float32))  # 1x1x2x2
        ...     return fn.tensor_resize(x, scales=[1, 1, 2, 3], alignment=0,
        ...                             interp_type=types.INTERP_NN)
        >>> p = pipe(); p.build()
        >>> p.run()[0].as_array()[0, 0, 0]
        array([[1., 1., 1., 2., 2., 2.],
               [1., 1., 1., 2., 2., 2.],
               [3., 3., 3., 4., 4., 4.],
               [3., 3., 3., 4., 4., 4.]], dtype=float32)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        sizes (float_vec, optional, per-sample): Output sizes of the `axes` (0: from others).
        scales (float_vec, optional, per-sample): Scale factors of the `axes`.
        axes (int_vec, optional): Dimensions the size arguments refer to (default: all).
        axis_names (layout, optional): Layout letters of those dimensions (or `axes`).
        alignment (float_vec, default (0.5,), per-sample): Point of the ROI kept in place when the size is rounded (0, 0.5, 1).
        size_rounding (str, default 'round'): round, truncate or ceil.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        alignment: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        antialias: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        scales: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        size_rounding: str | PathLike[str] | None = ...,
        sizes: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> None:
        """Set the arguments of `TensorResize`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        alignment: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        antialias: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        scales: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        size_rounding: str | PathLike[str] | None = ...,
        sizes: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
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
        alignment: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        antialias: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        scales: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        size_rounding: str | PathLike[str] | None = ...,
        sizes: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ToDecibels:
    """Converts a magnitude (real, positive) to the decibel scale.

    Conversion is done according to the following formula::

      min_ratio = pow(10, cutoff_db / multiplier)
      out[i] = multiplier * log10( max(min_ratio, input[i] / reference) )

    ``reference`` defaults to the maximum of each sample (1 when that is not positive); a
    ``reference`` of 0 is an error. The input is float32 of any shape; the output has its
    shape and layout.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        multiplier (float, default 10.0): Factor by which the logarithm is multiplied (10 for power, 20 for amplitude).
        reference (float, default 0.0): Reference magnitude; default: the maximum of each sample.
        cutoff_db (float, default -200.0): Minimum or cut-off ratio in dB; lower values saturate.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        multiplier: float | None = ...,
        preserve: bool | None = ...,
        reference: float | None = ...,
    ) -> None:
        """Set the arguments of `ToDecibels`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        multiplier: float | None = ...,
        preserve: bool | None = ...,
        reference: float | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cutoff_db: float | None = ...,
        multiplier: float | None = ...,
        preserve: bool | None = ...,
        reference: float | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Transpose:
    """Permute the dimensions of every sample: ``out.shape[i] = in.shape[perm[i]]``.

    ``fn.transpose(hwc, perm=[2, 0, 1])`` turns HWC into CHW (layout included).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        perm (int_vec, required): Permutation of the dimensions.
        output_layout (layout, default ''): Sets the output layout.
        transpose_layout (bool, default True): Permute the layout names too.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        output_layout: str | None = ...,
        perm: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        transpose_layout: bool | None = ...,
    ) -> None:
        """Set the arguments of `Transpose`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        output_layout: str | None = ...,
        perm: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        transpose_layout: bool | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        output_layout: str | None = ...,
        perm: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        transpose_layout: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class WarpAffine:
    """Apply an affine transform to images (HWC, FHWC) or volumes (DHWC, FDHWC).

    With ``inverse_map=True`` (default) ``matrix`` maps the destination to the source:
    ``dst(x, y) = src(M11·x + M12·y + M13, M21·x + M22·y + M23)``, where ``(0, 0)`` is the corner
    of the first pixel. With ``inverse_map=False`` it maps source to destination (OpenCV's
    ``warpAffine`` without ``WARP_INVERSE_MAP``). The matrix may also be the second input
    (``mtx``, a ``2×3`` or ``3×4`` tensor per sample).

    Example: ``fn.warp_affine(images, matrix=[1, 0, 5, 0, 1, 3])`` gives
    ``dst[y, x] = src[y + 3, x + 5]``.

    On sequences (FHWC) ``matrix`` may be per frame (``fn.per_frame``, a ``(frames, 2, 3)``
    value per sample): the frames are then warped as one batch of images.

    On the GPU all samples are warped by one kernel launch; a GPU ``mtx`` input is first copied
    to the host (the matrices drive the host-side geometry), which waits for the GPU.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        matrix (float_vec, optional, per-sample): Affine matrix: 6 (2-D) or 12 (3-D) values.
        inverse_map (bool, default True): The matrix maps destination to source.
        size (float_vec, optional, per-sample): Output size (H, W) or (D, H, W), rounded.
        fill_value (float, optional): Value outside the input; unset: replicate the border.
        interp_type (interp_type, default 1): INTERP_NN or INTERP_LINEAR (default).
        dtype (dtype, optional): Output type (default: the input type).

    Devices: cpu, gpu. Inputs: 1..2.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        inverse_map: bool | None = ...,
        matrix: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `WarpAffine`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        mtx: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        inverse_map: bool | None = ...,
        matrix: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode] | DataNode | ArrayLike,
        mtx: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_value: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        inverse_map: bool | None = ...,
        matrix: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Water:
    """Performs a water augmentation, which makes the image appear to be underwater.

    Output pixel ``(x, y)`` is the input at ``(x + ampl_x·sin(freq_x·y + phase_x),
    y + ampl_y·cos(freq_y·x + phase_y))``, sampled with ``interp_type`` (INTERP_NN or
    INTERP_LINEAR); positions outside the image take ``fill_value``. ``mask`` (per sample)
    0 leaves a sample unchanged. Input: ``HWC`` uint8 or float images.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        ampl_x (float, default 10.0): Amplitude of the wave in the x direction.
        ampl_y (float, default 10.0): Amplitude of the wave in the y direction.
        freq_x (float, default 0.04908738657832146): Frequency of the wave in the x direction.
        freq_y (float, default 0.04908738657832146): Frequence of the wave in the y direction.
        phase_x (float, default 0.0): Phase of the wave in the x direction.
        phase_y (float, default 0.0): Phase of the wave in the y direction.
        mask (int, default 1, per-sample): Whether to apply the augmentation to a sample: 0 copies it, nonzero applies it.
        interp_type (interp_type, default 0): Type of interpolation used: INTERP_NN (default) or INTERP_LINEAR.
        fill_value (float, default 0.0): Color value that is used for padding (outside the input).

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        ampl_x: float | None = ...,
        ampl_y: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        freq_x: float | None = ...,
        freq_y: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        phase_x: float | None = ...,
        phase_y: float | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Water`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        ampl_x: float | None = ...,
        ampl_y: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        freq_x: float | None = ...,
        freq_y: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        phase_x: float | None = ...,
        phase_y: float | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        ampl_x: float | None = ...,
        ampl_y: float | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        fill_value: float | None = ...,
        freq_x: float | None = ...,
        freq_y: float | None = ...,
        interp_type: DALIInterpType | int | None = ...,
        mask: int | DataNode | ArrayLike | None = ...,
        phase_x: float | None = ...,
        phase_y: float | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Zeros:
    """Returns new data of given shape and type, filled with zeros.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, optional, per-sample): Shape of the output (default: a scalar).
        dtype (dtype, default <DALIDataType.INT32: 6>): Output data type.
        layout (layout, optional): Output layout; must match the output's dimensions.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Zeros`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        layout: str | None = ...,
        preserve: bool | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class ZerosLike:
    """Returns new data with the same shape, type and layout as the input, filled with zeros.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dtype (dtype, optional): Overrides the output data type.

    Devices: cpu. Inputs: 1..1.
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
    ) -> None:
        """Set the arguments of `ZerosLike`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data_like: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data_like: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.AudioDecoder` is now deprecated. Use `dali.fn.decoders.audio` instead."
)
class AudioDecoder:
    """WARNING: `dali.ops.AudioDecoder` is now deprecated. Use `dali.fn.decoders.audio` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `AudioDecoder`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated("WARNING: `dali.ops.COCOReader` is now deprecated. Use `dali.fn.readers.coco` instead.")
class COCOReader:
    """WARNING: `dali.ops.COCOReader` is now deprecated. Use `dali.fn.readers.coco` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        annotations_file: str | PathLike[str] | None = ...,
        avoid_class_remapping: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dump_meta_files: bool | None = ...,
        dump_meta_files_path: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_ids: bool | None = ...,
        images: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        include_iscrowd: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        ltrb: bool | None = ...,
        masks: bool | None = ...,
        meta_files_path: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pixelwise_masks: bool | None = ...,
        polygon_masks: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preprocessed_annotations: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        ratio: bool | None = ...,
        read_ahead: bool | None = ...,
        save_img_ids: bool | None = ...,
        save_preprocessed_annotations: bool | None = ...,
        save_preprocessed_annotations_dir: str | PathLike[str] | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        size_threshold: float | None = ...,
        skip_cached_images: bool | None = ...,
        skip_empty: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `COCOReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        annotations_file: str | PathLike[str] | None = ...,
        avoid_class_remapping: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dump_meta_files: bool | None = ...,
        dump_meta_files_path: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_ids: bool | None = ...,
        images: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        include_iscrowd: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        ltrb: bool | None = ...,
        masks: bool | None = ...,
        meta_files_path: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pixelwise_masks: bool | None = ...,
        polygon_masks: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preprocessed_annotations: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        ratio: bool | None = ...,
        read_ahead: bool | None = ...,
        save_img_ids: bool | None = ...,
        save_preprocessed_annotations: bool | None = ...,
        save_preprocessed_annotations_dir: str | PathLike[str] | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        size_threshold: float | None = ...,
        skip_cached_images: bool | None = ...,
        skip_empty: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.Caffe2Reader` is now deprecated. Use `dali.fn.readers.caffe2` instead."
)
class Caffe2Reader:
    """WARNING: `dali.ops.Caffe2Reader` is now deprecated. Use `dali.fn.readers.caffe2` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_inputs: int | None = ...,
        bbox: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_type: int | None = ...,
        lazy_init: bool | None = ...,
        num_labels: int | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `Caffe2Reader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_inputs: int | None = ...,
        bbox: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_type: int | None = ...,
        lazy_init: bool | None = ...,
        num_labels: int | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.CaffeReader` is now deprecated. Use `dali.fn.readers.caffe` instead."
)
class CaffeReader:
    """WARNING: `dali.ops.CaffeReader` is now deprecated. Use `dali.fn.readers.caffe` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_available: bool | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `CaffeReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_available: bool | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.CoinFlip` is now deprecated. Use `dali.fn.random.coin_flip` instead."
)
class CoinFlip:
    """WARNING: `dali.ops.CoinFlip` is now deprecated. Use `dali.fn.random.coin_flip` instead."""
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

@deprecated(
    "WARNING: `dali.ops.FastResizeCropMirror` is now deprecated. Use `dali.fn.resize_crop_mirror` instead."
)
class FastResizeCropMirror:
    """WARNING: `dali.ops.FastResizeCropMirror` is now deprecated. Use `dali.fn.resize_crop_mirror` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> None:
        """Set the arguments of `FastResizeCropMirror`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
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
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mirror: int | DataNode | ArrayLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rounding: str | PathLike[str] | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated("WARNING: `dali.ops.FileReader` is now deprecated. Use `dali.fn.readers.file` instead.")
class FileReader:
    """WARNING: `dali.ops.FileReader` is now deprecated. Use `dali.fn.readers.file` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `FileReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.HostDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."
)
class HostDecoder:
    """WARNING: `dali.ops.HostDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `HostDecoder`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.HostDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."
)
class HostDecoderCrop:
    """WARNING: `dali.ops.HostDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `HostDecoderCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.HostDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."
)
class HostDecoderRandomCrop:
    """WARNING: `dali.ops.HostDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `HostDecoderRandomCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.HostDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."
)
class HostDecoderSlice:
    """WARNING: `dali.ops.HostDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `HostDecoderSlice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        anchor: DataNode | ArrayLike = ...,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        anchor: list[DataNode] | DataNode | ArrayLike = ...,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.ImageDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."
)
class ImageDecoder:
    """WARNING: `dali.ops.ImageDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `ImageDecoder`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.ImageDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."
)
class ImageDecoderCrop:
    """WARNING: `dali.ops.ImageDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `ImageDecoderCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.ImageDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."
)
class ImageDecoderRandomCrop:
    """WARNING: `dali.ops.ImageDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `ImageDecoderRandomCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.ImageDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."
)
class ImageDecoderSlice:
    """WARNING: `dali.ops.ImageDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `ImageDecoderSlice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        anchor: DataNode | ArrayLike = ...,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        anchor: list[DataNode] | DataNode | ArrayLike = ...,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.MXNetReader` is now deprecated. Use `dali.fn.readers.mxnet` instead."
)
class MXNetReader:
    """WARNING: `dali.ops.MXNetReader` is now deprecated. Use `dali.fn.readers.mxnet` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        index_path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `MXNetReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        index_path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.NemoAsrReader` is now deprecated. Use `dali.fn.readers.nemo_asr` instead."
)
class NemoAsrReader:
    """WARNING: `dali.ops.NemoAsrReader` is now deprecated. Use `dali.fn.readers.nemo_asr` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        manifest_filepaths: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        max_duration: float | None = ...,
        min_duration: float | None = ...,
        normalize_text: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        read_idxs: bool | None = ...,
        read_sample_rate: bool | None = ...,
        read_text: bool | None = ...,
        sample_rate: float | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `NemoAsrReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        manifest_filepaths: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        max_duration: float | None = ...,
        min_duration: float | None = ...,
        normalize_text: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        read_idxs: bool | None = ...,
        read_sample_rate: bool | None = ...,
        read_text: bool | None = ...,
        sample_rate: float | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.NormalDistribution` is now deprecated. Use `dali.fn.random.normal` instead."
)
class NormalDistribution:
    """WARNING: `dali.ops.NormalDistribution` is now deprecated. Use `dali.fn.random.normal` instead."""
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
        """Set the arguments of `NormalDistribution`; the call may give any of them too."""
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

@deprecated(
    "WARNING: `dali.ops.NumpyReader` is now deprecated. Use `dali.fn.readers.numpy` instead."
)
class NumpyReader:
    """WARNING: `dali.ops.NumpyReader` is now deprecated. Use `dali.fn.readers.numpy` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_header_information: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: float | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        register_buffers: bool | None = ...,
        rel_roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_axes: Sequence[int] | int | None = ...,
        roi_end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> None:
        """Set the arguments of `NumpyReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_header_information: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: float | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        register_buffers: bool | None = ...,
        rel_roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_axes: Sequence[int] | int | None = ...,
        roi_end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.SequenceReader` is now deprecated. Use `dali.fn.readers.sequence` instead."
)
class SequenceReader:
    """WARNING: `dali.ops.SequenceReader` is now deprecated. Use `dali.fn.readers.sequence` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `SequenceReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated("WARNING: `dali.ops.Shapes` is now deprecated.\nUse `DataNode.shape()` instead.")
class Shapes:
    """WARNING: `dali.ops.Shapes` is now deprecated.
    Use `DataNode.shape()` instead.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        type: DALIDataType | DTypeLike | None = ...,
    ) -> None:
        """Set the arguments of `Shapes`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        type: DALIDataType | DTypeLike | None = ...,
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
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        type: DALIDataType | DTypeLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.TFRecordReader` is now deprecated. Use `dali.fn.readers.tfrecord` instead."
)
class TFRecordReader:
    """WARNING: `dali.ops.TFRecordReader` is now deprecated. Use `dali.fn.readers.tfrecord` instead."""
    def __init__(
        self,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        features: Any = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> None:
        """Set the arguments of `TFRecordReader`; the call may give any of them too."""
    def __call__(
        self,
        path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_path: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        features: Any = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> dict[str, DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.TransformTranslation` is now deprecated. Use `dali.fn.transforms.translation` instead."
)
class TransformTranslation:
    """WARNING: `dali.ops.TransformTranslation` is now deprecated. Use `dali.fn.transforms.translation` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        offset: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        reverse_order: bool | None = ...,
    ) -> None:
        """Set the arguments of `TransformTranslation`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        offset: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        reverse_order: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        offset: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
        reverse_order: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated("WARNING: `dali.ops.Uniform` is now deprecated. Use `dali.fn.random.uniform` instead.")
class Uniform:
    """WARNING: `dali.ops.Uniform` is now deprecated. Use `dali.fn.random.uniform` instead."""
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

@deprecated(
    "WARNING: `dali.ops.VideoReader` is now deprecated. Use `dali.fn.readers.video` instead."
)
class VideoReader:
    """WARNING: `dali.ops.VideoReader` is now deprecated. Use `dali.fn.readers.video` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `VideoReader`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.VideoReaderResize` is now deprecated. Use `dali.fn.readers.video_resize` instead."
)
class VideoReaderResize:
    """WARNING: `dali.ops.VideoReaderResize` is now deprecated. Use `dali.fn.readers.video_resize` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `VideoReaderResize`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.nvJPEGDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."
)
class nvJPEGDecoder:
    """WARNING: `dali.ops.nvJPEGDecoder` is now deprecated. Use `dali.fn.decoders.image` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `nvJPEGDecoder`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        cache_batch_copy: bool | None = ...,
        cache_debug: bool | None = ...,
        cache_size: int | None = ...,
        cache_threshold: int | None = ...,
        cache_type: str | PathLike[str] | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.nvJPEGDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."
)
class nvJPEGDecoderCrop:
    """WARNING: `dali.ops.nvJPEGDecoderCrop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `nvJPEGDecoderCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        crop_d: float | DataNode | ArrayLike | None = ...,
        crop_h: float | DataNode | ArrayLike | None = ...,
        crop_pos_x: float | DataNode | ArrayLike | None = ...,
        crop_pos_y: float | DataNode | ArrayLike | None = ...,
        crop_pos_z: float | DataNode | ArrayLike | None = ...,
        crop_w: float | DataNode | ArrayLike | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rounding: str | PathLike[str] | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.nvJPEGDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."
)
class nvJPEGDecoderRandomCrop:
    """WARNING: `dali.ops.nvJPEGDecoderRandomCrop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `nvJPEGDecoderRandomCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        num_attempts: int | None = ...,
        on_error: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        random_area: Sequence[float] | float | None = ...,
        random_aspect_ratio: Sequence[float] | float | None = ...,
        seed: int | None = ...,
        split_stages: bool | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.nvJPEGDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."
)
class nvJPEGDecoderSlice:
    """WARNING: `dali.ops.nvJPEGDecoderSlice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> None:
        """Set the arguments of `nvJPEGDecoderSlice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        anchor: DataNode | ArrayLike = ...,
        shape_input: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        anchor: list[DataNode] | DataNode | ArrayLike = ...,
        shape_input: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        affine: bool | None = ...,
        axes: Sequence[int] | int | None = ...,
        axis_names: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        device_memory_padding: int | None = ...,
        device_memory_padding_jpeg2k: int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        fill_values: Sequence[float] | float | None = ...,
        host_memory_padding: int | None = ...,
        host_memory_padding_jpeg2k: int | None = ...,
        hw_decoder_load: float | None = ...,
        hybrid_huffman_threshold: int | None = ...,
        jpeg_fancy_upsampling: bool | None = ...,
        memory_stats: bool | None = ...,
        normalized_anchor: bool | None = ...,
        normalized_shape: bool | None = ...,
        on_error: str | PathLike[str] | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        output_type: DALIImageType | int | None = ...,
        preallocate_height_hint: int | None = ...,
        preallocate_width_hint: int | None = ...,
        preserve: bool | None = ...,
        rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        split_stages: bool | None = ...,
        start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        use_chunk_allocator: bool | None = ...,
        use_fast_idct: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
