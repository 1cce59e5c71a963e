"""Image filters: convolutions (`gaussian_blur`, `laplacian`, `filter`) and rank/morphology filters (`experimental.median_blur`, `experimental.erode`, `experimental.dilate`)."""
