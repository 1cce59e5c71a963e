"""Seed 002, the Squirrel + DALI + PyTorch tutorial, as one runnable script.

The tutorial reads Imagenette from a Squirrel ``MessagepackDriver`` (dicts of a 300×300×3
image and a label), feeds it to a DALI pipeline through ``fn.external_source``, center-crops
to 200×200 and rotates by 30°, and gets PyTorch tensors from ``DALIGenericIterator``. It then
times two questions: batch in Squirrel or in DALI? numpy or CuPy inputs?

Here ``nvidia.dali`` is ``dali``, and the Squirrel dataset is a stand-in with the same shape
(`MessagepackDriver` below: ``get_iter()`` → ``.map`` / ``.batched`` / ``.take``), yielding
generated smooth images (deterministic, float32 HWC in [0, 255]) and int64 labels, so the
script needs neither Squirrel nor a download. The functions keep the seed's names
(``get_dali_it``, ``pre_proc_for_dali``, ``collation_fn``, ``benchmark_it``); plots become one
saved picture (`_show.save_grid`) and printed img/s.

It runs on the CPU by default (``--device cpu``: the pipeline's operators on the CPU,
``device_id=None``, tensors on ``cpu``); ``--device gpu`` runs the seed as written (operators
on GPU 0, tensors on ``cuda:0``) and adds the CuPy-input variant when CuPy is installed.

Run: ``python examples/pytorch/squirrel_dali.py [--device gpu] [--out squirrel_batch.png]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import typing as t
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from time import time

import numpy as np
import torch
from dali import fn, pipeline_def, types
from dali.data_node import DataNode
from dali.plugin.pytorch import DALIGenericIterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for _show
from _show import save_grid

# properties of the squirrel dataset (seed: Imagenette's train split, 9469 images)
URL = "frgfm/imagenette/train"
DS_LEN = 9469
IMG_KEY = "image"
LABEL_KEY = "label"

# augmentation config
AUG_SIZE = 200
AUG_ROT = 30
BATCH_SIZE = 512  # the seed's, on a GPU; the CPU default is 64 (--batch-size)


# -- the Squirrel stand-in --------------------------------------------------------------------

IMG_SIZE = 300  # the seed's dataset: images of shape (300, 300, 3)
NUM_CLASSES = 10  # Imagenette's
_DISTINCT = 20  # generated images, cycled (generating each sample would time the generator)


def smooth_image(i: int, size: int = IMG_SIZE) -> np.ndarray:
    """Image ``i``: colour waves and an off-centre square (so the rotation shows), float32."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    phase = 2 * np.pi * ((i * 0.37) % 1.0)
    r = 0.5 + 0.5 * np.sin(2 * np.pi * (1 + i % 3) * xx + phase)
    g = 0.5 + 0.5 * np.cos(2 * np.pi * (1 + i % 4) * yy - phase)
    b = 0.5 + 0.5 * np.sin(2 * np.pi * (xx + yy) + 2 * phase)
    img = np.stack([r, g, b], axis=-1)
    square = (np.abs(xx - 0.6) < 0.12) & (np.abs(yy - 0.4) < 0.12)
    img[square] = 1.0 - img[square]
    return 255.0 * img


class Composable:
    """The part of ``squirrel.iterstream.Composable`` the seed uses: re-iterable, chainable."""

    def __init__(self, make_iter: Callable[[], Iterator[t.Any]]) -> None:
        self._make_iter = make_iter

    def __iter__(self) -> Iterator[t.Any]:
        # each iteration starts over, as Squirrel re-reads its shards: one pipeline per run
        return self._make_iter()

    def map(self, f: Callable[[t.Any], t.Any]) -> Composable:
        return Composable(lambda: map(f, self._make_iter()))

    def take(self, n: int) -> Composable:
        return Composable(lambda: itertools.islice(self._make_iter(), n))

    def batched(self, batchsize: int, collation_fn: Callable[[list[t.Any]], t.Any]) -> Composable:
        """Lists of ``batchsize`` items through ``collation_fn``; a last short batch is dropped
        (Squirrel's ``drop_last_if_not_full=True``)."""

        def batches() -> Iterator[t.Any]:
            it = self._make_iter()
            while len(items := list(itertools.islice(it, batchsize))) == batchsize:
                yield collation_fn(items)

        return Composable(batches)

    def collect(self) -> list[t.Any]:
        return list(self)


class MessagepackDriver:
    """Stands in for ``squirrel.driver.msgpack.MessagepackDriver(URL)``: ``ds_len`` dicts
    ``{"image": float32 (300, 300, 3), "label": int64 ()}``, deterministic."""

    def __init__(self, url: str, ds_len: int = DS_LEN) -> None:
        self.url, self.ds_len = url, ds_len
        self._images = [smooth_image(i) for i in range(min(_DISTINCT, ds_len))]

    def get_iter(self) -> Composable:
        def items() -> Iterator[dict[str, np.ndarray]]:
            for i in range(self.ds_len):
                k = i % len(self._images)
                # a fresh array per item, as Squirrel deserialises one
                yield {IMG_KEY: self._images[k].copy(), LABEL_KEY: np.array(k % NUM_CLASSES)}

        return Composable(items)


