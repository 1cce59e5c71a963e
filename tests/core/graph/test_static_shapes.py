"""Static per-sample shapes (``DataNode.static_shape``, ``Pipeline.output_shape``).

Every rule is checked against a run: where the static shape has an int, every sample of the
output has that extent; where the rule cannot know (the data, a per-sample argument decides),
the entry is None. The image sources are the JPEGs of `dali._testing.images.make_image_tree`
(decoded: ``(None, None, 3)``) and constants (every extent known).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dali
import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._graph.node import DataNode
from graph_utils import batch
from parity import cpu_gpu, device_id, to_device

# -- helpers -----------------------------------------------------------------------------------


def matches(static: tuple[int | None, ...] | None, shape: tuple[int, ...]) -> bool:
    """Whether a sample of ``shape`` is one the static shape allows."""
    if static is None:
        return True
    return len(static) == len(shape) and all(s is None or s == e for s, e in zip(static, shape))


def checked(graph: Callable[[], Any], *, batch_size: int = 4, iterations: int = 1) -> list[Any]:
    """The static shapes of ``graph``'s outputs, checked against the shapes of real runs."""

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=7)
    def pipe():
        return graph()

    p = pipe()
    static = p.output_shape()
    for _ in range(iterations):
        for k, (spec, out) in enumerate(zip(static, p.run())):
            for i, shape in enumerate(out.shape()):
                assert matches(spec, tuple(shape)), f"output {k}, sample {i}: {spec} vs {shape}"
    return static


def static_only(graph: Callable[[], Any]) -> list[Any]:
    """The static shapes of ``graph``'s outputs, without running (for graphs that fail at run)."""
    with dali.Pipeline(batch_size=2, num_threads=1, device_id=None) as pipe:
        outs = graph()
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    return pipe.output_shape()


@pytest.fixture
def decoded(image_tree):
    """A graph source: the tree's JPEGs decoded to RGB, ``(None, None, 3)``."""

    def make(**decoder_args: Any) -> DataNode:
        jpegs, _ = fn.readers.file(file_root=str(image_tree), random_shuffle=True, seed=3)
        return fn.decoders.image(jpegs, **decoder_args)

    return make


def image(shape: tuple[int, ...] = (40, 60, 3), layout: str = "HWC") -> DataNode:
    """A constant uint8 image (every extent known)."""
    data = (np.arange(int(np.prod(shape))) % 251).astype(np.uint8).reshape(shape)
    return types.Constant(data, layout=layout)


# -- the node ----------------------------------------------------------------------------------


def test_data_node_keeps_shape_and_ndim_consistent():
    assert DataNode("a").static_shape is None
    assert DataNode("a", ndim=2).static_shape == (None, None)
    node = DataNode("a", static_shape=(4, None))
    assert node.ndim == 2 and node.static_shape == (4, None)
    assert node.gpu().static_shape == (4, None) and node.gpu().cpu().static_shape == (4, None)
    with pytest.raises(ValueError, match="3 dimensions, ndim is 2"):
        DataNode("a", ndim=2, static_shape=(1, 2, 3))


def test_gpu_copy_keeps_the_shape():
    with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        x = fn.random.uniform(shape=(2, 3))
    assert x.gpu().static_shape == (2, 3)
    assert x.gpu().cpu().static_shape == (2, 3)


# -- seed 001's graph: readers.file -> decoders.image -> resize --------------------------------


def test_seed_001_graph_is_known_before_running(image_tree):
    @pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        images = fn.decoders.image(jpegs, device="cpu")
        images = fn.resize(images, resize_x=128, resize_y=128)
        return images, labels

    p = pipe()
    assert p.output_shape() == [(128, 128, 3), (1,)]
    assert p.output_dtype() == [types.UINT8, types.INT32]
    for _ in range(3):
        images, labels = p.run()
        assert set(images.shape()) == {(128, 128, 3)} and set(labels.shape()) == {(1,)}


