"""`fn.water`: ripple an image with two sine waves, as if seen through water.

A displacement filter (`displacement`): output pixel ``(x, y)`` samples the input at

    px = x + ampl_x · sin(freq_x · y + phase_x)
    py = y + ampl_y · cos(freq_y · x + phase_y)

so every row is shifted sideways by a sine of its index and every column up or down by a cosine
of its. The arithmetic is DALI's CPU backend's, in float32 with glibc's ``sinf``/``cosf``
(``dali/operators/image/remap/water.h``), which makes the CPU output bit-exact with DALI's CPU
(on a glibc system; elsewhere the sines are float64 ones rounded to float32, which can differ in
the last bit). The offsets depend only on the arguments, so they are computed once per operator
and row/column count, on the host, for both backends.

The wave arguments are scalars (DALI 2.4 takes no per-sample values for them); ``mask`` is per
sample. uint8 and float ``HWC`` images, any number of channels.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [img], layout="HWC")
    ...     return fn.water(x, ampl_x=0.0, ampl_y=0.0)  # no wave: the image itself
    >>> bool((pipe().run()[0].as_array()[0] == img).all())
    True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.image import _displace_gpu
from dali._ops.image.displacement import DISPLACEMENT_ARGS, CoordinateCache, DisplacementFilter

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Water", "libm_cos", "libm_sin"]

_F32 = np.float32


@functools.cache
def _libm() -> Any:
    """glibc's math library (ctypes), or None where there is none to load."""
    name = ctypes.util.find_library("m")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        for fn_name in ("sinf", "cosf"):
            f = getattr(lib, fn_name)
            f.restype = ctypes.c_float
            f.argtypes = [ctypes.c_float]
    except (OSError, AttributeError):
        return None
    return lib


def _elementwise(name: str, values: np.ndarray) -> np.ndarray:
    lib = _libm()
    values = np.asarray(values, _F32)
    if lib is None:  # float64 rounded: differs from glibc's sinf in the last bit at times
        return getattr(np, name[:3])(values.astype(np.float64)).astype(_F32)
    f = getattr(lib, name)
    return np.array([f(v) for v in values.tolist()], dtype=_F32)


def libm_sin(values: np.ndarray) -> np.ndarray:
    """``sinf`` of every float32 value, as the C library computes it (DALI's CPU water).

    Example:
        >>> libm_sin(np.array([0.0, 1.0], np.float32)).dtype
        dtype('float32')
    """
    return _elementwise("sinf", values)


def libm_cos(values: np.ndarray) -> np.ndarray:
    """``cosf`` of every float32 value, as the C library computes it (DALI's CPU water)."""
    return _elementwise("cosf", values)


@register(
    "water",
    devices=("cpu", "gpu"),
    args=[
        Arg("ampl_x", "float", default=10.0, doc="Amplitude of the wave in the x direction."),
        Arg("ampl_y", "float", default=10.0, doc="Amplitude of the wave in the y direction."),
        Arg("freq_x", "float", default=float(_F32(2.0 * np.pi / 128)),
            doc="Frequency of the wave in the x direction."),
        Arg("freq_y", "float", default=float(_F32(2.0 * np.pi / 128)),
            doc="Frequence of the wave in the y direction."),
        Arg("phase_x", "float", default=0.0, doc="Phase of the wave in the x direction."),
        Arg("phase_y", "float", default=0.0, doc="Phase of the wave in the y direction."),
        *DISPLACEMENT_ARGS,
    ],
)  # fmt: skip
class Water(DisplacementFilter):
    """Performs a water augmentation, which makes the image appear to be underwater.

    Output pixel ``(x, y)`` is the input at ``(x + ampl_x·sin(freq_x·y + phase_x),
    y + ampl_y·cos(freq_y·x + phase_y))``, sampled with ``interp_type`` (INTERP_NN or
    INTERP_LINEAR); positions outside the image take ``fill_value``. ``mask`` (per sample)
    0 leaves a sample unchanged. Input: ``HWC`` uint8 or float images.
    """

    def setup(self) -> None:
        super().setup()
        self._wave = tuple(
            _F32(self.arg(name))
            for name in ("ampl_x", "freq_x", "phase_x", "ampl_y", "freq_y", "phase_y")
        )
        self._offsets: tuple[np.ndarray, np.ndarray] = (np.zeros(0, _F32), np.zeros(0, _F32))
        self._lock = threading.Lock()
        self._positions = CoordinateCache(self._make_positions)

    def offsets(self, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """The x offset of each of ``rows`` rows and the y offset of each of ``cols`` columns
        (float32): ``ampl_x·sinf(freq_x·y + phase_x)``, ``ampl_y·cosf(freq_y·x + phase_y)``."""
        with self._lock:
            tx, ty = self._offsets
            if len(tx) < rows or len(ty) < cols:
                ax, fx, phx, ay, fy, phy = self._wave
                n_rows, n_cols = max(rows, len(tx)), max(cols, len(ty))
                tx = ax * libm_sin(fx * np.arange(n_rows, dtype=_F32) + phx)
                ty = ay * libm_cos(fy * np.arange(n_cols, dtype=_F32) + phy)
                self._offsets = (tx, ty)
        return tx[:rows], ty[:cols]

    def _make_positions(self, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        tx, ty = self.offsets(h, w)
        px = np.arange(w, dtype=_F32)[None, :] + tx[:, None]
        py = np.arange(h, dtype=_F32)[:, None] + ty[None, :]
        return px, py

    def positions(self, ws: Workspace, i: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        return self._positions(h, w)

    def gpu_kind(self) -> int:
        return _displace_gpu.WATER

    def gpu_batch(self, ws: Workspace, shapes: list[tuple[int, ...]]) -> dict[str, Any]:
        rows = max((s[0] for s in shapes), default=0)
        cols = max((s[1] for s in shapes), default=0)
        tx, ty = self.offsets(rows, cols)
        return {"table": np.concatenate([tx, ty]), "table_split": rows}
