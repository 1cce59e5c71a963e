"""`fn.readers.coco` (`reader`): the annotations file (`annotations`), masks (`masks`), DALI's
preprocessed annotations (`preprocessed`) and the cache of parsed annotation files (`cache`).
"""
