"""What the examples share: saving a batch as one picture, as the tutorials' ``show_image``,
and how many GPUs the JAX tutorials can use.

The examples import it as ``from _show import save_grid`` (a script's folder is on
``sys.path`` when it runs as ``python examples/<name>.py``; ``examples/t5x/`` puts
``examples/`` there first).
"""

from __future__ import annotations

import numpy as np


def gpu_count() -> int:
    """How many GPUs both JAX and DALI can use (0 on a CPU-only machine)."""
    import jax

    if jax.default_backend() != "gpu":
        return 0
    try:
        import cupy

        return min(cupy.cuda.runtime.getDeviceCount(), len(jax.devices()))
    except Exception:  # noqa: BLE001 - no CuPy, no driver: DALI cannot use the GPU
        return 0


def save_grid(images: np.ndarray, path: str, columns: int = 4) -> None:
    """Save a batch of HWC uint8 images as one picture, ``columns`` images wide.

    Args:
        images: The batch, shaped ``(N, H, W, C)``.
        path: The picture's file name (its extension picks the format).
        columns: Images per row.

    Example:
        >>> save_grid(np.zeros((8, 4, 4, 3), np.uint8), "grid.png")  # doctest: +SKIP
    """
    from PIL import Image

    n, h, w, c = images.shape
    rows = (n + columns - 1) // columns
    grid = np.zeros((rows * h, columns * w, c), dtype=np.uint8)
    for j in range(n):
        r, col = divmod(j, columns)
        grid[r * h : (r + 1) * h, col * w : (col + 1) * w] = images[j]
    Image.fromarray(grid).save(path)
