"""Image codecs behind the CPU decoders: sniffing, decoding, EXIF orientation, colour conversion.

Real DALI 2.4 decodes through nvImageCodec, whose CPU backends are libjpeg-turbo (JPEG), libtiff
(TIFF) and OpenCV (PNG, BMP, PNM, WebP, JPEG 2000). We reproduce that split with the libraries
the ``image`` extra installs:

* **OpenCV** (`cv2.imdecode`) for JPEG, PNG, BMP, PNM, WebP and JPEG 2000. Its bundled
  libjpeg-turbo uses the same IDCT and fancy upsampling as Pillow's, so the RGB decode of a JPEG is
  bit-identical to ``PIL.Image.open(f).convert("RGB")`` (what DALI was observed to produce), and
  about 1.8x faster than Pillow. GRAY asks the codec itself for luma (``IMREAD_GRAYSCALE``), as
  nvImageCodec does: the JPEG Y channel, libpng's own RGB-to-gray for PNG.
* **Pillow** for TIFF (OpenCV premultiplies alpha and applies the TIFF orientation even when
  told not to) and for CMYK/YCCK JPEGs (OpenCV's CMYK conversion is off by one from Pillow's).

Every decoder is told to *ignore* EXIF orientation; `decode` reads the orientation tag itself
(JPEG APP1, PNG eXIf, WebP EXIF, TIFF IFD0) and applies it with numpy, so the behaviour is the
same for every format and OpenCV version.

The decode keeps the native sample depth (uint8, or uint16 for 16-bit PNG/PNM/TIFF/JPEG 2000);
`to_output` then converts the colour space and the type exactly as DALI's ``ConvertSatNorm``
and ``itu_r_bt_601`` kernels do (float32 arithmetic, round half away from zero, saturation).

An image whose header declares more than `MAX_DECODED_BYTES` of pixels is refused before
anything is allocated (`check_size`; the mixed backend's planning applies the same rule to the
batch's JPEG headers, `too_large`), and a decode that runs out of memory anyway is a
`DecodeError` too: both name the file and obey ``on_error="skip"`` like any other bad image.

Example:
    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> from dali._ops.decoders.image import codecs as _codecs
    >>> jpeg = io.BytesIO()
    >>> Image.new("RGB", (64, 48), (200, 100, 50)).save(jpeg, "JPEG")
    >>> rgb = _codecs.decode(np.frombuffer(jpeg.getvalue(), dtype=np.uint8), "rgb")
    >>> rgb.shape
    (48, 64, 3)
    >>> _codecs.to_output(rgb, "YCbCr", np.dtype(np.float32)).dtype
    dtype('float32')
"""

from __future__ import annotations

import io
import struct
from typing import Any, NamedTuple

import numpy as np

from dali._ops.decoders.headers.jpeg_walk import SOF_MARKERS, tiff_orientation
from dali._ops.image._common import optional_cv2

__all__ = [
    "MAX_DECODED_BYTES",
    "YCC_EXACT",
    "DecodeError",
    "apply_orientation",
    "check_jpeg_complete",
    "check_size",
    "convert_dtype",
    "decode",
    "max_value",
    "out_of_memory",
    "rgb_to_ycbcr",
    "round_sat",
    "sniff",
    "to_output",
    "too_large",
]


class DecodeError(RuntimeError):
    """The encoded data is empty, truncated, corrupt or not an image in a supported format."""


#: The most bytes one decoded image may take: its pixels in the decoder's own type (before the
#: output conversion), checked against the size its header declares, before anything is
#: allocated. DALI and nvImageCodec set no limit, but a header is two 16-bit numbers: a corrupt
#: or hostile JPEG of a few hundred bytes can declare 65535 x 65535 pixels, 12 GiB to allocate
#: before the decode finds the data missing (it failed with numpy's "Unable to allocate 11.8
#: GiB", naming no file, and could not be skipped). 2 GiB is 715 Mpixels of RGB, far beyond real
#: photographs (a 100-Mpixel camera frame is 0.3 GiB). Set this module attribute to change it
#: (read at every decode; the images over it are errors naming the file, or skipped with
#: ``on_error="skip"``).
MAX_DECODED_BYTES = 1 << 31


def too_large(height: Any, width: Any, channels: Any, itemsize: Any = 1) -> Any:
    """Whether an image of ``height`` x ``width`` x ``channels`` samples of ``itemsize`` bytes
    is over `MAX_DECODED_BYTES`: a bool, or a bool array for arrays of int64 (numpy)."""
    return height * width * channels * itemsize > MAX_DECODED_BYTES


