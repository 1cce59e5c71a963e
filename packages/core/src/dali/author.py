"""The author API: what operators and framework plugins are written against.

User code needs `dali.fn`, `dali.pipeline` and `dali.types`. Code that *extends* the library,
an operator of its own or a plugin for another framework (``dali.plugin.jax`` is one), needs
a few more names, all here, with a contract that stays put while the modules behind them move.
Plugins import nothing else from ``dali._...``, and nothing reaches into a batch's storage: the
batch methods below are that contract, as cheap as the storage itself (no validation, no
copies), because operators call them on every batch.

Operators:

* `register` declares an operator class: its ``fn`` path, devices, inputs, outputs and
  arguments (`Arg`, with `REQUIRED` for arguments the user must give). A path starting with
  ``_`` stays out of `dali.fn`; a plugin exposes the operator with a function of its own that
  calls `call_operator` with the `get_schema` of that path (``display_name=`` names it in
  errors).
* `Operator` is the base class: ``setup`` checks the scalar arguments at build,
  ``run_cpu`` / ``run_gpu`` / ``run_mixed`` turn a `Workspace` into output batches, and the
  optional hooks are declared on it (`dali._ops.base`); `PythonSource` is the base of the
  operators that take their batches from Python (``fn.external_source``), and
  `PythonFunction` the operator of ``fn.python_function``, whose ``to_user``/``from_user``
  hooks a framework's variant overrides (``torch_python_function``). `OperatorError` is
  what ``self.error`` / ``self.arg_error`` make.
* `Workspace` holds one run's inputs (``ws.inputs``: a list of batches), arguments
  (``ws.arg_scalars``, ``ws.arg_samples`` ...), ``ws.batch_size``, the per-sample ``ws.map``
  thread pool, ``ws.rng`` and, on the GPU, ``ws.stream``; `BatchMeta` is the identity of its
  samples and `SampleFailure` the error of one sample.

Batches (`TensorListCPU` holds numpy arrays, `TensorListGPU` CuPy arrays):

========================================  ==================================================
``TensorListCPU.wrap(data, layout)``      a batch of a ``(B, ...)`` array or a list of
                                          samples, as is (``dtype=``/``ndim=``: empty list)
``TensorListGPU.wrap_flat(buf, shapes)``  samples back to back in one 1-D buffer
``tl.dense()``                            one ``(B, ...)`` array, or None when ragged
``tl.held_dense``                         the ``(B, ...)`` array the batch holds, or None
                                          (never stacks)
``tl.samples()``                          the per-sample arrays (views)
``tl.flat()``                             ``(buffer, shapes)`` when the samples lie back to
                                          back, else None
``tl.np_dtype``, ``tl.sample_ndim``       numpy dtype, number of sample dimensions (int)
``tl.layout()``                           the layout string (DALI's method)
``tl.source_infos``                       each sample's origin (e.g. its file), or None
``tl.derived``                            values the producer computed from the samples, for
                                          its consumers (a dict), or None
``tl.ready_event``                        GPU: the CUDA event that marks the data computed
``tl.to_gpu()``                           CPU: a copy in GPU memory
``TensorCPU.wrap(array)``, ``t.array``    one sample, as is, and its array
========================================  ==================================================

Plugins: `external_sources` describes a pipeline's ``fn.external_source`` nodes
(`ExternalSourceInfo`), for plugins that feed them; `require_framework` checks, at the plugin's import and without importing it, that
its framework is installed and recent enough, with a message that says what to install.
`BaseIterator` (DALI's ``_DaliBaseIterator``) owns epochs, ``len()``, shards, the
`LastBatchPolicy`, ``reset``, the iterator state and checkpoints (exact and elastic); a
framework iterator implements only the ``_convert`` hook (and ``_trim`` for PARTIAL when its
batches are not per-pipeline dicts). A checkpoint that cannot be restored raises
`CheckpointError` (a ValueError); `dali.testing` has the save/restore round trip their tests run.
A pipeline that ``Pipeline.serialize`` cannot write (a lambda as a Python callback, say), or
a document ``Pipeline.deserialize`` cannot read, raises `SerializationError` (a ValueError;
its message says which operator and argument).
Operators with state (readers) implement ``get_state``/``set_state``: the pipeline records the
state after every batch and restores it at build.

Example:
    A tiny operator, CPU and GPU, exposed as a function (a plugin would put it in its
    ``fn`` module):

    >>> import numpy as np
    >>> import dali.fn as fn
    >>> from dali.pipeline import pipeline_def
    >>> @register(
    ...     "_example.scale",  # "_": not in dali.fn
    ...     devices=("cpu", "gpu"),
    ...     args=[Arg("factor", "float", default=2.0, doc="The multiplier.")],
    ...     display_name="example.scale",
    ... )
    ... class Scale(Operator):
    ...     '''Multiplies every sample by ``factor``.'''
    ...
    ...     def run_cpu(self, ws):
    ...         tl = ws.inputs[0]
    ...         factor = tl.np_dtype.type(self.arg("factor"))
    ...         dense = tl.dense()
    ...         if dense is not None:  # one array: one vectorised multiplication
    ...             return type(tl).wrap(dense * factor, tl.layout())
    ...         out = [s * factor for s in tl.samples()]
    ...         return type(tl).wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)
    ...
    ...     run_gpu = run_cpu  # the same code runs on CuPy arrays
    >>> def scale(x, factor=None):
    ...     return call_operator(get_schema("_example.scale"), (x,), {"factor": factor})
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return scale(fn.external_source(lambda: [np.ones(2, np.int32), np.ones(3, np.int32)]))
    >>> out, = pipe().run()
    >>> [s.tolist() for s in out.samples()]
    [[2, 2], [2, 2, 2]]

    A plugin iterator implements the ``_convert`` hook, here giving numpy arrays:

    >>> class NumpyIterator(BaseIterator):
    ...     def __init__(self, pipelines, output_map, **kwargs):
    ...         self.output_map = list(output_map)  # before super(): it runs the first batch
    ...         super().__init__(pipelines, **kwargs)
    ...
    ...     def _convert(self, outputs):  # one tuple of batches per pipeline
    ...         return [
    ...             {name: tl.as_cpu().as_array() for name, tl in zip(self.output_map, outs)}
    ...             for outs in outputs
    ...         ]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def counter():
    ...     return fn.external_source(lambda i: np.full((2, 1), i, np.int64), batch=True)
    >>> it = NumpyIterator(counter(), ["x"], size=-1)
    >>> [batch[0]["x"].ravel().tolist() for batch, _ in zip(it, range(2))]
    [[0, 0], [1, 1]]
"""

