"""The README's example runs as written (on the CPU, with a generated image folder)."""

from __future__ import annotations

from readme_snippets import python_blocks, run

README = "packages/plugin-jax/README.md"


def test_readme_example_iterates_jax_arrays(tmp_path):
    import jax
    from dali._testing.images import make_image_tree

    (code,) = python_blocks(README)
    make_image_tree(tmp_path / "images")
    scope = run(code, README, image_dir=str(tmp_path / "images"))
    batch = scope["batch"]  # the last batch of the loop
    assert isinstance(batch["images"], jax.Array)
    assert batch["images"].shape == (8, 256, 256, 3) and batch["labels"].shape == (8, 1)