# -- the seed's code ----------------------------------------------------------------------------


def get_dali_it(
    it: Iterable[t.Any],
    already_batched: bool,
    batch_size: int = BATCH_SIZE,
    center_crop_size: int = AUG_SIZE,
    rot: float = AUG_ROT,
    num_threads: int = 4,
    device: str = "gpu",
    device_id: int | None = 0,
    img_key: str = IMG_KEY,  # image key of squirrel iterator
    label_key: str = LABEL_KEY,  # label key of squirrel iterator
) -> DALIGenericIterator:
    """The seed's ``get_dali_it``: a DALI iterator over a Squirrel iterable (CPU with
    ``device="cpu", device_id=None``)."""

    @pipeline_def
    def pipeline(it: Iterable[t.Any]) -> tuple[DataNode, DataNode]:
        """DALI pipeline defining the data processing graph for a Squirrel Composable
        that yields (image, label) lists, or batches of them."""
        imgs, labels = fn.external_source(
            source=it,
            num_outputs=2,
            device=device,
            dtype=types.FLOAT,  # means float32
            batch=already_batched,
        )
        imgs = fn.crop(
            imgs,
            crop=[center_crop_size, center_crop_size],
            crop_pos_x=0.5,
            crop_pos_y=0.5,
            device=device,
        )
        imgs = fn.rotate(
            imgs,
            angle=rot,
            device=device,
            fill_value=0,
            interp_type=types.INTERP_LINEAR,
            keep_size=True,
        )
        return imgs, labels

    pipe = pipeline(it=it, batch_size=batch_size, num_threads=num_threads, device_id=device_id)
    pipe.build()

    return DALIGenericIterator([pipe], [img_key, label_key])


