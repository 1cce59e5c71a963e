"""The standard suite of augmentations of AutoAugment, RandAugment and TrivialAugmentWide.

Each is a function of DALI operators wrapped by `@augmentation` with an example setup: a
magnitude range, whether magnitudes are randomly negated and how a magnitude becomes the
operator's parameter. When called, a decorated augmentation expects:

* a single positional argument: the batch of samples (``HWC`` images or ``FHWC`` videos,
  ``uint8``, on the CPU or the GPU);
* ``magnitude_bin`` and ``num_magnitude_bins`` instead of the parameter. The parameter is
  computed as if by calling ``mag_to_param(magnitudes[magnitude_bin] * ((-1) ** random_sign))``,
  where ``magnitudes = linspace(mag_range[0], mag_range[1], num_magnitude_bins)``;
* extra named arguments that the function takes (``fill_value``, ``interp_type``, ``shape``...).

The setups can be adjusted: ``my_shear_x = shear_x.augmentation(mag_range=(0, 0.5))`` widens
the shear range. The geometric ones (shear, translate, rotate) warp with ``fill_value`` (128;
None: repeat the border), the colour ones follow PIL's ``ImageEnhance`` (brightness, contrast,
color, sharpness) and ``ImageOps`` (posterize, solarize, invert, equalize, autocontrast).
As DALI's ``nvidia/dali/auto_aug/augmentations.py``.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali.auto_aug import augmentations as a
    >>> @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=0)
    ... def pipe():
    ...     img = dali.types.Constant(np.full((4, 4, 3), 100, np.uint8), layout="HWC")
    ...     return a.solarize(img, magnitude_bin=1, num_magnitude_bins=3)
    >>> (out,) = pipe().run()
    >>> int(out.at(0)[0, 0, 0])  # threshold 128 (of 256, 128, 0): 100 stays
    100
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali import fn, types
from dali.auto_aug.core import augmentation
from dali.data_node import DataNode as _DataNode

__all__ = [
    "auto_contrast",
    "brightness",
    "color",
    "contrast",
    "equalize",
    "identity",
    "invert",
    "poster_mask_uint8",
    "posterize",
    "rotate",
    "sharpness",
    "sharpness_kernel",
    "sharpness_kernel_shifted",
    "shear_x",
    "shear_y",
    "shift_enhance_range",
    "solarize",
    "solarize_add",
    "solarize_add_shift",
    "translate_x",
    "translate_x_no_shape",
    "translate_y",
    "translate_y_no_shape",
    "warp_x_param",
    "warp_y_param",
]


def warp_x_param(magnitude: Any) -> list[Any]:
    """The ``[x, y]`` vector of a horizontal shear or shift."""
    return [magnitude, 0]


def warp_y_param(magnitude: Any) -> list[Any]:
    """The ``[x, y]`` vector of a vertical shear or shift."""
    return [0, magnitude]


def _warp(data: _DataNode, mt: _DataNode, fill_value: Any, interp_type: Any) -> _DataNode:
    """``data`` warped by the source-to-destination transform ``mt``."""
    return fn.warp_affine(
        data, matrix=mt, fill_value=fill_value, interp_type=interp_type, inverse_map=False
    )


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_x_param)
def shear_x(
    data: _DataNode, shear: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    return _warp(data, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_y_param)
def shear_y(
    data: _DataNode, shear: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    return _warp(data, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_x_param)
def translate_x(
    data: _DataNode, rel_offset: Any, shape: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    offset = rel_offset * shape[1]
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(
    mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_x_param, name="translate_x"
)
def translate_x_no_shape(
    data: _DataNode, offset: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_y_param)
def translate_y(
    data: _DataNode, rel_offset: Any, shape: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    offset = rel_offset * shape[0]
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(
    mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_y_param, name="translate_y"
)
def translate_y_no_shape(
    data: _DataNode, offset: Any, fill_value: Any = 128, interp_type: Any = None
) -> _DataNode:
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 30), randomly_negate=True)
def rotate(
    data: _DataNode,
    angle: Any,
    fill_value: Any = 128,
    interp_type: Any = None,
    rotate_keep_size: bool = True,
) -> _DataNode:
    result: _DataNode = fn.rotate(
        data,
        angle=angle,
        fill_value=fill_value,
        interp_type=interp_type,
        keep_size=rotate_keep_size,
    )
    return result


def shift_enhance_range(magnitude: Any) -> Any:
    """The `enhance` operations (brightness, contrast, color, sharpness) accept magnitudes
    from [0, 2] range. However, the neutral magnitude is not 0 but 1 and the intuitive strength
    of the operation increases the further the magnitude is from 1. So, we specify magnitudes
    range to be in [0, 1] range, expect it to be randomly negated and then shift it by 1."""
    return 1 + magnitude


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def brightness(data: _DataNode, parameter: Any) -> _DataNode:
    return fn.brightness(data, brightness=parameter)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def contrast(data: _DataNode, parameter: Any) -> _DataNode:
    """It follows PIL implementation of Contrast enhancement which uses a channel-weighted
    mean as a contrast center."""
    # assumes FHWC or HWC layout
    mean: Any = fn.reductions.mean(data, axis_names="HW", keep_dims=True)
    rgb_weights = types.Constant(np.array([0.299, 0.587, 0.114], dtype=np.float32))
    center: Any = fn.reductions.sum(mean * rgb_weights, axis_names="C", keep_dims=True)
    # not `fn.contrast(data, contrast=parameter, contrast_center=center)`: for GPU `data`
    # the `center` is in GPU memory, which a named argument cannot be
    result: _DataNode = fn.cast_like(center + (data - center) * parameter, data)
    return result


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def color(data: _DataNode, parameter: Any) -> _DataNode:
    return fn.saturation(data, saturation=parameter)


def sharpness_kernel(magnitude: Any) -> np.ndarray:
    """The 3x3 kernel of PIL's ``ImageEnhance.Sharpness`` for a magnitude in [-1, 1]: the
    identity blended with PIL's smoothing filter (``1 + magnitude`` is PIL's factor)."""
    blur = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float32) / 13
    ident = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=np.float32)
    kernel: np.ndarray = -magnitude * blur + (1 + magnitude) * ident
    return kernel


def sharpness_kernel_shifted(magnitude: Any) -> np.ndarray:
    """`sharpness_kernel` for PIL's factor in [0, 2]."""
    return sharpness_kernel(magnitude - 1)


