"""The `augmentation` decorator: a function of DALI operators becomes an `Augmentation`.
As DALI's ``nvidia/dali/auto_aug/core/decorator.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from numpy import typing as npt

from dali.auto_aug.core._augmentation import Augmentation, MagRange
from dali.data_node import DataNode as _DataNode

__all__ = ["augmentation"]


@overload
def augmentation(
    function: Callable[..., _DataNode],
    *,
    mag_range: MagRange | None = None,
    randomly_negate: bool | None = None,
    mag_to_param: Callable[[float], npt.ArrayLike] | None = None,
    param_device: str | None = None,
    name: str | None = None,
    augmentation_cls: type[Augmentation] | None = None,
) -> Augmentation: ...
@overload
def augmentation(
    function: None = None,
    *,
    mag_range: MagRange | None = None,
    randomly_negate: bool | None = None,
    mag_to_param: Callable[[float], npt.ArrayLike] | None = None,
    param_device: str | None = None,
    name: str | None = None,
    augmentation_cls: type[Augmentation] | None = None,
) -> Callable[[Callable[..., _DataNode]], Augmentation]: ...
def augmentation(
    function: Callable[..., _DataNode] | None = None,
    *,
    mag_range: MagRange | None = None,
    randomly_negate: bool | None = None,
    mag_to_param: Callable[[float], npt.ArrayLike] | None = None,
    param_device: str | None = None,
    name: str | None = None,
    augmentation_cls: type[Augmentation] | None = None,
) -> Any:
    """A decorator turning transformations implemented with DALI into augmentations that
    can be used by automatic augmentations (e.g. AutoAugment, RandAugment, TrivialAugment).

    The `function` must accept at least two args: a sample and a parameter. The decorator
    handles computation of the parameter. Instead of the parameter, the decorated augmentation
    accepts magnitude bin and the total number of bins. Then, the bin is used to compute the
    parameter as if by calling `mag_to_param(magnitudes[magnitude_bin] * ((-1) ** random_sign))`,
    where `magnitudes=linspace(mag_range[0], mag_range[1], num_magnitude_bins)`.

    Args:
        function: A function that accepts at least two positional args: a batch (represented
            as DataNode) to be processed, and a parameter of the transformation. The function
            must use DALI operators to process the batch and return a single output of such
            processing.
        mag_range: Specifies the range of applicable magnitudes for the operation. If the tuple
            is provided, the magnitudes will be computed as
            `linspace(mag_range[0], mag_range[1], num_magnitude_bins)`. If the np.ndarray is
            provided, it will be used directly instead of the linspace. If no `mag_range` is
            specified, the parameter passed to the `function` will be `None`.
        randomly_negate: If `True`, the magnitude from the mag_range will be randomly negated
            for every sample.
        mag_to_param: A callback that transforms the magnitude into a parameter. The parameter
            will be passed to the decorated operation instead of the plain magnitude. This way,
            the parameters for the range of magnitudes can be computed once in advance and
            stored as a Constant node. Note, the callback must return numpy arrays or data
            directly convertible to numpy arrays (in particular, no pipelined DALI operators
            can be used in the callback). The output type and dimensionality must be
            consistent and not depend on the magnitude.
        param_device: A "cpu", "gpu", or "auto"; defaults to "cpu". Describes where to store
            the precomputed parameters (i.e. the `mag_to_param` outputs). If "auto" is
            specified, the CPU or GPU backend will be selected to match the `sample`'s backend.
        name: Name of the augmentation. By default, the name of the decorated function is used.
        augmentation_cls: The class to create (an `Augmentation` subclass); `Augmentation` by
            default.

    Returns:
        The operation wrapped with the Augmentation class so that it can be used with the
        `auto_aug` transforms (or, without `function`, a decorator making one).

    Example:
        >>> import numpy as np
        >>> from dali import types
        >>> @augmentation(mag_range=(0, 100), randomly_negate=True)
        ... def shift_values(data, shift):
        ...     return data + shift
        >>> shift_values.name, shift_values.mag_range, shift_values.randomly_negate
        ('shift_values', (0, 100), True)
    """

    def decorator(function: Callable[..., _DataNode]) -> Augmentation:
        cls = augmentation_cls or Augmentation
        return cls(
            function,
            mag_range=mag_range,
            mag_to_param=mag_to_param,
            randomly_negate=randomly_negate,
            param_device=param_device,
            name=name,
        )

    if function is None:
        return decorator
    if not callable(function):
        raise TypeError(
            f"The `@augmentation` decorator was used to decorate the object that "
            f"is not callable: {function}."
        )
    if isinstance(function, Augmentation):
        # whether to "update the setup" or "discard and create" would not be clear
        raise TypeError(
            f"The `@augmentation` was applied to already decorated Augmentation. "
            f"Please call `{function.name}.augmentation` method to modify the augmentation "
            f"setup or apply the decorator to the underlying `{function.name}.op` directly.\n"
            f"Error in augmentation: {function}."
        )
    return decorator(function)
