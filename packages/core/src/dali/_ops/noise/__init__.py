"""Noise: `fn.noise.gaussian`, `fn.noise.salt_and_pepper`, `fn.noise.shot`."""
