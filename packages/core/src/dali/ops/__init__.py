"""The object operator API: ``ops.Resize(resize_x=256)(images)`` inside ``define_graph``.

Classes are generated from the operator registry, like `dali.fn`; legacy names of the DALI
slides (``ops.FileReader``, ``ops.nvJPEGDecoder``) are deprecated aliases.
"""

from dali._graph.api import populate_ops as _populate

__all__: list[str] = []
__all__.extend(_populate(globals(), __name__))  # generated names, sorted
