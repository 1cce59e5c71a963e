"""The functional operator API: ``dali.fn.resize(images, resize_x=256)``.

Every function here is generated from the operator registry (`dali._graph.schema`); nested
namespaces (``fn.readers.file``, ``fn.random.uniform``) are modules too.
"""

from dali._graph.api import populate_fn as _populate

__all__: list[str] = []
__all__.extend(_populate(globals(), __name__))  # generated names, sorted
