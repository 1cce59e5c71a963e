"""`fn.python_function`: run a Python function on the data.

The function gets numpy arrays (CuPy arrays with ``device="gpu"``), one per input, and returns
one array per output (a tuple when ``num_outputs > 1``; anything `_convert` accepts, a Python
scalar becoming a 0-d array). With ``batch_processing=True`` it gets one list of samples per
input and returns one batch per output (a list of samples or a batch-first array).

The function runs in the pipeline's executor thread, one sample after another: user functions
are seldom thread-safe, so they are never spread over the thread pool. Like in DALI the
operator needs a current pipeline when it is defined and is never pruned (it may be used only
for its side effects, with ``num_outputs=0``). Its outputs are copies, so the function may
reuse its buffers.

Framework variants (``dali.plugin.pytorch.fn.torch_python_function``) subclass `PythonFunction`
under a hidden path of their own: they override the ``to_user``/``from_user`` hooks (and
``run_gpu`` to choose the stream the function runs on) and trace their calls with
`PythonFunction.call_operator`, which checks the arguments as ``fn.python_function`` does and
names the variant in its messages.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.arange(3), np.arange(3)])
    ...     return fn.python_function(x, function=lambda a: a * 2)
    >>> pipe().run()[0].as_array()
    array([[0, 2, 4],
           [0, 2, 4]])
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph import context
from dali._graph.schema import REQUIRED, Arg, register
from dali._graph.trace import call_operator
from dali._ops.base import Operator
from dali._ops.python._convert import make_batch

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["PythonFunction"]

_DISPLAY = "dali.fn.python_function"
_MAX_INPUTS = 1024


def _layouts(value: Any, n: int, display: str = _DISPLAY) -> list[str]:
    """``output_layouts`` as one layout per output (missing ones are ``""``)."""
    if value is None:
        return [""] * n
    if isinstance(value, str):
        return [value] * n
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [*value[:n], *([""] * (n - len(value)))]
    raise TypeError(
        f"`{display}`: `output_layouts` should be a str or a list of str (one per output), "
        f"got {value!r}."
    )


def _python_function_call(schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Trace a call of ``schema`` (python_function or a framework's variant) after DALI's checks.

    The messages name the operator as its schema does: ``display_name`` for the arguments and
    the ops class name where DALI names it (``TorchPythonFunction operator must be used...``).
    """
    display = schema.display_name
    if context.current_pipeline() is None:
        raise RuntimeError(
            f"Current Pipeline not set!\n{schema.class_name} operator must be used inside "
            "`define_graph` or current pipeline must be explicitly set using context manager "
            "(`with my_pipeline:`) or with a call to `Pipeline.push_current(my_pipeline)`."
        )
    for x in inputs:
        if isinstance(x, (list, tuple)):
            raise TypeError(
                f"Expected inputs of type `DataNode`. Received input of type "
                f"'{type(x).__name__}'. Python Operators do not support Multiple Input Sets."
            )
    function = kwargs.get("function")
    if function is None:
        raise TypeError(f"`{display}` missing required argument: 'function'")
    if not callable(function):
        raise TypeError(
            f"`{display}`: the argument `function` should be callable, got "
            f"{type(function).__name__}."
        )
    n = kwargs.get("num_outputs", 1)
    if n is None:
        n = 1
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"`{display}`: `num_outputs` must be a non-negative int, got {n!r}.")
    _layouts(kwargs.get("output_layouts"), int(n), display)
    return call_operator(schema, inputs, kwargs)


@contextlib.contextmanager
def _current(pipeline_ref: Any) -> Iterator[None]:
    """Make the operator's pipeline current while the function runs (DALI does the same)."""
    pipe = pipeline_ref() if pipeline_ref is not None else None
    if pipe is None:
        yield
        return
    context.push_pipeline(pipe)
    try:
        yield
    finally:
        context.pop_pipeline()


