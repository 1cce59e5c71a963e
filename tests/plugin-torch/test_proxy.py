"""DALI proxy (`dali.plugin.pytorch.experimental.proxy`): DataLoader workers call the proxy,
one pipeline in this process makes the batches (DALI's ``dali/test/python/test_dali_proxy.py``,
ported, and more).

Every batch is checked against the same pipeline fed the same batch directly, with 0, 1 and 2
workers and spawned workers; errors reach the training loop (and the loop can go on); the
server's threads, the workers and the socket are gone after shutdown; deterministic mode gives
the directly fed pipeline's random results whatever the workers; nested samples (dicts, named
tuples, duplicated and reordered outputs) get their tensors. GPU variants: ``pytest -m gpu``.
"""

from __future__ import annotations

import gc
import inspect
import multiprocessing
import os
import pickle
import threading
from collections import namedtuple

import numpy as np
import pytest
import torch
from dali import fn, pipeline_def, types
from dali.plugin.pytorch.experimental import proxy as dali_proxy
from processes import shm_entries
from torch.utils import data as torchdata
from torch.utils.data import default_collate

BATCH = 4
SIZE = 24
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def read_filepath(path) -> np.ndarray:
    return np.frombuffer(str(path).encode(), dtype=np.int8)


def image_files(root) -> list[tuple[str, int]]:
    """``(path, class index)`` of every image, as torchvision's ImageFolder lists them."""
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    return [
        (os.path.join(root, c, f), label)
        for label, c in enumerate(classes)
        for f in sorted(os.listdir(os.path.join(root, c)))
    ]


class ImageFolder(torchdata.Dataset):
    """torchvision's ImageFolder (torchvision is optional here): ``(transform(loader(path)),
    label)``; ``loader=None`` decodes with Pillow to an HWC uint8 array."""

    def __init__(self, root, transform, loader=None):
        self.samples = image_files(root)
        self.transform = transform
        self.loader = loader

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, label = self.samples[index]
        if self.loader is None:
            from PIL import Image

            with Image.open(path) as img:
                sample = np.asarray(img.convert("RGB"))
        else:
            sample = self.loader(path)
        return self.transform(sample), label


@pipeline_def
def image_pipe(dali_device="cpu", include_decoder=True, random_pipe=False):
    if include_decoder:
        filepaths = fn.external_source(name="images", no_copy=True)
        jpegs = fn.io.file.read(filepaths)
        decoder = "mixed" if dali_device == "gpu" else "cpu"
        images = fn.decoders.image(jpegs, device=decoder, output_type=types.RGB)
    else:
        images = fn.external_source(name="images", no_copy=True, layout="HWC")
        if dali_device == "gpu":
            images = images.gpu()
    images = fn.resize(images, size=[SIZE, SIZE], interp_type=types.INTERP_LINEAR)
    mirror = fn.random.coin_flip(probability=0.5) if random_pipe else False
    if random_pipe:  # a second random operator: brightness noise per sample
        images = images * fn.random.uniform(range=[0.5, 1.5])
    return fn.crop_mirror_normalize(
        images, dtype=types.FLOAT, output_layout="CHW", mean=MEAN, std=STD, mirror=mirror
    )


def _pipe(**kwargs):
    args = {"batch_size": BATCH, "num_threads": 2, "device_id": None, "prefetch_queue_depth": 4}
    args.update(kwargs)
    device_args = {
        k: args.pop(k) for k in ("dali_device", "include_decoder", "random_pipe") if k in args
    }
    return image_pipe(**device_args, **args)


def _as_numpy(tl) -> np.ndarray:
    return np.stack([np.asarray(tl.as_cpu()[i]) for i in range(len(tl))])


def _reference(pipe, batches) -> list[np.ndarray]:
    """The pipeline fed each batch directly, in order."""
    out = []
    for batch in batches:
        pipe.feed_input("images", batch)
        (tl,) = pipe.run()
        out.append(_as_numpy(tl))
    return out


