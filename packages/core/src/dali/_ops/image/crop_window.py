"""DALI's random crop-window generator (reference §3.13), shared by the random-crop operators.

`fn.decoders.image_random_crop` and `fn.random_resized_crop` pick their window the way DALI's
``RandomCropGenerator`` does: a crop whose area is a uniform fraction of the image in
``random_area`` and whose aspect ratio (w/h) is log-uniform in ``random_aspect_ratio``, retried
up to ``num_attempts`` times, with DALI's float32 arithmetic and its fallbacks for images that are
too wide, too tall or too small. The anchor is uniform over the positions where the window fits.

DALI draws from one stream per sample slot (so a sample's crop depends on its position in the
batch); we draw from a numpy ``Generator`` made for the sample's identity
(``ws.rng.generator(i)``), so the same sample gets the same window whatever the batch size,
thread count or sharding (DESIGN §5.1).

Example:
    >>> import numpy as np
    >>> params = RandomCropParams(area=(0.08, 1.0), aspect_ratio=(3 / 4, 4 / 3), num_attempts=10)
    >>> y, x, h, w = random_crop_window(375, 500, params, np.random.default_rng(0))
    >>> 0 <= y <= 375 - h and 0 <= x <= 500 - w
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._graph.schema import Arg

__all__ = ["RANDOM_CROP_ARGS", "RandomCropParams", "random_crop_window"]

#: The schema arguments of DALI's ``RandomCropAttr`` (add them to an operator's ``args``).
RANDOM_CROP_ARGS = (
    Arg(
        "random_area",
        "float_vec",
        default=(0.08, 1.0),
        doc="Range of the crop area as a fraction of the image area.",
    ),
    Arg(
        "random_aspect_ratio",
        "float_vec",
        default=(3.0 / 4.0, 4.0 / 3.0),
        doc="Range of the crop aspect ratio (width / height).",
    ),
    Arg("num_attempts", "int", default=10, doc="Attempts to find a window before the fallback."),
)

_F1 = np.float32(1.0)


@dataclass(frozen=True)
class RandomCropParams:
    """Validated random-crop arguments (float32, as DALI stores them)."""

    area: tuple[float, float]
    aspect_ratio: tuple[float, float]
    num_attempts: int

    @classmethod
    def from_op(cls, op: Any) -> RandomCropParams:
        """Read and check ``random_area``, ``random_aspect_ratio`` and ``num_attempts``.

        Raises the operator's ``arg_error`` (naming the operator and the argument).
        """

        def pair(name: str) -> tuple[float, float]:
            v = tuple(float(np.float32(x)) for x in op.arg(name))
            if len(v) == 1:  # DALI's GetSingleOrRepeatedArg
                v = (v[0], v[0])
            if len(v) != 2:
                raise op.arg_error(name, f"expected 1 or 2 values, got {len(v)}")
            if v[0] > v[1]:
                raise op.arg_error(name, f"provided empty range [{v[0]}, {v[1]}]")
            if v[0] <= 0:
                raise op.arg_error(name, f"values must be positive, got {list(v)}")
            return v  # type: ignore[return-value]

        area = pair("random_area")
        aspect = pair("random_aspect_ratio")
        attempts = op.arg("num_attempts")
        if attempts < 1:
            raise op.arg_error("num_attempts", f"must be at least 1, got {attempts}")
        return cls(area, aspect, int(attempts))


def _roundf(x: np.float32) -> int:
    """C ``roundf`` (half away from zero) of a positive float32."""
    return math.floor(float(x) + 0.5)


def random_crop_window(
    height: int, width: int, params: RandomCropParams, rng: np.random.Generator
) -> tuple[int, int, int, int]:
    """One crop window ``(y, x, h, w)`` for an image of ``height × width``.

    Args:
        height: Image height (rows); ``width``: image width (columns).
        params: Area, aspect-ratio ranges and attempts.
        rng: The sample's generator; every value of the window is drawn from it.

    Returns:
        The anchor ``(y, x)`` and size ``(h, w)``, always inside the image (empty for an empty
        image).
    """
    H, W = int(height), int(width)
    if H <= 0 or W <= 0:
        return 0, 0, 0, 0
    f32 = np.float32
    area_lo, area_hi = f32(params.area[0]), f32(params.area[1])
    min_wh, max_wh = f32(params.aspect_ratio[0]), f32(params.aspect_ratio[1])
    max_hw = _F1 / min_wh
    min_area = f32(W * H) * area_lo
    max_w = max(1, int(f32(H) * max_wh))
    max_h = max(1, int(f32(W) * max_hw))

    if f32(H * max_w) < min_area:  # too wide for any allowed window
        h, w = H, max_w
    elif f32(W * max_h) < min_area:  # too tall
        h, w = max_h, W
    else:
        log_lo, log_hi = np.log(min_wh), np.log(max_wh)
        original_area = f32(H * W)
        found = False
        for _ in range(params.num_attempts):
            u_area, u_ratio = rng.random(2, dtype=np.float32)
            scale = area_lo + (area_hi - area_lo) * u_area
            target_area = scale * original_area
            ratio = np.exp(log_lo + (log_hi - log_lo) * u_ratio)
            w = max(1, _roundf(np.sqrt(target_area * ratio)))
            h = max(1, _roundf(np.sqrt(target_area / ratio)))
            r = f32(w) / f32(h)
            if w <= W and h <= H and min_wh <= r <= max_wh:
                found = True
                break
        if not found:
            max_area = area_hi * f32(W) * f32(H)
            r = f32(W) / f32(H)
            if r > max_wh:
                h, w = H, max_w
            elif r < min_wh:
                h, w = max_h, W
            else:
                h, w = H, W
            scale = min(_F1, max_area / f32(w * h))
            s = np.sqrt(f32(scale))
            h = max(1, int(f32(h) * s))
            w = max(1, int(f32(w) * s))
    y = int(rng.integers(0, H - h + 1))
    x = int(rng.integers(0, W - w + 1))
    return y, x, h, w