@register(
    "python_function",
    devices=("cpu", "gpu"),
    inputs=(0, _MAX_INPUTS),
    outputs=lambda args: args.get("num_outputs", 1),
    args=[
        Arg("function", "callable", default=REQUIRED, doc="The function to call."),
        Arg("num_outputs", "int", default=1, doc="Number of outputs (0: side effects only)."),
        Arg("batch_processing", "bool", default=False, doc="Call once per batch with lists."),
        Arg("output_layouts", "any", doc="Layout of each output (a str or a list of str)."),
        Arg("synchronize_stream", "bool", default=True, doc="Accepted for compatibility."),
    ],
    no_prune=True,
    fn=_python_function_call,
)
class PythonFunction(Operator):
    """Run a Python function on numpy (CPU) or CuPy (GPU) arrays, per sample or per batch.

    Example:
        >>> import numpy as np
        >>> from dali import fn, pipeline_def
        >>> @pipeline_def(batch_size=1, num_threads=1)
        ... def pipe():
        ...     x = fn.external_source(lambda: [np.ones(2, np.float32)])
        ...     return fn.python_function(x, function=lambda a: (a, a.sum()), num_outputs=2)
        >>> [o.as_array() for o in pipe().run()]
        [array([[1., 1.]], dtype=float32), array([2.], dtype=float32)]
    """

    @staticmethod
    def call_operator(schema: Any, inputs: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
        """Trace a call with ``fn.python_function``'s checks, for this operator or a framework's
        variant (a subclass registered under a path of its own, ``schema`` its `get_schema`).

        DALI's checks at definition: a current pipeline, no multiple input sets, a callable
        ``function``, a non-negative ``num_outputs`` and well-formed ``output_layouts``. The
        messages name ``schema.display_name`` (and ``schema.class_name`` where DALI names the
        ops class).

        Returns:
            What `dali.author.call_operator` returns: a DataNode, a list of them, or None.
        """
        return _python_function_call(schema, inputs, dict(kwargs))

    def setup(self) -> None:
        self._function = self.arg("function")
        self._num_outputs = int(self.arg("num_outputs"))
        self._batch_processing = bool(self.arg("batch_processing"))
        self._layouts = _layouts(
            self.node.scalar_args.get("output_layouts"), self._num_outputs, self.display_name
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # What the function returns is its own: only a declared layout says anything (its
        # number of dimensions); the extents stay unknown.
        n = int(node.scalar_args.get("num_outputs", 1))
        layouts = _layouts(node.scalar_args.get("output_layouts"), n, node.schema.display_name)
        return [{"layout": lay or None, "ndim": len(lay) if lay else None} for lay in layouts]

    # -- hooks for framework variants (torch_python_function, jax_function) -----------------
    def to_user(self, sample: Any) -> Any:
        """One input sample as the function sees it (numpy / CuPy here)."""
        return sample

    def from_user(self, value: Any) -> Any:
        """One value the function returned, before conversion to a sample or batch."""
        return value

    # -- running ---------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[Any, ...]:
        return self._run(ws, "cpu")

    def run_gpu(self, ws: Workspace) -> tuple[Any, ...]:
        return self._run(ws, "gpu")

    def _outputs_of(self, out: Any) -> list[Any]:
        """Split what the function returned into one value per output (DALI's checks)."""
        n = self._num_outputs
        if n == 0:
            return []
        if n > 1:
            if not isinstance(out, tuple):
                raise TypeError(
                    "The output from a multi-output Python function operator must be a tuple, "
                    f"got: {type(out)}"
                )
            if len(out) != n:
                raise ValueError(
                    "Unexpected number of outputs from Python function operator - got "
                    f"{len(out)}, expected {n}"
                )
            return [self.from_user(o) for o in out]
        if isinstance(out, tuple):
            if len(out) != 1:
                raise ValueError(
                    "Unexpected number of outputs from Python function operator - got "
                    f"{len(out)}, expected 1"
                )
            out = out[0]
        if out is None:
            raise TypeError(
                "The Python function returned None, but the operator has num_outputs=1 (use "
                "num_outputs=0 for a function called only for its side effects)."
            )
        return [self.from_user(out)]

    def _run(self, ws: Workspace, device: str) -> tuple[Any, ...]:
        fn = self._function
        inputs = [[self.to_user(s) for s in tl.samples()] for tl in ws.inputs]
        n_out = self._num_outputs
        n = ws.batch_size
        with _current(self.node.pipeline):
            if self._batch_processing:
                try:
                    out = fn(*inputs)
                except StopIteration as e:  # would end the epoch in the executor: it is a bug
                    raise RuntimeError("the function raised StopIteration") from e
                per_output = self._outputs_of(out)
            else:
                per_output = [[] for _ in range(n_out)]
                for i in range(n):
                    try:
                        values = self._outputs_of(fn(*[samples[i] for samples in inputs]))
                    except Exception as e:
                        raise SampleFailure(i, e) from e
                    for k, v in enumerate(values):
                        per_output[k].append(v)
        batches = []
        for k, data in enumerate(per_output):
            where = "" if n_out == 1 else f" {k}"
            try:
                tl = make_batch(
                    data,
                    device=device,
                    layout=self._layouts[k],
                    copy=True,
                    what=f"Output{where} of the function",
                )
            except (TypeError, ValueError) as e:
                raise self.error(str(e)) from e
            if len(tl) != n:
                raise self.error(
                    f"output{where} of the function has {len(tl)} samples, but the batch has {n}."
                )
            if tl.layout() and n and len(tl.layout()) != tl.sample_ndim:
                raise self.arg_error(
                    "output_layouts",
                    f"the layout '{tl.layout()}' cannot describe the {tl.sample_ndim}-dimensional "
                    f"output{where}.",
                )
            batches.append(tl)
        return tuple(batches)
