"""Segmentation and ROI operators: `fn.segmentation.*`, `roi_random_crop`, `random_crop_generator`."""
