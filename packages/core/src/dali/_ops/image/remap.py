"""`fn.experimental.remap`: a generic geometric transform given as two maps.

``output(x, y) = input(mapx(x, y), mapy(x, y))``: the maps hold, for every output pixel, the
position in the input to take it from (the output has the input's shape, so the maps have the
input's height and width). It is the displacement filters' sampling (`displacement`) with
positions read from the maps:

* ``pixel_origin="corner"`` (default): pixel ``(i, j)`` covers ``[i, i + 1) × [j, j + 1)``;
  NN takes ``floor(map)``, LINEAR blends the four pixels around ``map − 0.5``. DALI shifts the
  maps by −0.5 and samples with the centre convention, which is the same;
* ``pixel_origin="center"``: pixel centres sit on integers, as in OpenCV's ``cv2.remap``: NN
  takes ``floor(map + 0.5)``, LINEAR blends around ``map``;
* positions outside the input give 0 (DALI's only border: ``BORDER_CONSTANT`` with 0).

DALI 2.4 has this operator on the GPU only, where NPP's ``nppiRemap`` computes it; `dali` runs
it on the CPU and on the GPU with one arithmetic (float32 weights, rounding half away from zero),
so both backends agree exactly. Against NPP, DALI's own test allows 1 % of the pixels to differ
from OpenCV's ``remap`` (NPP's rounding of nearest-neighbour ties and of linear weights is its
own); expect NN identical away from exact ties, and LINEAR within 1 of uint8 values.

Inputs: ``HWC`` or ``FHWC`` images (1 or 3 channels; uint8, int16, uint16 or float); maps of
float32, ``HW`` (or ``HWC`` with one channel) for one map per sample, ``FHW`` / ``FHWC`` for
one per frame of a sequence. A sequence with one map per sample uses it for every frame.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    >>> ys, xs = np.mgrid[0:3, 0:4].astype(np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [img], layout="HWC")
    ...     mx = fn.external_source(lambda: [3 - xs])  # a horizontal flip
    ...     my = fn.external_source(lambda: [ys])
    ...     return fn.experimental.remap(x, mx, my, interp=0, pixel_origin="center")
    >>> pipe().run()[0].as_array()[0, :, :, 0]
    array([[ 3,  2,  1,  0],
           [ 7,  6,  5,  4],
           [11, 10,  9,  8]], dtype=uint8)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._common import static_image_layout
from dali._ops.image.displacement import LINEAR, NN, sample
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Remap"]

_TYPES = ("uint8", "int16", "uint16", "float32")
_MAP_LAYOUTS = ("HWC", "HW", "FHWC", "FHW", "F***", "F**")


def _shape_text(shape: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(v) for v in shape) + "}"


@register(
    "experimental.remap",
    devices=("cpu", "gpu"),
    inputs=3,
    input_names=("input", "mapx", "mapy"),
    args=[
        Arg("interp", "interp_type", default=LINEAR,
            doc="Interpolation type: INTERP_NN or INTERP_LINEAR (default)."),
        Arg("pixel_origin", "str", default="corner",
            doc='Pixel origin: "corner" (default) or "center" (OpenCV\'s convention).'),
    ],
)  # fmt: skip
class Remap(Operator):
    """The remap operation applies a generic geometrical transformation to an image.

    In other words, it takes pixels from one place in the input image and puts them in another
    place in the output image. The transformation is described by ``mapx`` and ``mapy``
    parameters, where: ``output(x,y) = input(mapx(x,y),mapy(x,y))``. The type of the output
    tensor will match the type of the input tensor. Handles only HWC layout (and FHWC
    sequences, with one map per sample or per frame). Picking a border policy is not
    supported: the border is always ``CONSTANT`` with the value ``0``. ``pixel_origin``
    (``"corner"`` or ``"center"``) says which part of a pixel is its position; to match
    OpenCV, pick ``"center"``. (DALI 2.4 runs it on the GPU only; here on the CPU too.)
    """

    def setup(self) -> None:
        interp = int(self.arg("interp"))
        if interp not in (NN, LINEAR):
            raise self.arg_error(
                "interp",
                f"Unsupported interpolation type ({self.arg('interp')}): `dali` remaps with "
                "INTERP_NN or INTERP_LINEAR",
            )
        self.interp = interp
        origin = self.arg("pixel_origin")
        if origin not in ("corner", "center"):
            raise self.arg_error(
                "pixel_origin",
                'Undefined pixel_origin parameter. Please choose one of: ["center", "corner"]',
            )
        self.center = origin == "center"

    # -- checks ------------------------------------------------------------------------------
    def _frames(self, tl: Any) -> bool:
        """Whether the input holds sequences (``FHWC``); checks layout, type and channels."""
        layout = tl.layout()
        ndim = tl.sample_ndim
        if layout:
            if layout not in ("HWC", "FHWC"):
                raise self.error(
                    f'The layout "{layout}" does not match any of the allowed layouts for '
                    "input 0. Valid layouts are: HWC, FHWC"
                )
        elif ndim not in (3, 4):
            raise self.error(
                f"The number of dimensions {ndim} does not match any of the allowed layouts "
                "for input 0. Valid layouts are: HWC, FHWC"
            )
        if tl.np_dtype.name not in _TYPES:
            raise self.error(f"Unsupported input type: {type_name(tl.np_dtype)}")
        return ndim == 4

    def _map_geometry(self, tl: Any, mapx: Any, mapy: Any, frames: bool) -> list[bool]:
        """Check the maps against the input; per sample, whether its maps are per frame."""
        for k, (name, m) in enumerate((("mapx", mapx), ("mapy", mapy)), start=1):
            if m.np_dtype != np.dtype(np.float32):
                raise self.error(
                    f"input {k} (`{name}`) must be float maps, got {type_name(m.np_dtype)}"
                )
            layout = m.layout()
            if layout and layout not in _MAP_LAYOUTS:
                raise self.error(
                    f'The layout "{layout}" does not match any of the allowed layouts for '
                    f"input {k}. Valid layouts are: " + ", ".join(_MAP_LAYOUTS)
                )
        per_frame_x = mapx.layout()[:1] == "F"
        if per_frame_x != (mapy.layout()[:1] == "F"):
            raise self.error("`mapx` and `mapy` must both be sequences (per-frame maps) or not")
        if per_frame_x and not frames:
            raise self.error("per-frame maps (layout starting with 'F') need a sequence input")
        shapes, sx, sy = tl.shape(), mapx.shape(), mapy.shape()
        if not len(shapes) == len(sx) == len(sy):
            raise self.error(
                f"the batches differ in size: input {len(shapes)}, mapx {len(sx)}, mapy {len(sy)}"
            )
        out = []
        for i, (shape, a, b) in enumerate(zip(shapes, sx, sy)):
            a, b = tuple(a), tuple(b)
            if a != b:
                raise self.error(
                    f"sample {i}: Maps shapes do not match. mapx: {_shape_text(a)} ; "
                    f"mapy: {_shape_text(b)}."
                )
            spatial = a[1:] if per_frame_x else a
            if len(spatial) == 3 and spatial[2] == 1:
                spatial = spatial[:2]  # HWC with one channel
            if len(spatial) != 2:
                raise self.error(
                    f"sample {i}: a map must be H x W (or H x W x 1) per "
                    f"{'frame' if per_frame_x else 'sample'}, got {_shape_text(a)}"
                )
            image = tuple(shape[1:] if frames else shape)
            if spatial != image[:2]:
                raise self.error(
                    f"sample {i}: Output and maps shapes do not match. Output: "
                    f"{_shape_text(image)} ; mapsx: {_shape_text(spatial)}."
                )
            if per_frame_x and a[0] != shape[0]:
                raise self.error(
                    f"sample {i}: the maps have {a[0]} frames, but the input has {shape[0]}; "
                    "per-frame maps need one map per frame"
                )
            if image[2] not in (1, 3):
                raise self.error(
                    f"sample {i}: Incorrect number of channels: {image[2]}. Only images with 1 "
                    "and 3 channels are supported."
                )
            out.append(per_frame_x)
        return out

    # -- running -----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        tl, mapx, mapy = ws.inputs
        frames = self._frames(tl)
        per_frame = self._map_geometry(tl, mapx, mapy, frames)
        images, mxs, mys = tl.samples(), mapx.samples(), mapy.samples()
        fill_cache: dict[int, np.ndarray] = {}

        def one(i: int) -> np.ndarray:
            x = images[i]
            c = x.shape[-1]
            fill = fill_cache.setdefault(c, np.zeros(c, x.dtype))
            if x.size == 0:
                return np.array(x, copy=True)
            h, w = x.shape[-3:-1]
            mx = np.asarray(mxs[i], np.float32).reshape(-1, h, w)
            my = np.asarray(mys[i], np.float32).reshape(-1, h, w)
            if not frames:
                return sample(x, mx[0], my[0], interp=self.interp, fill=fill, center=self.center)
            outs = [
                sample(f, mx[k if per_frame[i] else 0], my[k if per_frame[i] else 0],
                       interp=self.interp, fill=fill, center=self.center)
                for k, f in enumerate(x)
            ]  # fmt: skip
            return np.stack(outs)

        out = ws.map(one)
        layout = "FHWC" if frames else "HWC"
        return TensorListCPU.wrap(out, layout, dtype=tl.np_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.image import _displace_gpu

        tl, mapx, mapy = ws.inputs
        frames = self._frames(tl)
        mapx, mapy = (m.to_gpu() if isinstance(m, TensorListCPU) else m for m in (mapx, mapy))
        per_frame = self._map_geometry(tl, mapx, mapy, frames)
        return _displace_gpu.displace_batch(
            tl,
            [_displace_gpu.REMAP] * len(per_frame),
            interp=self.interp,
            center=self.center,
            fill=0.0,
            layout="FHWC" if frames else "HWC",
            maps=(mapx, mapy),
            map_per_frame=per_frame,
            frames=frames,
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, layout=static_image_layout(node, ("HWC", "FHWC")))