def check_size(height: int, width: int, channels: int, itemsize: int = 1) -> None:
    """Raise `DecodeError` for an image over `MAX_DECODED_BYTES` (see `too_large`).

    Example:
        >>> check_size(65000, 65000, 3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        dali._ops.decoders.image.codecs.DecodeError: the header declares 65000x65000 pixels ...
    """
    if too_large(height, width, channels, itemsize):
        gib = height * width * channels * itemsize / 2**30
        raise DecodeError(
            f"the header declares {height}x{width} pixels (height x width), {gib:.1f} GiB "
            f"decoded: more than the decoders' limit of {MAX_DECODED_BYTES / 2**30:.1f} GiB "
            "per image (MAX_DECODED_BYTES in dali._ops.decoders.image.codecs)"
        )


# -- format sniffing ---------------------------------------------------------------------------

_JP2_SIGNATURE = b"\x00\x00\x00\x0cjP  \r\n\x87\n"


def sniff(data: np.ndarray) -> str:
    """The image format of encoded bytes, from their magic number.

    Args:
        data: The encoded file, a 1-D uint8 array.

    Returns:
        One of ``"jpeg"``, ``"png"``, ``"bmp"``, ``"tiff"``, ``"webp"``, ``"pnm"``,
        ``"jpeg2000"``.

    Raises:
        DecodeError: The data is empty or is not in a supported format.
    """
    n = data.size
    if n == 0:
        raise DecodeError("the file is empty (0 bytes)")
    head = data[:16].tobytes()
    if head[:2] == b"\xff\xd8":
        return "jpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if head[:2] == b"BM":
        return "bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "tiff"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:1] == b"P" and head[1:2] in b"123456" and len(head) > 2 and head[2:3] in b" \t\r\n#":
        return "pnm"
    if head[:12] == _JP2_SIGNATURE or head[:4] == b"\xff\x4f\xff\x51":
        return "jpeg2000"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        raise DecodeError(
            "GIF images are not supported (supported: JPEG, JPEG 2000, TIFF, PNG, BMP, PNM, WebP)"
        )
    raise DecodeError(
        f"not an image in a supported format (first bytes: {head[:8]!r}; supported: JPEG, "
        "JPEG 2000, TIFF, PNG, BMP, PNM, WebP)"
    )


# -- EXIF orientation --------------------------------------------------------------------------


#: the Orientation tag of a TIFF structure (shared with the header walk, standard library only)
_tiff_orientation = tiff_orientation


def _exif_payload_orientation(buf: bytes) -> int:
    if buf[:6] == b"Exif\x00\x00":
        buf = buf[6:]
    return _tiff_orientation(buf)


# SOFn markers carry the frame header (size and number of components).
_SOF_MARKERS = SOF_MARKERS


class _JpegFrame(NamedTuple):
    """What `_jpeg_frame` reads before the first scan."""

    ncomp: int
    orientation: int
    sos: int
    precision: int
    height: int
    width: int


