"""`fn.rotate`: rotation about the image centre, with DALI's canvas-size rule.

The 2-D rotation is counter-clockwise as displayed (y down): 90° equals ``np.rot90(img, 1)``.
Destination pixels map to the source about the centres,
``src = R(angle) · (dst − out/2) + in/2`` in ``(x, y)`` pixel-corner coordinates, where
``R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]`` — a counter-clockwise turn on screen. The angle
is converted to float32 radians first, so at exactly 45° ``sin > cos``.

Without ``size`` or ``keep_size`` the canvas is just large enough:
``w' = ceil(|cos|·W + |sin|·H − 0.01)``, ``h' = ceil(|cos|·H + |sin|·W − 0.01)``, then one is
added to an extent whose parity differs from the source extent it mostly comes from (W, H for
angles within ±45° of 0° or 180°, swapped otherwise), which keeps the centre sharp.

Sequences (FHWC, FDHWC) share one canvas per sample. With per-frame angles
(``angle=fn.per_frame(...)``, `dali._ops._sequences`) it is DALI's `sequence_canvas`: the largest
of the frames' canvases, extent by extent, with the parity most frames want.

Example:
    >>> rotated_canvas_size(40, 60, 45.0), rotated_canvas_size(41, 60, 45.0)
    ((72, 72), (72, 73))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._sequences import Frames, unfold
from dali._ops.image.warp_affine import WARP_ARGS, WarpBase

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "Rotate",
    "rotated_canvas_size",
    "rotation_matrix_2d",
    "rotation_matrix_3d",
    "sequence_canvas",
]

_F32 = np.float32


def _rad(degrees: float) -> float:
    """DALI's ``deg2rad`` on a float32 angle: the result is float32."""
    return float(_F32(degrees) * _F32(math.pi / 180))


def rotated_canvas_size(height: int, width: int, angle: float) -> tuple[int, int]:
    """The smallest canvas ``(h, w)`` holding an ``height × width`` image rotated by ``angle``°."""
    size, parity = _canvas_2d(height, width, angle)
    h, w = _with_parity(size, parity)
    return h, w


def _with_parity(size: Sequence[int], parity: Sequence[int]) -> tuple[int, ...]:
    """``size`` with one added to each extent whose parity is not the wanted one."""
    return tuple(int(e + (e % 2 != p)) for e, p in zip(size, parity))


def _canvas_2d(height: int, width: int, angle: float) -> tuple[list[int], list[int]]:
    """The canvas ``(h, w)`` before the parity correction, and the parities it wants."""
    a = _rad(angle)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    w_out = math.ceil(c * width + s * height - 1e-2)
    h_out = math.ceil(c * height + s * width - 1e-2)
    if s <= c:  # within ±45° of 0 or 180: keep the parity
        return [h_out, w_out], [height % 2, width % 2]
    return [h_out, w_out], [width % 2, height % 2]  # within ±45° of 90 or 270: swap it


def sequence_canvas(canvases: Sequence[tuple[Sequence[int], Sequence[int]]]) -> tuple[int, ...]:
    """One canvas for all frames of a sequence rotated by per-frame angles (DALI's rule).

    Each extent is the largest of the frames' extents (before the parity correction), then its
    parity is made the one that more than half of the frames want.

    Args:
        canvases: Per frame, the ``(size, parity)`` of `_canvas_2d` / `_canvas_3d`.
    """
    size = np.max([c[0] for c in canvases], axis=0)
    votes = np.sum([c[1] for c in canvases], axis=0)
    return _with_parity(size.tolist(), (2 * votes > len(canvases)).astype(int).tolist())


def _rotation3d(axis: Sequence[float], angle_rad: float) -> np.ndarray:
    """Right-handed rotation by ``angle_rad`` about ``axis`` (``(x, y, z)``), float32 3×3."""
    u = np.asarray(axis, dtype=np.float64)
    u = u / np.linalg.norm(u)
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    x, y, z = u
    cross = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return (c * np.eye(3) + s * cross + (1 - c) * np.outer(u, u)).astype(_F32)


def rotated_canvas_size_3d(
    shape: Sequence[int], axis: Sequence[float], angle: float
) -> tuple[int, int, int]:
    """Canvas ``(d, h, w)`` for a ``(D, H, W)`` volume rotated by ``angle``° about ``axis``."""
    d, h, w = _with_parity(*_canvas_3d(shape, axis, angle))
    return d, h, w


def _canvas_3d(
    shape: Sequence[int], axis: Sequence[float], angle: float
) -> tuple[list[int], list[int]]:
    """The canvas ``(d, h, w)`` before the parity correction, and the parities it wants."""
    m = np.abs(_rotation3d(axis, _rad(angle)))
    in_xyz = np.array([shape[2], shape[1], shape[0]], dtype=_F32)
    out = [math.ceil(float(v)) for v in (m @ in_xyz - _F32(1e-2)).astype(_F32)]
    parity = []
    for i in range(3):
        dominant = i  # the source axis contributing most to this extent (ties: keep i)
        for j in range(3):
            if m[i, j] > m[i, dominant]:
                dominant = j
        parity.append(int(in_xyz[dominant]) % 2)
    return out[::-1], parity[::-1]


