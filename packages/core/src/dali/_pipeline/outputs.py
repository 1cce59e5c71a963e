"""The outputs of a pipeline: what the graph returns, and what every iteration must match.

`normalize_outputs` turns what ``define_graph`` returns (or ``set_outputs`` gets) into a list of
DataNodes; constants become constant nodes, typed as DALI types them. `validate_outputs`
checks the batches of an iteration against the constructor's ``output_dtype``,
``output_ndim`` and ``output_layout``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._graph.node import DataNode

__all__ = ["normalize_outputs", "validate_outputs"]


def normalize_outputs(outputs: Any) -> list[DataNode]:
    """The pipeline outputs as DataNodes (call it while the pipeline is the current one).

    Raises:
        TypeError: For a nested list of DataNodes or a value that cannot be a constant.
    """
    from dali._graph.trace import constant_node
    from dali.types import ScalarConstant

    if outputs is None:
        return []
    if isinstance(outputs, tuple):
        outputs = list(outputs)
    if not isinstance(outputs, list):
        outputs = [outputs]
    result = []
    for i, out in enumerate(outputs):
        if isinstance(out, DataNode):
            result.append(out)
        elif isinstance(out, (list, tuple)) and any(isinstance(x, DataNode) for x in out):
            raise TypeError(
                f"Illegal pipeline output type: output {i} is a nested list of DataNodes. "
                f"Missing list/tuple expansion (*) of the output?"
            )
        elif isinstance(out, ScalarConstant):
            from dali._dtypes import np_dtype

            result.append(constant_node(np.asarray(out.value, dtype=np_dtype(out.dtype))))
        else:
            arr = np.asarray(out)
            if arr.dtype == np.float64:
                arr = arr.astype(np.float32)
            elif arr.dtype == np.int64:
                arr = arr.astype(np.int32)
            elif arr.dtype == np.uint64:
                arr = arr.astype(np.uint32)
            elif arr.dtype.kind not in "biuf":
                raise TypeError(f"Illegal pipeline output {i}: {type(out).__name__}")
            result.append(constant_node(arr))
    return result


def validate_outputs(out: tuple[Any, ...], dtypes: Any, ndims: Any, layouts: Any) -> None:
    """Check the batches of one iteration against the expected types, ndims and layouts.

    Each of ``dtypes``, ``ndims`` and ``layouts`` is None (unchecked), one value for every
    output, or a list with one value (or None) per output.

    Raises:
        RuntimeError: With DALI's message, naming the output.
    """
    from dali._dtypes import type_name

    def expected(spec: Any, i: int) -> Any:
        if isinstance(spec, list):
            return spec[i] if i < len(spec) else None
        return spec

    for i, tl in enumerate(out):
        dt = expected(dtypes, i)
        if dt is not None and int(tl.dtype) != int(dt):
            raise RuntimeError(
                f"Data type in the output_idx={i} does not match. Expected: "
                f"{type_name(dt)}. Received: {type_name(tl.dtype)}."
            )
        nd = expected(ndims, i)
        if nd is not None and tl.ndim != nd:
            raise RuntimeError(
                f"Number of dimensions in the output_idx={i} does not match. Expected: "
                f"{nd}. Received: {tl.ndim}."
            )
        lay = expected(layouts, i)
        if lay is not None and tl.layout() != lay:
            raise RuntimeError(
                f"Layout in the output_idx={i} does not match. Expected: "
                f'"{lay}". Received: "{tl.layout()}".'
            )