def test_reader_outputs(image_tree):
    def graph():
        return fn.readers.file(file_root=str(image_tree))

    assert checked(graph) == [(None,), (1,)]


# -- decoders ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output_type", "expected"),
    [
        (types.RGB, (None, None, 3)),
        (types.BGR, (None, None, 3)),
        (types.YCbCr, (None, None, 3)),
        (types.GRAY, (None, None, 1)),
        (types.ANY_DATA, (None, None, None)),  # the image's own channels
    ],
)
def test_decoder_channels_follow_the_output_type(decoded, output_type, expected):
    assert checked(lambda: decoded(output_type=output_type, dtype=types.FLOAT)) == [expected]


@pytest.mark.parametrize(
    ("decoder", "kwargs", "expected"),
    [
        ("image_crop", {"crop": (20, 30)}, (20, 30, 3)),
        ("image_crop", {"crop": (20, 30), "output_type": types.GRAY}, (20, 30, 1)),
        ("image_crop", {"crop_h": 20.7, "crop_w": 30.2}, (20, 30, 3)),  # truncated
        ("image_crop", {"crop_h": 20, "crop_w": 0}, (20, None, 3)),  # 0: the whole width
        ("image_crop", {"crop": (500, 30), "out_of_bounds_policy": "pad"}, (500, 30, 3)),
        # cut to the image, whose size is the data's
        (
            "image_crop",
            {"crop": (500, 30), "out_of_bounds_policy": "trim_to_shape"},
            (None,) * 2 + (3,),
        ),
        ("image_random_crop", {}, (None, None, 3)),
        ("image_slice", {"rel_start": (0.1, 0.2), "rel_shape": (0.5, 0.5)}, (None, None, 3)),
    ],
)
def test_decoders_with_windows(image_tree, decoder, kwargs, expected):
    def graph():
        jpegs, _ = fn.readers.file(file_root=str(image_tree), random_shuffle=True, seed=3)
        return getattr(fn.decoders, decoder)(jpegs, **kwargs)

    assert checked(graph, iterations=2) == [expected]


def test_image_crop_with_a_per_sample_size_is_unknown(image_tree):
    def graph():
        jpegs, _ = fn.readers.file(file_root=str(image_tree))
        h = fn.random.uniform(range=(10, 30))
        return fn.decoders.image_crop(jpegs, crop_h=h, crop_w=16)

    assert checked(graph) == [(None, 16, 3)]


# -- resize ------------------------------------------------------------------------------------

RESIZE_CASES = [
    # (arguments, static shape of a 40x60x3 constant, of decoded images)
    ({"resize_x": 50, "resize_y": 30}, (30, 50, 3), (30, 50, 3)),
    ({"size": (30, 50)}, (30, 50, 3), (30, 50, 3)),
    ({"size": 30}, (30, 30, 3), (30, 30, 3)),  # one value for every axis
    ({"resize_x": 33.5, "resize_y": -20}, (20, 34, 3), (20, 34, 3)),  # halves up; < 0 flips
    ({"size": (100, 100), "max_size": 80}, (80, 80, 3), (80, 80, 3)),
    ({"size": (100, 50), "max_size": (80, 0)}, (80, 50, 3), (80, 50, 3)),
    ({"size": (30, 50), "roi_start": (5, 10), "roi_end": (25, 40)}, (30, 50, 3), (30, 50, 3)),
    ({"size": (50, 50), "mode": "stretch"}, (50, 50, 3), (50, 50, 3)),
    ({"resize_x": 50, "mode": "stretch"}, (40, 50, 3), (None, 50, 3)),  # H is the input's
    ({"resize_x": 50}, (None, 50, 3), (None, 50, 3)),  # H keeps the aspect ratio
    ({"size": (0, 50)}, (None, 50, 3), (None, 50, 3)),
    ({"resize_shorter": 50}, (None, None, 3), (None, None, 3)),
    ({"resize_longer": 50}, (None, None, 3), (None, None, 3)),
    ({"size": (50, 50), "mode": "not_larger"}, (None, None, 3), (None, None, 3)),
    ({"size": (50, 50), "mode": "not_smaller"}, (None, None, 3), (None, None, 3)),
    ({"resize_shorter": 50, "max_size": 60}, (None, None, 3), (None, None, 3)),
]