def _check_same_as_fed_directly(loader, dataset_ref, ref_pipe):
    got = [(data, target) for data, target in loader]
    samples = [dataset_ref[i] for i in range(len(dataset_ref))]
    batches = [samples[i : i + BATCH] for i in range(0, len(samples), BATCH)]
    assert len(got) == len(batches) == 6  # 21 images: 5 batches of 4, 1 of 1
    ref = _reference(ref_pipe, [[s for s, _ in b] for b in batches])
    for (data, target), expected, batch in zip(got, ref, batches):
        assert isinstance(data, torch.Tensor) and data.dtype == torch.float32
        assert tuple(data.shape) == (len(batch), 3, SIZE, SIZE)
        assert target.tolist() == [label for _, label in batch]
        np.testing.assert_array_equal(data.cpu().numpy(), expected)


# -- the same batches as the pipeline fed directly ------------------------------------------


@pytest.mark.parametrize("include_decoder", [True, False])
@pytest.mark.parametrize("nworkers", [0, 1, 2])
def test_same_batches_as_the_pipeline_fed_directly(image_tree, nworkers, include_decoder):
    pipe = _pipe(include_decoder=include_decoder)
    ref_pipe = _pipe(include_decoder=include_decoder, prefetch_queue_depth=1)
    loader_fn = read_filepath if include_decoder else None
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=loader_fn)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=nworkers)
        assert len(loader) == 6
        _check_same_as_fed_directly(
            loader,
            ImageFolder(image_tree, transform=lambda x: x.copy(), loader=loader_fn),
            ref_pipe,
        )
    pipe.close()
    ref_pipe.close()


def test_spawned_workers_get_a_pickled_proxy(image_tree):
    """The proxy pickles: workers started with "spawn" (and "forkserver") use it."""
    pipe = _pipe()
    ref_pipe = _pipe(prefetch_queue_depth=1)
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = dali_proxy.DataLoader(
            server, dataset, batch_size=BATCH, num_workers=1, multiprocessing_context="spawn"
        )
        ref_dataset = ImageFolder(image_tree, transform=lambda x: x.copy(), loader=read_filepath)
        _check_same_as_fed_directly(loader, ref_dataset, ref_pipe)
    pipe.close()
    ref_pipe.close()


def test_a_plain_torch_dataloader_with_produce_data(image_tree):
    """DALI's third example: torch's own DataLoader, the references replaced by hand."""
    pipe = _pipe()
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = torchdata.DataLoader(dataset, batch_size=BATCH, num_workers=2, drop_last=True)
        n = 0
        for data, target in loader:
            assert isinstance(data, dali_proxy.DALIOutputBatchRef)
            data = server.produce_data(data)
            assert tuple(data.shape) == (BATCH, 3, SIZE, SIZE) and tuple(target.shape) == (BATCH,)
            n += 1
        assert n == 5
    pipe.close()


def test_manual_integration_with_a_custom_collate_fn(image_tree):
    """DALI's manual integration: a collate_fn that collates the markers itself."""

    def custom_collate_fn(batch):
        images, labels = zip(*batch)
        return dali_proxy._collate_dali_output_sample_ref_fn(images), torch.tensor(labels)

    pipe = _pipe(include_decoder=False)
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy)
        loader = torchdata.DataLoader(
            dataset, batch_size=BATCH, num_workers=2, drop_last=True, collate_fn=custom_collate_fn
        )
        for next_input, next_target in loader:
            assert isinstance(next_input, dali_proxy.DALIOutputBatchRef)
            next_input = server.produce_data(next_input)
            assert isinstance(next_input, torch.Tensor)
            assert tuple(next_input.shape) == (BATCH, 3, SIZE, SIZE)
            assert tuple(next_target.shape) == (BATCH,)
    pipe.close()


# -- the proxy callable ------------------------------------------------------------------------


@pipeline_def
def pipe_2_outputs(device="cpu"):
    a = fn.external_source(name="a", no_copy=True)
    b = fn.external_source(name="b", no_copy=True)
    if device == "gpu":
        a = a.gpu()
        b = b.gpu()
    return a + b, b - a


