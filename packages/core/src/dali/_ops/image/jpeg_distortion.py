"""`fn.jpeg_compression_distortion`: JPEG artifacts, by encoding and decoding each image.

Each RGB image (``HWC``, or every frame of an ``FHWC`` sequence) is encoded as a JPEG of the
sample's ``quality`` (clamped to 1..100) and decoded again, with OpenCV (libjpeg-turbo), as
DALI's CPU backend does: the channels are swapped to BGR for the encoder and back after
decoding, so the results are DALI's CPU results bit for bit. The GPU backend runs the same
codec on the host (DALI's GPU backend has a CUDA approximation of its own, with other values).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.full((16, 16, 3), 128, np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.jpeg_compression_distortion(types.Constant(img, layout="HWC"), quality=10)
    >>> (out,) = pipe().run()
    >>> out.as_array().shape, int(np.abs(out.as_array()[0].astype(int) - 128).max()) <= 1
    ((1, 16, 16, 3), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.image._common import image_layout, optional_cv2, static_image_layout
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["JpegCompressionDistortion", "jpeg_roundtrip"]

_LAYOUTS = ("HWC", "FHWC")


def jpeg_roundtrip(img: np.ndarray, quality: int) -> np.ndarray:
    """One RGB ``(H, W, 3)`` uint8 image through a JPEG of ``quality`` (clamped to 1..100).

    Example:
        >>> img = np.zeros((8, 8, 3), np.uint8)
        >>> jpeg_roundtrip(img, 500).shape
        (8, 8, 3)
    """
    cv2 = optional_cv2()
    if cv2 is None:  # pragma: no cover - OpenCV is a default dependency
        raise RuntimeError("jpeg_compression_distortion needs OpenCV (pip install opencv-python)")
    q = min(max(int(quality), 1), 100)
    # (OpenCV's channel swaps: numpy's reversed copy costs 25x as much, as much as the codec)
    bgr = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_RGB2BGR)
    ok, encoded = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise ValueError(f"JPEG encoding failed for an image of shape {img.shape}")
    return cv2.cvtColor(cv2.imdecode(encoded, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


@register(
    "jpeg_compression_distortion",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "quality",
            "int",
            default=50,
            tensor=True,
            doc="JPEG quality, 1 (lowest) to 100 (highest); values outside are clamped.",
        ),
    ],
)
class JpegCompressionDistortion(Operator):
    """Introduce JPEG compression artifacts to RGB images (uint8 ``HWC``, or ``FHWC``).

    Every image (every frame of a sequence) is compressed to a JPEG of the sample's
    ``quality`` (clamped to 1..100) and decompressed; the shape, type and layout are kept.
    """

    def _check(self, tl: Any) -> str:
        layout = image_layout(self, tl, _LAYOUTS)
        if tl.np_dtype != np.uint8:
            raise self.error(f"expected UINT8 input, got {type_name(tl.np_dtype)}")
        for i, s in enumerate(tl.samples()):
            if s.shape[-1] != 3:
                raise SampleFailure(
                    i,
                    self.error(
                        "Invalid number of channels. Expected a channel-last layout, with 3 "
                        f"channels (RGB), got shape: {' x '.join(map(str, s.shape))}"
                    ),
                )
            if 0 in s.shape:
                raise SampleFailure(i, self.error(f"cannot compress an empty image {s.shape}"))
        return layout

    def _distort(self, ws: Workspace, samples: list[np.ndarray]) -> list[np.ndarray]:
        quality = ws.arg_scalars("quality", np.int64).tolist()

        def one(i: int) -> np.ndarray:
            s = samples[i]
            if s.ndim == 3:
                return jpeg_roundtrip(s, quality[i])
            return np.stack([jpeg_roundtrip(f, quality[i]) for f in s])

        results: list[np.ndarray] = ws.map(one)
        return results

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        layout = self._check(tl)
        out = self._distort(ws, list(tl.samples()))
        return TensorListCPU.wrap(out, layout, dtype=np.uint8, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """The CPU codec on host copies of the samples; the results copied back."""
        import cupy

        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        layout = self._check(tl)
        host = [cupy.asnumpy(s) for s in tl.samples()]
        out = [cupy.asarray(r) for r in self._distort(ws, host)]
        return TensorListGPU.wrap(out, layout, dtype=np.uint8, ndim=tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's type, layout and shape: the images keep their size."""
        src = node.inputs[0]
        return [
            {
                "dtype": src.dtype,
                "ndim": src.ndim,
                "layout": static_image_layout(node, _LAYOUTS),
                "static_shape": src.static_shape,
            }
        ]
