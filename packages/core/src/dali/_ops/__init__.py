"""Operator implementations, one module per family. Importing this package registers them all."""

from dali._ops import constant, transfer  # noqa: F401
from dali._ops.random import generators  # noqa: F401
from dali._ops.generic import metadata  # noqa: F401
from dali._ops.math import arithmetic, subscript  # noqa: F401
from dali._ops.readers import file  # noqa: F401
from dali._ops.python import external_source, python_function  # noqa: F401
from dali._ops import conditional  # noqa: F401
from dali._ops.decoders import image  # noqa: F401
from dali._ops.generic import cast  # noqa: F401
from dali._ops.image import crop  # noqa: F401
from dali._ops.image import paste, random_resized_crop, resize, rotate, warp_affine  # noqa: F401
from dali._ops.generic import layout, misc, normalize, slice  # noqa: F401
from dali._ops.image import color, flip  # noqa: F401
