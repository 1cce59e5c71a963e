"""Is a usable TensorFlow installed? Checked when `dali.plugin.tf` is imported, without
importing TensorFlow (`dali.author.require_framework`; TensorFlow is imported when a dataset
is first made).

TensorFlow comes in several distributions that all install the one ``tensorflow`` module
(``tensorflow``, ``tensorflow-cpu``, ``tensorflow-intel``, ``tf-nightly``, a source build), so
the check looks for the module and reads the version of whichever distribution provides it.
"""

from __future__ import annotations

from dali.author import require_framework

__all__ = ["MIN_TENSORFLOW", "require_tensorflow"]

#: The oldest TensorFlow this plugin is tested with (the ``tf`` session of noxfile.py).
MIN_TENSORFLOW = (2, 12)


def require_tensorflow() -> None:
    """Raise an ImportError that says what to install unless TensorFlow ≥ `MIN_TENSORFLOW` is
    importable."""
    wanted = ".".join(map(str, MIN_TENSORFLOW))
    require_framework(
        "tensorflow",
        MIN_TENSORFLOW,
        plugin="dali.plugin.tf",
        name="TensorFlow",
        install=f"`pip install dali-tf` (it brings tensorflow>={wanted}), or keep the CPU-only "
        f"build: `pip install 'tensorflow-cpu>={wanted}'` and then "
        "`pip install --no-deps dali-tf`",
    )
