"""Helpers for tests, demos and benchmarks (not part of the public API).

`dali._testing.images` writes deterministic image trees: the small class tree the tutorials
read, edge-case files for decoders, and an ImageNet-like set for benchmarks. It needs Pillow
(the ``image`` extra of dali-core), imported only when an image is written.
"""