@pytest.mark.parametrize(("kwargs", "of_constant", "of_decoded"), RESIZE_CASES)
def test_resize(decoded, kwargs, of_constant, of_decoded):
    def graph():
        return fn.resize(image(), **kwargs), fn.resize(decoded(), **kwargs)

    assert checked(graph) == [of_constant, of_decoded]


def test_resize_with_a_per_sample_size(decoded):
    def graph():
        return fn.resize(decoded(), resize_x=fn.random.uniform(range=(10, 40)), resize_y=30)

    assert checked(graph) == [(30, None, 3)]


@pytest.mark.parametrize(
    ("shape", "layout", "kwargs", "expected"),
    [
        ((3, 40, 60), "CHW", {"size": (30, 50)}, (3, 30, 50)),
        ((2, 40, 60, 3), "FHWC", {"size": (30, 50)}, (2, 30, 50, 3)),
        ((2, 3, 40, 60), "FCHW", {"resize_y": 20, "resize_x": 24}, (2, 3, 20, 24)),
        ((8, 10, 12, 1), "DHWC", {"size": (4, 5, 6)}, (4, 5, 6, 1)),
        ((8, 10, 12, 1), "DHWC", {"resize_x": 6, "resize_y": 5, "resize_z": 4}, (4, 5, 6, 1)),
        ((40, 60), "HW", {"size": (30, 50)}, (30, 50)),
        ((40, 60, 3), "", {"size": (30, 50)}, (30, 50, 3)),  # no layout: HWC
    ],
)
def test_resize_finds_the_spatial_axes_in_the_layout(shape, layout, kwargs, expected):
    assert checked(lambda: fn.resize(image(shape, layout), **kwargs)) == [expected]


def test_resize_save_attrs(decoded):
    def graph():
        return fn.resize(decoded(), size=(30, 50), save_attrs=True)

    assert checked(graph) == [(30, 50, 3), (2,)]


# -- crops -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "of_constant", "of_decoded"),
    [
        ({}, (40, 60, 3), (None, None, 3)),
        ({"crop": (20, 30)}, (20, 30, 3), (20, 30, 3)),
        ({"crop_h": 20, "crop_w": 30}, (20, 30, 3), (20, 30, 3)),
        ({"crop": (20, 0)}, (20, 60, 3), (20, None, 3)),  # 0: the whole extent
        ({"crop": (50, 70), "out_of_bounds_policy": "pad"}, (50, 70, 3), (50, 70, 3)),
        # cut to the input: known where the input's extent is
        ({"crop": (50, 30), "out_of_bounds_policy": "trim_to_shape"}, (40, 30, 3), (None, None, 3)),
        ({"crop": (20, 30), "dtype": types.FLOAT}, (20, 30, 3), (20, 30, 3)),
    ],
)
def test_crop(decoded, kwargs, of_constant, of_decoded):
    assert checked(lambda: (fn.crop(image(), **kwargs), fn.crop(decoded(), **kwargs))) == [
        of_constant,
        of_decoded,
    ]


@pytest.mark.parametrize(
    ("shape", "layout", "kwargs", "expected"),
    [
        ((3, 40, 60), "CHW", {"crop": (20, 30)}, (3, 20, 30)),
        ((4, 40, 60, 3), "FHWC", {"crop_h": 20, "crop_w": 30, "crop_d": 2}, (2, 20, 30, 3)),
        ((5, 40, 60, 3), "DHWC", {"crop": (2, 20, 30)}, (2, 20, 30, 3)),
        ((40, 60, 3), "", {"crop": (20, 30)}, (20, 30, 3)),
    ],
)
def test_crop_layouts(shape, layout, kwargs, expected):
    assert checked(lambda: fn.crop(image(shape, layout), **kwargs)) == [expected]


