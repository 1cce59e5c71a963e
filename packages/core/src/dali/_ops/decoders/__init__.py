"""Decoders: encoded bytes in, tensors out.

* `image/`: ``fn.decoders.image`` and its fused crop variants (``image_crop``,
  ``image_random_crop``, ``image_slice``), ``fn.peek_image_shape``, the codecs behind the CPU
  backend and the planning of the mixed (GPU) one;
* `headers/`: what is read of an encoded image before decoding it (JPEG markers, sizes);
* `nvimgcodec/`: nvImageCodec through its C API (ctypes): the CPU region decoder and the mixed
  backend's batch decoding;
* `video.py` (``fn.decoders.video``), `numpy.py` (``fn.decoders.numpy``), `inflate.py`
  (``fn.decoders.inflate``, LZ4 blocks decoded by `_lz4`).
"""
