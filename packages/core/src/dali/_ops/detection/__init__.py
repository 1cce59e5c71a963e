"""Detection operators: boxes flipped, pasted, cropped, encoded and transformed with their images."""
