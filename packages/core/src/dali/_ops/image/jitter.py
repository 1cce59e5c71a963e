"""`fn.jitter`: move every pixel by a small random amount.

A displacement filter (`displacement`) with random positions: output pixel ``(x, y)`` is the
input pixel ``(x + dx, y + dy)``, clamped into the image, with ``dx`` and ``dy`` drawn
uniformly, for every pixel, from the ``nDegree`` integers starting at ``-(nDegree // 2)``
(DALI's ``uniform_int_dist(-(n >> 1), -(n >> 1) + n, exclusive)`` in
``dali/operators/image/remap/jitter.cuh``: ``nDegree=2`` gives -1 or 0, ``nDegree=3`` -1, 0
or 1). All channels of a pixel move together. The positions are whole pixels inside the image,
so ``interp_type`` and ``fill_value`` change nothing (DALI's sampler reads integer positions
directly); they are accepted and checked as DALI does.

The offsets come from the sample's own counter-based stream (`Workspace.rng`): pixel ``k``
(row-major) takes the 64-bit value ``k`` of it, its low half for ``dx`` and its high half for
``dy`` (``(u · nDegree) >> 32``). A sample is therefore jittered the same way whatever its batch,
thread or device: the GPU kernel evaluates the same SplitMix64 values itself, so CPU and GPU
outputs are equal. They are not DALI's numbers (DALI draws from Philox); what agrees is the
distribution.

DALI 2.4 has this operator on the GPU only; `dali` runs it on the CPU too.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.arange(64, dtype=np.uint8).reshape(8, 8, 1)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=3)
    ... def pipe():
    ...     return fn.jitter(fn.external_source(lambda: [img], layout="HWC"), nDegree=3)
    >>> out = pipe().run()[0].as_array()[0, :, :, 0].astype(int)
    >>> rows, cols = np.divmod(out, 8)  # where each output pixel came from
    >>> ys, xs = np.mgrid[0:8, 0:8]
    >>> int(np.abs(rows - ys).max()), int(np.abs(cols - xs).max())
    (1, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.image import _displace_gpu, _displace_jit
from dali._ops.image.displacement import DISPLACEMENT_ARGS, DisplacementFilter

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Jitter", "jitter_offsets"]

_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def jitter_offsets(bits: np.ndarray, n_degree: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``dx``, ``dy`` offsets (int64) that 64-bit random values give, one pair per value.

    Example:
        >>> bits = np.array([0, 0xFFFFFFFF_FFFFFFFF, 0x80000000_00000000], np.uint64)
        >>> [v.tolist() for v in jitter_offsets(bits, 3)]
        [[-1, 1, -1], [-1, 1, 0]]
    """
    n = np.uint64(n_degree)
    start = -(n_degree >> 1)
    dx = ((bits & _LOW32) * n) >> _S32
    dy = ((bits >> _S32) * n) >> _S32
    return dx.astype(np.int64) + start, dy.astype(np.int64) + start


@register(
    "jitter",
    devices=("cpu", "gpu"),
    args=[
        Arg("nDegree", "int", default=2,
            doc="Each pixel is moved by a random amount in the ``[-nDegree/2, nDegree/2]`` range"),
        *DISPLACEMENT_ARGS,
    ],
    random=True,
)  # fmt: skip
class Jitter(DisplacementFilter):
    """Performs a random Jitter augmentation.

    The output images are produced by moving each pixel by a random amount, in the x and y
    dimensions, and bounded by half of the ``nDegree`` parameter: each offset is one of the
    ``nDegree`` integers from ``-(nDegree // 2)``, and the moved position is clamped into the
    image. ``mask`` (per sample) 0 leaves a sample unchanged. Input: ``HWC`` uint8 or float
    images. (DALI 2.4 runs it on the GPU only; here the CPU backend draws the same values as the
    GPU one.)
    """

    integer_positions = True

    def setup(self) -> None:
        super().setup()
        self.n_degree = int(self.arg("nDegree"))
        if not 1 <= self.n_degree < 2**31:
            raise self.arg_error(
                "nDegree", f"must be a positive number of pixel offsets, got {self.n_degree}"
            )

    def positions(self, ws: Workspace, i: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        bits = ws.rng.subset([i]).bits(h * w)[0]
        dx, dy = jitter_offsets(bits, self.n_degree)
        xs = np.clip(dx.reshape(h, w) + np.arange(w), 0, w - 1)
        ys = np.clip(dy.reshape(h, w) + np.arange(h)[:, None], 0, h - 1)
        return xs.astype(np.float32), ys.astype(np.float32)

    def displace(self, ws: Workspace, i: int, x: np.ndarray, fill_value: float) -> np.ndarray:
        if not _displace_jit.available():  # the positions, then the sampler's NN path
            return super().displace(ws, i, x, fill_value)
        out = np.empty_like(x)
        key = int(ws.rng.subset([i]).keys[0])
        _displace_jit.jitter(np.ascontiguousarray(x), key, self.n_degree, out)
        return out

    def gpu_kind(self) -> int:
        return _displace_gpu.JITTER

    def gpu_batch(self, ws: Workspace, shapes: list[tuple[int, ...]]) -> dict[str, Any]:
        return {"keys": ws.rng.keys, "ndeg": self.n_degree}
