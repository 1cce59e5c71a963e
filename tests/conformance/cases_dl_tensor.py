"""Conformance cases of `fn.dl_tensor_python_function` against real DALI 2.4 (see README.md):
the function gets DLPack capsules (a list per input in batch mode, the default; one per sample
otherwise) and returns capsules, which both libraries import; compared exactly."""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import Case, Ext, add

_RNG = np.random.default_rng(5)
_BATCH = [[_RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(4)]]
_INTS = [[np.arange(k + 1, dtype=np.int32) for k in range(4)]]


def _reverse(batch: list[Any]) -> list[Any]:
    return batch[::-1]


def _swap(a: Any, b: Any) -> tuple[Any, Any]:
    return b, a


def _graph(kw: dict[str, Any]) -> Any:
    def graph(fn: Any, types: Any, *nodes: Any) -> Any:
        return fn.dl_tensor_python_function(*nodes, **kw)

    return graph


add(
    Case(
        "dl_tensor_python_function(batch, reversed)",
        _graph({"function": _reverse}),
        (Ext(lambda c: _BATCH, label="f32"),),
    )
)
add(
    Case(
        "dl_tensor_python_function(ints, reversed)",
        _graph({"function": _reverse}),
        (Ext(lambda c: _INTS, label="i32"),),
    )
)
add(
    Case(
        "dl_tensor_python_function(per sample, 2 in 2 out)",
        _graph({"function": _swap, "batch_processing": False, "num_outputs": 2}),
        (Ext(lambda c: _BATCH, label="f32"), Ext(lambda c: _INTS, label="i32")),
    )
)
