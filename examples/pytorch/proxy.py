"""DALI proxy: a torch ``DataLoader`` whose workers only list files, and one DALI pipeline in
the training process that reads, decodes, resizes and normalises every batch.

The dataset is torchvision's ``ImageFolder`` pattern (class folders, ``(sample, label)``
items), holding paths: ``__getitem__`` gives the proxy the path as a numpy byte array and
returns ``(proxy(path), label)``. torch's collation gathers a batch's markers and sends the
paths to the `DALIServer`, which runs the pipeline (``fn.io.file.read`` → ``decoders.image``
→ ``resize`` → ``crop_mirror_normalize`` with a random flip) while the workers go on; the
proxy's ``DataLoader`` returns the batch with the pipeline's output, a torch tensor, in place
of the marker. With torchvision installed the dataset is one line,
``ImageFolder(root, transform=server.proxy, loader=path_bytes)``; this script spells it out
so that it runs with torch alone.

Why: the workers stay light (no decoding in each of them), and with ``--device gpu`` the
decoding (``"mixed"``) and the rest of the pipeline run on GPU 0 in one process, one CUDA
context, instead of on the CPU of every worker.

The images are generated JPEGs in class folders (`dali._testing.images.make_image_tree`);
the model is a tiny CNN, trained for ``--steps`` iterations, printing each batch's shapes.

Run: ``python examples/pytorch/proxy.py [--workers 2] [--steps 6] [--device gpu]
[--deterministic]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import torch
from dali import fn, pipeline_def, types
from dali._testing.images import make_image_tree
from dali.plugin.pytorch.experimental import proxy as dali_proxy

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def image_pipeline(size: int, decoder: str):
    """Paths in (the proxy's ``images`` input), normalised CHW float images out."""
    paths = fn.external_source(name="images", no_copy=True)
    jpegs = fn.io.file.read(paths)
    images = fn.decoders.image(jpegs, device=decoder, output_type=types.RGB)
    images = fn.resize(images, size=[size, size])
    return fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="CHW",
        mean=MEAN,
        std=STD,
        mirror=fn.random.coin_flip(),
    )


def path_bytes(path: str) -> np.ndarray:
    """A path as the byte array ``fn.io.file.read`` takes."""
    return np.frombuffer(path.encode(), dtype=np.int8)


class ImageFolderOfPaths(torch.utils.data.Dataset):
    """torchvision's ``ImageFolder`` with ``loader=path_bytes``: one class per sub-folder
    (sorted names), ``(transform(path bytes), class index)`` per file."""

    def __init__(self, root: str, transform):
        self.classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.samples = [
            (os.path.join(root, c, name), label)
            for label, c in enumerate(self.classes)
            for name in sorted(os.listdir(os.path.join(root, c)))
        ]
        self.transform = transform

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int):
        path, label = self.samples[index]
        return self.transform(path_bytes(path)), label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    parser.add_argument("--steps", type=int, default=6, help="training iterations")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--size", type=int, default=64, help="the images' side")
    parser.add_argument("--images", default=None, help="where the JPEGs go (default: temp)")
    parser.add_argument("--threads", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument(
        "--deterministic", action="store_true", help="the same random flips on every run"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    gpu = args.device == "gpu"
    device = torch.device("cuda:0" if gpu else "cpu")
    image_dir = args.images or tempfile.mkdtemp(prefix="proxy_images_")
    make_image_tree(image_dir)
    torch.manual_seed(args.seed)

    pipe = image_pipeline(
        size=args.size,
        decoder="mixed" if gpu else "cpu",
        batch_size=args.batch_size,
        num_threads=args.threads,
        device_id=0 if gpu else None,
        seed=args.seed,
        prefetch_queue_depth=max(2, 2 * args.workers),  # DALI's advice: ~2 per worker
    )
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 3),
    ).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    # `with`: the server's threads run for the loop and are joined at its end
    with dali_proxy.DALIServer(pipe, deterministic=args.deterministic) as server:
        dataset = ImageFolderOfPaths(image_dir, transform=server.proxy)
        loader = dali_proxy.DataLoader(
            server,
            dataset,
            batch_size=args.batch_size,
            num_workers=args.workers,
            shuffle=True,
            drop_last=True,
        )
        print(
            f"{len(dataset)} images in {len(dataset.classes)} classes, {len(loader)} batches "
            f"of {args.batch_size} per epoch, {args.workers} workers, device {args.device}"
        )
        step = 0
        while step < args.steps:
            for images, labels in loader:
                labels = labels.to(device)
                loss = torch.nn.functional.cross_entropy(model(images), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                print(
                    f"step {step}: images {tuple(images.shape)} {images.dtype} on "
                    f"{images.device}, labels {tuple(labels.shape)} {labels.dtype}, "
                    f"loss {loss.item():.4f}"
                )
                step += 1
                if step == args.steps:
                    break
    pipe.close()  # the pipeline's threads (the server's are stopped by `with`)
    print("done: the server stopped, the pipeline closed")


if __name__ == "__main__":
    main()
