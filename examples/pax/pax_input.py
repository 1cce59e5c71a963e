"""DALI as a Pax input: a Pax-style experiment's ``datasets()`` and a few training steps.

Pax (paxml) builds one input per host from the ``praxis.base_input.BaseInput`` fields that an
experiment's ``datasets()`` sets (``batch_size`` per process, ``num_infeed_hosts``,
``infeed_host_index``, ``is_training``, ``reset_for_eval``, ``input_random_seed``) and calls
``get_next()`` once a step. `dali.plugin.jax.clu.pax.DaliInputMixin` gives a ``BaseInput``
subclass that behaviour over a DALI pipeline; without praxis installed, this script runs the
same inputs as `dali.plugin.jax.clu.pax.DaliInput` and does what Pax's trainer would:

* the training input never ends (an epoch's end resets the reader, as in DALI's Pax example);
* the evaluation input (``reset_for_eval=True``) stops after one epoch, padded by the reader
  (the iterator's ``is_nonpadding`` marks the real samples), and ``reset()`` starts the same
  epoch again;
* a linear classifier is trained a few steps with JAX on the training batches.

Run: ``python examples/pax/pax_input.py [--steps 12] [--out DIR]`` (a picture of the first
training batch is saved in ``DIR``). With praxis and paxml installed, ``ImageInput`` below is a
real ``BaseInput`` and ``datasets()`` returns ``pax_fiddle.Config`` objects for an experiment.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `_show`

from dali import fn, types
from dali.plugin.jax.clu.pax import DaliInput, DaliInputMixin
from dali.plugin.jax.clu.t5x import DaliDatasetConfig

SIZE = 32
CLASSES = 3


def image_classification(
    file_root: str,
    is_training: bool = True,
    shard_id: int = 0,
    num_shards: int = 1,
    pad_last_batch: bool = False,
) -> tuple[Any, Any]:
    """The input graph: files -> decode -> (training: random crop and flip) -> SIZE² float."""
    jpegs, labels = fn.readers.file(
        file_root=file_root,
        random_shuffle=is_training,
        shard_id=shard_id,
        num_shards=num_shards,
        pad_last_batch=pad_last_batch,
        name="reader",
    )
    if is_training:
        images = fn.decoders.image_random_crop(jpegs)
        images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
        mirror = fn.random.coin_flip()
    else:
        images = fn.resize(fn.decoders.image(jpegs), resize_x=SIZE, resize_y=SIZE)
        mirror = 0
    images = fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="HWC",
        mean=[127.5] * 3,
        std=[127.5] * 3,
        mirror=mirror,
    )
    return images, labels


def dataset(file_root: str, batch_size: int, is_training: bool) -> DaliDatasetConfig:
    """The data set of one input: the graph above, its outputs' names, the global batch."""
    return DaliDatasetConfig(
        image_classification,
        ["image", "label"],
        batch_size=batch_size,
        reader_name="reader",
        seed=1234,
        # evaluation: the last batch padded by the reader (the iterator's `is_nonpadding` says
        # which samples are real)
        pipeline_kwargs={
            "file_root": file_root,
            "is_training": is_training,
            "pad_last_batch": not is_training,
        },
    )


try:  # with praxis: a real BaseInput, as an experiment's datasets() returns it
    from praxis import base_input, pax_fiddle

    class ImageInput(DaliInputMixin, base_input.BaseInput):  # type: ignore[misc]
        """A Pax input over `dataset` (fiddle sets the fields)."""

        file_root: str = ""

        def __post_init__(self) -> None:
            super().__post_init__()
            self.start_dali(
                dataset(
                    self.file_root,
                    self.batch_size * max(1, self.num_infeed_hosts),
                    self.is_training,
                ),
                batch_size=self.batch_size,
                num_infeed_hosts=self.num_infeed_hosts,
                infeed_host_index=self.infeed_host_index,
                is_training=self.is_training,
                reset_for_eval=self.reset_for_eval,
                input_random_seed=self.input_random_seed,
            )

    def datasets(file_root: str, batch_size: int) -> list[Any]:
        """What a Pax experiment's ``datasets()`` returns: the training and evaluation inputs."""
        return [
            pax_fiddle.Config(
                ImageInput, file_root=file_root, batch_size=batch_size, is_training=True
            ),
            pax_fiddle.Config(
                ImageInput,
                file_root=file_root,
                batch_size=batch_size,
                is_training=False,
                reset_for_eval=True,
            ),
        ]

    def instantiate(config: Any) -> Any:
        return pax_fiddle.build(config)

