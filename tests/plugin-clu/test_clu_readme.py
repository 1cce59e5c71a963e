"""The README's example runs as written (on the CPU, with a generated image folder)."""

from __future__ import annotations

import numpy as np
from readme_snippets import python_blocks, run

README = "packages/plugin-clu/README.md"


def test_readme_example_runs_and_saves_its_state(tmp_path, monkeypatch):
    from dali._testing.images import make_image_tree

    (code,) = python_blocks(README)
    make_image_tree(tmp_path / "images")
    monkeypatch.chdir(tmp_path)
    scope = run(code, README, image_dir=str(tmp_path / "images"))
    iterator = scope["iterator"]
    assert dict(iterator.element_spec)["images"].shape == (8, 128, 128, 3)
    assert (tmp_path / "data_state.json").stat().st_size < 4096
    restored = scope["iterator_fn"](batch_size=8, enable_checkpointing=True)
    restored.restore("data_state.json")
    np.testing.assert_array_equal(restored.peek()["labels"], scope["batch"]["labels"])
