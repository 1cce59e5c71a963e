"""The typed stubs of `dali.fn` and `dali.ops` (`dali._graph.stubs`).

The stubs are generated from the operator registry and committed; these tests fail when they are
out of date, and type-check a user program with mypy to show that they accept a correct program
and catch a misspelled argument.
"""

from __future__ import annotations

import sys
from pathlib import Path

import dali
import pytest
from dali._graph.schema import ARG_TYPES
from dali._graph.stubs import ARG_ANNOTATIONS, REGENERATE, render_stubs

PACKAGE_DIR = Path(dali.__file__).resolve().parent

# A user program in the style of DALI's examples: every way in, fn and ops, the overloads whose
# result depends on an argument (`save_attrs`, `num_outputs`) and multiple input sets.
PROGRAM = """
from __future__ import annotations

from pathlib import Path

import numpy as np

from dali import Pipeline, fn, ops, pipeline_def, types
from dali.pipeline import DataNode


@pipeline_def(batch_size=8, num_threads=2, device_id=None)
def train(root: Path, shuffle: bool = True) -> tuple[DataNode, DataNode]:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=shuffle, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=256.0, interp_type=types.INTERP_LINEAR)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(
        images,
        crop=(224, 224),
        mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
        std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
        mirror=mirror,
        dtype=types.FLOAT,
        output_layout="CHW",
    )
    return images, labels


def with_ops(root: str) -> Pipeline:
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
    reader = ops.readers.File(file_root=root)
    decode = ops.decoders.Image(device="cpu")
    resize = ops.Resize(resize_shorter=256.0)
    crop = ops.Crop(crop=(224, 224))
    with pipe:
        jpegs, labels = reader()
        images = resize(decode(jpegs))
        assert isinstance(images, DataNode)  # ops.Resize(save_attrs=True) gives a list
        pipe.set_outputs(crop(images), labels)
    return pipe


def more(images: DataNode) -> list[DataNode]:
    size = fn.random.uniform(range=(200.0, 300.0), shape=2)
    resized, attrs = fn.resize(images, size=size, save_attrs=True)
    small = fn.resize([images, resized], resize_x=np.float64(64.0))
    same = fn.python_function(images, function=lambda x: x)
    a, b = fn.python_function(images, function=lambda x: (x, x), num_outputs=2)
    fn.python_function(images, function=print, num_outputs=0)
    src = fn.external_source(lambda: [np.zeros(3)], batch=True)
    x, y = fn.external_source(lambda: ([np.zeros(3)], [np.zeros(3)]), 2)
    return [*small, attrs, same, a, b, src, x, y]
"""


def test_committed_stubs_are_current() -> None:
    fresh = render_stubs()
    on_disk = {
        path.relative_to(PACKAGE_DIR).as_posix(): path.read_text(encoding="utf-8")
        for api in ("fn", "ops")
        for path in sorted((PACKAGE_DIR / api).rglob("*.pyi"))
    }
    stale = sorted(
        name for name in fresh.keys() | on_disk.keys() if fresh.get(name) != on_disk.get(name)
    )
    assert not stale, (
        f"the dali.fn / dali.ops stubs are out of date ({', '.join(stale)}): run "
        f"`{REGENERATE}` and commit the files it writes"
    )


def test_every_argument_type_has_an_annotation() -> None:
    assert set(ARG_ANNOTATIONS) == set(ARG_TYPES)


def test_resize_signature() -> None:
    stub = render_stubs()["fn/__init__.pyi"]
    first = stub[stub.index("def resize(") :].split(") -> ", 1)
    assert "    input: DataNode | ArrayLike,\n    /,\n    *,\n" in first[0]
    assert "    resize_x: float | DataNode | ArrayLike | None = ...,\n" in first[0]
    assert "    save_attrs: Literal[False] | None = ...,\n" in first[0]
    assert first[1].startswith("DataNode:\n")


def _mypy_config(tmp_path: Path) -> Path:
    """A config of its own (not the repository's): `dali` is found as a user finds it, or, when
    it is imported from a source tree rather than installed, in that tree."""
    config = tmp_path / "mypy.ini"
    root = PACKAGE_DIR.parent
    installed = root.name in ("site-packages", "dist-packages")
    config.write_text("[mypy]\n" + ("" if installed else f"mypy_path = {root}\n"))
    return config


def _mypy_errors(tmp_path: Path, mode: str, *programs: Path) -> list[str]:
    """The error lines of mypy (``mode``: ``--strict`` or another flag) on ``programs``, checked
    against the `dali` a user gets (see `_mypy_config`); skips when mypy is not installed."""
    mypy_api = pytest.importorskip("mypy.api")
    stdout, stderr, _ = mypy_api.run(
        [
            *("--config-file", str(_mypy_config(tmp_path)), "--cache-dir", str(tmp_path / "c")),
            *("--python-executable", sys.executable, mode),
            *("--no-error-summary", "--hide-error-context", *map(str, programs)),
        ]
    )
    assert not stderr
    return [line for line in stdout.splitlines() if ": error: " in line]


def test_stubs_check_a_user_program(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text(PROGRAM)
    bad_program = PROGRAM.replace("resize_x=256.0,", "resize_xx=256,")
    assert bad_program != PROGRAM
    bad = tmp_path / "bad.py"
    bad.write_text(bad_program)
    bad_line = bad_program.splitlines().index(
        "    images = fn.resize(images, resize_xx=256, interp_type=types.INTERP_LINEAR)"
    )

    errors = _mypy_errors(tmp_path, "--check-untyped-defs", good, bad)
    # The correct program checks clean; the misspelled argument is the only error, named.
    assert all(line.startswith(f"{bad}:{bad_line + 1}: ") for line in errors), errors
    assert any('Unexpected keyword argument "resize_xx"' in line for line in errors), errors


STRICT_PROGRAM = """\
from dali import fn, pipeline_def
from dali.pipeline import DataNode, Pipeline


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def uniform(lo: float = 0.0) -> DataNode:
    return fn.random.uniform(range=(lo, 1.0))


pipe: Pipeline = uniform(lo=0.5, seed=3)
pipe.build()
"""


def test_a_fully_typed_user_program_passes_mypy_strict(tmp_path: Path) -> None:
    """`pipeline_def` is typed: a decorated function gives a `Pipeline` factory, so code
    checked with ``--strict`` has no "untyped decorator" error and its pipelines are typed."""
    good = tmp_path / "strict_good.py"
    good.write_text(STRICT_PROGRAM)
    bad = tmp_path / "strict_bad.py"
    bad.write_text(STRICT_PROGRAM.replace("pipe.build()", "pipe.no_such_method()"))
    errors = _mypy_errors(tmp_path, "--strict", good, bad)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{bad}:") and "no_such_method" in errors[0], errors
