"""Is a usable PyTorch installed? Checked when `dali.plugin.pytorch` is imported, without
importing torch (`dali.author.require_framework`; torch is imported inside the functions that
use it)."""

from __future__ import annotations

from dali.author import require_framework

__all__ = ["MIN_TORCH", "require_torch"]

#: The oldest PyTorch this plugin is tested with (the ``torch`` session of noxfile.py).
MIN_TORCH = (2, 4)


def require_torch() -> None:
    """Raise an ImportError that says what to install unless torch ≥ `MIN_TORCH` is importable."""
    wanted = ".".join(map(str, MIN_TORCH))
    require_framework(
        "torch",
        MIN_TORCH,
        plugin="dali.plugin.pytorch",
        name="PyTorch",
        install=f"`pip install dali-torch` (torch>={wanted}; for NVIDIA GPUs also "
        "`pip install 'dali-core[cuda13]'` and a CUDA build of torch)",
    )