def test_crop_with_a_per_sample_size():
    def graph():
        return fn.crop(image(), crop_h=fn.random.uniform(range=(10, 30)), crop_w=30)

    assert checked(graph) == [(None, 30, 3)]


@pytest.mark.parametrize(
    ("kwargs", "of_constant", "of_decoded"),
    [
        ({}, (3, 40, 60), (3, None, None)),  # CHW by default
        ({"crop": (20, 30)}, (3, 20, 30), (3, 20, 30)),
        ({"crop": (20, 30), "output_layout": "HWC"}, (20, 30, 3), (20, 30, 3)),
        ({"crop": (20, 30), "output_layout": ""}, (20, 30, 3), (20, 30, 3)),  # the input's
        ({"crop": (20, 30), "pad_output": True}, (4, 20, 30), (4, 20, 30)),
        ({"crop": (20, 30), "mirror": 1, "mean": [128.0], "std": [64.0]}, (3, 20, 30), (3, 20, 30)),
        ({"crop_h": 20, "crop_w": 30, "dtype": types.UINT8}, (3, 20, 30), (3, 20, 30)),
        ({"crop": (50, 70), "out_of_bounds_policy": "pad"}, (3, 50, 70), (3, 50, 70)),
    ],
)
def test_crop_mirror_normalize(decoded, kwargs, of_constant, of_decoded):
    def graph():
        mirror = kwargs.pop("mirror", None)
        extra = {} if mirror is None else {"mirror": fn.random.coin_flip()}
        return (
            fn.crop_mirror_normalize(image(), **kwargs, **extra),
            fn.crop_mirror_normalize(decoded(), **kwargs, **extra),
        )

    assert checked(graph) == [of_constant, of_decoded]


def test_crop_mirror_normalize_of_sequences():
    def graph():
        return fn.crop_mirror_normalize(image((2, 40, 60, 3), "FHWC"), crop=(20, 30))

    assert checked(graph) == [(2, 3, 20, 30)]  # FCHW


@pytest.mark.parametrize(
    ("shape", "layout", "size", "expected"),
    [
        ((40, 60, 3), "HWC", (24, 32), (24, 32, 3)),
        ((40, 60, 3), "HWC", (16,), (16, 16, 3)),  # one value: square
        ((3, 40, 60), "CHW", (24, 32), (3, 24, 32)),
        ((2, 40, 60, 3), "FHWC", (24, 32), (2, 24, 32, 3)),
    ],
)
def test_random_resized_crop(shape, layout, size, expected):
    assert checked(lambda: fn.random_resized_crop(image(shape, layout), size=size)) == [expected]


def test_random_resized_crop_of_decoded_images(decoded):
    assert checked(lambda: fn.random_resized_crop(decoded(), size=(24, 32))) == [(24, 32, 3)]


# -- operators that keep the shape -------------------------------------------------------------

SAME_SHAPE = {
    "flip": lambda x: fn.flip(x, horizontal=fn.random.coin_flip(), vertical=1),
    "color_twist": lambda x: fn.color_twist(x, brightness=0.5, hue=20.0, saturation=0.5),
    "brightness_contrast": lambda x: fn.brightness_contrast(x, brightness=1.5, contrast=0.5),
    "brightness": lambda x: fn.brightness(x, brightness=1.5),
    "contrast": lambda x: fn.contrast(x, contrast=0.5),
    "hsv": lambda x: fn.hsv(x, hue=10.0, saturation=0.5, dtype=types.FLOAT),
    "hue": lambda x: fn.hue(x, hue=10.0),
    "saturation": lambda x: fn.saturation(x, saturation=0.5),
    "normalize": lambda x: fn.normalize(x),
    "cast": lambda x: fn.cast(x, dtype=types.FLOAT),
    "cast_like": lambda x: fn.cast_like(x, fn.random.uniform()),
    "copy": lambda x: fn.copy(x),
    "arithmetic": lambda x: x * 2 + 1,
    "math": lambda x: dali.math.sqrt(x),
}


