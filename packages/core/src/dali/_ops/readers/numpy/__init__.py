"""`fn.readers.numpy` (`reader`): ``.npy`` headers (`header`) and reading a box of an array
(`box`).
"""
