"""`fn.readers.mxnet` (`reader`): the MXNet RecordIO container and image records (`format`), its
index files (`index`) and the ``.rec`` files read as one stream of bytes (`stream`).
"""