def _jpeg_frame(data: np.ndarray) -> _JpegFrame:
    """Components, orientation, start of scan and the frame's precision and size, from the
    markers before the first SOS.

    Garbage between markers is skipped the way libjpeg does (it only warns). ``ncomp``,
    ``precision``, ``height`` and ``width`` are 0 and ``sos`` -1 when the header ends before
    they are seen.
    """
    mv = data.data
    n = len(mv)
    i = 2
    ncomp = precision = height = width = 0
    orientation = 1
    ff: np.ndarray | None = None  # positions of 0xFF bytes, found once if garbage is seen
    while i + 3 < n:
        if mv[i] != 0xFF:
            if ff is None:
                ff = np.flatnonzero(data == 0xFF)
            k = int(np.searchsorted(ff, i))
            if k == len(ff):
                break
            i = int(ff[k])
            continue
        marker = mv[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # TEM, RSTn, SOI: no length
            i += 2
            continue
        if marker == 0xD9:  # EOI before any scan
            break
        seglen = (mv[i + 2] << 8) | mv[i + 3]
        if marker == 0xDA:
            return _JpegFrame(ncomp, orientation, i, precision, height, width)
        if marker in _SOF_MARKERS and i + 9 < n:
            precision = mv[i + 4]
            height = (mv[i + 5] << 8) | mv[i + 6]
            width = (mv[i + 7] << 8) | mv[i + 8]
            ncomp = mv[i + 9]
        elif marker == 0xE1 and bytes(mv[i + 4 : i + 10]) == b"Exif\x00\x00":
            orientation = _tiff_orientation(bytes(mv[i + 10 : i + 2 + seglen]))
        i += 2 + seglen
    return _JpegFrame(ncomp, orientation, -1, precision, height, width)


def check_jpeg_complete(data: np.ndarray, sos: int) -> None:
    """Truncated JPEGs must fail (libjpeg only warns and fills the rest with gray)."""
    if sos < 0:
        raise DecodeError("corrupt or truncated JPEG: no image data (start-of-scan marker missing)")
    n = data.size
    if n >= 2 and data[n - 2] == 0xFF and data[n - 1] == 0xD9:
        return
    # Trailing bytes after the end-of-image marker are common; a 0xFFD9 pair cannot occur
    # inside entropy-coded data (0xFF is always stuffed there), so finding one is enough.
    if data[sos:].tobytes().rfind(b"\xff\xd9") < 0:
        raise DecodeError("truncated JPEG: the end-of-image marker is missing")


def _png_header(data: np.ndarray) -> tuple[int, int]:
    """``(colour type, orientation)`` of a PNG (eXIf may follow the image data)."""
    buf = data.tobytes()
    n = len(buf)
    color_type = buf[25] if n > 25 else -1
    orientation = 1
    pos = 8
    while pos + 8 <= n:
        length, ctype = struct.unpack_from(">I4s", buf, pos)
        if ctype == b"eXIf":
            orientation = _exif_payload_orientation(buf[pos + 8 : pos + 8 + length])
            break
        if ctype == b"IEND":
            break
        pos += 12 + length
    return color_type, orientation


def _webp_orientation(data: np.ndarray) -> int:
    buf = data.tobytes()
    if len(buf) < 30 or buf[12:16] != b"VP8X" or not buf[20] & 0x08:  # EXIF flag
        return 1
    pos = 12
    while pos + 8 <= len(buf):
        fourcc, size = struct.unpack_from("<4sI", buf, pos)
        if fourcc == b"EXIF":
            return _exif_payload_orientation(buf[pos + 8 : pos + 8 + size])
        pos += 8 + size + (size & 1)
    return 1


def apply_orientation(img: np.ndarray, orientation: int) -> np.ndarray:
    """Turn a stored ``HWC`` image into its display orientation (EXIF values 1..8).

    The result equals ``PIL.ImageOps.exif_transpose``; it is a view when possible.
    """
    if orientation == 2:
        return img[:, ::-1]
    if orientation == 3:
        return img[::-1, ::-1]
    if orientation == 4:
        return img[::-1]
    if orientation == 5:
        return img.transpose(1, 0, 2)
    if orientation == 6:  # rotate 90 degrees clockwise
        return img.transpose(1, 0, 2)[:, ::-1]
    if orientation == 7:
        return img[::-1, ::-1].transpose(1, 0, 2)
    if orientation == 8:  # rotate 90 degrees counter-clockwise
        return img.transpose(1, 0, 2)[::-1]
    return img


# -- decoding ----------------------------------------------------------------------------------


def _opencv() -> Any:
    cv2 = optional_cv2()
    if cv2 is None:  # pragma: no cover - depends on the installation
        raise ImportError(
            "the CPU image decoders need OpenCV and Pillow: pip install 'dali-core[image]'"
        )
    return cv2


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            "the CPU image decoders need OpenCV and Pillow: pip install 'dali-core[image]'"
        ) from e
    return Image


