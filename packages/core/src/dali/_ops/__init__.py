"""Operator implementations, one module per family. Importing this package registers them all."""

from dali._ops import (  # noqa: F401
    conditional,
    constant,
    transfer,
)
from dali._ops.decoders import image  # noqa: F401
from dali._ops.generic import (  # noqa: F401
    cast,
    layout,
    metadata,
    misc,
    normalize,
    slice,
)
from dali._ops.image import (  # noqa: F401
    color,
    crop,
    flip,
    paste,
    random_resized_crop,
    resize,
    rotate,
    warp_affine,
)
from dali._ops.math import arithmetic, subscript  # noqa: F401
from dali._ops.python import external_source, python_function  # noqa: F401
from dali._ops.random import generators  # noqa: F401
from dali._ops.readers import file  # noqa: F401
