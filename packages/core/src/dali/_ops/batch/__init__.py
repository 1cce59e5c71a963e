"""Operators across the samples of a batch: `batch_permutation`, `permute_batch`."""