@pytest.mark.parametrize("op", sorted(SAME_SHAPE))
def test_operators_that_keep_the_shape(decoded, op):
    make = SAME_SHAPE[op]
    assert checked(lambda: (make(image()), make(decoded()))) == [(40, 60, 3), (None, None, 3)]


# -- layout operators --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "of_constant", "of_decoded"),
    [
        ({"perm": [2, 0, 1]}, (3, 40, 60), (3, None, None)),
        ({"perm": [1, 0, 2], "output_layout": "WHC"}, (60, 40, 3), (None, None, 3)),
        ({"perm": [0, 1, 2]}, (40, 60, 3), (None, None, 3)),
    ],
)
def test_transpose(decoded, kwargs, of_constant, of_decoded):
    def graph():
        return fn.transpose(image(), **kwargs), fn.transpose(decoded(), **kwargs)

    assert checked(graph) == [of_constant, of_decoded]


@pytest.mark.parametrize(
    ("kwargs", "of_constant", "of_decoded"),
    [
        ({"shape": [-1]}, (7200,), (None,)),
        ({"shape": [4, -1]}, (4, 1800), (4, None)),  # (the images' volumes: not all 4·k)
        ({"shape": [1, 7200]}, (1, 7200), (1, 7200)),  # (not the images' volume)
        ({"rel_shape": [0.5, 2, -1]}, (20, 120, 3), (None, None, None)),
        ({"rel_shape": [0.5, 2, 1]}, (20, 120, 3), (None, None, 3)),
        ({"src_dims": [-1, 0, 1, 2]}, (1, 40, 60, 3), (1, None, None, 3)),
        ({"src_dims": [2, 0, 1]}, (3, 40, 60), (3, None, None)),
        ({"layout": "XYZ"}, (40, 60, 3), (None, None, 3)),
    ],
)
def test_reshape(decoded, kwargs, of_constant, of_decoded):
    assert checked(lambda: fn.reshape(image(), **kwargs)) == [of_constant]
    if "shape" in kwargs and kwargs["shape"] != [-1]:  # fails at run on the decoded images
        assert static_only(lambda: fn.reshape(decoded(), **kwargs)) == [of_decoded]
    else:
        assert checked(lambda: fn.reshape(decoded(), **kwargs)) == [of_decoded]


def test_reshape_with_a_per_sample_shape():
    def graph():
        return fn.reshape(
            image(), shape=fn.cast(fn.random.uniform(range=(1, 2)), dtype=types.INT32)
        )

    assert static_only(graph) == [None]


# -- random generators -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: fn.random.uniform(), ()),  # one scalar per sample, as in DALI
        (lambda: fn.random.uniform(shape=(2, 3)), (2, 3)),
        (lambda: fn.random.uniform(shape=5), (5,)),
        (lambda: fn.random.normal(shape=[1]), (1,)),
        (lambda: fn.random.coin_flip(), ()),
        (lambda: fn.random.coin_flip(shape=(2,), dtype=types.BOOL), (2,)),
        (lambda: fn.random.normal(image()), (40, 60, 3)),  # shape_like
        (lambda: fn.random.uniform(fn.random.uniform(shape=(2, 4))), (2, 4)),
    ],
)
def test_random_generators(make, expected):
    assert checked(make) == [expected]


