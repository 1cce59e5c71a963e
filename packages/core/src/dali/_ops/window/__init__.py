"""Windows: the part of each sample an operator keeps, as DALI's crop and slice attributes give it.

`fn.crop`, `fn.crop_mirror_normalize`, `fn.slice` and the ROI decoders
(`fn.decoders.image_crop`, ``image_slice``, ``image_random_crop``) all cut a *window* out of
each sample: an anchor and a shape in the sample's dimensions, possibly reaching outside it.
The operators read their window arguments through one attribute object each, as DALI's
operators hold a ``CropAttr``, a ``SliceAttr`` or a ``RandomCropAttr``, so that every check,
error text and window formula is written once:

=================  ===============================================================================
module             concept
=================  ===============================================================================
`crop_attr`        ``crop``, ``crop_h/w/d``, ``crop_pos_x/y/z``, ``rounding``: `CropAttr`
`slice_attr`       anchor/shape inputs, ``start``/``end``/``shape`` (``rel_``), ``axes``: `SliceAttr`
`random_crop`      ``random_area``, ``random_aspect_ratio``, ``num_attempts``: DALI's generator
`out_of_bounds`    ``out_of_bounds_policy`` and ``fill_values`` (DALI's ``OutOfBoundsAttr``)
`extract`          copying windows out of arrays and batches (numpy or CuPy)
`extract_gpu`      the same for a whole GPU batch in one kernel launch (crop, CMN, flip)
`image_windows`    the decoders' windows: functions of the decoded size (`BatchWindows`)
=================  ===============================================================================

An attribute is built in the operator's ``setup`` (checking the constants) and asked for the
windows of each batch: ``windows(ws, shapes, layout)`` for arrays of known shapes,
``image_windows(ws)`` for images whose size is known only once decoded.
"""