@pytest.mark.parametrize("named_arguments", [False, True])
def test_proxy_callable_with_default_collate(named_arguments):
    rng = np.random.default_rng(0)
    pipe = pipe_2_outputs(batch_size=BATCH, num_threads=2, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        if not named_arguments:  # positional inputs only when the pipeline has one input
            with pytest.raises(ValueError, match="too many positional arguments"):
                server.proxy(np.zeros(3), np.zeros(3))
        outs = []
        for _ in range(BATCH):
            a = rng.random((3, 3), dtype=np.float32)
            b = rng.random((3, 3), dtype=np.float32)
            out0, out1 = server.proxy(a=a, b=b) if named_arguments else server.proxy(b=b, a=a)
            outs.append((a, b, out0, out1))
        a, b, a_plus_b, b_minus_a = server.produce_data(default_collate(outs))
        np.testing.assert_array_almost_equal(a_plus_b, a + b)
        np.testing.assert_array_almost_equal(b_minus_a, b - a)
    pipe.close()


def test_proxy_signature_and_repr():
    pipe2 = pipe_2_outputs(batch_size=2, num_threads=1, device_id=None)
    server = dali_proxy.DALIServer(pipe2)
    sig = inspect.signature(server.proxy)
    assert list(sig.parameters) == ["a", "b"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.parameters.values())
    assert "DALIServer(inputs=['a', 'b'], stopped)" == repr(server)
    single = dali_proxy.DALIServer(_pipe())
    (param,) = inspect.signature(single.proxy).parameters.values()
    assert param.name == "images" and param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ref = single.proxy(read_filepath("x"))  # one output: the marker itself, not a tuple
    assert isinstance(ref, dali_proxy.DALIOutputSampleRef) and ref.output_idx == 0
    with pytest.raises(ValueError, match=r"Expected signature is: \(images\)"):
        single.proxy(images=1, other=2)
    for s in (server, single):
        s.close()


def test_the_proxy_pickles_and_works_from_anywhere():
    """A pickled proxy (what spawned workers get) sends its requests over the socket."""
    pipe = pipe_2_outputs(batch_size=2, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        proxy = pickle.loads(pickle.dumps(server.proxy))
        samples = [proxy(a=np.float32([i]), b=np.float32([10])) for i in range(2)]
        plus, minus = server.produce_data(default_collate(samples))
        assert plus.ravel().tolist() == [10.0, 11.0] and minus.ravel().tolist() == [10.0, 9.0]
    pipe.close()


def test_produce_data_circular_dependencies_and_objects():
    pipe = pipe_2_outputs(batch_size=1, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:

        class B:
            def __init__(self, parent):
                self.parent = parent

        class A:
            def __init__(self):
                self.child = B(self)

        objs = [A() for _ in range(3)]
        assert server.produce_data(objs) is objs  # nothing to replace: untouched

        # an object holding a batch's markers, with a cycle back to itself
        holder = A()
        holder.child.data = default_collate([server.proxy(a=np.float32([2]), b=np.float32([3]))])
        holder.child.again = holder.child.data  # a shared reference: one batch, taken once
        server.produce_data(holder)
        plus, minus = holder.child.data
        assert plus.item() == 5.0 and minus.item() == 1.0
        assert holder.child.again is holder.child.data and holder.child.parent is holder


def test_produce_data_twice_gives_the_same_tensors():
    pipe = pipe_2_outputs(batch_size=1, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        batch = tuple(default_collate([server.proxy(a=np.float32([1]), b=np.float32([1]))]))
        first = server.produce_data(batch)
        second = server.produce_data(batch)  # the tuple is rebuilt; its markers were taken
        assert first[0] is second[0] and first[1] is second[1]
    pipe.close()


def test_uncollated_samples_are_an_error():
    pipe = pipe_2_outputs(batch_size=1, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        refs = server.proxy(a=np.float32([1]), b=np.float32([1]))
        with pytest.raises(TypeError, match="did not collate the samples"):
            server.produce_data(list(refs))
    pipe.close()


# -- nested outputs ------------------------------------------------------------------------------

Pair = namedtuple("Pair", ["plus", "minus"])


class NestedDataset(torchdata.Dataset):
    """Samples with the pipeline's outputs nested: dicts, tuples, named tuples, in reverse
    order of the keyword arguments, twice."""

    def __init__(self, arrs, transform):
        self.arrs = arrs
        self.transform = transform

    def __len__(self):
        return len(self.arrs)

    def __getitem__(self, idx):
        a = self.arrs[idx]
        b = self.arrs[(idx + 1) % len(self.arrs)]
        a_plus_b, b_minus_a = self.transform(b=b, a=a)  # keyword order on purpose
        return {
            "index": idx,
            "sum": a_plus_b,
            "nested": {"pair": Pair(a_plus_b, b_minus_a), "tuple": (b_minus_a, idx)},
            "inputs": (a, b),
        }


@pytest.mark.parametrize("nworkers", [0, 2])
def test_nested_outputs(nworkers):
    rng = np.random.default_rng(1)
    arrs = rng.random((20, 3)).astype(np.float32)
    pipe = pipe_2_outputs(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=4)
    with dali_proxy.DALIServer(pipe) as server:
        loader = dali_proxy.DataLoader(
            server, NestedDataset(arrs, server.proxy), batch_size=BATCH, num_workers=nworkers
        )
        seen = []
        for batch in loader:
            a, b = batch["inputs"]
            np.testing.assert_allclose(batch["sum"].numpy(), (a + b).numpy())
            pair = batch["nested"]["pair"]
            assert type(pair) is Pair
            assert pair.plus is batch["sum"]  # one batch's output, the same tensor everywhere
            np.testing.assert_allclose(pair.minus.numpy(), (b - a).numpy())
            minus, index = batch["nested"]["tuple"]
            assert minus is pair.minus and index.tolist() == batch["index"].tolist()
            seen += batch["index"].tolist()
        assert seen == list(range(20))
    pipe.close()


class TensorDataset(torchdata.Dataset):
    """The proxy's inputs as torch tensors (from workers: through shared memory)."""

    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 8

    def __getitem__(self, idx):
        x = torch.arange(6, dtype=torch.int32).reshape(2, 3) + idx
        return self.transform(x), x


@pytest.mark.parametrize("nworkers", [0, 2])
def test_torch_tensor_inputs(nworkers):
    pipe = square(batch_size=BATCH, num_threads=2, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        loader = dali_proxy.DataLoader(
            server, TensorDataset(server.proxy), batch_size=BATCH, num_workers=nworkers
        )
        batches = list(loader)
        assert len(batches) == 2
        for squared, x in batches:
            assert squared.dtype == torch.int32 and torch.equal(squared, x * x)
    pipe.close()


class DuplicatedDataset(ImageFolder):
    def __getitem__(self, index):
        img, label = super().__getitem__(index)
        return img, label, img


def test_duplicated_outputs(image_tree):
    pipe = _pipe(include_decoder=False)
    with dali_proxy.DALIServer(pipe) as server:
        dataset = DuplicatedDataset(image_tree, transform=server.proxy)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=2)
        for data1, _, data2 in loader:
            assert data1 is data2
    pipe.close()


def test_two_servers_and_reordered_outputs():
    """DALI's rearrange test: two servers at once, outputs returned in either order."""
    arrs = np.random.default_rng(2).random((20, 3)).astype(np.float32)

    class Reordered(torchdata.Dataset):
        def __init__(self, transform, reverse):
            self.transform, self.reverse = transform, reverse

        def __len__(self):
            return len(arrs)

        def __getitem__(self, idx):
            a_plus_b, b_minus_a = self.transform(b=arrs[(idx + 1) % len(arrs)], a=arrs[idx])
            return (b_minus_a, 1, a_plus_b) if self.reverse else (a_plus_b, 1, b_minus_a)

    def make():
        return pipe_2_outputs(
            batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=4
        )

    pipe1, pipe2 = make(), make()
    with dali_proxy.DALIServer(pipe1) as s1, dali_proxy.DALIServer(pipe2) as s2:
        # num_workers=0: a Dataset defined in a test function cannot go to a spawned worker
        loader1 = dali_proxy.DataLoader(s1, Reordered(s1.proxy, False), batch_size=BATCH)
        loader2 = dali_proxy.DataLoader(s2, Reordered(s2.proxy, True), batch_size=BATCH)
        n = 0
        for data1, data2 in zip(loader1, loader2):
            np.testing.assert_array_equal(data1[0].numpy(), data2[2].numpy())
            np.testing.assert_array_equal(data1[1].numpy(), data2[1].numpy())
            np.testing.assert_array_equal(data1[2].numpy(), data2[0].numpy())
            n += 1
        assert n == 5
    pipe1.close()
    pipe2.close()


# -- deterministic mode ----------------------------------------------------------------------


@pytest.mark.parametrize("nworkers", [1, 2])
def test_deterministic_gives_the_directly_fed_pipelines_random_results(image_tree, nworkers):
    """Deterministic: batches run in the DataLoader's order, so a random pipeline gives what
    the same pipeline (same seed) gives fed those batches directly, whatever the workers."""
    pipe = _pipe(random_pipe=True, seed=1234)
    ref_pipe = _pipe(random_pipe=True, seed=1234, prefetch_queue_depth=1)
    with dali_proxy.DALIServer(pipe, deterministic=True) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=nworkers)
        ref_dataset = ImageFolder(image_tree, transform=lambda x: x.copy(), loader=read_filepath)
        _check_same_as_fed_directly(loader, ref_dataset, ref_pipe)
    pipe.close()
    ref_pipe.close()


def test_deterministic_runs_repeat_with_shuffling(image_tree):
    """DALI's deterministic test: shuffled, 2 workers, twice: the same batches."""

    def run():
        pipe = _pipe(random_pipe=True, seed=99, batch_size=1)
        torch.manual_seed(775653)
        with dali_proxy.DALIServer(pipe, deterministic=True) as server:
            dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
            loader = dali_proxy.DataLoader(
                server, dataset, batch_size=1, num_workers=2, shuffle=True
            )
            out = [(data.clone(), label.item()) for (data, label), _ in zip(loader, range(8))]
        pipe.close()
        return out

    first, second = run(), run()
    assert [label for _, label in first] == [label for _, label in second]
    for (x, _), (y, _) in zip(first, second):
        assert torch.equal(x, y)


def test_deterministic_batches_carry_their_inputs(image_tree):
    """In deterministic mode nothing is sent at collation: the markers carry the inputs."""
    pipe = _pipe()
    with dali_proxy.DALIServer(pipe, deterministic=True) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = torchdata.DataLoader(dataset, batch_size=BATCH, num_workers=1)
        data, _ = next(iter(loader))
        run_ref = data.pipe_run_ref
        assert not run_ref.is_scheduled and len(run_ref.call_args["images"]) == BATCH
        out = server.produce_data(data)
        assert tuple(out.shape) == (BATCH, 3, SIZE, SIZE)
        assert run_ref.is_scheduled and run_ref.call_args == {}
    pipe.close()


# -- errors --------------------------------------------------------------------------------------


@pipeline_def
def pipe_with_error():
    images = fn.external_source(name="images", no_copy=True, layout="HWC")
    error_anchor = types.Constant(np.array([-10], dtype=np.float32))
    return fn.crop(images, crop=(8, 8), crop_pos_x=error_anchor, out_of_bounds_policy="error")


def test_pipeline_errors_are_raised_in_the_training_loop(image_tree):
    pipe = pipe_with_error(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=3)
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=2)
        it = iter(loader)
        with pytest.raises(RuntimeError, match=r"(?s)fn\.crop.*crop_pos_x.*out of range"):
            next(it)
        # the server lives on: the next batch fails the same way, it does not hang
        with pytest.raises(RuntimeError, match=r"(?s)fn\.crop.*out of range"):
            next(it)
        del it
    pipe.close()


class TypedDataset(torchdata.Dataset):
    """int32 samples, except float32 ones in the batch ``bad``."""

    def __init__(self, transform, bad):
        self.transform, self.bad = transform, bad

    def __len__(self):
        return 12

    def __getitem__(self, idx):
        dtype = np.float32 if idx // BATCH == self.bad else np.int32
        return self.transform(np.full(2, idx, dtype)), idx


@pipeline_def
def typed_pipe():
    return fn.external_source(name="x", no_copy=True, dtype=types.INT32) * 2


def test_a_failed_batch_is_raised_and_the_loop_goes_on():
    pipe = typed_pipe(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=4)
    with dali_proxy.DALIServer(pipe) as server:
        loader = dali_proxy.DataLoader(
            server, TypedDataset(server.proxy, bad=1), batch_size=BATCH, num_workers=2
        )
        it = iter(loader)
        x, idx = next(it)
        assert x[:, 0].tolist() == [0, 2, 4, 6]
        with pytest.raises(RuntimeError, match="expected data of type int32"):
            next(it)  # samples 4..7 are float
        x, idx = next(it)
        assert idx.tolist() == [8, 9, 10, 11] and x[:, 0].tolist() == [16, 18, 20, 22]
        with pytest.raises(StopIteration):
            next(it)
    pipe.close()


def test_inputs_out_of_step_fail_every_later_batch():
    """The second input's feed fails after the first was fed: the pipeline's inputs no longer
    match, so every later batch fails rather than pairing the wrong data."""

    @pipeline_def
    def two_inputs():
        a = fn.external_source(name="a", no_copy=True)
        b = fn.external_source(name="b", no_copy=True, dtype=types.INT32)
        return a + b

    pipe = two_inputs(batch_size=2, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:

        def batch(b_dtype):
            refs = [server.proxy(a=np.int32([1]), b=np.ones(1, b_dtype)) for _ in range(2)]
            return default_collate(refs)

        with pytest.raises(RuntimeError, match="expected data of type int32"):
            server.produce_data(batch(np.float32))
        with pytest.raises(RuntimeError, match="expected data of type int32"):
            server.produce_data(batch(np.int32))  # good data, but the server is broken


def test_worker_errors_reach_the_loop():
    """An error in a worker (here, a wrong call of the proxy) is torch's to re-raise."""

    class Positional(torchdata.Dataset):
        def __init__(self, proxy):
            self.proxy = proxy

        def __len__(self):
            return 4

        def __getitem__(self, idx):
            return self.proxy(np.zeros(1), np.zeros(1))

    pipe = pipe_2_outputs(batch_size=BATCH, num_threads=1, device_id=None)
    with dali_proxy.DALIServer(pipe) as server:
        loader = dali_proxy.DataLoader(server, Positional(server.proxy), batch_size=BATCH)
        with pytest.raises(ValueError, match="too many positional arguments"):
            next(iter(loader))
    pipe.close()


def test_a_server_that_is_not_running_raises_instead_of_waiting():
    pipe = pipe_2_outputs(batch_size=1, num_threads=1, device_id=None)
    server = dali_proxy.DALIServer(pipe)
    batch = default_collate([server.proxy(a=np.float32([1]), b=np.float32([2]))])
    with pytest.raises(RuntimeError, match="DALIServer is not running"):
        server.produce_data(batch)
    with server:  # the request waited in the inbox: a started server runs it
        plus, minus = server.produce_data(batch)
    assert plus.item() == 3.0 and minus.item() == 1.0
    server.close()
    pipe.close()


def test_argument_errors():
    with pytest.raises(TypeError, match="Expected a DALI pipeline"):
        dali_proxy.DALIServer("not a pipeline")

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def no_inputs():
        return fn.external_source(lambda: [np.zeros(1)] * 2, batch=True)

    with pytest.raises(RuntimeError, match="doesn't have any inputs"):
        dali_proxy.DALIServer(no_inputs())

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def bad_name():
        return fn.external_source(name="my-input")

    with pytest.raises(ValueError, match="'my-input' cannot be a parameter of the proxy"):
        dali_proxy.DALIServer(bad_name())
    pipe = pipe_2_outputs(batch_size=2, num_threads=1, device_id=None)
    server = dali_proxy.DALIServer(pipe)
    with pytest.raises(ValueError, match=r"batch_size \(3\) is larger than the batch size"):
        dali_proxy.DataLoader(server, NestedDataset(np.zeros((4, 1)), server.proxy), batch_size=3)
    server.close()
    with pytest.raises(RuntimeError, match="was closed"):
        server.start_thread()


# -- start, stop, shutdown -------------------------------------------------------------------------


def _proxy_threads(since=()):
    """The proxy's threads alive now and not in ``since``."""
    return [t for t in threading.enumerate() if t.name.startswith("dali-proxy") and t not in since]


@pipeline_def
def square(device="cpu"):
    a = fn.external_source(name="a", no_copy=True)
    if device == "gpu":
        a = a.gpu()
    return a**2


class SquareDataset(torchdata.Dataset):
    def __init__(self, transform_fn, n=10):
        self.transform_fn, self.n = transform_fn, n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return np.array(idx), self.transform_fn(np.array(idx))


def test_restart_server():
    """DALI's test: the DataLoader starts the server; stopped by hand, it starts again."""
    before = set(_proxy_threads())
    server = dali_proxy.DALIServer(
        square(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=4)
    )
    loader = dali_proxy.DataLoader(
        server, SquareDataset(server.proxy), batch_size=BATCH, num_workers=2, drop_last=True
    )
    for _ in range(3):  # 3 epochs
        assert server._thread is None
        for data0, data1 in loader:
            np.testing.assert_array_almost_equal(data0**2, data1)
            assert server._thread is not None
        server.stop_thread()
    assert not _proxy_threads(before)
    server.close()


def test_clean_shutdown(image_tree):
    """After the `with`: no thread of the server, no worker process, nothing new in
    /dev/shm; closing removes the socket's folder."""
    shm_before = shm_entries()
    before = set(_proxy_threads())
    pipe = _pipe()
    with dali_proxy.DALIServer(pipe) as server:
        names = [t.name for t in _proxy_threads(before)]
        assert names == ["dali-proxy-pipeline", "dali-proxy-listener"]
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=2)
        assert sum(1 for _ in loader) == 6
        assert not multiprocessing.active_children()  # the epoch's end joined the workers
    assert server._thread is None and not _proxy_threads(before)
    folder = os.path.dirname(server._engine.listener.address)
    assert os.path.isdir(folder)
    server.close()
    assert not os.path.exists(folder)
    pipe.close()
    assert shm_entries() <= shm_before


def test_an_epoch_left_early_leaves_nothing_behind(image_tree):
    """``break`` after one batch: the prefetched batches of that iteration are dropped
    (not kept for ever, not given to the next epoch), and the next epoch is right."""
    pipe = _pipe(prefetch_queue_depth=6)
    ref_pipe = _pipe(prefetch_queue_depth=1)
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=2)
        for _ in loader:
            break
        gc.collect()  # (the iterator is gone already: reference counting)
        assert not multiprocessing.active_children()
        assert server._engine.pending() == 0
        ref_dataset = ImageFolder(image_tree, transform=lambda x: x.copy(), loader=read_filepath)
        _check_same_as_fed_directly(loader, ref_dataset, ref_pipe)
        assert server._engine.pending() == 0
    pipe.close()
    ref_pipe.close()


def test_persistent_workers_across_epochs_and_an_epoch_left_early():
    server = dali_proxy.DALIServer(
        square(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=4)
    )
    loader = dali_proxy.DataLoader(
        server,
        SquareDataset(server.proxy, n=16),
        batch_size=BATCH,
        num_workers=2,
        persistent_workers=True,
    )
    for epoch in range(3):
        seen = []
        for data0, data1 in loader:
            np.testing.assert_array_equal(data0.numpy() ** 2, data1.numpy())
            seen += data0.tolist()
            if epoch == 1:
                break  # the same workers go on with the next epoch
        assert seen == (list(range(BATCH)) if epoch == 1 else list(range(16)))
    del loader
    server.close()


def test_a_loader_started_server_stops_with_the_loader():
    before = set(_proxy_threads())
    server = dali_proxy.DALIServer(square(batch_size=BATCH, num_threads=1, device_id=None))
    loader = dali_proxy.DataLoader(server, SquareDataset(server.proxy), batch_size=BATCH)
    assert next(x.tolist() for _, x in loader) == [0, 1, 4, 9]
    assert server._thread is not None and loader.server_started_by_loader
    del loader
    gc.collect()
    assert server._thread is None and not _proxy_threads(before)
    server.close()


def test_a_forgotten_server_stops_its_threads():
    before = set(_proxy_threads())
    server = dali_proxy.DALIServer(square(batch_size=2, num_threads=1, device_id=None))
    proxy = server.proxy  # the proxy (held by a dataset) does not keep the server alive
    server.start_thread()
    threads = _proxy_threads(before)
    assert len(threads) == 2
    del server
    gc.collect()
    assert not any(t.is_alive() for t in threads)
    assert proxy is not None


# -- GPU -------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("include_decoder", [True, False])
@pytest.mark.parametrize("nworkers", [0, 2])
def test_gpu_same_batches_as_the_pipeline_fed_directly(image_tree, nworkers, include_decoder):
    pipe = _pipe(dali_device="gpu", include_decoder=include_decoder, device_id=0)
    ref_pipe = _pipe(
        dali_device="gpu", include_decoder=include_decoder, device_id=0, prefetch_queue_depth=1
    )
    loader_fn = read_filepath if include_decoder else None
    with dali_proxy.DALIServer(pipe) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=loader_fn)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=nworkers)
        first, _ = next(iter(loader))
        assert first.device == torch.device("cuda", 0)
        _check_same_as_fed_directly(
            loader,
            ImageFolder(image_tree, transform=lambda x: x.copy(), loader=loader_fn),
            ref_pipe,
        )
    pipe.close()
    ref_pipe.close()


