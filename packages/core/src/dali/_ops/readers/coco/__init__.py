"""`fn.readers.coco` (`reader`): the annotations file (`annotations`), masks (`masks`) and DALI's
preprocessed annotations (`preprocessed`).
"""