def rotation_matrix_2d(in_hw: Sequence[int], out_hw: Sequence[int], angle: float) -> np.ndarray:
    """The 2×3 destination→source matrix on ``(x, y, 1)`` for a counter-clockwise turn."""
    a = _rad(angle)
    c, s = _F32(math.cos(a)), _F32(math.sin(a))
    r = np.array([[c, -s], [s, c]], dtype=_F32)
    in_c = np.array([in_hw[1], in_hw[0]], dtype=_F32) * _F32(0.5)
    out_c = np.array([out_hw[1], out_hw[0]], dtype=_F32) * _F32(0.5)
    t = in_c - r @ out_c
    return np.concatenate([r, t[:, None]], axis=1).astype(_F32)


def rotation_matrix_3d(
    in_dhw: Sequence[int], out_dhw: Sequence[int], axis: Sequence[float], angle: float
) -> np.ndarray:
    """The 3×4 destination→source matrix on ``(x, y, z, 1)``: a turn by −angle about ``axis``."""
    r = _rotation3d(axis, -_rad(angle))
    in_c = np.array([in_dhw[2], in_dhw[1], in_dhw[0]], dtype=_F32) * _F32(0.5)
    out_c = np.array([out_dhw[2], out_dhw[1], out_dhw[0]], dtype=_F32) * _F32(0.5)
    t = in_c - r @ out_c
    return np.concatenate([r, t[:, None]], axis=1).astype(_F32)


@register(
    "rotate",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("angle", "float", default=REQUIRED, tensor=True, doc="Angle in degrees (CCW)."),
        Arg("axis", "float_vec", tensor=True, doc="Rotation axis (x, y, z); volumes only."),
        Arg("keep_size", "bool", default=False, doc="Keep the input canvas size."),
        *WARP_ARGS,
    ],
)
class Rotate(WarpBase):
    """Rotate images (HWC, FHWC) counter-clockwise, or volumes (DHWC, FDHWC) about ``axis``.

    The canvas grows to hold the whole rotated image unless ``size`` or ``keep_size`` is
    given; pixels outside the input take ``fill_value``, or replicate the border when it is
    unset.

    Example: ``fn.rotate(images, angle=fn.random.uniform(range=(-10, 10)), fill_value=0)``;
    ``angle=90`` gives exactly ``np.rot90(image, 1)``.
    """

    def setup(self) -> None:
        super().setup()
        if self.has_arg("axis") and not self.is_tensor_arg("axis"):
            axis = list(self.arg("axis"))
            if len(axis) != 3:
                raise self.arg_error("axis", f"must be a 3-D vector, got {axis}")
            if not any(axis):
                raise self.arg_error("axis", "must have a non-zero length")

    def _angles(self, ws: Workspace) -> list[float]:
        angles: list[float] = ws.arg_scalars("angle", np.float32).tolist()
        return angles

    def _axes(self, ws: Workspace) -> list[list[float]]:
        if not self.has_arg("axis"):
            raise self.arg_error("axis", "is required to rotate volumes (DHWC)")
        out = []
        for i, v in enumerate(ws.arg_vectors("axis", np.float32)):
            flat: list[float] = v.astype(np.float64).tolist()
            if len(flat) != 3:
                raise self.arg_error("axis", f"sample {i}: must be a 3-D vector, got {flat}")
            if not any(flat):
                raise self.arg_error("axis", f"sample {i}: must have a non-zero length")
            out.append(flat)
        return out

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws)

    def run_gpu(self, ws: Workspace) -> Any:
        """Same sizes and matrices as on the CPU; the pixels in one batched kernel."""
        return self._run(ws)

    def _run(self, ws: Workspace) -> Any:
        # per-frame angles/axes: the frames are rotated as a batch of images (one launch), each
        # sequence on one canvas that holds all its frames
        seqs = unfold(self, ws, ("angle", "axis"))
        if seqs is not None:
            return seqs.fold(seqs.run(lambda fws: self._rotate(fws, seqs)))
        return self._rotate(ws, None)

    def _rotate(self, ws: Workspace, seqs: Frames | None) -> Any:
        tl = ws.inputs[0]
        _, nsp, frames = self.layout_of(tl)
        angles = self._angles(ws)
        first = 1 if frames else 0
        in_shapes = [s[first : first + nsp] for s in tl.shape()]
        sizes = self.explicit_sizes(ws, nsp)
        if nsp == 3:  # like DALI, `axis` is ignored for 2-D images
            axes = self._axes(ws)
        canvases: list[Sequence[int]] | None = None
        if sizes is None and not self.arg("keep_size"):
            raw = [
                _canvas_2d(shape[0], shape[1], angles[i])
                if nsp == 2
                else _canvas_3d(shape, axes[i], angles[i])
                for i, shape in enumerate(in_shapes)
            ]
            if seqs is None:
                canvases = [_with_parity(*r) for r in raw]
            else:  # one canvas per sequence, for all its frames
                canvases = [None] * len(raw)  # type: ignore[list-item]
                for g in seqs.groups():
                    if g.stop > g.start:
                        canvases[g] = [sequence_canvas(raw[g])] * (g.stop - g.start)
        out_shapes: list[Sequence[int]] = []
        matrices = []
        for i, shape in enumerate(in_shapes):
            if sizes is not None:
                out = tuple(sizes[i])
            elif canvases is None:  # keep_size
                out = tuple(shape)
            else:
                out = tuple(canvases[i])
            out_shapes.append(out)
            if nsp == 2:
                matrices.append(rotation_matrix_2d(shape, out, angles[i]))
            else:
                matrices.append(rotation_matrix_3d(shape, out, axes[i], angles[i]))
        return self.warp_batch(ws, tl, matrices, out_shapes)
