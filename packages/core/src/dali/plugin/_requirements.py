"""Is the framework a plugin needs installed, and recent enough? Checked when the plugin is
imported, without importing the framework (plugins import it inside the functions that use
it, so importing one stays cheap and settings such as ``XLA_FLAGS`` made after it
still apply).

The version is read from the metadata of the distribution that provides the module: the one
named like it (``jax``, ``torch``), else whichever provides it (``tensorflow-cpu`` and
``tensorflow`` both install ``tensorflow``). A source checkout without metadata is trusted.

Example:
    >>> require_framework("numpy", (1, 0), plugin="dali.plugin.example", name="NumPy",
    ...                   install="`pip install numpy`")
    >>> require_framework("no_such_module", (1, 0), plugin="dali.plugin.example",
    ...                   name="Nothing", install="`pip install nothing`")
    Traceback (most recent call last):
    ImportError: dali.plugin.example needs Nothing, which is not installed. Install it with `pip install nothing`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

__all__ = ["installed_version", "require_framework"]


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def installed_version(module: str) -> tuple[str, tuple[int, ...]] | None:
    """``(distribution, version)`` of what provides the top-level ``module``, from its
    metadata (nothing is imported); None when no distribution does (a source checkout)."""
    names = [module, *importlib.metadata.packages_distributions().get(module, [])]
    for dist in names:
        try:
            return dist, _version_tuple(importlib.metadata.version(dist))
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def require_framework(
    module: str, minimum: tuple[int, ...], *, plugin: str, name: str, install: str
) -> None:
    """Raise an ImportError that says what to install unless ``module`` ≥ ``minimum`` is
    importable.

    Args:
        module: The framework's top-level module (``"torch"``).
        minimum: The oldest version the plugin supports (the oldest its nox session tests).
        plugin: The plugin's module, named in the messages (``"dali.plugin.pytorch"``).
        name: The framework's name for people (``"PyTorch"``).
        install: How to install it, a sentence fragment (``"`pip install dali-torch`"``).

    Raises:
        ImportError: The module is missing, or its distribution is older than ``minimum``.
    """
    wanted = ".".join(map(str, minimum))
    if importlib.util.find_spec(module) is None:
        raise ImportError(
            f"{plugin} needs {name}, which is not installed. Install it with {install}."
        )
    found = installed_version(module)
    if found is not None and found[1] < minimum:
        dist, version = found
        have = ".".join(map(str, version))
        raise ImportError(
            f"{plugin} needs {module}>={wanted}, but {dist} {have} is installed: "
            f"`pip install -U '{dist}>={wanted}'`."
        )