def _cv_decode(data: np.ndarray, mode: str, what: str) -> np.ndarray:
    cv2 = _opencv()
    keep = cv2.IMREAD_IGNORE_ORIENTATION | cv2.IMREAD_ANYDEPTH
    rgb_flag = getattr(cv2, "IMREAD_COLOR_RGB", None)  # OpenCV >= 4.10
    if mode == "gray":
        flags = cv2.IMREAD_GRAYSCALE | keep
    elif mode == "any":
        flags = cv2.IMREAD_UNCHANGED
    elif mode == "rgb" and rgb_flag is not None:
        flags = rgb_flag | keep
    else:
        flags = cv2.IMREAD_COLOR | keep
    try:
        img = cv2.imdecode(data, flags)
    except cv2.error as e:
        detail = str(e).strip().splitlines()[-1]
        if getattr(e, "code", None) == cv2.Error.StsNoMem:  # its allocation failed
            raise DecodeError(f"out of memory for the decoded image ({detail})") from None
        raise DecodeError(f"corrupt {what} data ({detail})") from None
    if img is None:
        raise DecodeError(f"corrupt or truncated {what} data")
    if img.dtype not in (np.uint8, np.uint16):
        raise DecodeError(f"unsupported {what} sample type {img.dtype} (8 and 16 bits supported)")
    if img.ndim == 2:
        return img[:, :, None]
    if mode == "rgb" and rgb_flag is None:
        return np.ascontiguousarray(img[:, :, ::-1])
    if mode == "any":
        if img.shape[2] == 3:
            return np.ascontiguousarray(img[:, :, ::-1])
        if img.shape[2] == 4:
            return np.ascontiguousarray(img[:, :, [2, 1, 0, 3]])
    return img


def _gray_from_rgb(rgb: np.ndarray, *, truncate: bool = False) -> np.ndarray:
    """Full-range luma of an RGB image: ``0.299 R + 0.587 G + 0.114 B`` in float32.

    Rounded to nearest, or truncated (``truncate=True``) as DALI does for JPEGs it decodes to
    RGB first (CMYK/YCCK JPEG), checked against DALI 2.4 by the conformance session.
    """
    f = rgb.astype(np.float32)
    y = np.float32(0.299) * f[..., 0] + np.float32(0.587) * f[..., 1]
    y += np.float32(0.114) * f[..., 2]
    if truncate:
        info = np.iinfo(rgb.dtype)
        return np.clip(np.trunc(y), info.min, info.max).astype(rgb.dtype)[..., None]
    return round_sat(y, rgb.dtype)[..., None]


def _pil_decode(buf: bytes, fmt: str, mode: str) -> tuple[np.ndarray, bool]:
    """Pillow's decode (TIFF, CMYK JPEG), mapped onto our modes.

    Returns the pixels and whether Pillow already applied the TIFF orientation tag (recent
    Pillow versions do so on load and then delete the tag; older ones do not).
    """
    image_mod = _pillow()
    try:
        im = image_mod.open(io.BytesIO(buf))
        tags = getattr(im, "tag_v2", None)
        had_tag = tags is not None and 0x0112 in tags
        im.load()
        oriented = had_tag and 0x0112 not in im.tag_v2
    except Exception as e:  # noqa: BLE001 - every Pillow failure is a decode failure
        raise DecodeError(f"corrupt or truncated {fmt} data ({e})") from None
    pixels = _pil_pixels(im, fmt, mode)
    if not pixels.flags.writeable:  # arrays over Pillow's buffer are read-only
        pixels = pixels.copy()
    return pixels, oriented


def _pil_pixels(im: Any, fmt: str, mode: str) -> np.ndarray:
    m = im.mode
    if m in ("I", "F", "I;32", "I;32B", "F;32", "F;32B"):
        raise DecodeError(f"unsupported {fmt} sample type (mode {m}; 8 and 16 bits supported)")
    try:
        if m.startswith("I;16"):
            a = np.asarray(im).astype(np.uint16, copy=False).reshape(im.height, im.width)
            if mode in ("gray", "any"):
                return a[:, :, None]
            return np.repeat(a[:, :, None], 3, axis=2)
        if mode == "any":
            if m in ("1", "L"):
                return np.asarray(im.convert("L"))[:, :, None]
            if m in ("LA", "RGB", "RGBA"):
                a = np.asarray(im)
                return a if a.ndim == 3 else a[:, :, None]
            if m == "P" and "transparency" in im.info:
                return np.asarray(im.convert("RGBA"))
            return np.asarray(im.convert("RGB"))
        if mode == "gray":
            if m in ("1", "L", "LA"):
                return np.asarray(im.convert("L"))[:, :, None]
            return _gray_from_rgb(np.asarray(im.convert("RGB")), truncate=fmt.lower() == "jpeg")
        rgb = np.asarray(im.convert("RGB"))
        return np.ascontiguousarray(rgb[:, :, ::-1]) if mode == "bgr" else rgb
    except Exception as e:  # noqa: BLE001 - conversion of a broken image
        raise DecodeError(f"corrupt {fmt} data ({e})") from None


