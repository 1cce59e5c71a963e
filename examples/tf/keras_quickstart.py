"""Train a small Keras model on the seed quickstart pipeline, through ``DALIDataset``.

The seed's quickstart pipeline (``readers.file`` → ``decoders.image`` → ``resize`` to
256×256, with the labels) becomes a ``tf.data.Dataset`` with ``dali.plugin.tf.DALIDataset``
and feeds ``keras.Model.fit`` as any dataset would: a few epochs of a small convolutional
network on generated class-folder JPEGs (`dali._testing.images.make_image_tree`, like the
tutorials' ``images`` folder). The script then saves the model and the dataset's position
with ``tf.train.Checkpoint`` (the pipeline is made with ``enable_checkpointing=True``),
restores both into fresh objects and checks that training would continue on exactly the
batch that followed, and saves one batch as a picture (`_show.save_grid`).

It runs on the CPU by default (``device_id=None``, the CPU decoder); ``--device gpu`` decodes
with ``device="mixed"`` on GPU 0 and makes the dataset under ``tf.device("/gpu:0")`` (a CUDA
build of TensorFlow and ``dali-core[cuda13]``).

Run: ``python examples/tf/keras_quickstart.py [--device gpu] [--epochs 3] [--out batch.png]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow starts: less chatter

import numpy as np
import tensorflow as tf
from dali import fn, pipeline_def, types
from dali._testing.images import make_image_tree
from dali.plugin.tf import DALIDataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for _show
from _show import save_grid

CLASSES = 3


def quickstart_dataset(image_dir: str, batch_size: int, size: int, device: str) -> DALIDataset:
    """The seed's quickstart pipeline as a dataset of ``(images, labels)`` batches."""
    gpu = device == "gpu"

    @pipeline_def(
        batch_size=batch_size,
        num_threads=2,
        device_id=0 if gpu else None,
        seed=12,
        enable_checkpointing=True,  # every epoch starts at the first batch; tf.train.Checkpoint
    )
    def pipe():
        jpegs, labels = fn.readers.file(file_root=image_dir, random_shuffle=True, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed" if gpu else "cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=size, resize_y=size)
        return images, labels

    scope = tf.device("/gpu:0") if gpu else contextlib.nullcontext()
    with scope:
        return DALIDataset(
            pipe(),
            output_dtypes=(tf.uint8, tf.int32),
            output_shapes=((batch_size, size, size, 3), (batch_size,)),  # labels: (B, 1) → (B,)
            batch_size=batch_size,
            device_id=0 if gpu else None,
        )


def small_model(size: int) -> tf.keras.Model:
    keras = tf.keras
    model = keras.Sequential(
        [
            keras.Input((size, size, 3), dtype="uint8"),
            keras.layers.Rescaling(1 / 255),
            keras.layers.Conv2D(8, 3, strides=2, activation="relu"),
            keras.layers.Conv2D(16, 3, strides=2, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(CLASSES),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--images", type=int, default=21, help="generated JPEGs (3 classes)")
    parser.add_argument("--root", default=None, help="where they are written (a temp dir)")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=256, help="the quickstart's resize")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="steps per epoch (default: one pass over the images)",
    )
    parser.add_argument("--out", default="tf_batch.png", help="the picture of one batch")
    args = parser.parse_args()

    root = args.root or tempfile.mkdtemp(prefix="images_")
    make_image_tree(root, args.images, classes=CLASSES)
    steps = args.steps or -(-args.images // args.batch)
    dataset = quickstart_dataset(root, args.batch, args.size, args.device)
    print(f"element_spec: {dataset.element_spec}")

    model = small_model(args.size)
    # the dataset is endless (readers wrap around): Keras needs the steps of an epoch
    history = model.fit(
        dataset, epochs=args.epochs, steps_per_epoch=steps, shuffle=False, verbose=0
    )
    for epoch, (loss, acc) in enumerate(zip(history.history["loss"], history.history["accuracy"])):
        print(f"epoch {epoch + 1}: loss {loss:.4f}, accuracy {acc:.3f}")

    # Save the model and where the data stands; restore both into new objects; the restored
    # dataset continues on the batch that follows the save.
    iterator = iter(dataset)
    next(iterator)
    ckpt_dir = Path(tempfile.mkdtemp(prefix="tf_ckpt_"))
    path = tf.train.Checkpoint(model=model, data=dataset).save(str(ckpt_dir / "ckpt"))
    images, labels = next(iterator)
    fresh = quickstart_dataset(root, args.batch, args.size, args.device)
    fresh_model = small_model(args.size)
    fresh_model.optimizer.build(fresh_model.trainable_variables)  # its slots, to restore into
    tf.train.Checkpoint(model=fresh_model, data=fresh).restore(path).assert_consumed()
    again_images, again_labels = next(iter(fresh))
    same = bool(np.array_equal(images.numpy(), again_images.numpy()))
    same = same and bool(np.array_equal(labels.numpy(), again_labels.numpy()))
    print(f"restored from {path}: the next batch is the same: {same}")

    save_grid(images.numpy(), args.out)
    print(f"saved one batch to {args.out} (labels {labels.numpy().tolist()})")


if __name__ == "__main__":
    main()
