"""Image decoders: ``fn.decoders.image`` and its fused crop variants (`image` module)."""
