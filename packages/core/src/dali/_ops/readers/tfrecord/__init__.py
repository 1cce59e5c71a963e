"""`fn.readers.tfrecord` (`reader`): the TFRecord container (`format`), ``tf.train.Example``
parsing (`example`) and the feature specs (`features`).
"""
