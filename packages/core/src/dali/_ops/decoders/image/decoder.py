"""`fn.decoders.image`, `image_random_crop`, `image_crop` and `image_slice`.

The four operators share one implementation (here; the crop variants' window functions are in
`image_crops`): decode each sample on the thread pool
(`_codecs.decode`), cut the sample's window out of the decoded image, then convert colour space
and type (`_codecs.to_output`). They differ only in how the window is chosen: none, DALI's crop
arguments, DALI's slice arguments, or DALI's random crop generator (`window.random_crop`). The
window functions depend only on the image size and the sample's arguments, so a mixed (GPU) backend can
reuse them with nvImageCodec's region decoding.

The random windows of ``image_random_crop`` are computed for the whole batch in one vectorised
call (`random_crop.random_crop_windows`), in the executor thread before the decode, from the
display sizes in the JPEG, PNG and BMP headers (`header_shapes`: for JPEGs the same fast walk as
the mixed backend's); an image whose decoded size is not the one predicted (another format, an
unusual header) gets its window from the same function for its own stream and decoded size, so
the window depends only on the sample and its size, never on which path computed it.

How the CPU path decodes: with nvImageCodec installed (the ``nvidia-nvimgcodec-cu13`` wheel,
extra ``nvimgcodec``; no GPU needed), JPEGs go to its libjpeg-turbo decoder, as in DALI, and the
crop variants ask it for the window's region only (`_cpu_nvimgcodec`): the inverse DCT, upsampling
and colour conversion then run for the window's blocks alone, with the pixels of a whole decode.
Every other image, and every image without nvImageCodec, is decoded whole with OpenCV (Pillow for
TIFF and CMYK) and cut: neither can decode a JPEG region with the same pixels as a full decode
(their scaled decodes, ``IMREAD_REDUCED_*`` and ``draft()``, change the pixels). The window is
cut *before* the colour and type conversion, so that work is done on the crop only.

With ``device="mixed"`` (`run_mixed`, implemented in `_nvimgcodec`), a batch is decoded by one
nvImageCodec call straight into GPU memory, the crop variants asking nvImageCodec for the
window's region only; the windows come from the same functions, so both backends cut the same
windows, and images nvImageCodec's GPU decoders cannot take go through the CPU path per image.

Bad data (empty, truncated, corrupt, not an image, a header declaring an image of more than
`_codecs.MAX_DECODED_BYTES`, a decode out of memory) raises an error naming the file. Our
extension ``on_error="skip"`` drops such samples from the batch instead (the batch gets smaller
and the sample identities stay aligned), counts them in the implementation's ``skipped``
attribute and logs one warning per file.

Example:
    >>> import tempfile
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> from dali._testing.images import make_image_tree
    >>> root = tempfile.mkdtemp()
    >>> _ = make_image_tree(root)  # 21 small JPEGs in class folders 0, 1, 2
    >>> @pipeline_def(batch_size=8, num_threads=2, device_id=None)
    ... def pipe():
    ...     jpegs, labels = fn.readers.file(file_root=root)
    ...     return fn.decoders.image_random_crop(jpegs, seed=1), labels
    >>> images, labels = pipe().run()
    >>> len(images), images.layout(), labels.as_array().ravel().tolist()
    (8, 'HWC', [0, 0, 0, 0, 0, 0, 0, 1])
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType, np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.decoders.headers.image_sizes import header_shapes, size_hint
from dali._ops.decoders.image import codecs as _codecs
from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec
from dali._ops.window.image_windows import BatchWindows, Window, WindowFn, Windows
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._ops.decoders.nvimgcodec.mixed import MixedDecoder
    from dali.author import Workspace

__all__ = [
    "DECODER_ARGS",
    "BatchWindows",
    "Image",
    "ImageDecoderBase",
    "Window",
    "Windows",
    "header_shapes",
    "size_hint",
]

_log = logging.getLogger("dali")


# -- schemas -----------------------------------------------------------------------------------

DECODER_ARGS = [
    Arg("output_type", "image_type", default=DALIImageType.RGB, doc="Colour space of the output."),
    Arg("dtype", "dtype", default=DALIDataType.UINT8, doc="Output type; values are rescaled."),
    Arg("adjust_orientation", "bool", default=True, doc="Apply the EXIF orientation."),
    Arg("use_fast_idct", "bool", default=False, doc="Accepted; the CPU decode is always exact."),
    Arg("jpeg_fancy_upsampling", "bool", default=False, doc="Mixed backend only."),
    Arg(
        "hw_decoder_load",
        "float",
        default=0.65,
        doc="Mixed backend: share of JPEGs for the hardware decoder (unset: a measured default).",
    ),
    Arg("preallocate_width_hint", "int", default=0, doc="Mixed backend only."),
    Arg("preallocate_height_hint", "int", default=0, doc="Mixed backend only."),
    Arg("hybrid_huffman_threshold", "int", default=1000000, doc="Mixed backend only."),
    Arg("device_memory_padding", "int", default=16777216, doc="Mixed backend only."),
    Arg("host_memory_padding", "int", default=8388608, doc="Mixed backend only."),
    Arg("device_memory_padding_jpeg2k", "int", default=0, doc="Mixed backend only."),
    Arg("host_memory_padding_jpeg2k", "int", default=0, doc="Mixed backend only."),
    Arg("affine", "bool", default=True, doc="Mixed backend only."),
    Arg("memory_stats", "bool", default=False, doc="Deprecated, ignored."),
    Arg("split_stages", "bool", default=False, doc="Deprecated, ignored."),
    Arg("use_chunk_allocator", "bool", default=False, doc="Deprecated, ignored."),
    Arg(
        "on_error",
        "str",
        default="raise",
        doc='Extension: "raise" (default) or "skip" undecodable samples (dropped and counted).',
    ),
]

_CACHE_ARGS = [
    Arg("cache_size", "int", default=0, doc="Mixed backend only."),
    Arg("cache_threshold", "int", default=0, doc="Mixed backend only."),
    Arg("cache_type", "str", default="", doc="Mixed backend only."),
    Arg("cache_debug", "bool", default=False, doc="Mixed backend only."),
    Arg("cache_batch_copy", "bool", default=True, doc="Mixed backend only."),
]

_MODES = {
    DALIImageType.RGB: "rgb",
    DALIImageType.BGR: "bgr",
    DALIImageType.GRAY: "gray",
    DALIImageType.YCbCr: "rgb",
    DALIImageType.ANY_DATA: "any",
}
#: The channels of each output type (ANY_DATA: the image's own).
_CHANNELS = {
    DALIImageType.RGB: 3,
    DALIImageType.BGR: 3,
    DALIImageType.GRAY: 1,
    DALIImageType.YCbCr: 3,
}
_OUT_DTYPES = frozenset(
    np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32)
)


class _Skip(NamedTuple):
    reason: str


# -- the shared implementation -----------------------------------------------------------------


_U8 = np.dtype(np.uint8)


class ImageDecoderBase(Operator):
    """Decode, cut the sample's window, convert; subclasses choose the window."""

    #: Counted samples dropped with ``on_error="skip"`` (read by tests and reports).
    skipped: int
    #: The mixed backend's state, made on first use (`_nvimgcodec.mixed_of`).
    _mixed: MixedDecoder | None

    #: Whether `windows` wants the images' sizes from their headers (all at once, before the
    #: decode); the others' windows are functions of the decoded size alone.
    needs_shapes = False

    def setup(self) -> None:
        out_type = self.arg("output_type")
        self.output_type = DALIImageType(out_type)
        self._mode = _MODES[self.output_type]
        #: the output type's name ("RGB", "GRAY", "ANY_DATA", ...), read by the backends
        self.out_name = self.output_type.name
        self.out_dtype = np_dtype(self.arg("dtype"))
        if self.out_dtype not in _OUT_DTYPES:
            raise self.arg_error(
                "dtype",
                f"Data type {type_name(self.arg('dtype'))} is not supported for decoded images; "
                "use UINT8, INT8, UINT16, INT16, UINT32, INT32 or FLOAT",
            )
        #: whether the EXIF orientation is applied (``adjust_orientation``)
        self.orientation = bool(self.arg("adjust_orientation"))
        #: the mixed backend's decoders and workers, made on the first batch
        #: (`dali._ops.decoders.nvimgcodec.mixed.mixed_of`); None until then and after `close`
        self.mixed: MixedDecoder | None = None
        load = self.arg("hw_decoder_load")
        if not 0.0 <= load <= 1.0:
            raise self.arg_error("hw_decoder_load", f"must be in [0, 1], got {load}")
        on_error = self.arg("on_error")
        if on_error not in ("raise", "skip"):
            raise self.arg_error("on_error", f'must be "raise" or "skip", got {on_error!r}')
        self._skip = on_error == "skip"
        self._host: _cpu_nvimgcodec.HostDecoders | None = None
        self.skipped = 0
        self._warned: set[str] = set()
        self._policy = "error"
        self._fill: np.ndarray | None = None
        if "out_of_bounds_policy" in self.schema.args:
            self._policy = self.arg("out_of_bounds_policy")
            if self._policy not in ("error", "pad", "trim_to_shape"):
                raise self.arg_error(
                    "out_of_bounds_policy",
                    f'must be "error", "pad" or "trim_to_shape", got {self._policy!r}',
                )
            self._fill = np.asarray(self.arg("fill_values"), dtype=np.float64).reshape(-1)
            if self._fill.size == 0:
                raise self.arg_error("fill_values", "must not be empty")

    # -- the window (overridden) ---------------------------------------------------------------
    def windows(self, ws: Workspace, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        """Per-sample window functions, prepared in the executor thread (None: whole image);
        a `BatchWindows` where they were computed for the whole batch.

        ``shapes`` (with `needs_shapes`): each image's ``(height, width)`` from its header,
        ``(-1, -1)`` where not known; a window function is still called with the actual size.
        """
        return None

    # -- running -------------------------------------------------------------------------------
    def _run_cpu_whole(self, ws: Workspace) -> list[np.ndarray | _Skip]:
        """Every sample decoded whole (OpenCV, Pillow) and cut to its window, on the pool."""
        samples = ws.inputs[0].samples()
        n = len(samples)
        windows = None
        if n:
            shapes = header_shapes(samples, self.orientation) if self.needs_shapes else None
            windows = self.windows(ws, n, shapes)

        def one(i: int) -> np.ndarray | _Skip:
            return self.cpu_sample(ws, i, samples[i], None if windows is None else windows[i])

        return ws.map(one, n)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        if _cpu_nvimgcodec.enabled():
            if self._host is None:
                self._host = _cpu_nvimgcodec.HostDecoders()
            results = _cpu_nvimgcodec.run_cpu(self, ws, self._host)
        else:
            results = self._run_cpu_whole(ws)
        results = self.drop_skipped(ws, results)
        return TensorListCPU.wrap(results, layout="HWC", dtype=self.out_dtype, ndim=3)

    def skipped_samples(self) -> int:
        """How many samples ``on_error="skip"`` dropped so far (`Pipeline.skipped_samples`)."""
        return self.skipped

    def prepare_cpu(self, ws: Workspace) -> Any:
        """The CPU backend's planning of a batch (headers, windows), which the executor runs
        ahead in a CPU pipeline's source stage (`dali._exec.stages.cpu_preparable`); None where
        the batch will not be decoded by nvImageCodec's CPU decoder."""
        if not _cpu_nvimgcodec.enabled():
            return None
        from dali._ops.decoders.image.mixed_plan import plan_batch

        return plan_batch(self, ws)

    def prepare(self, ws: Workspace) -> Any:
        """Start the mixed backend's planning and decode of a batch (the executor calls it in
        the CPU stage, ahead of `run_mixed`)."""
        from dali._ops.decoders.nvimgcodec import mixed as _nvimgcodec

        return _nvimgcodec.prepare(self, ws)

    def run_mixed(self, ws: Workspace) -> Any:
        """Decode on the GPU with nvImageCodec (`_nvimgcodec`); see that module for the design."""
        from dali._ops.decoders.nvimgcodec import mixed as _nvimgcodec

        return _nvimgcodec.run_mixed(self, ws)

    def close(self) -> None:
        mixed = self.mixed
        if mixed is not None:
            self.mixed = None
            mixed.close()
        host = getattr(self, "_host", None)
        if host is not None:
            self._host = None
            host.close()

    # -- shared by the CPU and the mixed backends ----------------------------------------------
    def check_encoded(self, data: np.ndarray) -> np.ndarray:
        """``data`` as a contiguous 1-D uint8 array (file bytes), or an error naming the type."""
        dtype = data.dtype
        if dtype is not _U8 and dtype != _U8:
            raise self.error(
                f"expects encoded images as 1-D uint8 arrays (file bytes), got {data.dtype}"
            )
        if data.ndim != 1 or not data.flags.c_contiguous:
            data = np.ascontiguousarray(data).reshape(-1)
        return data

    def cpu_sample(
        self, ws: Workspace, i: int, data: np.ndarray, window: WindowFn | None
    ) -> np.ndarray | _Skip:
        """Decode sample ``i`` on the CPU, cut its window and convert it (the CPU backend).

        The mixed backend uses this for the images that nvImageCodec's GPU decoders cannot take.
        """
        data = self.check_encoded(data)
        try:
            img = _codecs.decode(data, self._mode, orientation=self.orientation)
        except _codecs.DecodeError as e:
            return self.failed(ws, i, e)
        pad = None
        if window is not None:
            img, pad = self._cut(img, window(img.shape[0], img.shape[1]))
        try:
            out = _codecs.to_output(img, self.out_name, self.out_dtype)
            if pad is not None:
                out = self.pad_window(out, pad)
            return np.ascontiguousarray(out)
        except MemoryError as e:
            return self.failed(ws, i, _codecs.out_of_memory(e))

    def failed(self, ws: Workspace, i: int, error: _codecs.DecodeError) -> _Skip:
        """Sample ``i`` could not be decoded: its skip marker with ``on_error="skip"``, else
        raise ``error`` naming the file (or the sample, for data with no file name)."""
        if self._skip:
            return _Skip(str(error))
        where = ws.source_info(i)
        what = f"{where!r}" if where else f"the encoded data of sample {i}"
        raise _codecs.DecodeError(f"Failed to decode {what}: {error}") from None

    def drop_skipped(self, ws: Workspace, results: list[Any]) -> list[Any]:
        """Remove the `_Skip` results (``on_error="skip"``), count them and fix the batch meta."""
        if not self._skip or not any(isinstance(r, _Skip) for r in results):
            return results
        kept = [i for i, r in enumerate(results) if not isinstance(r, _Skip)]
        for i, r in enumerate(results):
            if isinstance(r, _Skip):
                self._note_skip(ws, i, r.reason)
        ws.out_meta = ws.meta.take(np.asarray(kept, dtype=np.int64))
        return [results[i] for i in kept]

    def _note_skip(self, ws: Workspace, i: int, reason: str) -> None:
        self.skipped += 1
        key = ws.source_info(i) or f"sample id {int(ws.meta.ids[i])}"
        if key not in self._warned:
            self._warned.add(key)
            _log.warning(
                "%s (%s): skipping undecodable image %s (on_error='skip'): %s",
                self.display_name,
                self.name,
                key,
                reason,
            )

    def clip(self, H: int, W: int, win: Window) -> tuple[Window, tuple[int, ...] | None]:
        """The part of ``win`` inside an ``H×W`` image, and the padding still to add ("pad").

        The padding is ``(offset y, offset x, h, w)``: where the part goes in the padded window.
        """
        y0, x0, h, w = win
        y1, x1 = y0 + h, x0 + w
        if y0 >= 0 and x0 >= 0 and y1 <= H and x1 <= W:
            return win, None
        if self._policy == "error":
            raise self.error(
                f"the window (y={y0}, x={x0}, h={h}, w={w}) is out of bounds of the "
                f"{H}x{W} image; use out_of_bounds_policy='pad' or 'trim_to_shape'"
            )
        cy0, cx0 = min(max(y0, 0), H), min(max(x0, 0), W)
        cy1, cx1 = max(min(y1, H), cy0), max(min(x1, W), cx0)
        inner = Window(cy0, cx0, cy1 - cy0, cx1 - cx0)
        if self._policy == "trim_to_shape":
            return inner, None
        return inner, (cy0 - y0, cx0 - x0, h, w)

    def _cut(self, img: np.ndarray, win: Window) -> tuple[np.ndarray, tuple[int, ...] | None]:
        """The part of ``img`` inside ``win``, and the padding still to add (policy "pad")."""
        (y, x, h, w), pad = self.clip(img.shape[0], img.shape[1], win)
        return img[y : y + h, x : x + w], pad

    def fill_for(self, c: int, dtype: np.dtype) -> np.ndarray:
        """The padding value of each of ``c`` channels, converted to ``dtype`` as DALI does."""
        fill = self._fill
        assert fill is not None
        if fill.size not in (1, c):
            raise self.arg_error(
                "fill_values", f"expected 1 or {c} values (one per channel), got {fill.size}"
            )
        values = fill.astype(dtype) if dtype.kind == "f" else _codecs.round_sat(fill, dtype)
        return np.broadcast_to(values, (c,))

    def pad_window(self, inner: np.ndarray, pad: tuple[int, ...]) -> np.ndarray:
        oy, ox, h, w = pad
        c = inner.shape[2]
        out = np.empty((h, w, c), dtype=inner.dtype)
        out[...] = self.fill_for(c, inner.dtype)
        out[oy : oy + inner.shape[0], ox : ox + inner.shape[1]] = inner
        return out

    @classmethod
    def static_meta(cls, node: Any) -> list[dict[str, Any]]:
        """HWC of the type asked for: 3 channels for RGB, BGR and YCbCr, 1 for GRAY (ANY_DATA:
        the image's own); the height and width are the image's (or its window's)."""
        from dali._dtypes import dali_dtype

        dtype = node.scalar_args.get("dtype") or DALIDataType.UINT8
        out_type = DALIImageType(node.scalar_args.get("output_type", DALIImageType.RGB))
        shape = (None, None, _CHANNELS.get(out_type))
        return [{"static_shape": shape, "dtype": dali_dtype(dtype), "layout": "HWC"}]


# -- the operators -----------------------------------------------------------------------------


@register(
    "decoders.image",
    devices=("cpu", "mixed"),
    inputs=1,
    input_names=("data",),
    args=[*DECODER_ARGS, *_CACHE_ARGS],
)
class Image(ImageDecoderBase):
    """Decodes images (JPEG, JPEG 2000, TIFF, PNG, BMP, PNM, WebP) to HWC.

    The output is HWC with 3 channels for RGB, BGR and YCbCr, 1 for GRAY and the native count for
    ANY_DATA; ``dtype`` rescales to the type's range (FLOAT: [0, 1]). EXIF orientation is applied
    unless ``adjust_orientation=False``.
    """
