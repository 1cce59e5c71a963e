"""Is a usable PyTorch installed? Checked when `dali.plugin.pytorch` is imported, without
importing torch (it is imported inside the functions that use it, STYLE.md §7)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

__all__ = ["MIN_TORCH", "require_torch"]

#: The oldest PyTorch this plugin is tested with (the ``torch`` session of noxfile.py).
MIN_TORCH = (2, 4)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def require_torch() -> None:
    """Raise an ImportError that says what to install unless torch ≥ `MIN_TORCH` is importable."""
    wanted = ".".join(map(str, MIN_TORCH))
    if importlib.util.find_spec("torch") is None:
        raise ImportError(
            "dali.plugin.pytorch needs PyTorch, which is not installed. Install it with "
            f"`pip install dali-torch` (torch>={wanted}; for NVIDIA GPUs also "
            "`pip install 'dali-core[cuda13]'` and a CUDA build of torch)."
        )
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:  # a source checkout: trust it
        return
    if _version_tuple(version) < MIN_TORCH:
        raise ImportError(
            f"dali.plugin.pytorch needs torch>={wanted}, but torch {version} is installed: "
            f"`pip install -U 'torch>={wanted}'`."
        )
