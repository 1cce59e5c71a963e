"""Tensor manipulation: joining, adding and removing dimensions, reinterpreting, filling, resizing."""
