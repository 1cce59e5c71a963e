"""`fn.warp_affine` and the affine warp kernel shared with `fn.rotate`.

DALI's warp maps every *destination* pixel to a source position and samples there:
``src = M · (x + 0.5, y + 0.5, 1)`` (coordinates with ``(0, 0)`` at the corner of the first
pixel, so pixel centres sit at ``+0.5``). NN takes the pixel ``floor(src)``; LINEAR blends the
four pixels around ``src − 0.5`` in float32, in DALI's order
(``s0 = s00·(1−qx) + s01·qx``, ``s1 = …``, ``s0 + (s1 − s0)·qy``). Taps outside the image take
``fill_value`` or, when it is unset, the nearest border pixel (clamped). Results are converted
with rounding to nearest and saturation.

`warp_sample` is the pixel kernel (numpy, any channel count, 2-D and 3-D); the operators only
compute matrices and output sizes, so the GPU backend can reuse them.

Example:
    >>> import numpy as np
    >>> img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    >>> m = np.array([[1, 0, 1], [0, 1, 0]], dtype=np.float32)  # dst(x, y) = src(x + 1, y)
    >>> warp_sample(img, m, (3, 4), interp=1, fill=None, out_dtype=np.uint8)[..., 0]
    array([[ 1,  2,  3,  3],
           [ 5,  6,  7,  7],
           [ 9, 10, 11, 11]], dtype=uint8)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops._sequences import unfold
from dali._ops.base import Operator
from dali._ops.image._common import optional_cv2
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "WARP_ARGS",
    "WarpAffine",
    "WarpBase",
    "convert_sat",
    "invert_affine",
    "source_coords",
    "warp_fast",
    "warp_sample",
]

_F32 = np.float32
_NN, _LINEAR = 0, 1


# -- pixels -----------------------------------------------------------------------------------


def convert_sat(values: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """DALI's ``ConvertSat``: round float values to nearest and saturate for integer types."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    if dtype.kind == "b":
        return values != 0
    return values.astype(dtype, copy=False)


def _fill_pixel(fill: float | None, dtype: np.dtype[Any], channels: int) -> np.ndarray | None:
    if fill is None:
        return None
    return convert_sat(np.full(channels, fill, dtype=np.float64), dtype)


def _taps(
    flat: np.ndarray,
    coords: Sequence[np.ndarray],
    shape: Sequence[int],
    fill: np.ndarray | None,
) -> np.ndarray:
    """Gather the pixels at integer ``coords`` (array order) from the flattened image.

    Out-of-range coordinates are clamped (``fill is None``) or give ``fill``.
    """
    index = None
    valid = None
    for c, n in zip(coords, shape):
        if fill is not None:
            ok = (c >= 0) & (c < n)
            valid = ok if valid is None else valid & ok
        c = np.clip(c, 0, n - 1)
        index = c if index is None else index * n + c
    assert index is not None
    out = np.take(flat, index, axis=0)
    if fill is not None and valid is not None and not valid.all():
        out = np.where(valid[..., None], out, fill)
    return out


def source_coords(m: np.ndarray, out_shape: Sequence[int]) -> list[np.ndarray]:
    """Source coordinates of every destination pixel centre, as DALI's CPU kernel computes them.

    For each output row the kernel maps the first pixel centre, ``M · (0.5, y + 0.5[, z + 0.5], 1)``,
    then steps along x by adding the matrix's first column in float32, restarting from a
    freshly stepped checkpoint every 256 pixels. The rounding of that accumulation decides
    nearest-neighbour ties, so it is reproduced here.

    Returns:
        One float32 array of shape ``out_shape`` per source axis, in ``(x, y[, z])`` order.
    """
    nsp = m.shape[0]
    out_shape = tuple(out_shape)
    outer = out_shape[:-1]
    width = out_shape[-1]
    half = _F32(0.5)
    # outer pixel centres, broadcast over the outer output axes (y, then z), in (y, z) order
    grids = []
    for d in range(1, nsp):
        axis = nsp - 1 - d
        shape = [1] * (nsp - 1)
        shape[axis] = out_shape[axis]
        grids.append((np.arange(out_shape[axis], dtype=_F32) + half).reshape(shape))
    coords = []
    for r in range(nsp):
        base = np.full(outer, m[r, 0] * half, dtype=_F32)
        for d in range(1, nsp):
            base = (base + (m[r, d] * grids[d - 1]).astype(_F32)).astype(_F32)
        base = (base + m[r, nsp]).astype(_F32)
        step = _F32(m[r, 0])
        tile_step = _F32(_F32(256) * step)
        out = np.empty((*outer, width), dtype=_F32)
        tile_base = base
        for t0 in range(0, width, 256):
            n = min(256, width - t0)
            if t0:
                tile_base = (tile_base + tile_step).astype(_F32)
            steps = np.empty((*outer, n), dtype=_F32)
            steps[..., 0] = tile_base
            steps[..., 1:] = step
            out[..., t0 : t0 + n] = np.add.accumulate(steps, axis=-1, dtype=_F32)
        coords.append(out)
    return coords


