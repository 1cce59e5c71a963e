"""Reductions: `fn.reductions.*` (min, max, sum, mean, mean_square, rms, std_dev, variance)."""