except ImportError:  # without praxis: the same inputs, standalone

    @dataclasses.dataclass
    class InputParams:
        """The ``BaseInput`` fields Pax would set (a stand-in of ``pax_fiddle.Config``)."""

        file_root: str
        batch_size: int
        is_training: bool = True
        reset_for_eval: bool = False
        num_infeed_hosts: int = 1
        infeed_host_index: int = 0
        input_random_seed: int | None = None

    def datasets(file_root: str, batch_size: int) -> list[Any]:
        """What a Pax experiment's ``datasets()`` returns: the training and evaluation inputs."""
        return [
            InputParams(file_root, batch_size, is_training=True),
            InputParams(file_root, batch_size, is_training=False, reset_for_eval=True),
        ]

    def instantiate(config: Any) -> Any:
        return DaliInput(
            dataset(
                config.file_root, config.batch_size * config.num_infeed_hosts, config.is_training
            ),
            batch_size=config.batch_size,
            num_infeed_hosts=config.num_infeed_hosts,
            infeed_host_index=config.infeed_host_index,
            is_training=config.is_training,
            reset_for_eval=config.reset_for_eval,
            input_random_seed=config.input_random_seed,
        )


def train(train_input: Any, steps: int) -> list[float]:
    """A linear classifier on the images, trained ``steps`` steps with plain SGD in JAX."""
    import jax
    import jax.numpy as jnp

    def loss_fn(params: Any, batch: dict[str, Any]) -> Any:
        x = batch["image"].reshape(batch["image"].shape[0], -1)
        logits = x @ params["w"] + params["b"]
        labels = jax.nn.one_hot(batch["label"].reshape(-1), CLASSES)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * labels, axis=-1))

    grad = jax.jit(jax.value_and_grad(loss_fn))
    params = {"w": jnp.zeros((SIZE * SIZE * 3, CLASSES)), "b": jnp.zeros(CLASSES)}
    losses = []
    for _ in range(steps):
        batch = train_input.get_next()
        loss, g = grad(params, {k: jnp.asarray(v) for k, v in batch.items()})
        params = jax.tree_util.tree_map(lambda p, d: p - 1e-3 * d, params, g)
        losses.append(float(loss))
    return losses


def evaluate(eval_input: Any) -> tuple[int, list[int]]:
    """One pass of the evaluation input (until StopIteration), then ``reset()``, as Pax does:
    the number of real samples seen and their labels."""
    labels: list[int] = []
    batches = 0
    while True:
        try:
            batch = eval_input.get_next()
        except StopIteration:
            break
        real = np.asarray(eval_input.dali_iterator.is_nonpadding, bool)
        labels += np.asarray(batch["label"]).reshape(-1)[real].tolist()
        batches += 1
    eval_input.reset()
    return batches, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--images", default=None, help="a class tree (default: generated)")
    parser.add_argument("--out", default=".", help="where the picture of a batch goes")
    args = parser.parse_args()

    file_root = args.images
    if file_root is None:
        from dali._testing.images import make_image_tree

        file_root = os.path.join(tempfile.mkdtemp(prefix="dali_pax_"), "images")
        make_image_tree(file_root)  # 21 JPEGs in 3 class folders
    train_config, eval_config = datasets(file_root, args.batch_size)
    train_input, eval_input = instantiate(train_config), instantiate(eval_config)

    first = train_input.peek()
    print(
        f"batch: image {first['image'].shape} {first['image'].dtype}, label {first['label'].shape}"
    )
    from _show import save_grid

    pixels = np.clip(np.asarray(first["image"]) * 127.5 + 127.5, 0, 255).astype(np.uint8)
    picture = os.path.join(args.out, "pax_batch.png")
    save_grid(pixels, picture)
    print(f"saved {picture}")

    losses = train(train_input, args.steps)
    print(f"training loss: {losses[0]:.4f} -> {losses[-1]:.4f} over {args.steps} steps")
    a = evaluate(eval_input)
    b = evaluate(eval_input)
    print(f"evaluation: {a[0]} batches, {len(a[1])} samples; the same after reset(): {a == b}")


if __name__ == "__main__":
    main()
