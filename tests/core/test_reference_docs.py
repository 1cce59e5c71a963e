"""The operator reference (docs/reference/) is generated, current and complete."""

from __future__ import annotations

import re
from pathlib import Path

from dali._graph.schema import ARG_TYPES, Arg, all_schemas, get_schema
from dali.tools import reference

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_pages_are_current(tmp_path):
    assert reference.main(["--root", str(tmp_path)]) == 0
    fresh = {p.name: p.read_text() for p in (tmp_path / reference.PAGES).glob("*.md")}
    committed = {p.name: p.read_text() for p in (REPO / reference.PAGES).glob("*.md")}
    assert sorted(committed) == sorted(fresh), "run `python -m dali.tools.reference`"
    for name, text in fresh.items():
        assert committed[name] == text, (
            f"docs/reference/{name} is out of date: run {reference.REGENERATE}"
        )
    assert reference.main(["--root", str(REPO), "--check"]) == 0


def test_a_stale_or_extra_page_is_reported(tmp_path, capsys):
    assert reference.main(["--root", str(tmp_path)]) == 0
    assert reference.main(["--root", str(tmp_path), "--check"]) == 0
    (tmp_path / reference.PAGES / "fn.md").write_text("old")
    assert reference.main(["--root", str(tmp_path), "--check"]) == 1
    assert "fn.md" in capsys.readouterr().err
    assert reference.main(["--root", str(tmp_path)]) == 0
    (tmp_path / reference.PAGES / "fn.gone.md").write_text("an operator that went")
    assert reference.main(["--root", str(tmp_path), "--check"]) == 1
    assert reference.main(["--root", str(tmp_path)]) == 0  # and writing removes it
    assert not (tmp_path / reference.PAGES / "fn.gone.md").exists()


def _entry(fn_path: str) -> str:
    """The section of ``fn_path``'s page about it."""
    schema = get_schema(fn_path)
    text = reference.pages()[reference.page_name(".".join(schema.module_path))]
    start = text.index(f"\n## fn.{fn_path}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_resize_lists_its_arguments_with_types():
    entry = _entry("resize")
    assert "fn.resize(input, /, **kwargs)" in entry
    assert "- **ops class:** `ops.Resize`" in entry
    assert "- **backends:** CPU, GPU" in entry
    assert "set by `save_attrs`" in entry
    assert re.search(
        r"^\| `resize_x` \| float \| `0.0` \| yes \| Output width .+ \|$", entry, re.MULTILINE
    )
    assert re.search(
        r"^\| `interp_type` \| DALIInterpType \| `DALIInterpType.INTERP_LINEAR` \|",
        entry,
        re.MULTILINE,
    )
    assert re.search(r"^\| `antialias` \| bool \| `True` \| no \|", entry, re.MULTILINE)
    assert "```pycon\n>>> import numpy as np" in entry  # the doctest is a code block


def test_readers_and_deprecated_names():
    pages = reference.pages()
    assert "\n## fn.readers.file\n" in pages["fn.readers.md"]
    assert "fn.readers.file" not in pages["fn.md"].split("\n## ")[1:]
    file_entry = _entry("readers.file")
    assert "- **ops class:** `ops.readers.File`" in file_entry
    assert "- **inputs:** none" in file_entry
    assert "`fn.file_reader`, `ops.FileReader`" in file_entry
    assert "fn.readers.tfrecord(path, index_path, features, **kwargs)" in _entry("readers.tfrecord")
    decoder = _entry("decoders.image")
    assert "- **backends:** CPU, mixed" in decoder
    assert "`fn.image_decoder`" in decoder and "`ops.nvJPEGDecoder`" in decoder
    assert "| `fn.shapes` | Use `DataNode.shape()` instead. |" in pages["index.md"]


def test_every_public_operator_appears_once():
    public = [s for s in all_schemas() if not s.fn_path.startswith("_")]
    pages = reference.pages()
    headings = [
        line[len("## fn.") :]
        for name, text in pages.items()
        if name != "index.md"
        for line in text.splitlines()
        if line.startswith("## fn.")
    ]
    assert sorted(headings) == sorted(s.fn_path for s in public)
    assert len(set(headings)) == len(headings)
    for schema in public:
        page = reference.page_name(".".join(schema.module_path))
        assert (
            f"[`fn.{schema.fn_path}`]({page}#{reference.anchor(schema.fn_path)})"
            in pages["index.md"]
        )
    assert not any(h.startswith("_") for h in headings)


def test_every_page_is_in_the_site_navigation():
    nav = (REPO / "mkdocs.yml").read_text()
    for name in reference.pages():
        assert f"reference/{name}" in nav, name


def test_table_cells_escape_pipes_and_keep_code():
    assert reference._cell("a | b `x | y` c") == "a \\| b `x | y` c"
    assert reference._cell("<tag> and ``<kept>``") == "&lt;tag> and ``<kept>``"
    assert reference._code("a`b") == "``a`b``"
    assert reference._code("`x") == "`` `x ``"


def test_docstrings_become_markdown():
    doc = """Summary line.

    Paragraph with a literal block::

        x = 1

    .. warning::
        Deprecated.

    Items:
    * one
      continued
    * two
    """
    assert reference._docstring(doc) == [
        "Summary line.",
        "",
        "Paragraph with a literal block:",
        "",
        "```text",
        "x = 1",
        "```",
        "",
        "> **Warning:** Deprecated.",
        "",
        "Items:",
        "",
        "* one",
        "  continued",
        "* two",
    ]


def test_defaults_and_argument_types():
    assert reference._default(Arg("a", "int", default=3)) == "`3`"
    assert reference._default(Arg("a", "str", default="x|y")) == "`'x|y'`"
    assert reference._default(Arg("a", "int_vec", default=(0,))) == "`(0,)`"
    assert reference._default(Arg("a", "float")) == "—"
    assert set(reference._TYPE_WORDS) == ARG_TYPES
