"""Operator implementations, one module per family. Importing this package registers them all.

Each module declares its operators with `dali._graph.schema.register`; adding a family means
adding its module to `_MODULES`. (Modules are imported by name rather than with ``from ...
import`` so that no module attribute shadows a sub-package: ``decoders.image`` vs ``image``.)
"""

import importlib

_MODULES = (
    "conditional",
    "constant",
    "batch.permute",
    "decoders.image.crops",
    "decoders.image.decoder",
    "decoders.image.peek_image_shape",
    "decoders.inflate",
    "decoders.numpy",
    "decoders.video",
    "detection.bb_flip",
    "detection.bbox_paste",
    "detection.bbox_rotate",
    "detection.box_encoder",
    "detection.coord_flip",
    "detection.coord_transform",
    "detection.random_bbox_crop",
    "filters.convolution",
    "filters.morphology",
    "generic.cast",
    "generic.layout",
    "generic.lookup_table",
    "generic.metadata",
    "generic.misc",
    "generic.normalize",
    "generic.sequence",
    "generic.slice",
    "image.color",
    "image.crop",
    "image.crop_mirror_normalize",
    "image.flip",
    "image.paste",
    "image.random_resized_crop",
    "image.resize",
    "image.rotate",
    "image.warp_affine",
    "io.file_read",
    "math.arithmetic",
    "math.subscript",
    "python.external_source",
    "python.python_function",
    "random.distributions",
    "random.generators",
    "readers.coco.reader",
    "readers.file",
    "readers.numpy.reader",
    "readers.tfrecord.reader",
    "readers.video",
    "readers.webdataset.reader",
    "reductions.reduce",
    "segmentation.random_mask_pixel",
    "segmentation.random_object_bbox",
    "segmentation.roi_crop",
    "segmentation.select_masks",
    "tensor.dims",
    "tensor.fill",
    "tensor.join",
    "tensor.reinterpret",
    "tensor.tensor_resize",
    "transfer",
    "transforms.affine",
    "video.input",
    "video.optical_flow",
)

for _name in _MODULES:
    importlib.import_module(f"{__name__}.{_name}")
del _name
