"""Importing dali-clu: its public surface, the namespace it joins, DALI's signatures.

``dali.plugin.jax.clu`` lives in its own distribution (packages/plugin-clu) under
``dali.plugin.jax``, which dali-jax owns: dali-clu ships no ``__init__.py`` above its own
package, and importing dali-jax does not import clu.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import dali.plugin.jax.clu as dclu
from dali.plugin.jax import DALIGenericIterator
from dali.plugin.jax.clu import DALIGenericPeekableIterator, peekable_data_iterator

ROOT = Path(__file__).resolve().parents[2]
CLU_SRC = ROOT / "packages/plugin-clu/src"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(ROOT / "packages/core/src"),
            str(ROOT / "packages/plugin-jax/src"),
            str(CLU_SRC),
            env.get("PYTHONPATH", ""),
        ]
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_public_surface_is_sorted_and_complete():
    assert dclu.__all__ == sorted(dclu.__all__)
    assert dclu.__all__ == ["DALIGenericPeekableIterator", "peekable_data_iterator"]
    assert dclu.DALIGenericPeekableIterator is DALIGenericPeekableIterator
    assert dclu.peekable_data_iterator is peekable_data_iterator


def test_every_public_module_has_a_sorted_all():
    public = [m.name for m in pkgutil.iter_modules(dclu.__path__) if not m.name.startswith("_")]
    for name in public:
        module = importlib.import_module(f"dali.plugin.jax.clu.{name}")
        assert module.__all__ == sorted(module.__all__), name
        assert all(not n.startswith("_") for n in module.__all__), name


def test_the_package_ships_only_its_own_level():
    src = CLU_SRC / "dali"
    above = [
        p.relative_to(CLU_SRC).as_posix()
        for p in src.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and not p.is_relative_to(src / "plugin" / "jax" / "clu")
    ]
    assert above == [], f"dali-clu has files above dali/plugin/jax/clu/: {above}"
    assert (src / "plugin" / "jax" / "clu" / "py.typed").is_file()


def test_namespace_spans_three_source_trees():
    proc = _python(
        "import json, dali, dali.plugin.jax, dali.plugin.jax.clu as c\n"
        "print(json.dumps({'clu': c.__file__, 'jax': dali.plugin.jax.__file__,"
        " 'jax_path': list(dali.plugin.jax.__path__)}))"
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(found["clu"]).is_relative_to(CLU_SRC)
    assert Path(found["jax"]).is_relative_to(ROOT / "packages/plugin-jax/src")
    assert str(CLU_SRC / "dali/plugin/jax") in found["jax_path"]


def test_importing_dali_jax_does_not_import_clu():
    proc = _python("import sys, dali.plugin.jax; print('clu' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_the_iterator_takes_dalis_arguments():
    """DALI's constructor arguments, in DALI's order with DALI's defaults (and keyword-only
    extras for ragged outputs)."""
    ours = inspect.signature(DALIGenericPeekableIterator).parameters
    theirs = inspect.signature(DALIGenericIterator).parameters
    positional = [n for n, p in theirs.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional[:2] == ["pipelines", "output_map"]
    assert [n for n, p in ours.items() if p.kind is p.POSITIONAL_OR_KEYWORD] == positional
    for name in positional:
        assert ours[name].default == theirs[name].default, name
    extras = {n for n, p in ours.items() if p.kind is p.KEYWORD_ONLY}
    assert extras == {"pad_to", "buckets", "pad_value"}


def test_without_clu_the_import_error_says_what_to_install():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['clu'] = None\n"
        "try:\n"
        "    import dali.plugin.jax.clu\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install dali-clu clu" in out.stdout, out.stderr
