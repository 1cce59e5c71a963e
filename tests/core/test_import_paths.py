"""DALI's module paths that user code imports, beside the package's own names."""

from __future__ import annotations

import importlib

import dali
import numpy as np
import pytest


def test_data_node_is_a_module_holding_the_data_node_class():
    """``from nvidia.dali.data_node import DataNode`` (annotations, isinstance checks)."""
    from dali.data_node import DataNode

    assert dali.data_node.__name__ == "dali.data_node"
    assert DataNode is dali.pipeline.DataNode is dali.DataNode


@pytest.mark.parametrize("name", ["TensorListCPU", "TensorListGPU", "TensorCPU", "TensorGPU"])
def test_backend_holds_the_batch_and_sample_types(name):
    """``from nvidia.dali.backend import TensorListCPU`` & co."""
    backend = importlib.import_module("dali.backend")
    tensors = importlib.import_module("dali.tensors")
    assert getattr(backend, name) is getattr(tensors, name)


def test_backend_types_are_the_pipeline_outputs_types():
    from dali.backend import TensorListCPU

    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return dali.types.Constant(np.arange(3, dtype=np.int32))

    p = pipe()
    (out,) = p.run()
    p.close()
    assert isinstance(out, TensorListCPU)
