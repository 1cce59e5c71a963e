"""Reading an operator's arguments from its `Workspace`: one code path whether the user gave a
constant or one value per sample (an argument input), with errors naming argument and sample.
Also through real operators: resize's sizes and ROI, rotate's angle and paste's ratio read
per-sample values the same way."""

from __future__ import annotations

from typing import Any

import dali
import numpy as np
import pytest
from dali import fn
from dali._exec.workspace import BatchMeta, Workspace
from dali._tensors import TensorListCPU


class _Op:
    """An operator's constants and errors (`Operator.arg`, `Operator.arg_error`)."""

    def __init__(self, **constants: Any) -> None:
        self.constants = constants

    def arg(self, name: str) -> Any:
        return self.constants[name]

    def arg_error(self, name: str, message: str) -> Exception:
        return ValueError(f"argument `{name}`: {message}")


def _ws(constants: dict[str, Any], inputs: dict[str, Any], n: int = 3) -> Workspace:
    args = {k: TensorListCPU.wrap(v, "") for k, v in inputs.items()}
    return Workspace(_Op(**constants), [], args, BatchMeta.stream(0, n, 0), 0, 0, None, None)


def test_single_or_repeated_values() -> None:
    ws = _ws(
        {"one": 2.0, "each": (1.0, 2.0, 3.0)},
        {
            "dense": np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32),
            "single": np.array([[5], [6], [7]], np.float32),
            "mixed": [np.array([1.0]), np.array([1.0, 2.0, 3.0]), np.array([4.0])],
        },
    )
    assert ws.arg_vectors("one", n=3).tolist() == [[2.0] * 3] * 3
    assert ws.arg_vectors("each", n=3).tolist() == [[1.0, 2.0, 3.0]] * 3
    assert ws.arg_vectors("dense", n=3)[2].tolist() == [7, 8, 9]
    assert ws.arg_vectors("single", n=2).tolist() == [[5, 5], [6, 6], [7, 7]]
    assert ws.arg_vectors("mixed", n=3).tolist() == [[1, 1, 1], [1, 2, 3], [4, 4, 4]]
    assert ws.arg_vectors("one", np.int64, n=2).dtype == np.int64
    # the result is the caller's to change
    out = ws.arg_vectors("one", n=2)
    out[0, 0] = 9
    assert ws.arg_vectors("one", n=2)[0, 0] == 2


def test_single_or_repeated_errors_name_the_sample() -> None:
    ws = _ws(
        {"pair": (1.0, 2.0)},
        {
            "bad": [np.array([1.0]), np.array([1.0, 2.0]), np.array([3.0])],
            "short": np.ones((2, 1), np.float32),
        },
    )
    with pytest.raises(ValueError, match=r"`pair`: expected 1 or 3 values \(per axis\), got 2"):
        ws.arg_vectors("pair", n=3, what=" (per axis)")
    with pytest.raises(ValueError, match=r"`bad`: sample 1: expected 1 or 3 values, got 2"):
        ws.arg_vectors("bad", n=3)
    with pytest.raises(ValueError, match="got 2 per-sample values for a batch of 3"):
        ws.arg_vectors("short", n=3)


def test_scalars_dense_and_ragged() -> None:
    ws = _ws(
        {"c": 1.5},
        {
            "rows": np.array([[1], [2], [3]], np.int32),
            "flat": np.array([4, 5, 6], np.int32),
            "ragged": [np.array(1.0), np.array([2.0, 3.0]), np.array(4.0)],
        },
    )
    assert ws.arg_scalars("c").tolist() == [1.5] * 3
    assert ws.arg_scalars("rows", np.int64).tolist() == [1, 2, 3]
    assert ws.arg_scalars("flat", np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="`ragged`: sample 1: expected one value, got 2"):
        ws.arg_scalars("ragged")


def _constant(batch: Any) -> Any:
    return lambda: batch


def _run(define: Any, **feeds: Any) -> tuple[Any, ...]:
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None, seed=1)
    with pipe:
        sources = {k: fn.external_source(_constant(v), name=k) for k, v in feeds.items()}
        pipe.set_outputs(*define(**sources))
    out = pipe.run()
    pipe.close()
    return out


IMAGES = [np.zeros((20, 30, 3), np.uint8), np.zeros((10, 40, 3), np.uint8)]


def test_operators_read_single_or_repeated_sizes_per_sample() -> None:
    (out,) = _run(
        lambda images, size: (fn.resize(images, size=size),),
        images=IMAGES,
        size=[np.array([8.0], np.float32), np.array([6.0, 12.0], np.float32)],
    )
    assert out.shape() == [(8, 8, 3), (6, 12, 3)]
    with pytest.raises(Exception, match=r"`size`: sample 1: expected 1 or 2 values \(one per"):
        _run(
            lambda images, size: (fn.resize(images, size=size),),
            images=IMAGES,
            size=[np.array([8.0], np.float32), np.array([6.0, 12.0, 1.0], np.float32)],
        )


def test_rotate_and_paste_read_one_value_per_sample() -> None:
    angle = [np.array([90.0], np.float32), np.array([0.0], np.float32)]
    (out,) = _run(
        lambda images, angle: (fn.rotate(images, angle=angle),), images=IMAGES, angle=angle
    )
    assert out.shape() == [(30, 20, 3), (10, 40, 3)]
    with pytest.raises(Exception, match="`angle`: sample 1: expected one value, got 2"):
        _run(
            lambda images, angle: (fn.rotate(images, angle=angle),),
            images=IMAGES,
            angle=[np.array([1.0], np.float32), np.array([1.0, 2.0], np.float32)],
        )
    ratio = [np.array(2.0, np.float32), np.array(0.5, np.float32)]
    with pytest.raises(Exception, match=r"`ratio`: sample 1: must be >= 1.0, got 0.5"):
        _run(
            lambda images, ratio: (fn.paste(images, ratio=ratio, fill_value=0),),
            images=IMAGES,
            ratio=ratio,
        )
