"""DistributedDataParallel on the CPU (gloo): one pipeline per rank, each reading its shard.

Every process (``--nprocs``, 2 by default, started with ``torch.multiprocessing.spawn``, or
one per rank under ``torchrun``) joins a gloo process group, asks
`dali.plugin.pytorch.distributed.shard_info` for its ``shard_id``/``num_shards``/``device_id``
and passes them straight to its pipeline (``**shard_info()._asdict()``): ``readers.file``
then reads only that rank's contiguous slice of the file list. A tiny model (a convolution
and a linear layer on 64×64 images) trains for one epoch under DDP, and rank 0 prints what
each rank read (gathered with ``all_gather_object``): disjoint shards that together cover the
dataset once.

Why ``reader_name`` and ``pad_last_batch=True``: DDP all-reduces the gradients in every
``backward()``, and every rank must take part in each all-reduce; a rank with one batch more
than the others waits forever in its last ``backward()`` — a hang, not an error. With 21
images on 2 ranks the shards hold 10 and 11 images: at batch 5, an iterator sized by its own
shard (``size=`` the shard's length, or a step count computed from it) would run 2 batches on
one rank and 3 on the other. With ``reader_name`` the iterator runs every rank for the largest
shard's number of batches, ``ceil(ceil(21 / 2) / 5) = 3``, and ``pad_last_batch=True`` has the
reader fill each shard up to that length with the shard's own last sample (without it, the
short shard reads on into its neighbour's: images 10 and 11 twice in an epoch under FILL).
``LastBatchPolicy.PARTIAL`` then cuts the padding back out, so each image counts once. A
rank's last batch can so be short — here even empty (``[5, 5, 0]``) — so the loss is the
*sum* over the batch divided by its size (at least 1), never a mean over zero samples, and
the empty batch still takes part in the all-reduce.

The labels come from the tree's ``list.txt`` (``readers.file(file_list=...)``): image ``i``
has label ``i``, which identifies the sample; its class is ``i % classes`` (its folder).

Run: ``python examples/pytorch/ddp.py [--nprocs 2]`` or
``torchrun --nproc-per-node 2 examples/pytorch/ddp.py``.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from dali import fn, pipeline_def, types
from dali._testing.images import make_image_tree
from dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy
from dali.plugin.pytorch.distributed import shard_info
from torch import nn
from torch.nn.parallel import DistributedDataParallel

SIZE = 64
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def sharded_pipeline(image_dir: str, shard_id: int, num_shards: int):
    """This rank's shard of the images, 64×64, normalised CHW float, with their indices."""
    jpegs, labels = fn.readers.file(
        file_root=image_dir,
        file_list=os.path.join(image_dir, "list.txt"),
        shard_id=shard_id,
        num_shards=num_shards,
        pad_last_batch=True,  # each shard padded with its own samples: see the docstring
        name="Reader",
    )
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
    images = fn.crop_mirror_normalize(
        images, dtype=types.FLOAT, output_layout="CHW", mean=MEAN, std=STD
    )
    return images, labels


def tiny_model(classes: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, classes),
    )


def train(args: argparse.Namespace) -> None:
    """One rank's work; the process group is initialised."""
    rank = dist.get_rank()
    torch.manual_seed(0)  # the same initial weights on every rank (DDP also broadcasts them)
    info = shard_info()  # (shard_id, num_shards, device_id): rank, world size, None on CPU
    pipe = sharded_pipeline(
        image_dir=args.images,
        batch_size=args.batch_size,
        num_threads=1,
        seed=rank,
        **info._asdict(),  # shard_id/num_shards go to the function, device_id to the Pipeline
    )
    loader = DALIClassificationIterator(
        pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL
    )
    model = DistributedDataParallel(tiny_model(args.classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    seen: list[int] = []
    sizes: list[int] = []
    last_loss = float("nan")
    for data in loader:  # one epoch
        images, ids = data[0]["data"], data[0]["label"].squeeze(-1).long()
        logits = model(images)
        # a sum over the batch, over its size: correct for a short or empty last batch
        loss = nn.functional.cross_entropy(logits, ids % args.classes, reduction="sum")
        loss = loss / max(len(ids), 1)
        optimizer.zero_grad()
        loss.backward()  # DDP's all-reduce: every rank must get here equally often
        optimizer.step()
        seen += ids.tolist()
        sizes.append(len(ids))
        last_loss = loss.item()

    gathered: list[tuple[list[int], list[int], float] | None] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, (seen, sizes, last_loss))
    if rank == 0:
        everything: list[int] = []
        for r, item in enumerate(gathered):
            assert item is not None
            ids_r, sizes_r, loss_r = item
            print(
                f"rank {r}: {len(ids_r)} samples in {len(sizes_r)} batches {sizes_r} "
                f"(images {ids_r[0]}..{ids_r[-1]}), last loss {loss_r:.4f}"
            )
            everything += ids_r
        disjoint = len(everything) == len(set(everything))
        covered = sorted(everything) == list(range(args.n_images))
        print(
            f"{len(everything)} samples over {len(gathered)} ranks: shards disjoint: "
            f"{disjoint}, together every one of the {args.n_images} images once: {covered}"
        )


def leave_group() -> None:
    """Destroy the process group; on torch before 2.8, exit without it.

    Before 2.8, torch destroys a gloo group holding the GIL while it waits for the group's
    worker threads, and a worker thread freeing a finished collective's tensors (those of
    ``all_gather_object``) waits for the GIL: now and then the two deadlock
    (pytorch/pytorch#154976, "Release GIL in PG destructor"). Exiting without destroying the
    group aborts in the interpreter's shutdown instead ("terminate called without an active
    exception"). So there the rank flushes its output and leaves with ``os._exit``, which
    runs neither.
    """
    if torch.__version__ >= "2.8":
        dist.destroy_process_group()
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def spawned(rank: int, world: int, args: argparse.Namespace) -> None:
    """The entry of a process started by ``torch.multiprocessing.spawn``."""
    dist.init_process_group("gloo", rank=rank, world_size=world)
    train(args)
    leave_group()  # only after success: a rank that failed leaves the others in a collective


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nprocs", type=int, default=2, help="ranks (without torchrun)")
    parser.add_argument("--batch-size", type=int, default=5)
    parser.add_argument("--n-images", type=int, default=21)
    parser.add_argument("--classes", type=int, default=3)
    parser.add_argument("--images", default=None, help="where the JPEGs go (default: temp)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # one core per rank: the ranks share the machine

    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # under torchrun: this is a rank
        if args.images is None:
            parser.error("under torchrun, pass --images DIR (every rank reads the same files)")
        if int(os.environ["RANK"]) == 0:
            make_image_tree(args.images, args.n_images, classes=args.classes)
        dist.init_process_group("gloo")  # MASTER_ADDR/PORT, RANK, WORLD_SIZE from torchrun
        dist.barrier()  # rank 0 has written the images
        train(args)
        leave_group()
        return

    args.images = args.images or tempfile.mkdtemp(prefix="ddp_images_")
    make_image_tree(args.images, args.n_images, classes=args.classes)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    mp.spawn(spawned, args=(args.nprocs, args), nprocs=args.nprocs, join=True)


if __name__ == "__main__":
    main()
