"""The ResNet-50 training input pipeline on MXNet RecordIO files, through the PyTorch iterator.

Many ImageNet setups keep the data as RecordIO (``im2rec.py``'s ``.rec`` files with their
``.idx`` index), which DALI reads with ``fn.readers.mxnet``. This script writes a small
RecordIO set of ImageNet-like JPEGs (`dali._testing.recordio.make_imagenet_recordio`: records
packed as ``im2rec.py`` packs them, in ``--files`` files with one index of them all), reads it
with ``readers.mxnet`` sharded and shuffled as a training job does (``shard_id``/``num_shards``,
``random_shuffle``), and runs the standard ResNet-50 augmentation: ``decoders.image_random_crop``
→ ``resize`` → ``crop_mirror_normalize`` (float CHW, ImageNet mean/std, a random horizontal
flip). ``DALIClassificationIterator`` with ``reader_name`` turns it into ``{"data", "label"}``
batches of ``torch.Tensor``, an epoch being exactly the shard's records; a tiny convolutional
model takes a few SGD steps on them.

CPU by default; ``--device gpu`` decodes with ``"mixed"`` (nvImageCodec) and the batches arrive
on ``cuda:0``.

Run: ``python examples/pytorch/recordio_resnet50.py [--records 64] [--steps 6] [--device gpu]``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import torch
from dali import fn, pipeline_def, types
from dali._testing.recordio import make_imagenet_recordio
from dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def resnet50_recordio(recs: list[str], index: str, size: int, device: str, shard: int, shards: int):
    jpegs, labels = fn.readers.mxnet(
        path=recs,
        index_path=[index],
        random_shuffle=True,
        initial_fill=64,
        shard_id=shard,
        num_shards=shards,
        pad_last_batch=True,
        name="Reader",
    )
    decoder = "mixed" if device == "gpu" else "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder, output_type=types.RGB)
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="CHW",
        mean=MEAN,
        std=STD,
        mirror=fn.random.coin_flip(),
    )
    return images, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=64)
    parser.add_argument("--files", type=int, default=2)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--shards", type=int, default=2, help="read shard 0 of this many")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--data", default=None, help="where the RecordIO set goes")
    args = parser.parse_args()

    root = Path(args.data or tempfile.mkdtemp(prefix="dali-recordio-"))
    recs, index = make_imagenet_recordio(
        root, args.records, args.files, classes=args.classes, processes=1
    )
    print(f"{args.records} records in {len(recs)} RecordIO files, one index: {index.name}")
    pipe = resnet50_recordio(
        [str(r) for r in recs],
        str(index),
        args.size,
        args.device,
        0,
        args.shards,
        batch_size=args.batch,
        num_threads=args.threads,
        device_id=0 if args.device == "gpu" else None,
        seed=7,
    )
    loader = DALIClassificationIterator(
        pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True
    )
    target = torch.device("cuda:0" if args.device == "gpu" else "cpu")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(8, args.classes),
    ).to(target)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = epoch = 0
    while step < args.steps:
        seen = 0
        for batch in loader:
            images, labels = batch[0]["data"], batch[0]["label"].view(-1).long()
            loss = torch.nn.functional.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += images.shape[0]
            print(
                f"epoch {epoch} step {step}: images {tuple(images.shape)} {images.dtype} on "
                f"{images.device.type}, labels {tuple(labels.shape)}, loss {loss.item():.4f}"
            )
            step += 1
            if step >= args.steps:
                break
        else:
            print(f"epoch {epoch}: {seen} images (shard 0 of {args.shards})")
            epoch += 1
    pipe.close()


if __name__ == "__main__":
    main()
