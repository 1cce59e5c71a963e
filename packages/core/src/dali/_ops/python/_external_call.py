"""The call ``fn.external_source(...)`` / ``ops.ExternalSource(...)(...)``: argument checks.

DALI checks the arguments of an external source when the graph is defined (not when the
pipeline is built): the combination of ``source``, ``num_outputs``, ``batch``, ``parallel``,
``no_copy``, ``cycle``, ``repeat_last``... and the per-output ``layout``/``dtype``/``ndim``
(`output_specs`). The checked call is then traced like any operator's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype
from dali._graph.trace import call_operator
from dali._ops.python._sources import describe_source

__all__ = ["external_source_call", "ops_call", "output_specs"]

_DISPLAY = "dali.fn.external_source"


def _per_output(value: Any, n: int, missing: Any, name: str, multi: bool) -> list[Any]:
    if isinstance(value, (list, tuple)):
        if not multi:
            raise TypeError(
                f"`{_DISPLAY}`: the argument `{name}` can be a list only together with "
                f"`num_outputs` (one value per output); got {value!r}."
            )
        return [*value[:n], *([missing] * (n - len(value)))]
    return [value] * n


def output_specs(args: Mapping[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """(layouts, dtypes, ndims), one entry per output; None means "not given"."""
    num = args.get("num_outputs")
    n, multi = (num or 1), num is not None
    layouts = _per_output(args.get("layout"), n, "", "layout", multi)
    dtypes = _per_output(args.get("dtype"), n, None, "dtype", multi)
    ndims = _per_output(args.get("ndim"), n, None, "ndim", multi)
    out_layouts: list[str | None] = []
    for lay in layouts:
        if lay is not None and not isinstance(lay, str):
            if type(lay).__name__ != "TensorLayout":
                raise TypeError(
                    f"`{_DISPLAY}`: the argument `layout` should be a str (or a list of str "
                    f"per output), got {lay!r}."
                )
            lay = str(lay)
        out_layouts.append(lay)
    out_dtypes: list[DALIDataType | None] = []
    for dt in dtypes:
        if dt is None:
            out_dtypes.append(None)
            continue
        try:
            d = dali_dtype(dt)
        except TypeError:
            raise TypeError(
                f"`{_DISPLAY}`: the argument `dtype` should be a data type "
                f"(dali.types.DALIDataType), got {dt!r}."
            ) from None
        out_dtypes.append(None if d == DALIDataType.NO_TYPE else d)
    out_ndims: list[int | None] = []
    for nd in ndims:
        if nd is not None and (
            isinstance(nd, bool) or not isinstance(nd, (int, np.integer)) or nd < 0
        ):
            raise TypeError(
                f"`{_DISPLAY}`: the argument `ndim` should be a non-negative int, got {nd!r}."
            )
        out_ndims.append(None if nd is None else int(nd))
    return out_layouts, out_dtypes, out_ndims


# --------------------------------------------------------------------------------------------
# The call: `fn.external_source(...)` / `ops.ExternalSource(...)(...)`
# --------------------------------------------------------------------------------------------


def external_source_call(
    schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any], *, ops_api: bool = False
) -> Any:
    if inputs:
        raise TypeError(f"`{_DISPLAY}` takes no inputs; got {len(inputs)}.")
    kw = {k: v for k, v in kwargs.items() if v is not None}
    source = kw.get("source")
    num_outputs = kw.get("num_outputs")
    if num_outputs is not None:
        if isinstance(num_outputs, bool) or not isinstance(num_outputs, (int, np.integer)):
            raise TypeError(f"`num_outputs` must be an int, got {num_outputs!r}.")
        if num_outputs < 1:
            raise ValueError(f"`num_outputs` must be positive, got {num_outputs}.")
        if source is None:
            raise ValueError(
                "The parameter ``num_outputs`` is only valid when using ``source`` to provide "
                "data. To feed multiple external sources in ``feed_input``, use multiple "
                f"`{_DISPLAY}` nodes."
            )
        if "name" in kw:
            raise ValueError(f"`num_outputs` is not compatible with named `{_DISPLAY}`")
        kw["num_outputs"] = int(num_outputs)
    parallel = bool(kw.get("parallel", False))
    batch = kw.get("batch")
    if (
        batch is None
    ):  # fn.external_source defaults to batches; ops.ExternalSource to `not parallel`
        batch = not parallel if ops_api else True
    batch = bool(batch)
    desc = describe_source(source, kw.get("cycle")) if source is not None else None
    kw.pop("cycle", None)
    if desc is not None and kw.get("repeat_last"):
        raise ValueError(
            "``repeat_last`` must not be set when using the ``source`` argument. It's usable "
            f"only with manually fed `{_DISPLAY}`."
        )
    no_copy = kw.get("no_copy")
    if parallel:
        if desc is None:
            raise ValueError(
                f"`{_DISPLAY}` with ``parallel=True`` needs a ``source`` to run in the workers."
            )
        depth = kw.get("prefetch_queue_depth", 1)
        if no_copy is None:
            no_copy = True
        if not no_copy:
            raise ValueError(
                "The argument ``no_copy`` cannot be specified to False when used with "
                "``parallel=True``."
            )
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"``prefetch_queue_depth`` must be a positive integer, got {depth}.")
        hint = kw.get("bytes_per_sample_hint")
        if hint is not None and (not isinstance(hint, (int, np.integer)) or hint < 1):
            raise ValueError(f"``bytes_per_sample_hint`` must be a positive integer, got {hint}.")
        if desc.kind == "callable" and not desc.accepts_arg:
            raise TypeError(
                "Callable passed to External Source in parallel mode (when `parallel=True`) "
                "must accept exactly one argument: `dali.types.SampleInfo` if run with "
                "`batch=False` or either `dali.types.BatchInfo` or integer that represents the "
                "index of the batch within the epoch if `batch=True`. Got a callable that does "
                "not accept arguments instead."
            )
        if desc.kind != "callable" and not batch:
            what = "an iterable" if desc.kind == "iterable" else "a generator function"
            raise TypeError(
                f"Parallel external source with {what} must be run in a batch mode (specify "
                "`batch=True` in the external source definition and make sure your source "
                "returns batches)"
            )
        kw["prefetch_queue_depth"] = int(depth)
    else:
        for arg in ("prefetch_queue_depth", "bytes_per_sample_hint"):
            if arg in kw:
                raise ValueError(
                    f"The argument `{arg}` is valid only for parallel external sources (when "
                    "``parallel`` is True)."
                )
    timeout = kw.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.number)):
            raise TypeError(
                f"`{_DISPLAY}`: the argument `timeout` should be a number of seconds (or "
                f"None: wait for ever), got {timeout!r}."
            )
        if not 0 < timeout < float("inf"):
            raise ValueError(
                f"`{_DISPLAY}`: the argument `timeout` must be a positive, finite number of "
                f"seconds (or None: wait for ever), got {timeout!r}."
            )
        kw["timeout"] = float(timeout)
    output_specs(kw)  # type checks now; the layout/ndim agreement is checked at build
    kw.update(batch=batch, parallel=parallel, no_copy=bool(no_copy))
    if desc is not None:
        kw["source"] = desc
    return call_operator(schema, (), kw)


def ops_call(schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return external_source_call(schema, inputs, kwargs, ops_api=True)
