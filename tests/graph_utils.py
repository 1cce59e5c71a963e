"""Helpers shared by the tests of DataNode expressions (arithmetic, ``dali.math``, indexing).

``tests/`` is on ``sys.path`` (pytest puts the directory of ``tests/conftest.py`` there), so any
test module can ``from graph_utils import ...``.

* `batch`: a node whose samples are the given arrays (ragged allowed), on CPU and GPU.
* `const`: the same array for every sample, with exactly the given dtype.
* `outputs`: build a graph in a fresh pipeline and run one iteration; with ``device="gpu"``
  every output is moved to the GPU first (CPU/GPU parity tests compare the two with
  `parity.assert_same`).
* `run` / `one`: the same outputs as numpy.

Example:
    >>> ((dtype, layout, samples),) = run(lambda: const([1, 2], "int32") + 1)
    >>> samples[0].tolist()
    [2, 3]
"""

from __future__ import annotations

import dali
import numpy as np
from dali import types
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._tensors import TensorListCPU


@register(
    "_test.batch",
    devices=("cpu", "gpu"),
    inputs=0,
    args=[Arg("samples", "any"), Arg("layout", "str", default="")],
)
class _Batch(Operator):
    """Test helper: a batch made of the given per-sample arrays (ragged allowed)."""

    def run_cpu(self, ws):
        return TensorListCPU.wrap([np.asarray(s) for s in self.arg("samples")], self.arg("layout"))

    def run_gpu(self, ws):
        from dali._ops.transfer import to_gpu

        return to_gpu(self.run_cpu(ws))

    @staticmethod
    def static_meta(node):
        first = np.asarray(node.scalar_args["samples"][0])
        return [
            {
                "dtype": types.to_dali_type(first.dtype),
                "ndim": first.ndim,
                "layout": node.scalar_args.get("layout", ""),
            }
        ]


def batch(*samples, layout=""):
    """A node whose sample ``i`` is ``samples[i]``."""
    from dali._graph.trace import call_operator

    return call_operator(_Batch.schema, (), {"samples": list(samples), "layout": layout})


def const(values, dtype):
    """The same array for every sample, with exactly ``dtype`` (no narrowing)."""
    return types.Constant(np.array(values, dtype=dtype), dtype=np.dtype(dtype))


def outputs(build, *, batch_size=1, device="cpu", device_id=None):
    """Build and run one iteration; returns the pipeline's outputs (TensorLists).

    With ``device="gpu"`` every output is moved to the GPU (device 0) first.
    """
    if device == "gpu":
        device_id = 0
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=1, device_id=device_id, seed=3)
    with pipe:
        outs = build()
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        if device == "gpu":
            outs = [o.gpu() for o in outs]
        pipe.set_outputs(*outs)
    pipe.build()
    return pipe.run()


def run(build, *, batch_size=1, device="cpu", device_id=None):
    """Build and run one iteration; returns [(dtype, layout, [sample arrays])] per output.

    With ``device="gpu"`` every output is moved to the GPU (device 0) first.
    """
    result = []
    for tl in outputs(build, batch_size=batch_size, device=device, device_id=device_id):
        if type(tl).__name__.endswith("GPU"):
            tl = tl.as_cpu()
        result.append((tl.dtype, tl.layout(), [np.asarray(tl.at(i)) for i in range(len(tl))]))
    return result


def one(build, **kw):
    """dtype and the first sample of a single-output graph."""
    ((dtype, _, samples),) = run(build, **kw)
    return dtype, samples[0]
