"""`fn.readers.caffe` and `fn.readers.caffe2` (`reader`): LMDB databases (`database`), the
protobuf wire format of Caffe ``Datum`` and Caffe2 ``TensorProtos`` records (`protos`), what
DALI's parsers make of a record (`records`) and a batch of Caffe2 records decoded at once
(`caffe2_batch`).
"""
