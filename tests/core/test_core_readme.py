"""The core README's Python example (debug mode) runs as written, in a folder with images."""

from __future__ import annotations

from readme_snippets import python_blocks, run

README = "packages/core/README.md"


def test_readme_debug_mode_example_runs(tmp_path, monkeypatch, capsys):
    from dali._testing.images import make_image_tree

    (code,) = python_blocks(README)
    make_image_tree(tmp_path / "images")
    monkeypatch.chdir(tmp_path)  # the example reads file_root="images"
    scope = run(code, README)
    images, labels = scope["pipe"]().run()
    assert len(labels) == 8
    assert len(images) == 8 and images.as_cpu().as_array().shape == (8, 224, 224, 3)
    printed = capsys.readouterr().out
    assert printed.startswith("[") and "(" in printed  # the labels and the shapes it prints