def test_random_generator_with_a_per_sample_shape():
    def graph():
        n = fn.cast(fn.random.uniform(range=(1, 5)), dtype=types.INT32)
        return fn.random.uniform(shape=fn.reshape(n, shape=[1])), fn.random.normal(decoded_like())

    def decoded_like():
        return batch(np.zeros((2, 3)), np.zeros((4, 3)))

    assert checked(graph, batch_size=2) == [None, (None, None)]


# -- external sources, constants, metadata ------------------------------------------------------


def test_external_source_is_known_from_its_arguments_only():
    def source():
        return [np.zeros((4, 6), np.float32), np.zeros((5, 6), np.float32)]

    def graph():
        return (
            fn.external_source(source),
            fn.external_source(source, layout="HW"),
            fn.external_source(source, ndim=2),
        )

    assert checked(graph, batch_size=2) == [None, (None, None), (None, None)]


def test_constants_and_metadata(decoded):
    def graph():
        img = decoded()
        return (
            types.Constant(np.zeros((2, 3), np.float32)),
            types.Constant(7),
            fn.shapes(img),
            img.shape(),
            img.source_info(),
        )

    assert checked(graph) == [(2, 3), (), (3,), (3,), (None,)]


# -- arithmetic and indexing ---------------------------------------------------------------------


def test_arithmetic_broadcasts():
    def graph():
        a = types.Constant(np.zeros((2, 1), np.float32))
        b = types.Constant(np.ones((1, 3), np.float32))
        u = fn.random.uniform()
        ragged = batch(np.zeros((2, 3)), np.zeros((4, 3)), np.zeros((2, 3)), np.zeros((4, 3)))
        return (
            a + b,  # (2, 3)
            a * u,  # a scalar per sample
            u + fn.random.uniform(shape=(5,)),
            ragged + types.Constant(np.ones(3)),  # the rows are the data's
            ragged < 1.0,
            dali.math.clamp(a, 0.0, u),
        )

    assert checked(graph) == [(2, 3), (2, 1), (5,), (None, 3), (None, None), (2, 1)]


def test_arithmetic_of_unknown_or_mismatched_shapes_is_unknown(decoded):
    def graph():
        ragged = batch(np.zeros((2, 3)), np.zeros((4, 3)))
        mismatched = types.Constant(np.zeros(2)) + types.Constant(np.zeros(3))  # fails at run
        return ragged + fn.external_source(lambda: [np.zeros(1)] * 2), mismatched, ragged * 2

    assert static_only(graph) == [None, (None,), (None, None)]


def test_subscripts():
    def graph():
        x = image((4, 6, 3))
        ragged = batch(np.zeros((2, 3)), np.zeros((4, 3)))
        i = fn.cast(fn.random.uniform(range=(0, 3)), dtype=types.INT32)
        return (
            x[0],
            x[:, 1],
            x[1, ::-1],
            x[dali.newaxis, -1],
            x[1:3],
            x[::2, 10:],
            x[i],  # a per-sample index still removes the axis
            x[:i],  # a per-sample bound: the extent is the data's
            ragged[0],  # (the helper's batches have only an ndim)
            ragged[:, 1:],
        )

    assert checked(graph, batch_size=2) == [
        (6, 3),
        (4, 3),
        (6, 3),
        (1, 6, 3),
        (2, 6, 3),
        (2, 0, 3),
        (6, 3),
        (None, 6, 3),
        (None,),
        (None, None),
    ]


def test_one_hot(image_tree):
    def graph():
        _, labels = fn.readers.file(file_root=str(image_tree))
        idx = fn.cast(fn.random.uniform(range=(0, 5), shape=(4,)), dtype=types.INT32)
        scalar = fn.cast(fn.random.uniform(range=(0, 5)), dtype=types.INT32)
        ragged = batch(np.zeros((2,), np.int32), np.zeros((1,), np.int32))
        return (
            fn.one_hot(labels, num_classes=3),  # a single-element sample is a scalar
            fn.one_hot(idx, num_classes=5),
            fn.one_hot(idx, num_classes=5, axis=0),
            fn.one_hot(scalar, num_classes=5),
            fn.one_hot(labels, num_classes=3, axis=-1),
            fn.one_hot(ragged, num_classes=2),  # scalars or not: the data decides
        )

    assert checked(graph, batch_size=2) == [(3,), (4, 5), (5, 4), (5,), (1, 3), None]