def warp_sample(
    src: np.ndarray,
    matrix: np.ndarray,
    out_shape: Sequence[int],
    *,
    interp: int,
    fill: float | None,
    out_dtype: Any,
) -> np.ndarray:
    """Warp one channel-last sample (``HWC`` or ``DHWC``) with a destination→source matrix.

    Args:
        src: The input, ``(H, W, C)`` or ``(D, H, W, C)``.
        matrix: ``2×3`` (2-D) or ``3×4`` (3-D) float matrix acting on ``(x, y[, z], 1)``
            in pixel-corner coordinates.
        out_shape: Output spatial shape, ``(H, W)`` or ``(D, H, W)``.
        interp: 0 (NN) or 1 (LINEAR).
        fill: Value for pixels outside the input, or None to clamp to the border.
        out_dtype: Output dtype.

    Returns:
        The warped sample, ``(*out_shape, C)``.
    """
    out_dtype = np.dtype(out_dtype)
    nsp = src.ndim - 1
    channels = src.shape[-1]
    out_shape = tuple(int(s) for s in out_shape)
    if 0 in out_shape or channels == 0:
        return np.zeros((*out_shape, channels), dtype=out_dtype)
    if src.size == 0:
        raise ValueError("cannot warp an empty image to a non-empty output")
    m = np.asarray(matrix, dtype=_F32).reshape(nsp, nsp + 1)
    srcpos = source_coords(m, out_shape)
    in_spatial = src.shape[:nsp]
    flat = src.reshape(-1, channels)
    fill_px = _fill_pixel(fill, src.dtype, channels)
    if interp == _NN:
        coords = [np.floor(srcpos[nsp - 1 - a]).astype(np.int64) for a in range(nsp)]
        out = _taps(flat, coords, in_spatial, fill_px)
        return out if out.dtype == out_dtype else convert_sat(out.astype(_F32), out_dtype)
    # LINEAR, in array order: lo = floor(p - 0.5), q = fraction
    lo, q = [], []
    for a in range(nsp):
        p = srcpos[nsp - 1 - a] - _F32(0.5)
        f = np.floor(p)
        lo.append(f.astype(np.int64))
        q.append((p - f).astype(_F32)[..., None])

    def tap(offsets: Sequence[int]) -> np.ndarray:
        coords = [lo[a] + offsets[a] for a in range(nsp)]
        return _taps(flat, coords, in_spatial, fill_px).astype(_F32)

    one = _F32(1)
    if nsp == 2:
        qy, qx = q
        px = one - qx
        s0 = tap((0, 0)) * px + tap((0, 1)) * qx
        s1 = tap((1, 0)) * px + tap((1, 1)) * qx
        res = s0 + (s1 - s0) * qy
    else:
        qz, qy, qx = q
        px, py = one - qx, one - qy
        s00 = tap((0, 0, 0)) * px + tap((0, 0, 1)) * qx
        s01 = tap((0, 1, 0)) * px + tap((0, 1, 1)) * qx
        s10 = tap((1, 0, 0)) * px + tap((1, 0, 1)) * qx
        s11 = tap((1, 1, 0)) * px + tap((1, 1, 1)) * qx
        s0 = s00 * py + s01 * qy
        s1 = s10 * py + s11 * qy
        res = s0 + (s1 - s0) * qz
    return convert_sat(res, out_dtype)


_CV2_DTYPES = frozenset(np.dtype(t) for t in (np.uint8, np.uint16, np.int16, np.float32))
_cv2_ok: bool | None = None


def _cv2_matrix(m: np.ndarray) -> np.ndarray:
    """Our pixel-corner matrix → OpenCV's pixel-index one: ``src_i = A·dst_i + A·½ + t − ½``."""
    lin = m[:, :2].astype(np.float64)
    t = m[:, 2].astype(np.float64)
    return np.concatenate([lin, (lin @ [0.5, 0.5] + t - 0.5)[:, None]], axis=1)


