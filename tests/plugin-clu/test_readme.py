"""The README's example runs as written (on the CPU, with a generated image folder)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "packages" / "plugin-clu" / "README.md"


def test_readme_example_runs_and_saves_its_state(tmp_path, monkeypatch):
    from dali._testing.images import make_image_tree

    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    code = code.replace('device="mixed"', 'device="cpu"')  # no GPU here
    image_dir = tmp_path / "images"
    make_image_tree(image_dir)
    monkeypatch.chdir(tmp_path)
    scope = {"image_dir": str(image_dir)}
    exec(compile(code, str(README), "exec"), scope)  # noqa: S102 - the README's own example
    iterator = scope["iterator"]
    assert dict(iterator.element_spec)["images"].shape == (8, 128, 128, 3)
    assert (tmp_path / "data_state.json").stat().st_size < 4096
    restored = scope["iterator_fn"](batch_size=8, enable_checkpointing=True)
    restored.restore("data_state.json")
    import numpy as np

    np.testing.assert_array_equal(restored.peek()["labels"], scope["batch"]["labels"])
