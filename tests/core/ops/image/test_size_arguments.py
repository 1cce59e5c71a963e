"""Output sizes that make no image: clear errors naming the operator, the argument and the
sample, on the CPU and on the GPU (NVIDIA DALI 2.4 crashes on a NaN resize size, makes 1×1
images of an infinite one, and fails rotate/warp_affine with a bare "Critical error").

A negative ``resize_x``/``resize_y``/``size`` of ``fn.resize`` is not an error: it flips that
axis, as in DALI.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from dali import fn, pipeline_def
from parity import device_id, to_device

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
NAN, INF = float("nan"), float("inf")


def _per_sample(*values: Any) -> Any:
    """A per-sample float32 argument: one value (or vector) per sample."""
    return fn.external_source(lambda: [np.asarray(v, np.float32) for v in values])


def _run(device: str, make: Any) -> Any:
    @pipeline_def(batch_size=2, num_threads=1, device_id=device_id(device))
    def pipe() -> Any:
        images = fn.external_source(lambda: [np.zeros((10, 12, 3), np.uint8)] * 2, layout="HWC")
        return make(to_device(images, device))

    return pipe().run()


#: (operator call, the argument the error names, the sample it names, or None: a constant)
CASES = {
    "resize_x nan": (lambda x: fn.resize(x, resize_x=NAN), "resize_x", None),
    "resize_y inf": (lambda x: fn.resize(x, resize_x=5, resize_y=INF), "resize_y", None),
    "size nan": (lambda x: fn.resize(x, size=[NAN, 5.0]), "size", None),
    "resize_shorter -inf": (lambda x: fn.resize(x, resize_shorter=-INF), "resize_shorter", None),
    "per-sample resize_x nan": (
        lambda x: fn.resize(x, resize_x=_per_sample(4.0, NAN)),
        "resize_x",
        1,
    ),
    "per-sample size inf": (
        lambda x: fn.resize(x, size=_per_sample([INF, 3.0], [4.0, 3.0])),
        "size",
        0,
    ),
    "per-sample resize_longer nan": (
        lambda x: fn.resize(x, resize_longer=_per_sample(8.0, NAN)),
        "resize_longer",
        1,
    ),
    "rotate size negative": (lambda x: fn.rotate(x, angle=10, size=(-5, 10)), "size", None),
    "rotate size nan": (lambda x: fn.rotate(x, angle=10, size=(NAN, 10)), "size", None),
    "rotate per-sample size negative": (
        lambda x: fn.rotate(x, angle=10, size=_per_sample([5, 10], [-5, 10])),
        "size",
        1,
    ),
    "warp_affine size negative": (
        lambda x: fn.warp_affine(x, matrix=(1, 0, 0, 0, 1, 0), size=(-1, 10)),
        "size",
        None,
    ),
    "warp_affine size inf": (
        lambda x: fn.warp_affine(x, matrix=(1, 0, 0, 0, 1, 0), size=(INF, 10)),
        "size",
        None,
    ),
    "warp_affine per-sample size nan": (
        lambda x: fn.warp_affine(x, matrix=(1, 0, 0, 0, 1, 0), size=_per_sample([4, 4], [NAN, 4])),
        "size",
        1,
    ),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(CASES))
def test_sizes_that_make_no_image_are_errors(device: str, case: str) -> None:
    make, arg, sample = CASES[case]
    operator = case.split()[0] if case.split()[0] in ("rotate", "warp_affine") else "resize"
    with pytest.raises(Exception) as info:
        _run(device, make)
    message = str(info.value)
    assert f"argument `{arg}`" in message, message
    assert f"`dali.fn.{operator}`" in message, message
    if sample is None:
        assert "sample" not in message.split(f"argument `{arg}`")[1].split(":")[0]
    else:
        assert f"sample {sample}:" in message, message


@pytest.mark.parametrize("device", DEVICES)
def test_negative_resize_extents_flip_as_in_dali(device: str) -> None:
    (out,) = _run(device, lambda x: fn.resize(x, resize_x=-6, resize_y=4))
    assert [tuple(s) for s in out.shape()] == [(4, 6, 3), (4, 6, 3)]
