"""Is a usable JAX installed? Checked when `dali.plugin.jax` is imported, without importing JAX
(`dali.author.require_framework`).

JAX itself is imported lazily (inside functions), so ``import dali.plugin.jax`` stays cheap and
``XLA_FLAGS``/``JAX_PLATFORMS`` set after it still apply.
"""

from __future__ import annotations

from dali.author import require_framework

__all__ = ["MIN_JAX", "require_jax"]

#: The oldest JAX this plugin is tested with (the ``jax`` session of noxfile.py).
MIN_JAX = (0, 4, 26)


def require_jax() -> None:
    """Raise an ImportError that says what to install unless JAX ≥ `MIN_JAX` is importable."""
    wanted = ".".join(map(str, MIN_JAX))
    require_framework(
        "jax",
        MIN_JAX,
        plugin="dali.plugin.jax",
        name="JAX",
        install=f"`pip install dali-jax jax` (jax>={wanted}; for NVIDIA GPUs `pip install "
        "dali-jax 'jax[cuda13]'` and dali-core[cuda13])",
    )