@pytest.mark.gpu
def test_gpu_outputs_are_ordered_on_the_consumers_stream():
    """Outputs are converted in the thread that asks, on its current stream: work queued on
    a side stream after them sees the finished data."""
    pipe = pipe_2_outputs(device="gpu", batch_size=BATCH, num_threads=2, device_id=0)
    with dali_proxy.DALIServer(pipe) as server:
        stream = torch.cuda.Stream(device=0)
        a = np.arange(BATCH * 1024, dtype=np.float32).reshape(BATCH, 1024)
        refs = [server.proxy(a=a[i], b=a[i]) for i in range(BATCH)]
        with torch.cuda.stream(stream):
            plus, minus = server.produce_data(default_collate(refs))
            total = (plus * 1).sum()
        stream.synchronize()
        assert plus.device == torch.device("cuda", 0)
        assert total.item() == float((2 * a).sum()) and minus.abs().sum().item() == 0
    pipe.close()


@pytest.mark.gpu
def test_gpu_deterministic(image_tree):
    pipe = _pipe(dali_device="gpu", random_pipe=True, seed=7, device_id=0)
    ref_pipe = _pipe(
        dali_device="gpu", random_pipe=True, seed=7, device_id=0, prefetch_queue_depth=1
    )
    with dali_proxy.DALIServer(pipe, deterministic=True) as server:
        dataset = ImageFolder(image_tree, transform=server.proxy, loader=read_filepath)
        loader = dali_proxy.DataLoader(server, dataset, batch_size=BATCH, num_workers=2)
        ref_dataset = ImageFolder(image_tree, transform=lambda x: x.copy(), loader=read_filepath)
        _check_same_as_fed_directly(loader, ref_dataset, ref_pipe)
    pipe.close()
    ref_pipe.close()


@pytest.mark.gpu
def test_gpu_restart_server():
    server = dali_proxy.DALIServer(
        square(device="gpu", batch_size=BATCH, num_threads=2, device_id=0, prefetch_queue_depth=4)
    )
    loader = dali_proxy.DataLoader(
        server, SquareDataset(server.proxy), batch_size=BATCH, num_workers=2, drop_last=True
    )
    for _ in range(2):
        for data0, data1 in loader:
            assert data1.device == torch.device("cuda", 0)
            np.testing.assert_array_almost_equal(data0**2, data1.cpu())
        server.stop_thread()
    server.close()
