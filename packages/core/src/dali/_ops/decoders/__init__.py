"""Image decoders: ``fn.decoders.image`` (`image`) and its fused crop variants (`image_crops`)."""
