"""The data source the gin files of this folder wire into T5X: a DALI graph function.

`image_pipeline` is the graph function of the "T5X and DALI getting started" tutorial
(``readers.file`` → ``decoders.image`` → ``resize``), with the shard arguments T5X needs and a
few knobs the gin files set. Put this folder on ``PYTHONPATH`` so that ``import t5x_data`` in a
gin file finds it.
"""

from __future__ import annotations

from typing import Any

from dali import fn


def image_pipeline(
    file_root: str,
    shard_id: int = 0,
    num_shards: int = 1,
    decoder_device: str = "mixed",
    size: int = 128,
    random_shuffle: bool = False,
    pad_last_batch: bool = False,
) -> tuple[Any, Any]:
    """Images of ``file_root`` (one folder per class), decoded and resized to ``size``².

    Args:
        file_root: The image folder.
        shard_id: This pipeline's shard (T5X's host, or a batch shard of a sharded iterator).
        num_shards: How many shards the data is split into.
        decoder_device: ``"mixed"`` (GPU decoding) or ``"cpu"``.
        size: The side of the square output images.
        random_shuffle: Shuffle (training).
        pad_last_batch: Pad each shard to whole batches (evaluation: every image once).

    Returns:
        ``(images, labels)``: ``(size, size, 3)`` uint8 images and ``(1,)`` int32 labels.
    """
    jpegs, labels = fn.readers.file(
        file_root=file_root,
        name="image_reader",
        shard_id=shard_id,
        num_shards=num_shards,
        random_shuffle=random_shuffle,
        pad_last_batch=pad_last_batch,
    )
    images = fn.decoders.image(jpegs, device=decoder_device)
    images = fn.resize(images, resize_x=size, resize_y=size)
    return images, labels
