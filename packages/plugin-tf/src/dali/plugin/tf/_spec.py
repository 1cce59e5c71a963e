"""The element structure of a DALI dataset: ``output_dtypes`` / ``output_shapes``.

DALI's rules, checked when the dataset is made:

* ``output_dtypes`` is one ``tf.DType`` or a **tuple** of them (a list is a TypeError: TF does
  not nest lists). The elements are always tuples, one tensor per pipeline output: one
  ``tf.DType`` gives 1-tuples. Beyond DALI, None takes the pipeline's own output types where
  they are known before running (DALI's TypeError otherwise).
* ``output_shapes`` has the same structure: one shape for one ``tf.DType``, a tuple of shapes
  for a tuple. None (the whole argument or one entry) is an unknown shape; entries may hold
  None dimensions. The batch is the outermost dimension (see `dali.plugin.tf._shapes` for the
  size-1 dimensions that may be left out).
* ``dtypes=`` and ``shapes=`` are deprecated aliases (a ``Warning``); giving an alias and its
  new name is a ValueError.

Example:
    >>> import tensorflow as tf
    >>> dtypes, shapes = output_structure(tf.float32, (2, None), None, None, pipeline=None)
    >>> element_spec(dtypes, shapes)
    (TensorSpec(shape=(2, None), dtype=tf.float32, name=None),)
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["element_spec", "output_structure", "shape_tuple"]


def _deprecated(new: Any, old: Any, name: str) -> Any:
    """DALI's ``_handle_deprecation``: the value to use of ``output_<name>`` / ``<name>``."""
    if old is None:
        return new
    if new is not None:
        raise ValueError(
            f"Usage of `{name}` is deprecated in favor of `output_{name}`. Both arguments were "
            f"provided, but only `output_{name}` should be provided."
        )
    warnings.warn(
        f"Use of argument `{name}` is deprecated. Please use `output_{name}` instead. "
        f"`output_{name}` should be provided as a tuple or a single value.",
        Warning,
        stacklevel=5,
    )
    return tuple(old) if isinstance(old, list) else old


def _pipeline_dtypes(pipeline: Pipeline | None) -> tuple[Any, ...] | None:
    """The pipeline's output types as ``tf.DType``\\ s, if all are known before running."""
    import tensorflow as tf

    if pipeline is None:
        return None
    found = []
    for dali_type in pipeline.output_dtype():
        if dali_type is None:
            return None
        from dali.types import to_numpy_type

        found.append(tf.as_dtype(np.dtype(to_numpy_type(dali_type))))
    return tuple(found) if len(found) != 1 else found[0]


def output_structure(
    output_dtypes: Any,
    output_shapes: Any,
    dtypes: Any,
    shapes: Any,
    *,
    pipeline: Pipeline | None,
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Check and normalise the output arguments: one ``tf.DType`` and one ``tf.TensorShape``
    per output, as tuples.

    Args:
        output_dtypes, output_shapes: The arguments as given.
        dtypes, shapes: Their deprecated aliases.
        pipeline: Where to read the output types when ``output_dtypes`` is None.

    Raises:
        TypeError: ``output_dtypes`` is not a ``tf.DType`` or a tuple of them (and cannot be
            read from the pipeline), or ``output_shapes`` does not have its structure.
        ValueError: An alias and its new name were both given, or a shape cannot be a shape,
            or the number of shapes differs from the number of types.
    """
    import tensorflow as tf

    output_shapes = _deprecated(output_shapes, shapes, "shapes")
    output_dtypes = _deprecated(output_dtypes, dtypes, "dtypes")
    given = output_dtypes
    if output_dtypes is None:
        output_dtypes = _pipeline_dtypes(pipeline)
    single = isinstance(output_dtypes, tf.DType)
    if not single and not (
        isinstance(output_dtypes, tuple)
        and output_dtypes
        and all(isinstance(d, tf.DType) for d in output_dtypes)
    ):
        raise TypeError(
            "`output_dtypes` should be provided as single tf.DType value or a tuple of tf.DType "
            f"values. Got value `{given}` of the type `{type(given)}`."
        )
    if single:
        return (output_dtypes,), (tf.TensorShape(output_shapes),)
    if output_shapes is None:
        output_shapes = (None,) * len(output_dtypes)
    if not isinstance(output_shapes, tuple):
        raise TypeError(
            f"`output_shapes` must be a tuple of shapes, one per entry of `output_dtypes` "
            f"({len(output_dtypes)}), got `{output_shapes}` of the type {type(output_shapes)}."
        )
    if len(output_shapes) != len(output_dtypes):
        raise ValueError(
            f"`output_shapes` has {len(output_shapes)} entries but `output_dtypes` has "
            f"{len(output_dtypes)}: give one shape per output."
        )
    return tuple(output_dtypes), tuple(tf.TensorShape(s) for s in output_shapes)


def element_spec(dtypes: tuple[Any, ...], shapes: tuple[Any, ...]) -> tuple[Any, ...]:
    """The dataset's ``element_spec``: a tuple with one ``tf.TensorSpec`` per output."""
    import tensorflow as tf

    return tuple(tf.TensorSpec(shape, dtype) for dtype, shape in zip(dtypes, shapes))


def shape_tuple(shape: Any) -> tuple[int | None, ...] | None:
    """A ``tf.TensorShape`` as a plain tuple (None: unknown rank)."""
    if shape.rank is None:
        return None
    return tuple(shape.as_list())
