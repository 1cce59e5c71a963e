"""DALI's experimental pipeline API: `pipeline_def` with ``debug=True`` (debug mode).

``@pipeline_def(..., debug=True)`` (or ``debug=True`` when calling the decorated function)
makes a pipeline whose definition runs on every ``run()``, eagerly, in your own Python:
each ``fn.*`` call (and each arithmetic expression or indexing on its result) executes at
once and returns a ``DataNodeDebug`` that holds the batch. So inside the definition you can

* look at data: ``node.get()`` is the batch (a ``TensorListCPU`` or ``TensorListGPU``:
  ``node.get().as_array()``, ``np.asarray(node.get()[0])``, ``node.get().as_cpu()``),
  ``print(node)`` shows it, ``node.shape()`` lists the samples' shapes;
* stop in a debugger (``breakpoint()``) between operators, or on an error: an operator's
  error is raised by the line that called it, naming the operator and the sample;
* branch and loop in plain Python on concrete values (``if labels.get().as_array().max() >
  9: ...``), and hand operators your own data: a TensorList, a list of per-sample arrays, or
  an array whose first axis is the samples (as DALI's debug mode takes them).

The outputs are the compiled pipeline's for the same seed: the same operator
implementations run, readers advance from run to run, and random operators draw the same
numbers (they are keyed by the pipeline seed, the operator and the sample, not by the order
in which things run). ``enable_conditionals=True`` works too: both branches of an ``if`` on
a DataNode run, each on its samples, and are merged, as in the compiled pipeline.

Rules, as in DALI's debug mode:

* The definition must call the same operators in the same order on every run: operators
  are told apart by where they are called and their position among the calls (a changed
  sequence raises "Unexpected operator ..."), and an operator's inputs and arguments may
  change their values between runs (per-sample data), not their kind (a batch or a constant),
  device, number, type, layout or number of dimensions, nor a constant argument's value.
* Data passed to an operator must have the iteration's batch size, and with
  ``enable_conditionals=True`` inputs must be nodes (not ``.get()`` results).
* ``.get()`` exists only in debug mode: a compiled pipeline's ``DataNode`` has no data.
* A pipeline in debug mode is made only by this decorator (``with pipe:`` raises), runs with
  ``run()`` (it has no ``schedule_run``/``outputs``, checkpoints or serialization, so
  framework iterators need the compiled pipeline), and runs much slower: it is for
  debugging.

Where debug mode differs from the compiled pipeline: ``node.shape()`` is the list of the
samples' shapes (as in DALI's debug mode), a compiled pipeline's is an operator; an array
given as an operator's input is a batch (its first axis: the samples), a compiled pipeline
takes it as a constant (as DALI does in either mode). In the first run only, a random
operator without inputs whose values are read (printed, ``get()``) before the pipeline's
reader ran draws them for the samples' positions in the stream, not for the reader's samples;
from the second run on the readers run first, as in the compiled pipeline.

Example:
    >>> import numpy as np
    >>> from dali import fn
    >>> from dali.pipeline.experimental import pipeline_def
    >>> @pipeline_def(batch_size=3, num_threads=1, device_id=None, debug=True)
    ... def pipe():
    ...     x = fn.external_source(lambda info: np.int32(info.idx_in_epoch), batch=False)
    ...     y = x * 10
    ...     print(y.get().as_array().tolist())
    ...     if y.get().as_array().max() > 30:  # plain Python on this batch's values
    ...         print("large:", y)
    ...     return y + 1
    >>> p = pipe()
    >>> p.run()[0].as_array().tolist()
    [0, 10, 20]
    [1, 11, 21]
    >>> p.run()[0].as_array().tolist()  # doctest: +NORMALIZE_WHITESPACE
    [30, 40, 50]
    large: DataNodeDebug(
        name="__ArithmeticGenericOp_1",
        data=TensorListCPU(
                 [30, 40, 50],
                 dtype=DALIDataType.INT32,
                 device="cpu",
                 num_samples=3,
                 shape=[(), (), ()]))
    [31, 41, 51]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from dali._pipeline.pipeline import Pipeline
from dali._pipeline.pipeline_def import make_pipeline_def

__all__ = ["pipeline_def"]


@overload
def pipeline_def(
    fn: Callable[..., Any],
    *,
    enable_conditionals: bool = ...,
    debug: bool = ...,
    **pipeline_kwargs: Any,
) -> Callable[..., Pipeline]: ...


@overload
def pipeline_def(
    fn: None = None,
    *,
    enable_conditionals: bool = ...,
    debug: bool = ...,
    **pipeline_kwargs: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Pipeline]]: ...


def pipeline_def(
    fn: Callable[..., Any] | None = None,
    *,
    enable_conditionals: bool = False,
    debug: bool = False,
    **pipeline_kwargs: Any,
) -> Callable[..., Pipeline] | Callable[[Callable[..., Any]], Callable[..., Pipeline]]:
    """`dali.pipeline_def` with DALI's experimental features: ``debug``.

    Args:
        fn: The graph-defining function (when used bare: ``@pipeline_def``).
        enable_conditionals: Allow Python ``if`` on per-sample scalar DataNodes.
        debug: Run the pipeline in debug mode (the module docstring): its definition runs
            on every ``run()``, each operator at once, with its data at hand. The call of
            the decorated function may give ``debug`` too (a graph function with a
            parameter of that name gets the value as well, as in DALI).
        **pipeline_kwargs: Default `Pipeline` constructor arguments.

    Note:
        Debug mode is meant for debugging: the pipeline runs much slower than compiled.
    """
    return make_pipeline_def(fn, enable_conditionals, pipeline_kwargs, debug=debug)
