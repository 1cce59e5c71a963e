"""Seeing a pipeline: repr, save_graph_to_dot_file, save_graph_picture."""

from __future__ import annotations

import re
import shutil
import sys

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._testing.images import make_image_tree

_NODE = re.compile(r'^\s*"([^"]+)" \[(?:label|shape)')
_EDGE = re.compile(r'^\s*"?([^"\s]+)"? -> "?([^"\s]+?)"?(?: \[(.*)\])?;$')
_CLUSTER = re.compile(r'^\s*subgraph "cluster_(\w+)"')


def _parse(text: str) -> tuple[dict[str, str | None], list[tuple[str, str, str]]]:
    """(node -> its stage cluster or None, edges (src, dst, attributes)) of our dot text."""
    nodes: dict[str, str | None] = {}
    edges = []
    cluster = None
    for line in text.splitlines():
        if m := _CLUSTER.match(line):
            cluster = m.group(1)
        elif line.strip() == "}":
            cluster = None
        elif m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
        elif m := _NODE.match(line):
            nodes[m.group(1)] = cluster
    return nodes, edges


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    make_image_tree(root)
    return root


def _resnet(tree):
    """The ResNet-50 training pipeline on the CPU."""

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(tree), random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, name="decode")
        images = fn.resize(images, resize_x=64, resize_y=64, name="resize")
        flip = fn.random.coin_flip(name="flip")
        images = fn.crop_mirror_normalize(
            images, mirror=flip, dtype=types.FLOAT, output_layout="CHW", name="cmn"
        )
        return images, labels

    return pipe()


def test_dot_file_has_every_operator_edge_and_stage(tree, tmp_path):
    p = _resnet(tree)
    path = tmp_path / "resnet.dot"
    p.save_graph_to_dot_file(path)
    text = path.read_text()
    assert text.startswith("digraph graphname {") and text.rstrip().endswith("}")
    nodes, edges = _parse(text)
    assert nodes == {
        "Reader": "source",
        "decode": "cpu",
        "resize": "cpu",
        "flip": "cpu",
        "cmn": "cpu",
    }
    pairs = {(a, b): attrs for a, b, attrs in edges}
    assert set(pairs) == {
        ("Reader", "decode"),
        ("decode", "resize"),
        ("resize", "cmn"),
        ("flip", "cmn"),
        ("cmn", "outputs"),
        ("Reader", "outputs"),
    }
    # the reader has two outputs: each edge says which; an argument input says its argument
    assert pairs["Reader", "decode"] == 'label="0"'
    assert pairs["flip", "cmn"] == 'label="mirror="'
    assert pairs["cmn", "outputs"] == "label=0"
    assert pairs["Reader", "outputs"] == "label=1"
    assert not re.search(r"\"\w+\" \[label=.*color=", text)  # operators uncoloured


def test_tensors_and_colors(tree, tmp_path):
    p = _resnet(tree)
    path = tmp_path / "t.dot"
    p.save_graph_to_dot_file(path, show_tensors=True, use_colors=True)
    nodes, edges = _parse(path.read_text())
    # every output a box named as DALI names them, between its producer and its readers
    for box in ("Reader_0_cpu", "Reader_1_cpu", "decode_0_cpu", "flip_0_cpu", "cmn_0_cpu"):
        assert box in nodes
    pairs = {(a, b) for a, b, _ in edges}
    assert {("Reader", "Reader_0_cpu"), ("Reader_0_cpu", "decode")} <= pairs
    assert ("flip_0_cpu", "cmn") in pairs and ("cmn_0_cpu", "outputs") in pairs
    assert path.read_text().count('color="blue"') == 5


def test_show_ids_is_deprecated_as_in_dali(tree, tmp_path):
    with pytest.warns(DeprecationWarning, match="show_ids"):
        _resnet(tree).save_graph_to_dot_file(tmp_path / "x.dot", show_ids=True)


def test_conditional_branches_draw_their_batch_source(tmp_path):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True, seed=1)
    def pipe():
        x = fn.external_source(lambda: [np.full((2,), i, np.float32) for i in range(4)], name="x")
        if x[0] > 1:
            y = fn.random.uniform(range=(0, 1), name="u")
        else:
            y = x[1] * 0
        return y

    path = tmp_path / "c.dot"
    pipe().save_graph_to_dot_file(path)
    nodes, edges = _parse(path.read_text())
    assert "u" in nodes
    # the input-less generator in the branch gets its batch from the branch's split
    assert any(b == "u" and "batch" in attrs for _, b, attrs in edges)


def test_repr_says_what_the_pipeline_is(tree):
    p = _resnet(tree)
    assert repr(p) == ("<Pipeline: not built, batch_size=4, num_threads=1, device_id=None, seed=3>")
    p.build()
    lines = repr(p).splitlines()
    assert lines[0] == (
        "<Pipeline: 5 operators (cpu 5), 2 outputs, batch_size=4, num_threads=1, "
        "device_id=None, seed=3, built>"
    )
    assert lines[1:] == [
        "  source stage (dali-executor-source): Reader",
        "  cpu stage (dali-executor): decode, resize, flip, cmn",
    ]
    p.run()
    assert repr(p).splitlines()[0].endswith("running>")
    p.close()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_picture(tree, tmp_path):
    out = _resnet(tree).save_graph_picture(tmp_path / "resnet.svg")
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for name in ("Reader", "decode", "cmn", "source stage", "cpu stage"):
        assert name in svg


def test_picture_without_graphviz_says_what_to_install(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz -> ImportError
    with pytest.raises(RuntimeError, match="needs Graphviz: install the `dot` program"):
        _resnet(tree).save_graph_picture(tmp_path / "x.svg")


def test_picture_format_is_checked(tree, tmp_path):
    with pytest.raises(ValueError, match="cannot write a picture as 'jpg'"):
        _resnet(tree).save_graph_picture(tmp_path / "x.jpg")


@pytest.mark.gpu
def test_gpu_stages_are_boxes(tree, tmp_path):
    @pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=3)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(tree), name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", name="decode")
        return fn.resize(images, resize_x=32, resize_y=32, name="resize"), labels

    path = tmp_path / "g.dot"
    pipe().save_graph_to_dot_file(path, use_colors=True)
    nodes, _ = _parse(path.read_text())
    assert nodes["Reader"] == "cpu"
    assert nodes["decode"] in ("mixed", "gpu") and nodes["resize"] == "gpu"
    assert 'color="purple"' in path.read_text() and 'color="#76b900"' in path.read_text()
