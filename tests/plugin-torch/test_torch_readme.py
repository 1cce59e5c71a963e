"""The README's iterator example runs as written (on the CPU, with a generated image folder).

The proxy example needs torchvision's ``ImageFolder`` and a GPU: `test_proxy.py` and
``examples/pytorch/proxy.py`` run the same pipeline shape.
"""

from __future__ import annotations

from readme_snippets import python_blocks, run

README = "packages/plugin-torch/README.md"


def test_readme_iterator_example_gives_torch_tensors(tmp_path):
    import torch
    from dali._testing.images import make_image_tree

    iterator_example = python_blocks(README)[0]
    make_image_tree(tmp_path / "images")
    scope = run(iterator_example, README, image_dir=str(tmp_path / "images"))
    images, labels = scope["images"], scope["labels"]  # the last batch of the loop
    assert isinstance(images, torch.Tensor) and images.dtype == torch.float32
    assert images.shape[1:] == (3, 224, 224) and labels.shape == (images.shape[0], 1)
