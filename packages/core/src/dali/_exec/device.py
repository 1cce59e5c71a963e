"""CUDA availability checks (CuPy is imported only when a GPU operator is used)."""

from __future__ import annotations

__all__ = ["require"]


def require(device_id: int) -> None:
    """Raise a clear error unless CuPy is installed and ``device_id`` is a visible GPU."""
    from dali._graph.build import BuildError

    try:
        import cupy
    except ImportError as e:
        raise BuildError(
            "The pipeline requires a CUDA-capable GPU, but CuPy is not installed: install "
            "dali-core[cuda13] (or [cuda12]), or keep every operator on the CPU."
        ) from e
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise BuildError(
            "The pipeline requires a CUDA-capable GPU but the CUDA driver is not installed or "
            f"no device is visible ({e}). Set device_id=None and keep every operator on the CPU."
        ) from e
    if not 0 <= device_id < count:
        raise BuildError(f"device_id={device_id} is not a visible CUDA device ({count} visible).")
