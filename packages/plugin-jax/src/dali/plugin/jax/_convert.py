"""DALI batches to `jax.Array` and back, sharing memory through DLPack.

A pipeline output is a `TensorListCPU` or `TensorListGPU`. JAX wants one array per batch, so
the batch must be uniform: `as_tensor()` views it as ``(batch, *sample_shape)`` and
``jax.dlpack.from_dlpack`` wraps that buffer. On the CPU JAX aliases a suitably aligned host
buffer (numpy's default alignment is enough) and copies otherwise; on the GPU the array stays
on the CUDA device that produced it, and the DLPack stream handshake orders JAX's work after
ours. Our executor never writes into a batch it has handed out, so aliasing is safe (DALI
copies when its executor recycles buffers).

The way back (`jax_function` outputs) uses the same protocol: ``numpy.from_dlpack`` on the
CPU, ``cupy.from_dlpack`` on the GPU.

Example:
    >>> import numpy as np
    >>> from dali.tensors import TensorListCPU
    >>> arr = batch_to_jax(TensorListCPU(np.zeros((2, 3), np.float32)))
    >>> arr.shape, str(arr.dtype)
    ((2, 3), 'float32')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import jax

__all__ = ["batch_to_jax", "jax_to_batch", "on_device"]


def _from_dlpack(tensor: Any) -> jax.Array:
    import jax.dlpack

    arr: jax.Array = jax.dlpack.from_dlpack(tensor)
    return arr


def batch_to_jax(tl: Any, *, what: str = "the batch", leading_axis: bool = False) -> jax.Array:
    """View a uniform DALI batch as one ``jax.Array`` of shape ``(batch, *sample_shape)``.

    Args:
        tl: A `TensorListCPU` or `TensorListGPU` whose samples all have the same shape.
        what: How to name the batch in the error message (``"output 'images'"``).
        leading_axis: Add an axis of size 1 in front (``(1, batch, ...)``), still without a
            copy: the pmap-compatible output stacks these per-device arrays.

    Returns:
        The array on the CPU device (host batches) or on the CUDA device holding the data.

    Raises:
        ValueError: If the samples do not all have the same shape.
    """
    if not tl.is_dense_tensor():
        shapes = tl.shape()
        raise ValueError(
            f"JAX needs uniform batches, but the samples of {what} have different shapes "
            f"({shapes[:4]}{' ...' if len(shapes) > 4 else ''}). Resize, crop or pad them to "
            "one shape in the pipeline."
        )
    if leading_axis:
        shape = tl.shape()
        tensor = tl.as_reshaped_tensor((1, len(shape), *(shape[0] if shape else ())))
    else:
        tensor = tl.as_tensor()
    return _from_dlpack(tensor)


def on_device(arr: jax.Array, device: Any) -> jax.Array:
    """``arr`` committed to ``device`` (no copy when it is already there)."""
    import jax

    if arr.devices() == {device}:
        return arr
    moved: jax.Array = jax.device_put(arr, device)
    return moved


def jax_to_batch(arr: Any, *, device: str, layout: str, what: str) -> Any:
    """Wrap a ``jax.Array`` with a leading batch axis as a `TensorListCPU`/`TensorListGPU`.

    Args:
        arr: The array, on a CPU device for ``device="cpu"``, on a GPU for ``device="gpu"``.
        device: ``"cpu"`` or ``"gpu"``: where the operator produces its outputs.
        layout: The layout of each sample (``""`` for none).
        what: How to name the array in error messages.

    Raises:
        TypeError: If ``arr`` is not a JAX array, is a scalar, or is on the wrong kind of device.
    """
    from dali.tensors import TensorListCPU, TensorListGPU

    import jax

    if not isinstance(arr, jax.Array):
        raise TypeError(f"{what} must be a jax.Array, got {type(arr).__name__}.")
    if arr.ndim == 0:
        raise TypeError(f"{what} must have a leading batch axis, got a scalar.")
    platforms = {d.platform for d in arr.devices()}
    if device == "cpu":
        if platforms != {"cpu"}:
            raise TypeError(
                f"{what} is on {sorted(platforms)}, but the operator runs on the CPU: return "
                "arrays on the device of the inputs."
            )
        import numpy as np

        jax.block_until_ready(arr)  # CPU work is asynchronous too; cheap on the host
        try:
            # jax.Array's stub leaves out the `stream` keyword of the DLPack protocol that
            # numpy's stub asks for (the array takes it)
            host = np.from_dlpack(cast(Any, arr))
        except (BufferError, TypeError, RuntimeError):  # e.g. a dtype DLPack cannot carry
            host = np.asarray(arr)
        return TensorListCPU.wrap(host, layout)
    if "cpu" in platforms:
        raise TypeError(
            f"{what} is on the CPU, but the operator runs on the GPU: return arrays on the "
            "device of the inputs."
        )
    import cupy

    # The DLPack handshake passes CuPy's current stream: JAX makes it wait for the result.
    return TensorListGPU.wrap(cupy.from_dlpack(arr), layout)