def decode(data: np.ndarray, mode: str, *, orientation: bool = True) -> np.ndarray:
    """Decode one encoded image to a 3-D ``HWC`` array in its display orientation.

    Args:
        data: The encoded file, a contiguous 1-D uint8 array.
        mode: ``"rgb"``, ``"bgr"`` (3 channels), ``"gray"`` (1 channel, the codec's own luma)
            or ``"any"`` (the native channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
        orientation: Apply the EXIF orientation tag.

    Returns:
        uint8, or uint16 for images stored with more than 8 bits per sample.

    Raises:
        DecodeError: Empty, truncated, corrupt or unsupported data; a header declaring more
            than `MAX_DECODED_BYTES` (`check_size`); no memory for the pixels.
    """
    try:
        return _decode(data, mode, orientation)
    except MemoryError as e:  # numpy's "Unable to allocate ..." included
        raise out_of_memory(e) from None


def out_of_memory(error: MemoryError) -> DecodeError:
    """The `DecodeError` for an allocation that failed (numpy's message tells the size)."""
    return DecodeError(f"out of memory for the decoded image ({error or 'MemoryError'})")


#: channels decoded in mode "any" per PNG colour type (gray, RGB, palette, gray+alpha, RGBA)
_PNG_CHANNELS = {0: 1, 2: 3, 3: 4, 4: 2, 6: 4}


def _check_declared_size(data: np.ndarray, fmt: str, mode: str) -> None:
    """`check_size` of the PNG or BMP header's size (JPEG: in `_decode`; TIFF: Pillow's own
    limit; WebP cannot exceed 16383 x 16383; the others: OpenCV's limit, then MemoryError)."""
    from dali._ops.decoders.headers.image_sizes import size_hint

    size = size_hint(data)
    if size is None:
        return
    itemsize = 1
    if fmt == "png":
        channels = _PNG_CHANNELS.get(int(data[25]), 4) if mode == "any" else 3
        itemsize = 2 if data[24] == 16 else 1
    else:
        channels = 4 if mode == "any" else 3
    check_size(size[0], size[1], 1 if mode == "gray" else channels, itemsize)


def _decode(data: np.ndarray, mode: str, orientation: bool) -> np.ndarray:
    fmt = sniff(data)
    orient = 1
    if fmt == "jpeg":
        ncomp, orient, sos, precision, height, width = _jpeg_frame(data)
        check_jpeg_complete(data, sos)
        gray = mode == "gray" or (mode == "any" and ncomp == 1)
        check_size(height, width, 1 if gray else max(3, ncomp), 2 if precision > 8 else 1)
        if ncomp == 4:
            # CMYK/YCCK: Pillow's Adobe-aware conversion (DALI 2.4 itself fails on these);
            # GRAY is then computed from the RGB decode, as DALI does
            pil_mode = mode if mode in ("bgr", "gray") else "rgb"
            img, _ = _pil_decode(data.tobytes(), "JPEG", pil_mode)
        else:
            if mode == "any":
                mode = "gray" if ncomp == 1 else "rgb"
            img = _cv_decode(data, mode, "JPEG")
    elif fmt == "tiff":
        buf = data.tobytes()
        orient = _tiff_orientation(buf)
        img, pil_oriented = _pil_decode(buf, "TIFF", mode)
        if pil_oriented:
            if orientation:
                return img
            # undo Pillow's orientation: 6 and 8 are each other's inverse, the rest self-inverse
            return apply_orientation(img, {6: 8, 8: 6}.get(orient, orient))
    else:
        if fmt in ("png", "bmp"):
            _check_declared_size(data, fmt, mode)
        if fmt == "png":
            color_type, orient = _png_header(data)
            if mode == "any" and color_type == 4:  # gray + alpha: OpenCV would expand to BGRA
                img = _cv_decode(data, "any", "PNG")
                img = np.ascontiguousarray(img[:, :, [0, 3]])
                return apply_orientation(img, orient) if orientation else img
        elif fmt == "webp":
            orient = _webp_orientation(data)
        img = _cv_decode(data, mode, _FORMAT_NAMES[fmt])
    if orientation and orient != 1:
        img = apply_orientation(img, orient)
    return img


_FORMAT_NAMES = {
    "jpeg": "JPEG",
    "png": "PNG",
    "bmp": "BMP",
    "tiff": "TIFF",
    "webp": "WebP",
    "pnm": "PNM",
    "jpeg2000": "JPEG 2000",
}


