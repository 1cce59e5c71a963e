"""Image operators: decoders, geometry, colour, one module per family."""
