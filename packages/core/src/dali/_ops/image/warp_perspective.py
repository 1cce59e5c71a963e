"""`fn.experimental.warp_perspective`: a 3×3 homography applied to images.

DALI 2.4's CPU backend is OpenCV's ``warpPerspective`` (its GPU backend CV-CUDA's), so the CPU
path here calls ``cv2.warpPerspective`` with the same float32 matrix and flags and gives
DALI's values exactly. With ``pixel_origin="corner"`` (the default) the matrix acts on
coordinates whose ``(0, 0)`` is the corner of the first pixel; it is turned into OpenCV's
pixel-centre convention as ``T(-½) · M · T(½)`` in float32, as DALI does.

`warp_perspective_xp` is the same warp written with array operations (numpy or CuPy): the GPU
backend, and the CPU fallback when OpenCV is missing. It follows OpenCV 5's arithmetic (source
positions computed in double precision, NN rounding to nearest, LINEAR and CUBIC weights from
the exact fractional position, in float32), so results may differ from OpenCV's by 1 level.

Example:
    >>> import numpy as np
    >>> img = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> m = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]], np.float64)  # dst(x, y) = src(x + 1, y)
    >>> warp_perspective_xp(np, img[..., None], m, (3, 4), 1, "replicate", None)[..., 0]
    array([[ 1.,  2.,  3.,  3.],
           [ 5.,  6.,  7.,  7.],
           [ 9., 10., 11., 11.]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._sequences import unfold
from dali._ops.base import Operator
from dali._ops.image._common import optional_cv2
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["WarpPerspective", "border_index", "warp_perspective_xp"]

_F32 = np.float32
_NN, _LINEAR, _CUBIC = 0, 1, 2
_BORDERS = ("constant", "replicate", "reflect", "reflect_101", "wrap")
_LAYOUTS = ("HW", "HWC", "FHWC", "CHW", "FCHW")
_DEFAULT_LAYOUT = {2: "HW", 3: "HWC", 4: "FHWC"}
_TYPES = frozenset(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.float32))
_CUBIC_A = -0.75


def border_index(xp: Any, p: Any, n: int, border: str) -> Any:
    """Map integer positions ``p`` into ``[0, n)`` as OpenCV's ``borderInterpolate`` does.

    ``constant`` positions are clamped (the caller masks them with the fill value).
    """
    if border in ("constant", "replicate"):
        return xp.clip(p, 0, n - 1)
    if border == "wrap":
        return p % n
    if border == "reflect":
        q = p % (2 * n)
        return xp.where(q < n, q, 2 * n - 1 - q)
    if n == 1:  # reflect_101
        return xp.zeros_like(p)
    q = p % (2 * n - 2)
    return xp.where(q < n, q, 2 * n - 2 - q)


def _convert(xp: Any, values: Any, dtype: np.dtype[Any]) -> Any:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return xp.clip(xp.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def _cubic_weights(xp: Any, t: Any) -> list[Any]:
    a = _CUBIC_A
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    return [w0, w1, w2, 1 - w0 - w1 - w2]


def warp_perspective_xp(
    xp: Any,
    src: Any,
    m: np.ndarray,
    out_hw: Sequence[int],
    interp: int,
    border: str,
    fill: np.ndarray | None,
) -> Any:
    """Warp one ``(H, W, C)`` image with a destination→source matrix in OpenCV's convention.

    Args:
        xp: numpy or CuPy (``src`` lives there).
        src: The image, ``(H, W, C)``.
        m: ``3×3`` destination→source matrix, pixel centres at integer coordinates.
        out_hw: Output ``(H, W)``.
        interp: 0 (NN), 1 (LINEAR) or 2 (CUBIC).
        border: One of ``constant``, ``replicate``, ``reflect``, ``reflect_101``, ``wrap``.
        fill: ``constant`` border value per channel (already of the image's type), or None
            for zeros.

    Returns:
        The warped image, ``(*out_hw, C)``, of the input's type.
    """
    h, w, c = src.shape
    oh, ow = int(out_hw[0]), int(out_hw[1])
    dtype = np.dtype(src.dtype)
    if oh == 0 or ow == 0 or c == 0:
        return xp.zeros((oh, ow, c), dtype=dtype)
    m = np.asarray(m, dtype=np.float64)
    ys = xp.arange(oh, dtype=xp.float64)[:, None]
    xs = xp.arange(ow, dtype=xp.float64)[None, :]
    x_num = m[0, 0] * xs + (m[0, 1] * ys + m[0, 2])
    y_num = m[1, 0] * xs + (m[1, 1] * ys + m[1, 2])
    den = m[2, 0] * xs + (m[2, 1] * ys + m[2, 2])
    safe = xp.where(den != 0, den, 1.0)
    inv = xp.where(den != 0, 1.0 / safe, 0.0)
    lim = float(np.iinfo(np.int32).max)
    sx = xp.clip(x_num * inv, -lim - 1, lim)
    sy = xp.clip(y_num * inv, -lim - 1, lim)
    flat = src.reshape(h * w, c)
    fill_px = xp.zeros(c, dtype=dtype) if fill is None else xp.asarray(fill, dtype=dtype)

    def tap(yi: Any, xi: Any) -> Any:
        idx = border_index(xp, yi, h, border) * w + border_index(xp, xi, w, border)
        out = xp.take(flat, idx, axis=0)
        if border == "constant":
            ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
            out = xp.where(ok[..., None], out, fill_px)
        return out

    if interp == _NN:
        return tap(xp.rint(sy).astype(xp.int64), xp.rint(sx).astype(xp.int64))
    fx, fy = xp.floor(sx), xp.floor(sy)
    x0, y0 = fx.astype(xp.int64), fy.astype(xp.int64)
    qx = (sx - fx).astype(xp.float32)[..., None]
    qy = (sy - fy).astype(xp.float32)[..., None]
    if interp == _LINEAR:
        one = _F32(1)
        top = tap(y0, x0).astype(xp.float32) * (one - qx) + tap(y0, x0 + 1) * qx
        bot = tap(y0 + 1, x0).astype(xp.float32) * (one - qx) + tap(y0 + 1, x0 + 1) * qx
        res = top * (one - qy) + bot * qy
    else:
        wx, wy = _cubic_weights(xp, qx), _cubic_weights(xp, qy)
        res = xp.zeros((oh, ow, c), dtype=xp.float32)
        for j in range(4):
            row = xp.zeros((oh, ow, c), dtype=xp.float32)
            for i in range(4):
                row += tap(y0 + j - 1, x0 + i - 1).astype(xp.float32) * wx[i]
            res += row * wy[j]
    return _convert(xp, res, dtype)


def _corner_to_center(m: np.ndarray) -> np.ndarray:
    """``T(-½) · (M · T(½))`` in float32, multiplied term by term as ``cv::Matx33f`` does."""
    m = m.astype(_F32)
    half = _F32(0.5)
    a = m.copy()  # M · T(½): the last column gains ½ of the first two
    a[:, 2] = (m[:, 0] * half + m[:, 1] * half) + m[:, 2]
    b = a.copy()  # T(-½) · A: the first two rows lose ½ of the last one
    b[0] = a[0] + (-half) * a[2]
    b[1] = a[1] + (-half) * a[2]
    return b.astype(_F32)


@register(
    "experimental.warp_perspective",
    devices=("cpu", "gpu"),
    inputs=(1, 2),
    input_names=("input", "matrix_input"),
    args=[
        Arg("matrix", "float_vec", tensor=True, doc="3×3 matrix, destination→source."),
        Arg("size", "float_vec", tensor=True, doc="Output size (H, W); default: the input's."),
        Arg("border_mode", "str", default="constant", doc="constant, replicate, reflect, ..."),
        Arg("fill_value", "float_or_float_vec", default=(), doc="Constant border value(s)."),
        Arg("interp_type", "interp_type", default=1, doc="INTERP_NN, LINEAR (default), CUBIC."),
        Arg("inverse_map", "bool", default=True, doc="The matrix maps destination to source."),
        Arg("pixel_origin", "str", default="corner", doc='"corner" (default) or "center".'),
    ],
)
class WarpPerspective(Operator):
    """Perform a perspective transform on images (HW, HWC, CHW, or sequences FHWC, FCHW).

    ``matrix`` (nine values, or the second input: a float32 ``3×3`` tensor per sample) maps
    destination to source coordinates (``inverse_map=False``: source to destination), like
    OpenCV's ``warpPerspective`` with ``WARP_INVERSE_MAP``. ``pixel_origin="corner"`` puts
    ``(0, 0)`` at the corner of the first pixel, ``"center"`` at its centre (OpenCV).
    ``size`` sets the output's (H, W) (rounded, at least 1); pixels mapped outside the input
    follow ``border_mode`` (``constant`` uses ``fill_value``: one value or one per channel,
    default 0). Inputs are uint8, int16, uint16 or float with at most 4 channels; the output
    has the input's type and layout. ``matrix`` may be per frame (``fn.per_frame``).

    Example: ``fn.experimental.warp_perspective(images, matrix=[1, 0, 5, 0, 1, 3, 0, 0, 1])``
    gives ``dst[y, x] = src[y + 3, x + 5]``.
    """

    def setup(self) -> None:
        border = self.arg("border_mode")
        if border not in _BORDERS:
            raise self.arg_error("border_mode", f"Invalid border_mode argument: {border}")
        origin = self.arg("pixel_origin")
        if origin not in ("corner", "center"):
            raise self.arg_error("pixel_origin", f"Invalid pixel_origin argument: {origin}")
        interp = int(self.arg("interp_type"))
        if interp not in (_NN, _LINEAR, _CUBIC):
            raise self.arg_error("interp_type", f"Unknown interpolation type: {interp}")
        self.interp, self.border, self.center = interp, border, origin == "center"
        fill = self.arg("fill_value")
        self.fill_values = [float(v) for v in np.atleast_1d(np.asarray(fill, np.float64))]
        has_input = len(self.node.inputs) > 1
        if has_input and self.has_arg("matrix"):
            raise self.arg_error(
                "matrix",
                "Matrix input and `matrix` argument should not be provided at the same time.",
            )
        if not has_input and not self.has_arg("matrix"):
            raise self.arg_error(
                "matrix", 'Argument "matrix" expected shape 3 x 3 but got 0 values'
            )
        if self.has_arg("matrix") and not self.is_tensor_arg("matrix"):
            n = len(self.arg("matrix"))
            if n != 9:
                raise self.arg_error(
                    "matrix", f'Argument "matrix" expected shape 3 x 3 but got {n} values'
                )
        if self.has_arg("size") and not self.is_tensor_arg("size"):
            n = len(self.arg("size"))
            if n != 2:
                raise self.arg_error("size", f'Argument "size" expected shape 2 but got {n} values')

    # -- geometry --------------------------------------------------------------------------------

    def _layout(self, tl: Any) -> str:
        layout = tl.layout() or _DEFAULT_LAYOUT.get(tl.sample_ndim, "")
        if layout not in _LAYOUTS or len(layout) != tl.sample_ndim:
            raise self.error(
                f'The layout "{tl.layout()}" does not match any of the allowed layouts for '
                "input 0. Valid layouts are: HW, HWC, FHWC, CHW, FCHW"
            )
        return layout

    def _matrices(self, ws: Workspace) -> list[tuple[Any, Any]]:
        if len(ws.inputs) > 1:
            mtx = ws.inputs[1]
            if np.dtype(mtx.np_dtype) != np.float32:
                raise self.error("Transformation matrix can be provided only as float32 values.")
            if type(mtx).__name__.endswith("GPU"):
                mtx = mtx.as_cpu()  # the matrices drive host-side work
            values = mtx.samples()
            if any(tuple(np.shape(v)) != (3, 3) for v in values):
                shapes = ", ".join("x".join(map(str, np.shape(v))) for v in values)
                raise self.error(
                    f"Expected a uniform list of 3x3 matrices. Instead got data with shape: "
                    f"{shapes}"
                )
        else:
            values = ws.arg_samples("matrix", np.float32)
            tensor = self.is_tensor_arg("matrix")
            for i, v in enumerate(values):
                if tensor and np.ndim(v) != 2:
                    raise self.arg_error(
                        "matrix",
                        f"sample {i}: a per-sample matrix must be a 3x3 tensor, got "
                        f"{np.ndim(v)} dimensions",
                    )
                if np.size(v) != 9:
                    raise self.arg_error(
                        "matrix",
                        f'sample {i}: Argument "matrix" expected shape 3 x 3 but got '
                        f"{np.size(v)} values",
                    )
        out = []
        for v in values:
            m = np.asarray(v, dtype=_F32).reshape(3, 3)
            if not self.center:
                m = _corner_to_center(m)
            m64: Any = m.astype(np.float64)
            if not self.arg("inverse_map"):
                try:
                    m64 = np.linalg.inv(m64)
                except np.linalg.LinAlgError:
                    m64 = np.zeros((3, 3))  # OpenCV's result for a singular matrix
            out.append((m, m64))
        return out

    def _sizes(self, ws: Workspace, shapes: list[tuple[int, int]]) -> list[tuple[int, int]]:
        if not self.has_arg("size"):
            return shapes
        out = []
        for i, v in enumerate(ws.arg_samples("size", np.float32)):
            flat = np.asarray(v, dtype=np.float64).reshape(-1)
            if flat.size != 2:
                raise self.arg_error(
                    "size", f'sample {i}: Argument "size" expected shape 2 but got {flat.size}'
                )
            # C's roundf: half away from zero; at least one pixel
            r = [int(np.sign(s) * np.floor(abs(float(np.float32(s))) + 0.5)) for s in flat]
            out.append((max(r[0], 1), max(r[1], 1)))
        return out

    # -- running ---------------------------------------------------------------------------------

    def run_cpu(self, ws: Workspace) -> Any:
        frames = unfold(self, ws, ("matrix",))
        if frames is not None:
            return frames.fold(frames.run(self._warp))
        return self._warp(ws)

    run_gpu = run_cpu

    def _warp(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        layout = self._layout(tl)
        dtype = np.dtype(tl.np_dtype)
        if dtype not in _TYPES:
            raise self.error(
                "The operator accepts the following input types: uint8, int16, uint16, float "
                f"(got {type_name(dtype)})."
            )
        shapes = [tuple(s) for s in tl.shape()]
        frames = layout[0] == "F"
        inner = layout[1:] if frames else layout
        planar = inner == "CHW"
        hw_at = (1, 2) if planar else (0, 1)
        first = 1 if frames else 0
        channels = shapes[0][first] if planar else (shapes[0][-1] if inner == "HWC" else 1)
        if channels > 4:
            raise self.error("Images with more than 4 channels are not supported.")
        fill = self._fill(channels, planar or inner == "HW")
        matrices = self._matrices(ws)
        in_hw = [(s[first + hw_at[0]], s[first + hw_at[1]]) for s in shapes]
        sizes = self._sizes(ws, in_hw)
        samples = tl.samples()
        cv2 = optional_cv2() if xp is np else None

        def image(img: Any, i: int) -> Any:
            """One (H, W[, C]) image, channel-last or 2-D."""
            if img.shape[0] * img.shape[1] == 0:
                raise self.error(f"sample {i}: cannot warp an empty image")
            m32, m64 = matrices[i]
            if cv2 is not None:
                return self._cv2(cv2, img, m32, sizes[i], fill)
            x3 = img if img.ndim == 3 else img[:, :, None]
            fpx = None if fill is None else _typed_fill(fill, dtype, x3.shape[2])
            out = warp_perspective_xp(xp, x3, m64, sizes[i], self.interp, self.border, fpx)
            return out if img.ndim == 3 else out[:, :, 0]

        def one(i: int) -> Any:
            x = samples[i]
            oh, ow = sizes[i]
            if planar:  # channel planes, each a 2-D image
                lead = x.shape[: first + 1]
                planes = x.reshape(-1, *x.shape[-2:])
                outs = [image(p, i) for p in planes]
                if outs:
                    return xp.stack(outs).reshape(*lead, oh, ow)
                return xp.zeros((*lead, oh, ow), dtype=dtype)
            if frames:
                outs = [image(f, i) for f in x]
                if outs:
                    return xp.stack(outs)
                return xp.zeros((0, oh, ow, *x.shape[3:]), dtype=dtype)
            return image(x, i)

        results = ws.map(one) if xp is np else [one(i) for i in range(len(samples))]
        return cls.wrap(results, layout=layout, dtype=dtype, ndim=tl.sample_ndim)

    def _fill(self, channels: int, planar: bool) -> np.ndarray | None:
        values = self.fill_values
        if len(values) > 1:
            if planar:
                raise self.arg_error(
                    "fill_value",
                    "Only scalar fill_value can be provided when processing data in planar layout.",
                )
            if len(values) != channels:
                raise self.arg_error(
                    "fill_value",
                    "Number of values provided as a fill_value should match the number of "
                    f"channels.\nNumber of channels: {channels}. Number of values provided: "
                    f"{len(values)}.",
                )
        if not values:
            return None
        return np.array((values * 4)[:4] if len(values) == 1 else values, dtype=np.float64)

    def _cv2(self, cv2: Any, img: np.ndarray, m: np.ndarray, size: Any, fill: Any) -> Any:
        flags = (cv2.INTER_NEAREST, cv2.INTER_LINEAR, cv2.INTER_CUBIC)[self.interp]
        if self.arg("inverse_map"):
            flags |= cv2.WARP_INVERSE_MAP
        border = {
            "constant": cv2.BORDER_CONSTANT,
            "replicate": cv2.BORDER_REPLICATE,
            "reflect": cv2.BORDER_REFLECT,
            "reflect_101": cv2.BORDER_REFLECT_101,
            "wrap": cv2.BORDER_WRAP,
        }[self.border]
        value = (
            (0.0,) * 4
            if fill is None
            else tuple(float(v) for v in fill[:4]) + (0.0,) * (4 - min(len(fill), 4))
        )
        out = cv2.warpPerspective(
            np.ascontiguousarray(img),
            m,
            (int(size[1]), int(size[0])),
            flags=flags,
            borderMode=border,
            borderValue=value,
        )
        return out.reshape(int(size[0]), int(size[1]), *img.shape[2:])

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [{"dtype": src.dtype, "ndim": src.ndim, "layout": src.layout or None}]


def _typed_fill(fill: np.ndarray, dtype: np.dtype[Any], channels: int) -> np.ndarray:
    """The fill colour converted to the image type as OpenCV's ``saturate_cast`` does."""
    values = np.resize(np.asarray(fill, np.float64), channels)
    return _convert(np, values, dtype)
