"""`fn.readers.webdataset` (`reader`): the samples of a shard (`index`) from its tar headers
(`tar`).
"""