def _cv2_warp(src: np.ndarray, m: np.ndarray, out_hw: Sequence[int], fill: Any, cv2: Any) -> Any:
    border = cv2.BORDER_REPLICATE if fill is None else cv2.BORDER_CONSTANT
    value = (0.0,) * 4 if fill is None else tuple(float(v) for v in fill[:4])
    return cv2.warpAffine(
        src,
        _cv2_matrix(m),
        (int(out_hw[1]), int(out_hw[0])),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=border,
        borderValue=value,
    )


def _cv2_usable(cv2: Any) -> bool:
    """Whether this OpenCV's bilinear warp matches the reference (checked once).

    OpenCV 4.x quantises source coordinates to 1/32 pixel, which costs up to ~4 levels on
    sharp edges; newer versions interpolate exactly. A checkerboard under a small rotation and
    an upscale decides, so the fast path is used only where it stays within ±1.
    """
    global _cv2_ok
    if _cv2_ok is None:
        board = (np.indices((32, 32)).sum(0) % 2 * 255).astype(np.uint8)[:, :, None]
        board = np.repeat(board, 3, axis=2)
        ok = True
        for m in (
            np.array([[0.999, -0.035, 1.7], [0.035, 0.999, -0.3]], dtype=_F32),
            np.array([[0.31, 0.01, 3.3], [0.02, 0.29, 2.1]], dtype=_F32),
        ):
            for fill in (None, 7.0):
                fpx = _fill_pixel(fill, np.dtype(np.uint8), 3)
                ref = warp_sample(board, m, (32, 32), interp=_LINEAR, fill=fill, out_dtype=np.uint8)
                got = _cv2_warp(board, m, (32, 32), fpx, cv2)
                ok &= int(np.abs(got.astype(np.int32) - ref).max()) <= 1
                reff = warp_sample(
                    board.astype(_F32), m, (32, 32), interp=_LINEAR, fill=fill, out_dtype=_F32
                )
                gotf = _cv2_warp(board.astype(_F32), m, (32, 32), fpx, cv2)
                ok &= float(np.abs(gotf - reff).max()) <= 0.05
        _cv2_ok = bool(ok)
    return _cv2_ok


def warp_fast(
    src: np.ndarray,
    matrix: np.ndarray,
    out_shape: Sequence[int],
    *,
    interp: int,
    fill: float | None,
    out_dtype: Any,
) -> np.ndarray:
    """`warp_sample`, with OpenCV's ``warpAffine`` where it gives the same result (±1).

    The fast path takes 2-D LINEAR warps of 1–4 channels (uint8, uint16, int16, float32) when
    the installed OpenCV passes `_cv2_usable`; everything else runs the numpy reference.
    """
    out_dtype = np.dtype(out_dtype)
    if (
        interp == _LINEAR
        and src.ndim == 3
        and 1 <= src.shape[2] <= 4
        and src.dtype in _CV2_DTYPES
        and (out_dtype == src.dtype or out_dtype == np.float32)
        and src.size
        and 0 < min(out_shape)
        and max(*out_shape, *src.shape[:2]) < 32767
    ):
        cv2 = optional_cv2()
        if cv2 is not None and _cv2_usable(cv2):
            work = src if out_dtype == src.dtype else src.astype(np.float32)
            fpx = _fill_pixel(fill, work.dtype, src.shape[2])
            out = _cv2_warp(np.ascontiguousarray(work), np.asarray(matrix), out_shape, fpx, cv2)
            return out.reshape(out.shape[0], out.shape[1], src.shape[2])
    return warp_sample(src, matrix, out_shape, interp=interp, fill=fill, out_dtype=out_dtype)


def invert_affine(m: np.ndarray) -> np.ndarray:
    """Invert an ``n×(n+1)`` affine matrix (source→destination becomes destination→source)."""
    n = m.shape[0]
    full = np.eye(n + 1, dtype=np.float64)
    full[:n, :] = m
    return np.linalg.inv(full)[:n, :].astype(_F32)


# -- operator base ----------------------------------------------------------------------------

_LAYOUTS = {"HWC": 2, "FHWC": 2, "DHWC": 3, "FDHWC": 3}
WARP_ARGS = [
    Arg("size", "float_vec", tensor=True, doc="Output size (H, W) or (D, H, W), rounded."),
    Arg("fill_value", "float", doc="Value outside the input; unset: replicate the border."),
    Arg("interp_type", "interp_type", default=1, doc="INTERP_NN or INTERP_LINEAR (default)."),
    Arg("dtype", "dtype", doc="Output type (default: the input type)."),
]


