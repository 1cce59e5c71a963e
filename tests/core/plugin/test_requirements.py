"""`dali.author.require_framework`: what a plugin's import says when its framework is missing
or too old (the version read from metadata, nothing imported)."""

from __future__ import annotations

import importlib.metadata

import pytest
from dali.author import require_framework
from dali.plugin._requirements import installed_version


def test_missing_framework_says_what_to_install():
    with pytest.raises(ImportError) as e:
        require_framework(
            "no_such_framework", (1,), plugin="dali.plugin.x", name="X", install="`pip install x`"
        )
    assert str(e.value) == (
        "dali.plugin.x needs X, which is not installed. Install it with `pip install x`."
    )


def test_old_framework_says_what_to_upgrade(monkeypatch):
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.22.4")
    with pytest.raises(ImportError, match=r"needs numpy>=2\.0, but numpy 1\.22\.4 is installed"):
        require_framework("numpy", (2, 0), plugin="dali.plugin.x", name="NumPy", install="-")


def test_recent_framework_passes():
    assert installed_version("numpy")[0] == "numpy"
    require_framework("numpy", (1, 0), plugin="dali.plugin.x", name="NumPy", install="-")


def test_module_provided_by_a_distribution_of_another_name(monkeypatch):
    # tensorflow-cpu installs the `tensorflow` module: the version is that distribution's
    monkeypatch.setattr(
        importlib.metadata, "packages_distributions", lambda: {"tf_like": ["tf-like-cpu"]}
    )

    def version(name):
        if name == "tf-like-cpu":
            return "2.18.1"
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert installed_version("tf_like") == ("tf-like-cpu", (2, 18, 1))
