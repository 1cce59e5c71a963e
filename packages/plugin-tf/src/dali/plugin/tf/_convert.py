"""DALI batches to ``tf.Tensor``: checked against the declared output, shared through DLPack.

A batch becomes one tensor of shape ``(batch, *sample_shape)`` handed to TensorFlow through
DLPack (``tf.experimental.dlpack.from_dlpack``): host memory for CPU outputs, the pipeline's
GPU for GPU outputs (no copy here; where TensorFlow then keeps them is its choice, see the
package README). Our executor never writes into a batch it has
handed out, so sharing is safe. A GPU batch is made ready first with a host wait on its
event: a DLPack capsule carries no stream that TensorFlow would wait on, and TensorFlow does
not say which stream it will read on (DALI's own op copies synchronously there too).

TensorFlow needs tensor memory aligned to 64 bytes (Eigen's ``EIGEN_MAX_ALIGN_BYTES``): some
kernels abort the process on a misaligned tensor (``Check failed: IsAligned()``, e.g. a slice),
and tf.data copies every misaligned element. numpy allocates with 16-byte alignment, so a CPU
batch that is not aligned is copied once, here, into an aligned buffer (a memcpy, ~3 ms for a
batch of 64 images of 256×256×3); an aligned one is shared. CuPy's allocations are aligned.

The checks are DALI's: a batch of another type than declared, or of a shape that
cannot be read as the declared one (`dali.plugin.tf._shapes`), or of samples of different
shapes, is an error naming the output. Raised in the dataset's ``py_function``, TensorFlow
reports them as ``InvalidArgumentError``.

Example:
    >>> import numpy as np, tensorflow as tf
    >>> from dali.tensors import TensorListCPU
    >>> tl = TensorListCPU(np.arange(6, dtype=np.int32).reshape(3, 2, 1))
    >>> t = batch_to_tf(tl, dtype=tf.int32, shape=(3, 2), batch_size=3, index=0)
    >>> t.dtype, tuple(t.shape)
    (tf.int32, (3, 2))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dali.plugin.tf._shapes import Shape, match_shape
from dali.tensors import TensorListGPU

__all__ = ["ALIGNMENT", "batch_to_tf", "check_dtype", "is_gpu"]

#: The alignment in bytes TensorFlow expects of tensor memory (Eigen's largest, for AVX-512).
ALIGNMENT = 64


def is_gpu(tl: Any) -> bool:
    """Whether the batch lives in GPU memory."""
    return isinstance(tl, TensorListGPU)


def _aligned_copy(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` in a buffer that starts at a multiple of `ALIGNMENT` bytes."""
    buffer = np.empty(array.nbytes + ALIGNMENT, np.uint8)
    start = -buffer.ctypes.data % ALIGNMENT
    out = buffer[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    np.copyto(out, array)
    return out


def _shared(tl: Any) -> Any:
    """The dense batch as a ``tf.Tensor``, sharing its memory where TensorFlow can."""
    import tensorflow as tf

    tensor = tl.as_tensor()
    if is_gpu(tl):
        event = tl.ready_event
        if event is not None:
            event.synchronize()  # synchronize! (DLPack to TensorFlow carries no stream)
        return tf.experimental.dlpack.from_dlpack(tensor.__dlpack__(stream=-1))
    array = np.asarray(tensor)
    if array.ctypes.data % ALIGNMENT:
        return tf.experimental.dlpack.from_dlpack(_aligned_copy(array).__dlpack__())
    return tf.experimental.dlpack.from_dlpack(tensor.__dlpack__())


def check_dtype(tl: Any, dtype: Any, index: int) -> None:
    """Raise DALI's TypeError when the batch's type is not the declared ``tf.DType``."""
    import tensorflow as tf

    got = tf.as_dtype(tl.np_dtype)
    if got != dtype:
        raise TypeError(
            f"The type provided for output `{index}` is not compatible with the type returned "
            f"by DALI Pipeline. Expected (output_types[{index}]): {dtype.name}, got from "
            f"Pipeline: {got.name}."
        )


def batch_to_tf(tl: Any, *, dtype: Any, shape: Shape, batch_size: int, index: int) -> Any:
    """One output batch as a ``tf.Tensor``, checked against its declared type and shape.

    Args:
        tl: A `TensorListCPU` or `TensorListGPU` whose samples all have one shape.
        dtype: The declared ``tf.DType`` (``output_dtypes[index]``).
        shape: The declared shape as a tuple (None: any), ``output_shapes[index]``.
        batch_size: The dataset's batch size.
        index: The output's index, for error messages.

    Returns:
        The tensor (on the pipeline's GPU for GPU batches), reshaped to the declared shape's
        rank when size-1 dimensions were left out of it.

    Raises:
        TypeError: The batch's type is not the declared one.
        ValueError: The samples differ in shape, or the batch's shape does not fit the
            declared one.
    """
    import tensorflow as tf

    check_dtype(tl, dtype, index)
    if not tl.is_dense_tensor():
        shapes = tl.shape()
        raise ValueError(
            f"Batch output at index '{index}' from DALI pipeline is not uniform - individual "
            "samples have different shapes. This output cannot be represented as single, dense "
            "Tensor, which is required by TensorFlow. Ensure that all the samples that you "
            f"produce in given batch have equal shape. Got shapes: {shapes[:4]}"
            f"{' ...' if len(shapes) > 4 else ''}"
        )
    actual = (len(tl), *(tl.shape()[0] if len(tl) else [0] * tl.sample_ndim))
    target = match_shape(shape, actual, batch_size=batch_size, index=index)
    tensor = _shared(tl)
    return tensor if target == actual else tf.reshape(tensor, target)
