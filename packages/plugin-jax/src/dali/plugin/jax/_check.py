"""Is a usable JAX installed? Checked when `dali.plugin.jax` is imported, without importing JAX.

JAX itself is imported lazily (inside functions), so ``import dali.plugin.jax`` stays cheap and
``XLA_FLAGS``/``JAX_PLATFORMS`` set after it still apply.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

__all__ = ["MIN_JAX", "require_jax"]

#: The oldest JAX this plugin is tested with (the ``jax`` session of noxfile.py).
MIN_JAX = (0, 4, 26)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def require_jax() -> None:
    """Raise an ImportError that says what to install unless JAX ≥ `MIN_JAX` is importable."""
    wanted = ".".join(map(str, MIN_JAX))
    if importlib.util.find_spec("jax") is None:
        raise ImportError(
            "dali.plugin.jax needs JAX, which is not installed. Install it with "
            f"`pip install dali-jax jax` (jax>={wanted}; for NVIDIA GPUs `pip install "
            "dali-jax 'jax[cuda13]'` and dali-core[cuda13])."
        )
    try:
        version = importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:  # a source checkout: trust it
        return
    if _version_tuple(version) < MIN_JAX:
        raise ImportError(
            f"dali.plugin.jax needs jax>={wanted}, but jax {version} is installed: "
            f"`pip install -U 'jax>={wanted}'`."
        )