# -- colour space and type conversion ----------------------------------------------------------


def round_sat(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """DALI's float→int ``ConvertSat``: round half away from zero, then saturate.

    The arithmetic is float64, where ``x + 0.5`` is exact for every float32 ``x``.
    """
    info = np.iinfo(dtype)
    y = np.asarray(x, dtype=np.float64).copy() if np.ndim(x) == 0 else x.astype(np.float64)
    if info.min == 0:
        # negative values saturate to 0 either way, so rounding half up is enough
        y += 0.5
        np.floor(y, out=y)
    else:
        y += np.copysign(0.5, y)
        np.trunc(y, out=y)
    np.clip(y, info.min, info.max, out=y)
    return y.astype(dtype)


def max_value(dtype: np.dtype) -> float:
    return 1.0 if dtype.kind == "f" else float(np.iinfo(dtype).max)


def convert_dtype(img: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """DALI's ``ConvertSatNorm``: rescale to the dynamic range of ``dtype``.

    uint8→float multiplies by ``float32(1/255)`` (255 → 1.0); integer→integer multiplies by
    ``float32(max_out / max_in)`` and rounds (uint8→uint16 is ×257, uint16→uint8 ``round(v/257)``).
    """
    src = img.dtype
    if src == dtype:
        return img
    if dtype.kind == "f":
        scale = np.float32(1) / np.float32(max_value(src))
        return (img.astype(np.float32) * scale).astype(dtype, copy=False)
    factor = np.float32(np.float32(max_value(dtype)) / np.float32(max_value(src)))
    if factor.is_integer() and max_value(src) * float(factor) < 2**24:
        # exact in float32 (e.g. uint8 -> uint16 is x * 257): integer arithmetic is the same
        return (img.astype(dtype) * dtype.type(factor)).astype(dtype, copy=False)
    return round_sat(img.astype(np.float32) * factor, dtype)


# ITU-R BT.601 RGB -> YCbCr rows (R, G, B, offset), the offset a fraction of the range.
YCC_EXACT = (
    (0.25678823529, 0.50412941176, 0.09790588235, 0.0625),
    (-0.14822289945, -0.29099278682, 0.43921568627, 0.5),
    (0.43921568627, -0.36778831435, -0.07142737192, 0.5),
)


def rgb_to_ycbcr(rgb: np.ndarray) -> np.ndarray:
    """BT.601 YCbCr of an RGB image, in the image's own type (float32 arithmetic)."""
    dtype = rgb.dtype
    # DALI uses the exact BT.601 coefficients for every type (uint8 too; checked against
    # DALI 2.4 by the conformance session), with the offsets scaled to the type's range.
    if dtype.kind == "f":
        bias_scale = 1.0
    else:
        info = np.iinfo(dtype)
        bias_scale = 2.0 * 2.0 ** (info.bits - 1 - (info.min < 0))
    coeffs = tuple(
        (np.float32(a), np.float32(b), np.float32(c), np.float32(d * bias_scale))
        for a, b, c, d in YCC_EXACT
    )
    # planar float32 copies: the per-plane arithmetic then runs on contiguous memory
    r, g, b = np.ascontiguousarray(rgb.transpose(2, 0, 1), dtype=np.float32)
    out = np.empty(rgb.shape, dtype=dtype)
    tmp = np.empty_like(r)
    for k, (cr, cg, cb, bias) in enumerate(coeffs):
        v = np.multiply(r, cr)  # ((cr*R + cg*G) + cb*B) + bias, rounded to float32 at each step
        v += np.multiply(g, cg, out=tmp)
        v += np.multiply(b, cb, out=tmp)
        v += bias
        out[..., k] = v if dtype.kind == "f" else round_sat(v, dtype)
    return out


def to_output(img: np.ndarray, output_type: str, dtype: np.dtype) -> np.ndarray:
    """Convert a decoded image to the requested colour space and type.

    Args:
        img: The result of `decode` (RGB for ``"YCbCr"``, already BGR/gray/native otherwise).
        output_type: ``"RGB"``, ``"BGR"``, ``"GRAY"``, ``"YCbCr"`` or ``"ANY_DATA"``.
        dtype: The output numpy type.
    """
    out = convert_dtype(img, dtype)
    if output_type == "YCbCr":
        out = rgb_to_ycbcr(out)
    return out