def test_conditionals_merge_what_both_branches_know():
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, seed=5, enable_conditionals=True)
    def pipe():
        x = fn.random.uniform(shape=(2, 3))
        if fn.random.coin_flip():
            y = x
            z = x * 2
        else:
            y = fn.reshape(x, shape=[3, 2])
            z = x + 1
        return y, z

    p = pipe()
    assert p.output_shape() == [(None, None), (2, 3)]
    y, z = p.run()
    assert set(y.shape()) == {(2, 3), (3, 2)} and set(z.shape()) == {(2, 3)}


# -- no rule: unknown ------------------------------------------------------------------------------


def test_shapes_of_python_functions_pads_and_warps_of_a_constant_image():
    def graph():
        x = image()
        return (
            fn.python_function(x, function=lambda a: a[:1]),  # its own: unknown
            fn.pad(x, shape=(50, 70, 3)),  # at least that: the batch's largest
            fn.warp_affine(x, matrix=[1, 0, 5, 0, 1, 3]),
            fn.rotate(x, angle=30),
        )

    assert checked(graph) == [None, (50, 70, 3), (40, 60, 3), (66, 72, 3)]


# -- on the GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_seed_001_graph_with_the_mixed_decoder(image_tree):
    @pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        return fn.resize(images, resize_x=128, resize_y=128), labels

    p = pipe()
    assert p.output_shape() == [(128, 128, 3), (1,)]
    for _ in range(3):
        images, labels = p.run()
        assert set(images.shape()) == {(128, 128, 3)} and set(labels.shape()) == {(1,)}


@pytest.mark.gpu
def test_mixed_decoders(image_tree):
    @pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=1)
    def pipe():
        jpegs, _ = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        return (
            fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY),
            fn.decoders.image_crop(jpegs, device="mixed", crop=(20, 30)),
            fn.decoders.image_random_crop(jpegs, device="mixed"),
        )

    p = pipe()
    static = p.output_shape()
    assert static == [(None, None, 1), (20, 30, 3), (None, None, 3)]
    for spec, out in zip(static, p.run()):
        assert all(matches(spec, tuple(s)) for s in out.shape())


@cpu_gpu(atol=1)
def test_gpu_operators_give_the_cpu_shapes(device):
    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device), seed=3)
    def pipe():
        x = to_device(image(), device)
        return (
            fn.resize(x, resize_x=32, resize_y=24),
            fn.crop_mirror_normalize(
                x, crop=(20, 30), mirror=fn.random.coin_flip(), pad_output=True
            ),
            fn.random_resized_crop(x, size=(16, 16)),
            fn.crop(x, crop=(20, 30)),
            fn.flip(x),
            fn.cast(x, dtype=types.FLOAT) * 2,
            fn.transpose(x, perm=[2, 0, 1]),
        )

    p = pipe()
    static = [(24, 32, 3), (4, 20, 30), (16, 16, 3), (20, 30, 3), (40, 60, 3), (40, 60, 3)]
    assert p.output_shape() == [*static, (3, 40, 60)]
    outs = p.run()
    for spec, out in zip(p.output_shape(), outs):
        assert set(out.shape()) == {spec}
    return outs


# -- slice, pad, warps, paste, python_function -------------------------------------------------


