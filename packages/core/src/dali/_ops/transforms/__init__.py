"""Affine transforms: `fn.transforms.*`, the matrices that warp_affine and coord_transform take."""