from __future__ import annotations

from dali._exec.workspace import BatchMeta, SampleFailure, Workspace
from dali._graph.schema import REQUIRED, Arg, get_schema, register
from dali._graph.serialize import SerializationError
from dali._graph.trace import call_operator
from dali._ops.base import Operator, OperatorError, PythonSource
from dali._ops.python.python_function import PythonFunction
from dali._pipeline.checkpoint import CheckpointError
from dali._pipeline.inputs import ExternalSourceInfo, external_sources
from dali._tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU
from dali.plugin._iterator_core import BaseIterator, LastBatchPolicy
from dali.plugin._requirements import require_framework

# Plainly sorted, as every public module's `__all__` (the tests check sorted(__all__)).
__all__ = [  # noqa: RUF022 - ruff would put REQUIRED first
    "Arg",
    "BaseIterator",
    "BatchMeta",
    "CheckpointError",
    "ExternalSourceInfo",
    "LastBatchPolicy",
    "Operator",
    "OperatorError",
    "PythonFunction",
    "PythonSource",
    "REQUIRED",
    "SampleFailure",
    "SerializationError",
    "TensorCPU",
    "TensorGPU",
    "TensorListCPU",
    "TensorListGPU",
    "Workspace",
    "call_operator",
    "external_sources",
    "get_schema",
    "register",
    "require_framework",
]
