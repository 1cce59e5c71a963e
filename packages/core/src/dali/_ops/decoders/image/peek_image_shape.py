"""`fn.peek_image_shape`: the shape an encoded image would have once decoded, without decoding.

The input is a batch of encoded files (flat uint8 arrays, as `fn.readers.file` gives them); the
output is one ``[height, width, channels]`` vector per image, of ``dtype`` (INT64 by default;
INT32, UINT32, UINT64, FLOAT or FLOAT64). Only the headers are read: the frame header of a
JPEG (the batch's JPEG headers are walked together, `_jpeg_header.jpeg_headers`), the IHDR of a
PNG, the DIB header of a BMP, the first IFD of a TIFF, the VP8/VP8L/VP8X chunk of a WebP, the
header of a PNM and the SIZ marker (or ``ihdr`` box) of a JPEG 2000 file. A file whose
data is truncated after its header still has a shape; an empty file, an unknown format or a
header that cannot be read is an error naming the sample.

``channels`` follows ``image_type`` as the decoders do: 3 for RGB, BGR and YCbCr, 1 for GRAY,
and for ANY_DATA the file's own count (1 for gray, 2 for gray with alpha, 3, or 4 for RGBA and
CMYK). With ``adjust_orientation`` (the default) an EXIF orientation of 5 to 8 (a quarter
turn) swaps height and width, as the decoded image's.
`fn.experimental.peek_image_shape` is DALI's deprecated alias of this operator.

Example:
    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> from dali import fn, pipeline_def, types
    >>> f = io.BytesIO()
    >>> Image.new("RGBA", (64, 48)).save(f, "PNG")
    >>> png = np.frombuffer(f.getvalue(), np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     data = fn.external_source(lambda: [png])
    ...     return (fn.peek_image_shape(data),
    ...             fn.peek_image_shape(data, image_type=types.ANY_DATA, dtype=types.INT32))
    >>> rgb, native = pipe().run()
    >>> rgb.at(0).tolist(), native.at(0).tolist(), native.dtype
    ([48, 64, 3], [48, 64, 4], <DALIDataType.INT32: 6>)
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType, dali_dtype, np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.decoders.headers.jpeg_header import jpeg_headers
from dali._ops.decoders.headers.jpeg_walk import tiff_orientation
from dali._ops.decoders.image import codecs as _codecs
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ImageInfo", "PeekImageShape", "image_info"]

_OUT_TYPES = ("int32", "uint32", "int64", "uint64", "float32", "float64")
#: channels of a PNG per colour type (gray, RGB, palette, gray + alpha, RGBA)
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}


class ImageInfo(NamedTuple):
    """What a header tells: the stored size, the channel count and the EXIF orientation."""

    height: int
    width: int
    channels: int
    orientation: int


def _u(buf: bytes, fmt: str, at: int) -> int:
    value: int = struct.unpack_from(fmt, buf, at)[0]
    return value


def _png_info(data: np.ndarray) -> ImageInfo:
    buf = data[:33].tobytes()
    if len(buf) < 26 or buf[12:16] != b"IHDR":
        raise _codecs.DecodeError("corrupt PNG: the IHDR chunk is missing")
    w, h = _u(buf, ">I", 16), _u(buf, ">I", 20)
    color_type, orientation = _codecs._png_header(data)
    channels = _PNG_CHANNELS.get(color_type, 3)
    if color_type == 3 and b"tRNS" in data.tobytes():  # a palette with transparency
        channels = 4
    return ImageInfo(h, w, channels, orientation)


def _bmp_info(data: np.ndarray) -> ImageInfo:
    buf = data[:32].tobytes()
    if len(buf) < 26:
        raise _codecs.DecodeError("corrupt BMP: the header is truncated")
    if _u(buf, "<I", 14) == 12:  # OS/2 BITMAPCOREHEADER
        w, h, bits = _u(buf, "<H", 18), _u(buf, "<H", 20), _u(buf, "<H", 24)
    else:
        w, h = _u(buf, "<i", 18), abs(_u(buf, "<i", 22))
        bits = _u(buf, "<H", 28) if len(buf) >= 30 else 24
    return ImageInfo(h, w, 4 if bits == 32 else 3, 1)


def _pnm_info(data: np.ndarray) -> ImageInfo:
    buf = data[:1024].tobytes()
    tokens: list[bytes] = []
    pos = 2
    while len(tokens) < 2 and pos < len(buf):
        c = buf[pos : pos + 1]
        if c == b"#":
            end = buf.find(b"\n", pos)
            pos = len(buf) if end < 0 else end + 1
        elif c.isspace():
            pos += 1
        else:
            end = pos
            while end < len(buf) and not buf[end : end + 1].isspace() and buf[end] != ord("#"):
                end += 1
            tokens.append(buf[pos:end])
            pos = end
    if len(tokens) < 2 or not all(t.isdigit() for t in tokens):
        raise _codecs.DecodeError("corrupt PNM: the header is truncated")
    channels = 3 if buf[1:2] in b"36" else 1
    return ImageInfo(int(tokens[1]), int(tokens[0]), channels, 1)


def _tiff_info(data: np.ndarray) -> ImageInfo:
    buf = data.tobytes()
    e = "<" if buf[:2] == b"II" else ">"
    tags: dict[int, int] = {}
    try:
        ifd = _u(buf, e + "I", 4)
        count = _u(buf, e + "H", ifd)
        for k in range(min(count, 1024)):
            entry = ifd + 2 + 12 * k
            tag, typ = struct.unpack_from(e + "HH", buf, entry)
            if tag in (256, 257, 277):
                tags[tag] = _u(buf, e + ("H" if typ == 3 else "I"), entry + 8)
    except struct.error:
        raise _codecs.DecodeError("corrupt TIFF: the first IFD is truncated") from None
    if 256 not in tags or 257 not in tags:
        raise _codecs.DecodeError("corrupt TIFF: the image size tags are missing")
    return ImageInfo(tags[257], tags[256], tags.get(277, 1), tiff_orientation(buf))


def _webp_info(data: np.ndarray) -> ImageInfo:
    buf = data[:30].tobytes()
    if len(buf) < 30:
        raise _codecs.DecodeError("corrupt WebP: the header is truncated")
    chunk = buf[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(buf[24:27], "little") + 1
        h = int.from_bytes(buf[27:30], "little") + 1
        alpha = bool(buf[20] & 0x10)
    elif chunk == b"VP8L":
        bits = int.from_bytes(buf[21:25], "little")
        w, h = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        alpha = bool((bits >> 28) & 1)
    elif chunk == b"VP8 ":
        w, h = _u(buf, "<H", 26) & 0x3FFF, _u(buf, "<H", 28) & 0x3FFF
        alpha = False
    else:
        raise _codecs.DecodeError(f"corrupt WebP: unknown chunk {chunk!r}")
    return ImageInfo(h, w, 4 if alpha else 3, _codecs._webp_orientation(data))


def _jpeg2000_info(data: np.ndarray) -> ImageInfo:
    buf = data[:4096].tobytes()
    at = buf.find(b"ihdr")
    if at >= 0 and len(buf) >= at + 14:
        return ImageInfo(_u(buf, ">I", at + 4), _u(buf, ">I", at + 8), _u(buf, ">H", at + 12), 1)
    at = buf.find(b"\xff\x51")  # SIZ: Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz, tiles, Csiz
    if at < 0 or len(buf) < at + 40:
        raise _codecs.DecodeError("corrupt JPEG 2000: the SIZ marker is missing")
    xs, ys, xo, yo = struct.unpack_from(">IIII", buf, at + 6)
    return ImageInfo(ys - yo, xs - xo, _u(buf, ">H", at + 38), 1)


def _jpeg_info(data: np.ndarray) -> ImageInfo:
    frame = _codecs._jpeg_frame(data)
    if frame.height <= 0 or frame.width <= 0 or frame.ncomp <= 0:
        raise _codecs.DecodeError("corrupt JPEG: no frame header before the image data")
    return ImageInfo(frame.height, frame.width, frame.ncomp, frame.orientation)


_READERS = {
    "jpeg": _jpeg_info,
    "png": _png_info,
    "bmp": _bmp_info,
    "pnm": _pnm_info,
    "tiff": _tiff_info,
    "webp": _webp_info,
    "jpeg2000": _jpeg2000_info,
}


def image_info(data: np.ndarray) -> ImageInfo:
    """The header information of one encoded image.

    Raises:
        DecodeError: Empty data, an unknown format or an unreadable header.

    Example:
        >>> png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000400000003008060000")
        >>> image_info(np.frombuffer(png + bytes(8), np.uint8))
        ImageInfo(height=48, width=64, channels=4, orientation=1)
    """
    return _READERS[_codecs.sniff(data)](data)


@register(
    "peek_image_shape",
    devices=("cpu",),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("dtype", "dtype", default=DALIDataType.INT64, doc="Type of the output sizes."),
        Arg(
            "image_type",
            "image_type",
            default=DALIImageType.RGB,
            doc="Colour format of the image (decides the channel count).",
        ),
        Arg(
            "adjust_orientation",
            "bool",
            default=True,
            doc="Use the EXIF orientation metadata when calculating the shape.",
        ),
    ],
)
class PeekImageShape(Operator):
    """Obtains the shape of the encoded image: ``[height, width, channels]``, as it would be
    after decoding."""

    def setup(self) -> None:
        dtype = self.arg("dtype")
        if np_dtype(dtype).name not in _OUT_TYPES:
            raise self.arg_error(
                "dtype",
                "Operator PeekImageShape can return the output as one of the following: "
                f"int32, uint32, int64, uint64, float or double; requested: {type_name(dtype)}",
            )
        self.out_dtype = np_dtype(dtype)
        image_type = self.arg("image_type")
        self.channels: int | None = {
            DALIImageType.GRAY: 1,
            DALIImageType.ANY_DATA: None,
        }.get(image_type, 3)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        if tl.np_dtype != np.uint8 or tl.sample_ndim != 1:
            raise self.error(
                "The input must be a raw, undecoded file stored as a flat uint8 array."
            )
        datas = [d if d.flags.c_contiguous else np.ascontiguousarray(d) for d in tl.samples()]
        hd = jpeg_headers(datas)
        h, w, c = hd.height, hd.width, hd.ncomp
        # the JPEGs whose headers the batch walk read: their rows as whole columns
        read = hd.found & (h > 0) & (w > 0) & (c > 0)
        out = np.empty((len(datas), 3), dtype=np.int64)
        orient = bool(self.arg("adjust_orientation"))
        swap = hd.orientation >= 5 if orient else np.zeros_like(read)
        out[:, 0] = np.where(swap, w, h)
        out[:, 1] = np.where(swap, h, w)
        out[:, 2] = c if self.channels is None else self.channels
        for i in np.flatnonzero(~read).tolist():  # the other files, one by one, in order
            try:
                info = image_info(datas[i])
            except _codecs.DecodeError as e:
                where = ws.source_info(i) or f"sample {i}"
                raise self.error(f"{where}: cannot read the image header: {e}") from None
            hh, ww = info.height, info.width
            if orient and info.orientation >= 5:
                hh, ww = ww, hh
            out[i] = (hh, ww, info.channels if self.channels is None else self.channels)
        return TensorListCPU.wrap(out.astype(self.out_dtype))

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        dtype = node.scalar_args.get("dtype") or DALIDataType.INT64
        return [{"dtype": dali_dtype(dtype), "static_shape": (3,), "layout": ""}]
