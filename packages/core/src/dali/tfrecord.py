"""TFRecord features for `fn.readers.tfrecord` (DALI's ``nvidia.dali.tfrecord``).

``FixedLenFeature(shape, dtype, default_value)`` and ``VarLenFeature([partial_shape,] dtype,
default_value)`` say which features of each ``tf.train.Example`` to extract and how; ``int64``,
``float32`` and ``string`` are the types (`dali._ops.readers.tfrecord.features` explains them).

Example:
    >>> import dali.tfrecord as tfrec
    >>> features = {
    ...     "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
    ...     "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    ...     "image/object/bbox/xmin": tfrec.VarLenFeature(tfrec.float32, 0.0),
    ... }
    >>> features["image/class/label"]
    FixedLenFeature([1], int64, -1)
"""

from __future__ import annotations

from dali._ops.readers.tfrecord.features import (
    Feature,
    FixedLenFeature,
    VarLenFeature,
    float32,
    int64,
    string,
)

__all__ = ["Feature", "FixedLenFeature", "VarLenFeature", "float32", "int64", "string"]
