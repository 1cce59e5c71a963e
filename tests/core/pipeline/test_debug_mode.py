"""Debug mode (``dali.pipeline.experimental.pipeline_def(debug=True)``).

The pipelines of the tutorials run in debug mode give the compiled pipeline's batches for the
same seed, iteration after iteration; inside the definition every operator has run and its
data is at hand; DALI's errors for what debug mode cannot do. Ported from DALI's
``dali/test/python/test_debug_mode.py`` where DALI's tests apply.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import dali
import numpy as np
import pytest
from dali import fn, types
from dali.pipeline.experimental import pipeline_def

_ROOT = Path(__file__).resolve().parents[3]
_BATCH = 4
_ITERS = 7  # 28 samples: more than the 21 images of the tree, so the epoch wraps


def _compare(standard, debug, iterations=_ITERS):
    """Both pipelines give the same batches, iteration after iteration."""
    for it in range(iterations):
        a, b = standard.run(), debug.run()
        assert len(a) == len(b)
        for k, (x, y) in enumerate(zip(a, b)):
            assert type(x) is type(y), (it, k)
            assert x.layout() == y.layout() and x.dtype == y.dtype, (it, k)
            xs, ys = [np.asarray(s) for s in x.as_cpu()], [np.asarray(s) for s in y.as_cpu()]
            assert len(xs) == len(ys), (it, k)
            for i, (s, t) in enumerate(zip(xs, ys)):
                np.testing.assert_array_equal(s, t, err_msg=f"iteration {it}, output {k}, {i}")


def _both(graph, **kw):
    """The compiled pipeline and the debug-mode one of ``graph``."""
    kw = {"batch_size": _BATCH, "num_threads": 2, "device_id": None, "seed": 17, **kw}
    make = pipeline_def(graph, **kw)
    return make(), make(debug=True)


def _rn50(root, device="cpu"):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    decoder = "mixed" if device == "gpu" else "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder, output_type=types.RGB)
    images = fn.resize(images, resize_x=64, resize_y=64)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="CHW",
        crop=(56, 56),
        mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
        std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
        mirror=mirror,
    )
    return images, labels.gpu() if device == "gpu" else labels, mirror


# -- the same batches as the compiled pipeline ----------------------------------------------------


def test_quickstart_pipeline(image_tree):
    def graph():
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs, device="cpu")
        return fn.resize(images, resize_x=40, resize_y=30), labels

    _compare(*_both(graph))


def test_resnet50_training_pipeline(image_tree):
    _compare(*_both(lambda: _rn50(str(image_tree))))


def test_random_operator_before_the_reader(image_tree):
    # DALI's test puts the coin flip first: it takes the samples of the reader, which the
    # definition calls after it (the compiled plan runs its sources first)
    def graph():
        rng = fn.random.coin_flip(probability=0.5)
        jpegs, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        images = fn.resize(fn.decoders.image(jpegs), resize_x=32, resize_y=32)
        out = fn.crop_mirror_normalize(images, mirror=rng, dtype=types.FLOAT16)
        return rng, labels, out, fn.random.uniform(range=(0, 10), shape=[2])

    _compare(*_both(graph))


def test_random_values_read_before_the_reader_from_the_second_run_on(image_tree):
    # In the first run the reader has not run when the flip is printed: its values are
    # those of the positions of the samples; later runs run the readers first.
    def graph():
        rng = fn.random.coin_flip(probability=0.5)
        print(rng)  # (the data in debug mode)
        _, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        return rng, labels

    standard, debug = _both(graph)
    standard.run(), debug.run()
    _compare(standard, debug)


def _ssd(tmp_path, device):
    """The SSD training graph of examples/ssd on a generated COCO-style set."""
    sys.path.insert(0, str(_ROOT / "examples" / "ssd"))
    try:
        from ssd_pipeline import ssd300_default_boxes, ssd_graph
    finally:
        sys.path.pop(0)
    from dali._testing.coco import make_coco

    data = make_coco(tmp_path, n_images=10, photo_size=(48, 80))
    anchors = ssd300_default_boxes()

    def graph():
        return ssd_graph(
            fn, types, data.file_root, data.annotations_file, device=device, anchors=anchors
        )

    return graph


def test_ssd_pipeline(tmp_path):
    _compare(*_both(_ssd(tmp_path, "cpu"), batch_size=3), iterations=5)


def test_conditionals(image_tree):
    def graph():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        images = fn.decoders.image(jpegs)
        flip = fn.random.coin_flip()
        if flip:
            images = fn.flip(images, horizontal=1)
            value = fn.random.uniform(range=(1, 2))
        else:
            value = fn.random.uniform(range=(-2, -1))
            if labels[0] > 10 and value < -1.5:
                value = value * 100
        images = fn.resize(images, resize_x=16, resize_y=16)
        bonus = labels * 2 if labels[0] % 2 == 0 else labels + 100
        return images, labels, flip, value, bonus

    _compare(*_both(graph, enable_conditionals=True))


def test_conditionals_print_the_branch_samples(capsys):
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, seed=3, enable_conditionals=True)
    def pipe():
        x = fn.external_source(lambda: np.arange(8, dtype=np.int32), batch=True)
        if x > 4:
            y = x * 10
            print("if", y.get().as_array().tolist())
        else:
            y = -x
            print("else", y.get().as_array().tolist())
        return y

    (out,) = pipe(debug=True).run()
    assert out.as_array().tolist() == [0, -1, -2, -3, -4, 50, 60, 70]
    assert capsys.readouterr().out.splitlines() == ["if [50, 60, 70]", "else [0, -1, -2, -3, -4]"]


def test_arithmetic_indexing_and_multiple_input_sets():
    def graph():
        a = fn.random.uniform(range=(0, 1), shape=[3, 4])
        b = fn.random.normal(shape=[3, 4])
        c = fn.cast(a * 100, dtype=types.INT32)
        cat1, cat2 = fn.cat([a, b], [b, a], axis=1)
        return -((a + b) ** 2) / 3, c[1, 1:3], c % 7 == 0, cat1, cat2, a[dali.newaxis]

    _compare(*_both(graph), iterations=3)


def test_external_sources():
    data = [np.full((2, 3), i, dtype=np.uint8) for i in range(20)]

    def graph():
        batch = fn.external_source(source=lambda i: [data[(i + k) % 20] for k in range(4)])
        sample = fn.external_source(lambda info: np.int32(info.idx_in_epoch), batch=False)
        a, b = fn.external_source(lambda: (np.zeros((4, 1)), np.ones((4, 2))), num_outputs=2)
        return batch, sample + fn.random.uniform(range=(0, 1)), a, b

    _compare(*_both(graph), iterations=3)


def test_feed_input_and_end_of_data():
    def graph():
        fed = fn.external_source(name="fed")
        batches = [np.full((4, 2), i, np.float32) for i in range(3)]
        finite = fn.external_source(source=batches, cycle="raise")
        return fed * finite, fn.random.coin_flip()

    standard, debug = _both(graph, prefetch_queue_depth=1)
    for _ in range(2):  # two epochs of three batches
        for i in range(3):
            batch = np.full((4, 1), i + 1, np.float32)
            standard.feed_input("fed", batch)
            debug.feed_input("fed", batch)
        _compare(standard, debug, iterations=3)
        for pipe in (standard, debug):
            pipe.feed_input("fed", batch)
            with pytest.raises(StopIteration):
                pipe.run()
            pipe.reset()


def test_variable_batch_size_from_an_external_source():
    sizes = [3, 6, 7, 8]

    @pipeline_def(batch_size=8, num_threads=1, device_id=None, seed=47, debug=True)
    def pipe():
        images = fn.external_source([np.zeros((n, 64, 64, 3), np.uint8) for n in sizes])
        return fn.random_resized_crop(images, size=(32, 32)), fn.random.coin_flip()

    p = pipe()
    for n in sizes:
        crops, flips = p.run()
        assert len(crops) == n and len(flips) == n


def test_seed_makes_the_values():
    def graph():
        return (
            fn.random.coin_flip(),
            fn.random.normal(),
            fn.random.uniform(),
            fn.batch_permutation(),
        )

    make = pipeline_def(graph, batch_size=8, num_threads=1, device_id=None, seed=47, debug=True)
    _compare(make(), make(), iterations=4)
    other = pipeline_def(graph, batch_size=8, num_threads=1, device_id=None, seed=48, debug=True)
    assert not np.array_equal(make().run()[1].as_array(), other().run()[1].as_array())


def test_readers_metadata_and_names(image_tree):
    debug = pipeline_def(
        lambda: _rn50(str(image_tree)), batch_size=_BATCH, num_threads=1, device_id=None
    )(debug=True)
    debug.run()
    assert debug.epoch_size("Reader") == 21
    assert debug.reader_meta("Reader")["epoch_size"] == 21
    debug.close()


# -- inside the definition: the data is there ---------------------------------------------------


def test_get_print_and_shape_inside_the_definition(image_tree, capsys):
    seen = {}

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=1, debug=True)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs)
        seen["types"] = type(images).__name__, type(images.get()).__name__
        seen["shapes"] = images.shape() == [tuple(np.asarray(s).shape) for s in images.get()]
        seen["labels"] = np.asarray(labels.get().as_array()).ravel().tolist()
        seen["is_node"] = isinstance(images, dali.pipeline.DataNode)
        print(labels)
        return fn.resize(images, resize_x=8, resize_y=8)

    (out,) = pipe().run()
    assert seen == {
        "types": ("DataNodeDebug", "TensorListCPU"),
        "shapes": True,
        "labels": [0, 0, 0],
        "is_node": True,
    }
    assert out.shape() == [(8, 8, 3)] * 3
    assert capsys.readouterr().out == (
        "DataNodeDebug(\n"
        '    name="__File_0[1]",\n'
        "    data=TensorListCPU(\n"
        "             [[0],\n"
        "             [0],\n"
        "             [0]],\n"
        "             dtype=DALIDataType.INT32,\n"
        '             device="cpu",\n'
        "             num_samples=3,\n"
        "             shape=[(1,), (1,), (1,)]))\n"
    )


def test_python_control_flow_on_values(image_tree):
    # Python decides on this batch's values: what to print, and per-sample arguments
    printed = []

    @pipeline_def(batch_size=_BATCH, num_threads=1, device_id=None, seed=5, debug=True)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs)
        portrait = [np.array(s.shape()[0] > s.shape()[1]) for s in images.get()]
        if labels.get().as_array().max() >= 1:
            printed.append("class 1")
        return fn.flip(images, horizontal=portrait), images, labels

    p = pipe()
    for _ in range(3):
        flipped, images, _ = p.run()
        for out, image in zip(flipped, images):
            image = np.asarray(image)
            expected = image[:, ::-1] if image.shape[0] > image.shape[1] else image
            np.testing.assert_array_equal(np.asarray(out), expected)
    assert printed == ["class 1", "class 1"]  # labels 0000, 0001, 1111


def test_data_given_to_operators(image_tree):
    # DALI's injection: a TensorList from .get(), a list of arrays, an array of samples
    loader = pipeline_def(
        lambda: fn.decoders.image(fn.readers.file(file_root=str(image_tree))[0]),
        batch_size=_BATCH,
        num_threads=1,
        device_id=None,
    )()

    @pipeline_def(batch_size=_BATCH, num_threads=1, device_id=None, debug=True)
    def injected(transform):
        images = fn.random_resized_crop(transform(loader.run()[0]), size=(24, 24), seed=27)
        return images, fn.flip(images.get(), horizontal=1), fn.cast(np.arange(4), dtype=types.UINT8)

    @pipeline_def(batch_size=_BATCH, num_threads=1, device_id=None)
    def standard():
        images = fn.decoders.image(fn.readers.file(file_root=str(image_tree))[0])
        images = fn.random_resized_crop(images, size=(24, 24), seed=27)
        index = fn.external_source(lambda: np.arange(4), batch=True)
        return images, fn.flip(images, horizontal=1), fn.cast(index, dtype=types.UINT8)

    for transform in (lambda tl: tl, lambda tl: [np.array(x) for x in tl]):
        _compare(standard(), injected(transform), iterations=4)  # (the reader's ids: 0..15)
        loader = pipeline_def(
            lambda: fn.decoders.image(fn.readers.file(file_root=str(image_tree))[0]),
            batch_size=_BATCH,
            num_threads=1,
            device_id=None,
        )()


def test_named_per_sample_arguments_from_data():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(lambda: [np.ones((2, 4, 1), np.float32)] * 3, layout="HWC")
        angles = [np.array(a, np.float32) for a in (0, 90, 180)]  # (one per sample)
        return fn.rotate(x, angle=angles), fn.reshape(x, shape=x.shape())

    rotated, same = pipe().run()
    assert rotated.shape() == [(2, 4, 1), (4, 2, 1), (2, 4, 1)]
    assert same.shape() == [(2, 4, 1)] * 3


def test_an_operator_error_names_the_call_and_the_pipeline_goes_on():
    calls = []

    def images(i):  # the second batch is too small for the crop
        return np.zeros((2, 2 if i == 1 else 8, 8, 3), np.uint8)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(images)
        calls.append(1)
        return fn.crop(x, crop=(4, 4), out_of_bounds_policy="error")

    p = pipe()
    p.run()
    with pytest.raises(dali._exec.executor.PipelineError) as e:
        p.run()
    assert "`dali.fn.crop`" in str(e.value) and "sample 0" in str(e.value)
    assert 'return fn.crop(x, crop=(4, 4), out_of_bounds_policy="error")' in str(e.value)
    assert p.run()[0].shape() == [(4, 4, 3)] * 2
    assert len(calls) == 3


def test_debug_argument_of_the_call_and_of_the_function():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def plain():
        return fn.random.uniform()

    assert type(plain()).__name__ == "Pipeline"
    assert type(plain(debug=True)).__name__ == "PipelineDebug"

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def takes_it(debug):
        assert debug is False
        return fn.random.uniform()

    pipe = takes_it(debug=False)  # (as in DALI: the function gets it, and it decides)
    assert type(pipe).__name__ == "Pipeline"
    assert dali.pipeline.experimental.pipeline_def.__module__ == "dali.pipeline.experimental"


# -- DALI's errors ---------------------------------------------------------------------------------


def test_get_outside_debug_mode():
    with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        node = fn.random.uniform()
    with pytest.raises(AttributeError, match="get"):
        node.get()


def _twice(graph, **kw):
    kw = {"batch_size": 8, "num_threads": 1, "device_id": None, "seed": 1, "debug": True, **kw}
    pipe = pipeline_def(graph, **kw)()
    pipe.run()
    pipe.run()


def test_operators_order_change():
    state = {"change": False}

    def graph():
        rng = 0 if state["change"] else fn.random.coin_flip(probability=0.5, seed=47)
        state["change"] = True
        return fn.random.uniform(range=(0, 1)) + rng

    with pytest.raises(
        RuntimeError,
        match=r"Unexpected operator '\w+'\. Debug mode does not support changing the order of "
        r"operators executed within the pipeline\.",
    ):
        _twice(graph)


def test_inputs_len_change():
    state = {"change": True}

    def graph():
        x = [np.zeros(1)] * 8
        inputs = [x] if state.pop("change", False) else [x] * 2
        return fn.cat(*inputs)

    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Trying to use operator 'cat' with different number of inputs than when it was "
            "built. Expected: 1 inputs, got 2."
        ),
    ):
        _twice(graph)


def test_kwargs_len_change():
    state = {"change": True}

    def graph():
        kwargs = {"axis": 0} if state.pop("change", False) else {}
        return fn.cat(*[[np.zeros(1)] * 8] * 2, **kwargs)

    with pytest.raises(
        RuntimeError,
        match="Trying to use operator 'cat' with different number of keyword arguments than "
        "when it was built",
    ):
        _twice(graph)


def test_inputs_batch_change():
    state = {"change": True}

    def graph():
        x = np.zeros(8) if state.pop("change", False) else [np.zeros(1)] * 8
        return fn.random.coin_flip(x)

    with pytest.raises(
        RuntimeError, match="Input 0 for operator 'coin_flip' is a batch but was a constant"
    ):
        _twice(graph)


def test_kwargs_batch_change():
    state = {"change": True}

    def graph():
        p = 0.75 if state.pop("change", False) else [np.zeros(())] * 8
        return fn.random.coin_flip(probability=p)

    with pytest.raises(
        RuntimeError, match="Argument probability for operator 'coin_flip' is a batch but was a"
    ):
        _twice(graph)


@pytest.mark.parametrize("values", [[np.nan, 1.0], [1.0, np.nan], [1.0, 2.0]])
def test_constant_argument_changes(values):
    source = iter(values)
    with pytest.raises(
        RuntimeError,
        match="Argument 'fdata' for operator 'constant' unexpectedly changed value from",
    ):
        _twice(lambda: fn.constant(fdata=next(source), shape=()))


@pytest.mark.parametrize("values", [[1.0, 1.0], [np.nan, np.nan]])
def test_constant_argument_stays(values):
    source = iter(values)
    _twice(lambda: fn.constant(fdata=next(source), shape=()))


def test_data_for_a_constant_may_change():
    # an array given to an operator (a `types.Constant`, an arithmetic operand) is data
    source = iter([1, 2, 3])

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        return types.Constant(np.full(3, next(source), np.int32)) + 0

    p = pipe()
    assert [p.run()[0].as_array()[0, 0] for _ in range(3)] == [1, 2, 3]


def test_input_metadata_change():
    state = {"change": True}

    def graph():
        dtype = np.uint8 if state.pop("change", False) else np.float32
        return fn.flip([np.zeros((2, 2, 3), dtype)] * 8)

    with pytest.raises(
        RuntimeError,
        match=re.escape("Input 0 for operator 'flip' has dtype = DALIDataType.FLOAT, expected:"),
    ):
        _twice(graph)


def test_batch_size_of_data_must_be_the_iteration_s(image_tree):
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, debug=True)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs)
        return labels, fn.random_resized_crop([images.get()[i] for i in range(6)], size=(8, 8))

    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Batch size must be uniform across an iteration. Input 0 for operator "
            "'random_resized_crop' has batch size = 6. Expected batch size = 8"
        ),
    ):
        pipe().run()


def test_external_source_batch_size_must_be_the_iteration_s():
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, debug=True)
    def pipe():
        full = fn.external_source(lambda: np.zeros((8, 2), np.uint8))
        part = fn.external_source(np.zeros((1, 6, 4, 4, 3), np.uint8))
        return full, part

    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Batch size must be uniform across an iteration. External Source operator "
            "returned batch size: 6, expected: 8."
        ),
    ):
        pipe().run()


def test_conditionals_take_no_data_from_get():
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        pred = fn.random.coin_flip(seed=42, dtype=types.BOOL)
        rng = fn.random.coin_flip(seed=1)
        if pred:
            output = fn.copy(rng.get())
        else:
            output = rng + 10
        return pred, output

    with pytest.raises(
        ValueError,
        match=r"Debug mode with conditional execution \(when `enable_conditionals=True`\) "
        r"doesn't allow for modification of operator outputs by libraries other than DALI or "
        r"using the TensorLists extracted via `.get\(\)` as inputs. Expected `DataNodeDebug` as "
        r"an input, got <class '[\w.]*TensorListCPU'> at input 0.",
    ):
        pipe(debug=True).run()


def test_with_statement_and_compiled_only_methods():
    pipe = pipeline_def(lambda: fn.random.uniform(), batch_size=1, num_threads=1, debug=True)()
    with pytest.raises(RuntimeError, match="works only with `pipeline_def` decorator"), pipe:
        pass
    for method in ("schedule_run", "outputs", "checkpoint", "serialize"):
        with pytest.raises(RuntimeError, match=f"`Pipeline.{method}` is not available in debug"):
            getattr(pipe, method)()


def test_nested_output():
    pipe = pipeline_def(
        lambda: (fn.random.uniform(), [fn.random.uniform()]), batch_size=1, num_threads=1
    )(debug=True)
    with pytest.raises(TypeError, match=r"Illegal pipeline output type\. The output 1 contains"):
        pipe.run()


def test_node_of_another_pipeline():
    with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        other = fn.random.uniform()
    pipe = pipeline_def(lambda: other + 1, batch_size=1, num_threads=1)(debug=True)
    with pytest.raises(TypeError, match="was not computed in this debug-mode run"):
        pipe.run()


@pytest.mark.parametrize("gpu_work", ["copy", "operator"])
def test_gpu_work_without_a_gpu(gpu_work):
    def graph():
        x = fn.random.uniform(shape=[2])
        return x.gpu() if gpu_work == "copy" else fn.flip(x[dali.newaxis], device="gpu")

    pipe = pipeline_def(graph, batch_size=2, num_threads=1, device_id=None)(debug=True)
    with pytest.raises(RuntimeError, match="requires a CUDA-capable GPU, but device_id=None"):
        pipe.run()


# -- on the GPU ------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_resnet50_training_pipeline_gpu(image_tree):
    _compare(*_both(lambda: _rn50(str(image_tree), "gpu"), device_id=0))


@pytest.mark.gpu
def test_quickstart_pipeline_gpu(image_tree, capsys):
    def graph():
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs, device="mixed")
        if isinstance(images, dali.pipeline.DataNode) and hasattr(images, "get"):
            print(type(images.get()).__name__, images.get().as_cpu().shape()[0])
        resized = fn.resize(images, resize_x=40, resize_y=30)
        return resized, labels.gpu(), resized.cpu()

    _compare(*_both(graph, device_id=0))
    assert "TensorListGPU" in capsys.readouterr().out


@pytest.mark.gpu
def test_ssd_pipeline_gpu(tmp_path):
    _compare(*_both(_ssd(tmp_path, "gpu"), batch_size=3, device_id=0), iterations=5)


@pytest.mark.gpu
def test_conditionals_gpu(image_tree):
    def graph():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), random_shuffle=True)
        images = fn.decoders.image(jpegs, device="mixed")
        if fn.random.coin_flip():
            images = fn.flip(images, horizontal=1)
        else:
            images = fn.rotate(images, angle=fn.random.uniform(range=(-30, 30)))
        return fn.resize(images, resize_x=24, resize_y=24), labels

    _compare(*_both(graph, device_id=0, enable_conditionals=True))


@pytest.mark.gpu
def test_device_change_gpu(image_tree):
    state = {"gpu": True}

    def graph():
        jpegs, _ = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image(jpegs)
        if state.pop("gpu", False):
            images = images.gpu()
        return fn.random_resized_crop(images, size=(8, 8))

    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Input 0 for operator 'random_resized_crop' is on 'cpu' but was on 'gpu' when created."
        ),
    ):
        _twice(graph, device_id=0)


@pytest.mark.gpu
def test_data_given_to_gpu_operators():
    import cupy as cp

    @pipeline_def(batch_size=2, num_threads=1, device_id=0, debug=True)
    def pipe():
        x = fn.flip([cp.ones((2, 3, 3), cp.uint8), cp.zeros((2, 3, 3), cp.uint8)], horizontal=1)
        assert type(x.get()).__name__ == "TensorListGPU"
        return x

    (x,) = pipe().run()
    assert type(x).__name__ == "TensorListGPU"
    assert x.as_cpu().as_array().sum() == 18