def pre_proc_for_dali(item: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Converts a dict to a list of numpy arrays. DALI only accepts list."""
    return [np.array(v, dtype=np.float32) for v in item.values()]


def pre_proc_for_dali_cupy(item: dict[str, np.ndarray]) -> list[t.Any]:
    """Converts a dict to a list of cupy arrays. DALI only accepts lists."""
    import cupy as cp

    return [cp.array(v, dtype=cp.float32) for v in item.values()]


def collation_fn(items: list[dict[str, np.ndarray]]) -> list[np.ndarray]:
    """The seed's collation for batching in Squirrel: one array per key."""
    batch = defaultdict(list)
    for item in items:
        for k, v in item.items():
            batch[k].append(v)
    return [np.array(v, dtype=np.float32) for v in batch.values()]


def pre_proc_torchvision(
    item: dict[str, np.ndarray], device: str = "cpu"
) -> dict[str, torch.Tensor]:
    """The seed's torchvision version of the augmentation (needs torchvision).

    The seed calls ``F.rotate(img, AUG_ROT)``, torchvision's default nearest-neighbour
    interpolation; bilinear here, DALI's ``INTERP_LINEAR``, so the outputs can be compared.
    """
    import torchvision.transforms.functional as F
    from torchvision.transforms import InterpolationMode

    img = item[IMG_KEY]
    img = torch.from_numpy(img).to(device)
    img = img.permute((2, 0, 1))  # convert data from HWC to CHW for transforms
    img = F.center_crop(img, AUG_SIZE)
    img = F.rotate(img, AUG_ROT, interpolation=InterpolationMode.BILINEAR)

    item[IMG_KEY] = img.permute((1, 2, 0))  # convert back to HWC
    item[LABEL_KEY] = torch.from_numpy(item[LABEL_KEY]).to(device)
    return item


def benchmark_it(
    it: Callable[[], Iterable[t.Any]],
    n_exp: int = 5,
    batch_size: int = BATCH_SIZE,
    ds_len: int = DS_LEN,
    img_h: int = AUG_SIZE,
    img_w: int = AUG_SIZE,
    img_key: str = IMG_KEY,
    device: str = "cuda:0",
) -> list[float]:
    """Benchmarks loading speed of an iterable. Checks data format and device."""
    print(f"Conducting {n_exp} experiments ...")

    def _run_experiment(it: Iterable[t.Any]) -> float:
        t = time()
        num_samples = 0
        expect_num_batches = ds_len // batch_size
        actual_num_batches = 0

        for idx, item in enumerate(it):
            # for DALI pipelines, we get a list of pipeline outputs
            assert type(item) is list
            assert len(item) == 1  # we only have one pipeline, can access its output
            item = item[0]

            imgs = item[img_key]
            num_samples += imgs.shape[0]

            # check whether data in correct format and on device
            assert type(item) is dict
            assert type(imgs) is torch.Tensor
            assert imgs.shape == torch.Size([batch_size, img_h, img_w, 3]), f"{imgs.shape}"
            assert imgs.device == torch.device(device)

            actual_num_batches = idx + 1
        # the seed asserts inside the loop (a slip of its indentation): here, once at the end
        assert expect_num_batches == actual_num_batches, (
            f"{expect_num_batches} != {actual_num_batches}"
        )
        return num_samples / (time() - t)

    speeds = [_run_experiment(it()) for _ in range(n_exp)]
    print(f"Samples per second: {[round(s, 1) for s in speeds]}")

    return speeds


# -- the script -------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--batch-size", type=int, default=None, help="default 64, 512 on GPU")
    parser.add_argument("--ds-len", type=int, default=None, help="default 640, 9469 on GPU")
    parser.add_argument("--n-exp", type=int, default=3, help="timed epochs per variant")
    parser.add_argument("--num-threads", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--out", default="squirrel_batch.png", help="the augmented batch")
    args = parser.parse_args()

    gpu = args.device == "gpu"
    batch_size = args.batch_size or (BATCH_SIZE if gpu else 64)
    ds_len = args.ds_len or (DS_LEN if gpu else 640)
    if ds_len < batch_size:
        parser.error("--ds-len must be at least the batch size")
    where = {  # the pipeline's device and GPU, and where the tensors come out
        "device": args.device,
        "device_id": 0 if gpu else None,
        "num_threads": args.num_threads,
    }
    tensor_device = "cuda:0" if gpu else "cpu"
    print(f"device {args.device}: batch {batch_size}, {ds_len} samples, {args.num_threads} threads")

    # -- Let's have a look at the augmented images (seed: plot_imgs of the first four) -------
    num_viz_imgs = 4
    sq_it = MessagepackDriver(URL, ds_len).get_iter().map(pre_proc_for_dali)
    dali_it = get_dali_it(it=sq_it, batch_size=num_viz_imgs, already_batched=False, **where)
    pipe_out = next(iter(dali_it))
    # dali_it returns a list of outputs (one for each pipeline) and we only have one pipeline,
    # hence access first pipeline
    imgs = pipe_out[0][IMG_KEY]
    print(f"augmented batch: {tuple(imgs.shape)} {imgs.dtype} on {imgs.device}")
    rows = [imgs.cpu()]
    # The seed's sanity check: torchvision's transforms give the same images.
    try:
        access_img = lambda x: x[IMG_KEY]  # the seed's
        th_it = MessagepackDriver(URL, ds_len).get_iter().map(pre_proc_torchvision)
        th_imgs = torch.stack(th_it.take(num_viz_imgs).map(access_img).collect())
    except ImportError:
        print("torchvision is not installed: no comparison with its transforms")
    else:
        diff = (th_imgs - rows[0]).abs()
        print(
            f"torchvision sanity check: |dali - torchvision| mean {diff.mean():.2g}, "
            f"max {diff.max():.2g} (of 255)"
        )
        rows.append(th_imgs)
    # first row DALI, second row (with torchvision) the seed's torchvision version
    grid = torch.cat(rows).numpy().clip(0, 255).astype(np.uint8)
    save_grid(grid, args.out, columns=num_viz_imgs)
    print(f"saved {args.out}")

    # -- Batch in Squirrel or DALI? ----------------------------------------------------------
    bench = {"n_exp": args.n_exp, "batch_size": batch_size, "ds_len": ds_len}
    results: dict[str, list[float]] = {}

    # batch in DALI (uses sq_it from above)
    def dali_it_batch_in_dali() -> DALIGenericIterator:
        return get_dali_it(it=sq_it, batch_size=batch_size, already_batched=False, **where)

    results["Batched in DALI"] = benchmark_it(dali_it_batch_in_dali, device=tensor_device, **bench)

    # batch in Squirrel
    it_batched = MessagepackDriver(URL, ds_len).get_iter().batched(batch_size, collation_fn)

    def dali_it_batch_in_squirrel() -> DALIGenericIterator:
        return get_dali_it(it=it_batched, batch_size=batch_size, already_batched=True, **where)

    results["Batched in Squirrel"] = benchmark_it(
        dali_it_batch_in_squirrel, device=tensor_device, **bench
    )

    # -- Return Cupy or Numpy Arrays? (CuPy arrays live on the GPU: --device gpu only) --------
    if not gpu:
        print("Cupy arrays on GPU: skipped (--device gpu)")
    else:
        try:
            import cupy  # noqa: F401 - only whether it is there
        except ImportError:
            print("Cupy arrays on GPU: skipped (CuPy is not installed)")
        else:
            sq_it_cp = MessagepackDriver(URL, ds_len).get_iter().map(pre_proc_for_dali_cupy)

            def dali_it_cp() -> DALIGenericIterator:
                return get_dali_it(
                    it=sq_it_cp, batch_size=batch_size, already_batched=False, **where
                )

            results["Cupy arrays on GPU"] = benchmark_it(dali_it_cp, device=tensor_device, **bench)

    print(f"\nimg/s, median of {args.n_exp} epochs of {ds_len} samples (device {args.device}):")
    for name, speeds in results.items():
        print(f"  {name:<22}{statistics.median(speeds):>10.1f} img/s")


if __name__ == "__main__":
    main()
