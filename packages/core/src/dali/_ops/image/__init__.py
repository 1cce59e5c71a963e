"""Image operators (DALI §3.2–3.15): decoders, geometry, colour, one module per family."""
