"""Video: container indexing, frame-exact decoding on CPU (PyAV) and GPU (NVDEC), optical flow."""