@augmentation(
    mag_range=(0, 0.9), randomly_negate=True, mag_to_param=sharpness_kernel, param_device="auto"
)
def sharpness(data: _DataNode, kernel: Any) -> _DataNode:
    """The outputs correspond to PIL's ImageEnhance.Sharpness with the exception for 1px
    border around the output. PIL computes convolution with smoothing filter only for
    valid positions (no out-of-bounds filter positions) and pads the output with the input."""
    result: _DataNode = fn.filter(data, kernel)
    return result


def poster_mask_uint8(magnitude: Any) -> np.ndarray:
    """The mask keeping the ``round(magnitude)`` upper bits of a byte (in [1, 8]).

    0 bits would zero the images: as the AutoAugment and RandAugment implementations that
    https://arxiv.org/pdf/1909.13719.pdf refers to, 0 is taken for 1.
    """
    bits = np.round(magnitude).astype(np.uint32)
    if bits <= 0:
        bits = np.uint32(1)
    elif bits > 8:
        bits = np.uint32(8)
    nbits = np.round(8 - bits).astype(np.uint32)
    removal_mask = np.uint8(2) ** nbits - 1
    return np.array(np.uint8(255) ^ removal_mask, dtype=np.uint8)


@augmentation(mag_range=(0, 4), mag_to_param=poster_mask_uint8, param_device="auto")
def posterize(data: _DataNode, mask: Any) -> _DataNode:
    samples: Any = data
    result: _DataNode = samples & mask
    return result


@augmentation(mag_range=(256, 0), param_device="auto")
def solarize(data: _DataNode, threshold: Any) -> _DataNode:
    samples: Any = data
    sample_inv = types.Constant(255, dtype=types.UINT8) - samples
    mask_unchanged = samples < threshold
    mask_inverted = mask_unchanged ^ True
    result: _DataNode = mask_unchanged * samples + mask_inverted * sample_inv
    return result


def solarize_add_shift(shift: Any) -> np.ndarray:
    """The shift of `solarize_add` as uint8 (below 128)."""
    if shift >= 128:
        raise ValueError("The solarize_add augmentation accepts shifts from 0 to 128")
    return np.array(np.uint8(shift))


@augmentation(mag_range=(0, 110), param_device="auto", mag_to_param=solarize_add_shift)
def solarize_add(data: _DataNode, shift: Any) -> _DataNode:
    samples: Any = data
    mask_shifted = samples < types.Constant(128, dtype=types.UINT8)
    mask_id = mask_shifted ^ True
    sample_shifted = samples + shift
    result: _DataNode = mask_shifted * sample_shifted + mask_id * samples
    return result


@augmentation
def invert(data: _DataNode, _: Any) -> _DataNode:
    result: _DataNode = types.Constant(255, dtype=types.UINT8) - data
    return result


@augmentation
def equalize(data: _DataNode, _: Any) -> _DataNode:
    """DALI's equalize follows OpenCV's histogram equalization. The PIL uses slightly different
    formula when transforming histogram's cumulative sum into lookup table."""
    return fn.equalize(data)


@augmentation
def auto_contrast(data: _DataNode, _: Any) -> _DataNode:
    # assumes FHWC or HWC layout
    lo: Any = fn.reductions.min(data, axis_names="HW", keep_dims=True)
    hi: Any = fn.reductions.max(data, axis_names="HW", keep_dims=True)
    diff = hi - lo
    mask_scale = diff > 0
    mask_id = mask_scale ^ True
    # div_by is diff where diff > 0 and 255 elsewhere: the scale is then 255 / diff or 1
    div_by = diff * mask_scale + types.Constant(255, dtype=types.UINT8) * mask_id
    scale = 255 / div_by
    scaled = (data - lo * mask_scale) * scale
    result: _DataNode = fn.cast_like(scaled, data)
    return result


@augmentation
def identity(data: _DataNode, _: Any) -> _DataNode:
    return data
