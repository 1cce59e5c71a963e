"""The fused decode-and-crop operators: `image_crop`, `image_random_crop`, `image_slice` (§3.3).

Each is `dali._ops.decoders.image._ImageDecoder` with its own window function: DALI's crop
arguments, DALI's random crop generator (whole batches at once, `crop_window`), or DALI's slice
arguments. Decoding, region decoding, conversions and errors are the shared implementation's
(see `dali._ops.decoders.image`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._graph.schema import register
from dali._ops.decoders._windows import (
    BatchWindows,
    Window,
    Windows,
    _crop_window_fn,
    _named_slice_fn,
    _positional_slice_fn,
)
from dali._ops.decoders.image import _DECODER_ARGS, _ImageDecoder
from dali._ops.image._window import (
    CROP_WINDOW_ARGS,
    SLICE_ARGS,
    CropWindows,
    slice_shape_error,
)
from dali._ops.image.crop_window import RANDOM_CROP_ARGS, RandomCropParams, random_crop_windows

__all__ = ["ImageCrop", "ImageRandomCrop", "ImageSlice"]


@register(
    "decoders.image_crop",
    devices=("cpu", "mixed"),
    inputs=1,
    input_names=("data",),
    args=[*_DECODER_ARGS, *CROP_WINDOW_ARGS],
    aliases=("ImageDecoderCrop", "nvJPEGDecoderCrop", "HostDecoderCrop"),
)
class ImageCrop(_ImageDecoder):
    """Decodes images and extracts a fixed-size window at a relative anchor (like ``fn.crop``).

    The window is ``crop=(h, w)`` (or ``crop_h``/``crop_w``) placed at
    ``round(crop_pos · (extent − size))``, as `fn.crop` does on the decoded image.
    """

    def setup(self) -> None:
        super().setup()
        # DALI's CropAttr, as `fn.crop` holds it: every check of the crop arguments (pairs,
        # sizes >= 0, positions in [0, 1], rounding) lives there, once
        self._win = CropWindows(self)
        self._whole = self._win.whole

    def windows(self, ws: Any, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        if self._whole:
            return None
        sizes = self._win.sizes(ws)  # (d, h, w) per sample; <= 0: the whole extent
        pos = self._win.positions(ws).tolist()  # (z, y, x) per sample, float32 values
        truncate = self._win.truncate
        return [_crop_window_fn(h, w, p[1], p[2], truncate) for (_, h, w), p in zip(sizes, pos)]


@register(
    "decoders.image_random_crop",
    devices=("cpu", "mixed"),
    inputs=1,
    input_names=("data",),
    args=[*_DECODER_ARGS, *RANDOM_CROP_ARGS],
    random=True,
    aliases=("ImageDecoderRandomCrop", "nvJPEGDecoderRandomCrop", "HostDecoderRandomCrop"),
)
class ImageRandomCrop(_ImageDecoder):
    """Decodes images and cuts a random window (area and aspect ratio in the given ranges).

    The window is drawn as DALI's ``RandomCropGenerator`` does, from a random stream keyed by the
    sample's identity: the same sample gets the same window whatever the batch size, number of
    threads, shards or backend. The output is not resized.
    """

    needs_shapes = True

    def setup(self) -> None:
        super().setup()
        self.crop_params = RandomCropParams.from_op(self)

    def windows(self, ws: Any, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        rng = ws.rng  # created here, in the executor thread, not in the workers
        p = self.crop_params
        if shapes is None:
            shapes = np.full((n, 2), -1, dtype=np.int64)
        # one call for the batch; the unknown sizes (-1) get a dummy (empty) window, never used
        anchors, sizes = random_crop_windows(rng, shapes, p.area, p.aspect_ratio, p.num_attempts)

        def fallback(i: int, H: int, W: int) -> Window:
            # the decoded size was not known: the same function, for this sample alone
            a, s = random_crop_windows(
                rng.subset([i]), [(H, W)], p.area, p.aspect_ratio, p.num_attempts
            )
            return Window(int(a[0, 0]), int(a[0, 1]), int(s[0, 0]), int(s[0, 1]))

        return BatchWindows(anchors, sizes, shapes, fallback)


@register(
    "decoders.image_slice",
    devices=("cpu", "mixed"),
    inputs=(1, 3),
    input_names=("data", "anchor", "shape"),
    args=[*_DECODER_ARGS, *SLICE_ARGS],
    aliases=("ImageDecoderSlice", "nvJPEGDecoderSlice", "HostDecoderSlice"),
)
class ImageSlice(_ImageDecoder):
    """Decodes images and extracts a slice given by anchor/shape inputs or start/end arguments.

    By default the ``anchor`` and ``shape`` inputs are relative and in "WH" order (x before y);
    integer inputs are absolute. The named arguments (``start``/``rel_start`` with
    ``end``/``rel_end``/``shape``/``rel_shape``) follow `fn.slice`.
    """

    _NAMED = ("start", "rel_start", "end", "rel_end", "shape", "rel_shape")

    def setup(self) -> None:
        super().setup()
        if self.has_arg("axis_names") or not self.has_arg("axes"):
            names = self.arg("axis_names")
            axes = []
            for c in names:
                if c not in "HW":
                    raise self.arg_error(
                        "axis_names", f"images are sliced along H and W only, got {names!r}"
                    )
                axes.append("HW".index(c))
        else:
            axes = []
            for a in self.arg("axes"):
                a = a + 3 if a < 0 else a
                if a not in (0, 1):
                    raise self.arg_error(
                        "axes", f"images are sliced along axes 0 (H) and 1 (W) only, got {a}"
                    )
                axes.append(a)
        if len(set(axes)) != len(axes):
            raise self.arg_error("axes", f"repeated axis in {axes}")
        self.axes = tuple(axes)
        given = [a for a in self._NAMED if self.has_arg(a)]
        starts = [a for a in given if a in ("start", "rel_start")]
        ends = [a for a in given if a not in ("start", "rel_start")]
        if len(starts) > 1:
            raise self.arg_error("rel_start", '"start" and "rel_start" are mutually exclusive')
        if len(ends) > 1:
            raise self.arg_error(
                ends[1], '"end", "rel_end", "shape" and "rel_shape" are mutually exclusive'
            )
        self._named = bool(given)
        for name in ("shape", "rel_shape"):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                err = slice_shape_error(self, name, self.arg(name))
                if err is not None:
                    raise err
        n_inputs = len(self.node.inputs)
        if self._named and n_inputs != 1:
            raise self.error(
                "named arguments start/end/shape are not compatible with the positional "
                "anchor and shape inputs"
            )
        if not self._named and n_inputs != 3:
            raise self.error(
                "expected named slice arguments (e.g. start/end, rel_start/rel_shape) or the "
                f"positional inputs (data, anchor, shape); got {n_inputs} input(s)"
            )

    def windows(self, ws: Any, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        k = len(self.axes)
        if self._named:
            vals: dict[str, list[np.ndarray]] = {}
            for name in self._NAMED:
                if self.has_arg(name):
                    dt = np.float32 if name.startswith("rel_") else np.int64
                    per = [np.asarray(v, dtype=dt).reshape(-1) for v in ws.arg_samples(name)]
                    for i, v in enumerate(per):
                        if v.size != k:
                            raise self.arg_error(
                                name,
                                f"sample {i}: expected {k} values (axes {self.axes}), got {v.size}",
                            )
                        if name in ("shape", "rel_shape"):
                            err = slice_shape_error(self, name, v, i)
                            if err is not None:
                                raise err
                    vals[name] = [v.astype(np.float64) for v in per]
            return [
                _named_slice_fn(self, self.axes, {a: v[i] for a, v in vals.items()})
                for i in range(n)
            ]
        anchors, shapes = ws.inputs[1]._samples(), ws.inputs[2]._samples()
        if len(anchors) != n or len(shapes) != n:
            raise self.error("the anchor and shape inputs must have one value per sample")
        out = []
        for i in range(n):
            a, s = np.asarray(anchors[i]), np.asarray(shapes[i])
            if a.dtype != s.dtype:
                raise self.error(
                    f"anchor and shape should have the same type, got {a.dtype} and {s.dtype}"
                )
            if a.dtype.kind not in "iuf" or a.ndim > 1 or s.ndim > 1 or a.size != k or s.size != k:
                raise self.error(
                    f"sample {i}: anchor and shape must be 1-D with {k} numbers (axes "
                    f"{self.axes}), got {a.dtype} {a.shape} and {s.dtype} {s.shape}"
                )
            err = slice_shape_error(self, "shape input", s, i)
            if err is not None:
                raise err
            is_float = a.dtype.kind == "f"
            out.append(
                _positional_slice_fn(
                    self,
                    self.axes,
                    a.astype(np.float32).astype(np.float64).reshape(-1),
                    s.astype(np.float32).astype(np.float64).reshape(-1),
                    is_float and bool(self.arg("normalized_anchor")),
                    is_float and bool(self.arg("normalized_shape")),
                )
            )
        return out