@pytest.mark.parametrize(
    ("make", "of_constant", "of_decoded"),
    [
        # (x, y) with the default axis_names "WH"
        (lambda x: fn.slice(x, start=(2, 3), shape=(20, 30)), (30, 20, 3), (30, 20, 3)),
        (lambda x: fn.slice(x, start=(2, 3), end=(22, 33), axis_names="HW"), (20, 30, 3), (20, 30, 3)),
        # relative windows: known where the input's extents are
        (lambda x: fn.slice(x, rel_start=(0.25, 0.25), rel_shape=(0.5, 0.5)), (20, 30, 3), (None, None, 3)),
        (lambda x: fn.slice(x, rel_start=(0.1,), axes=(0,)), (36, 60, 3), (None, None, 3)),
        # positional constants (Python tuples are constants: normalised floats, absolute ints)
        (lambda x: fn.slice(x, (0.1, 0.2), (0.5, 0.5), axes=(0, 1)), (20, 30, 3), (None, None, 3)),
        (lambda x: fn.slice(x, [1, 2], [20, 30], axes=(0, 1)), (20, 30, 3), (20, 30, 3)),
        (
            lambda x: fn.slice(x, start=(0, 0), shape=(50, 70), axis_names="HW", out_of_bounds_policy="pad"),
            (50, 70, 3),
            (50, 70, 3),
        ),
        # the window cut to the input: left to the data
        (
            lambda x: fn.slice(x, start=(0, 0), shape=(50, 70), axis_names="HW", out_of_bounds_policy="trim_to_shape"),
            (None, None, 3),
            (None, None, 3),
        ),
        (lambda x: fn.pad(x, axis_names="HW", shape=(64, 80)), (64, 80, 3), (None, None, 3)),
        (lambda x: fn.pad(x, axes=(0,), align=(16,)), (48, 60, 3), (None, None, 3)),
        (lambda x: fn.pad(x, axis_names="HW", shape=(10, 10), align=(7, 7)), (42, 63, 3), (None, None, 3)),
        (lambda x: fn.pad(x), (40, 60, 3), (None, None, 3)),  # the batch's largest: itself
        (lambda x: fn.warp_affine(x, matrix=(1, 0, 0, 0, 1, 0), size=(30, 40)), (30, 40, 3), (30, 40, 3)),
        (lambda x: fn.warp_affine(x, matrix=(1, 0, 0, 0, 1, 0)), (40, 60, 3), (None, None, 3)),
        (lambda x: fn.rotate(x, angle=10.0, size=(30, 40)), (30, 40, 3), (30, 40, 3)),
        (lambda x: fn.rotate(x, angle=10.0, keep_size=True), (40, 60, 3), (None, None, 3)),
        (lambda x: fn.rotate(x, angle=90.0), (60, 40, 3), (None, None, 3)),
        (lambda x: fn.rotate(x, angle=10.0), (50, 68, 3), (None, None, 3)),
        (lambda x: fn.paste(x, ratio=2.0, fill_value=0), (80, 120, 3), (None, None, 3)),
        (lambda x: fn.paste(x, ratio=1.3, fill_value=0, min_canvas_size=70), (70, 78, 3), (None, None, 3)),
    ],
)  # fmt: skip
def test_windows_pads_and_warps(decoded, make, of_constant, of_decoded):
    assert checked(lambda: (make(image()), make(decoded()))) == [of_constant, of_decoded]


def test_windows_and_warps_with_per_sample_arguments_are_unknown(decoded):
    def graph():
        x = image()
        angle = fn.random.uniform(range=(0.0, 30.0))
        start = fn.random.uniform(range=(0.0, 5.0), shape=(2,))
        return (
            fn.rotate(x, angle=angle),
            fn.slice(x, start=start, shape=(10, 10)),
            fn.paste(x, ratio=fn.random.uniform(range=(1.0, 2.0)), fill_value=0),
        )

    assert checked(graph) == [(None, None, 3), (None, None, 3), (None, None, 3)]


def test_python_function_says_only_what_its_layout_says():
    def graph():
        x = image()
        return (
            fn.python_function(x, function=np.negative, output_layouts="HWC"),
            fn.python_function(x, function=np.negative),
        )

    assert checked(graph) == [(None, None, None), None]