class WarpBase(Operator):
    """What `warp_affine` and `rotate` share: layouts, output size, border and the kernel."""

    def setup(self) -> None:
        interp = int(self.arg("interp_type"))
        if interp not in (_NN, _LINEAR):
            raise self.arg_error(
                "interp_type",
                f"unsupported interpolation type {self.arg('interp_type')}; "
                "warping supports INTERP_NN and INTERP_LINEAR",
            )
        self.interp = interp
        dtype = self.arg("dtype")
        if dtype and np_dtype(dtype).kind not in "biuf":
            raise self.arg_error("dtype", f"unsupported output type {type_name(dtype)}")
        if self.has_arg("size") and not self.is_tensor_arg("size"):
            self._check_size(list(self.arg("size")), None)

    def _check_size(self, size: list[float], i: int | None) -> list[int]:
        where = "" if i is None else f"sample {i}: "
        if not all(np.isfinite(size)):
            raise self.arg_error("size", f"{where}sizes must be finite numbers, got {size}")
        if any(s < 0 for s in size):
            raise self.arg_error("size", f"{where}sizes must not be negative, got {size}")
        return [int(np.floor(float(s) + 0.5)) for s in size]

    def layout_of(self, tl: Any) -> tuple[str, int, bool]:
        """``(layout, spatial_ndim, has_frames)`` of the input."""
        layout = tl.layout() or {3: "HWC", 4: "DHWC"}.get(tl.sample_ndim, "")
        if layout not in _LAYOUTS or len(layout) != tl.sample_ndim:
            raise self.error(
                f'unsupported input layout "{tl.layout()}" for {tl.sample_ndim}-D samples; expected '
                "HWC, FHWC, DHWC or FDHWC"
            )
        return layout, _LAYOUTS[layout], layout[0] == "F"

    def explicit_sizes(self, ws: Workspace, nsp: int) -> list[list[int]] | None:
        if not self.has_arg("size"):
            return None
        values = ws.arg_samples("size", np.float64)
        out = []
        for i, v in enumerate(values):
            flat = np.asarray(v, dtype=np.float64).reshape(-1).tolist()
            if len(flat) != nsp:
                raise self.arg_error(
                    "size", f"sample {i}: expected {nsp} values (the output's spatial shape)"
                )
            out.append(self._check_size(flat, i))
        return out

    def out_dtype(self, in_dtype: np.dtype[Any]) -> np.dtype[Any]:
        dtype = self.arg("dtype")
        return np.dtype(in_dtype) if not dtype else np_dtype(dtype)

    def fill(self) -> float | None:
        return float(self.arg("fill_value")) if self.has_arg("fill_value") else None

    def warp_batch(
        self,
        ws: Workspace,
        tl: Any,
        matrices: Sequence[np.ndarray],
        out_shapes: Sequence[Sequence[int]],
    ) -> Any:
        layout, nsp, frames = self.layout_of(tl)
        out_dtype = self.out_dtype(tl.np_dtype)
        fill = self.fill()
        if self.device == "gpu":
            from dali._ops.image import _warp_gpu

            try:
                return _warp_gpu.warp_batch(
                    tl,
                    matrices,
                    out_shapes,
                    nsp=nsp,
                    frames=frames,
                    interp=self.interp,
                    fill=fill,
                    out_dtype=out_dtype,
                    layout=layout,
                )
            except (TypeError, ValueError) as e:
                raise self.error(str(e)) from None
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            x = samples[i]
            if not frames:
                return warp_fast(
                    x,
                    matrices[i],
                    out_shapes[i],
                    interp=self.interp,
                    fill=fill,
                    out_dtype=out_dtype,
                )
            outs = [
                warp_fast(
                    f,
                    matrices[i],
                    out_shapes[i],
                    interp=self.interp,
                    fill=fill,
                    out_dtype=out_dtype,
                )
                for f in x
            ]
            if outs:
                return np.stack(outs)
            return np.zeros((0, *out_shapes[i], x.shape[-1]), dtype=out_dtype)

        results = ws.map(one)
        return TensorListCPU.wrap(results, layout=layout, dtype=out_dtype, ndim=tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [
            {
                "dtype": node.scalar_args.get("dtype") or src.dtype,
                "ndim": src.ndim,
                "layout": src.layout,
                "static_shape": _static_warp_shape(node),
            }
        ]


def _static_warp_shape(node: Any) -> tuple[int | None, ...] | None:
    """The output's static shape: the input's, with the spatial extents of a constant
    ``size`` (rounded as `WarpBase._check_size` rounds it); without one, warp_affine keeps the
    input's extents, and rotate too with ``keep_size``, or makes the canvas of a constant
    angle (2-D images) from known input extents."""
    src = node.inputs[0]
    shape, layout = src.static_shape, src.layout
    if shape is None or layout not in _LAYOUTS or len(layout) != len(shape):
        return None
    first = 1 if layout[0] == "F" else 0
    nsp = _LAYOUTS[layout]
    spatial: list[int | None] = list(shape[first : first + nsp])
    args = node.scalar_args
    if "size" in node.arg_inputs:
        spatial = [None] * nsp
    elif "size" in args:
        size = np.asarray(args["size"], np.float64).reshape(-1)
        if size.size != nsp or not np.isfinite(size).all() or (size < 0).any():
            return None  # (an error at build)
        spatial = [int(np.floor(v + 0.5)) for v in size]
    elif node.schema.fn_path == "rotate" and not args.get("keep_size", False):
        from dali._ops.image.rotate import rotated_canvas_size

        h, w = spatial[0], spatial[-1]
        if nsp == 2 and h is not None and w is not None and "angle" in args:
            spatial = list(rotated_canvas_size(h, w, float(np.float32(args["angle"]))))
        else:
            spatial = [None] * nsp
    return (*shape[:first], *spatial, *shape[first + nsp :])


@register(
    "warp_affine",
    devices=("cpu", "gpu"),
    inputs=(1, 2),
    input_names=("input", "mtx"),
    args=[
        Arg("matrix", "float_vec", tensor=True, doc="Affine matrix: 6 (2-D) or 12 (3-D) values."),
        Arg("inverse_map", "bool", default=True, doc="The matrix maps destination to source."),
        *WARP_ARGS,
    ],
)
class WarpAffine(WarpBase):
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
    """

    def setup(self) -> None:
        super().setup()
        if len(self.node.inputs) > 1 and self.has_arg("matrix"):
            raise self.arg_error("matrix", "cannot be used together with the `mtx` input")
        if len(self.node.inputs) < 2 and not self.has_arg("matrix"):
            raise self.arg_error(
                "matrix", "a transform is required: give `matrix` or a second input (`mtx`)"
            )
        if self.has_arg("matrix") and not self.is_tensor_arg("matrix"):
            n = len(self.arg("matrix"))
            if n not in (6, 12):
                raise self.arg_error("matrix", f"expected 6 (2-D) or 12 (3-D) values, got {n}")

    def matrices(self, ws: Workspace, nsp: int) -> list[np.ndarray]:
        if len(ws.inputs) > 1:
            mtx = ws.inputs[1]
            if hasattr(mtx, "as_cpu") and type(mtx).__name__.endswith("GPU"):
                mtx = mtx.as_cpu()  # synchronize! the matrices are needed on the host
            values, name = mtx.samples(), "mtx"
        else:
            values, name = ws.arg_samples("matrix", np.float32), "matrix"
        need = nsp * (nsp + 1)
        out = []
        for i, v in enumerate(values):
            flat = np.asarray(v, dtype=np.float64).reshape(-1)
            if flat.size != need:
                message = (
                    f"sample {i}: expected {need} values ({nsp}x{nsp + 1} matrix for "
                    f"{nsp}-D data), got {flat.size}"
                )
                if name == "mtx":
                    raise self.error(f"input `mtx`: {message}")
                raise self.arg_error(name, message)
            m = flat.reshape(nsp, nsp + 1).astype(_F32)
            if not self.arg("inverse_map"):
                try:
                    m = invert_affine(m)
                except np.linalg.LinAlgError:
                    raise self.arg_error(
                        name, f"sample {i}: the matrix is singular and cannot be inverted"
                    ) from None
            out.append(m)
        return out

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        # a per-frame matrix: the frames are warped as a batch of images (one launch)
        frames = unfold(self, ws, ("matrix",))
        if frames is not None:
            return frames.fold(frames.run(self._warp))
        return self._warp(ws)

    def _warp(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        _, nsp, frames = self.layout_of(tl)
        matrices = self.matrices(ws, nsp)
        sizes = self.explicit_sizes(ws, nsp)
        if sizes is None:
            first = 1 if frames else 0
            sizes = [list(s[first : first + nsp]) for s in tl.shape()]
        return self.warp_batch(ws, tl, matrices, sizes)

    run_gpu = run_cpu  # `warp_batch` runs the GPU kernel for GPU operators
